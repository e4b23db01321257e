/**
 * What happens to a request body nobody will read: the client's connection after an answer sent
 * before the body arrived (a service refusing an upload at once with 404/403/415, a service's or
 * the gateway's own 413).
 *
 * When to use: call `answerEarly` before the response headers are written, whenever the answer
 * goes out while the client may still be sending. Without it the connection is left half-read:
 * a client that sends its whole body before reading (Python `requests`, urllib3, most SDKs)
 * never gets the answer, and a keep-alive socket never serves its next request.
 *
 * How: the rest of the body is read and discarded, bounded by bytes and time, so the client
 * finishes sending, reads the answer and may reuse the connection. When the declared body is
 * larger than the bound (or the caller asks for it), the answer says `Connection: close` and the
 * connection lingers after the answer (half-closed, still discarding, within the same bounds)
 * before it closes: closing at once while the client still sends would reset the connection, and
 * a reset may destroy the answer in the client's buffers before it reads it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Bounds on discarding an unread request body. */
export interface DrainLimits {
  /** Most bytes read and discarded before the connection is closed. */
  maxBytes: number;
  /** Longest time spent discarding before the connection is closed. */
  timeoutMs: number;
}

/** Defaults: enough for the usual refused upload, small next to any real upload. */
export const DEFAULT_DRAIN_LIMITS: DrainLimits = { maxBytes: 64 * 1024 * 1024, timeoutMs: 15_000 };

const DRAIN = Symbol('gateway.drain');

/** State of one drain, reached from listeners through a symbol (no per-request closures). */
class Drain {
  read = 0;
  /** The answer went out with `Connection: close` and the socket lingers until the body ends. */
  lingering = false;
  timer: NodeJS.Timeout;
  constructor(
    readonly req: IncomingMessage,
    readonly socket: Socket,
    readonly limits: DrainLimits,
  ) {
    this.timer = setTimeout(closeSocket, limits.timeoutMs, socket);
    this.timer.unref();
  }
}

type WithDrain<T> = T & { [DRAIN]?: Drain };

function closeSocket(socket: Socket): void {
  socket.destroy();
}
function onDrainData(this: WithDrain<IncomingMessage>, chunk: Buffer): void {
  const d = this[DRAIN] as Drain;
  d.read += chunk.length;
  if (d.read > d.limits.maxBytes) d.socket.destroy();
}
function onDrainEnd(this: WithDrain<IncomingMessage>): void {
  const d = this[DRAIN] as Drain;
  clearTimeout(d.timer);
  // Every byte the client sent is read: closing now is clean (no reset).
  if (d.lingering) d.socket.destroy();
}
function onDrainClose(this: WithDrain<IncomingMessage>): void {
  clearTimeout((this[DRAIN] as Drain).timer);
}

/** True when the request may still have body bytes on the wire. */
export function bodyPending(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const h = req.headers;
  if (h['transfer-encoding'] !== undefined) return true;
  const len = h['content-length'];
  return len !== undefined && len !== '0';
}

/**
 * Prepare the client connection for an answer sent before the request body was read: discard
 * the rest of the body within `limits`; with `Connection: close` (set here) when the declared
 * body exceeds `limits.maxBytes` or `opts.close` is given. A no-op when the body is complete.
 * Call before the response headers are written; the caller must have stopped reading the body
 * itself (unpiped it).
 */
export function answerEarly(req: IncomingMessage, res: ServerResponse, limits: DrainLimits, opts: { close?: boolean } = {}): void {
  const r = req as WithDrain<IncomingMessage>;
  if (!bodyPending(r) || r[DRAIN]) return;
  const declared = Number(r.headers['content-length']);
  const close = opts.close === true || (Number.isFinite(declared) && declared > limits.maxBytes);
  const d = new Drain(r, r.socket, limits);
  r[DRAIN] = d;
  r.on('data', onDrainData);
  r.once('end', onDrainEnd);
  r.once('close', onDrainClose);
  r.resume();
  if (close && !res.headersSent) {
    res.setHeader('Connection', 'close');
    (res as WithDrain<ServerResponse>)[DRAIN] = d;
    res.once('finish', lingerAfterAnswer);
  }
}

/**
 * After a `Connection: close` answer node ends the socket and destroys it once the answer is
 * flushed; the client may still be sending, and a close with unread bytes is a reset. Keep the
 * socket (half-closed) until the body ends, the client closes, or the drain bounds run out.
 */
function lingerAfterAnswer(this: WithDrain<ServerResponse>): void {
  const d = this[DRAIN] as Drain;
  const socket = d.socket;
  if (socket.destroyed || d.req.complete) return;
  // Why removeListener: node's `destroySoon()` (run just before, from the server's own 'finish'
  // listener) queued `destroy` for the socket's 'finish'; the drain decides when to close instead.
  socket.removeListener('finish', socket.destroy);
  d.lingering = true;
  socket.once('end', destroyOnEnd);
}

function destroyOnEnd(this: Socket): void {
  this.destroy();
}
