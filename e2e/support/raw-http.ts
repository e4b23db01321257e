/**
 * A raw HTTP/1.1 client over one TCP connection (net.Socket), for what fetch and http.request
 * hide: a request whose body keeps coming while the answer is already there (no
 * `Expect: 100-continue`, as curl sends bodies under its threshold), how the connection ends
 * (a clean close or a reset), and several requests on one connection.
 */
import net, { type Socket } from 'node:net';

/** One parsed HTTP/1.1 answer. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the first byte written to the whole answer parsed. */
  ms: number;
}

/** What one raw exchange saw. */
export interface RawExchange {
  responses: RawResponse[];
  /** Body bytes the client had written when the first answer was complete. */
  sentAtFirstAnswer: number;
  /** Body bytes written in all. */
  sent: number;
  /** The socket error, if the connection broke (ECONNRESET, EPIPE…); undefined: it ended cleanly. */
  socketError?: string;
  /** The server closed its side (FIN) before the client ended. */
  serverClosed: boolean;
}

/** Parse as many complete answers as `buf` holds (Content-Length or chunked framing). */
export function parseResponses(buf: Buffer, started: number): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const [statusLine, ...lines] = buf.subarray(at, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    let bodyStart = end + 4;
    let body: Buffer;
    if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      let p = bodyStart;
      let complete = false;
      for (;;) {
        const le = buf.indexOf('\r\n', p);
        if (le < 0) break;
        const size = Number.parseInt(buf.subarray(p, le).toString('latin1'), 16);
        if (buf.length < le + 2 + size + 2) break;
        if (size === 0) {
          p = le + 4;
          complete = true;
          break;
        }
        parts.push(buf.subarray(le + 2, le + 2 + size));
        p = le + 2 + size + 2;
      }
      if (!complete) break;
      body = Buffer.concat(parts);
      bodyStart = p;
    } else {
      const len = Number(headers['content-length'] ?? 0);
      if (buf.length < bodyStart + len) break;
      body = buf.subarray(bodyStart, bodyStart + len);
      bodyStart += len;
    }
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8'), ms: Date.now() - started });
    at = bodyStart;
  }
  return { responses, rest: buf.subarray(at) };
}

/** Until `socket` can take more (or closed); both listeners removed either way. */
function drained(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('close', done);
  });
}

const MB = 1024 * 1024;

/** A request head with a Content-Length of `size` and no `Expect`; `headers` are added as given. */
export function head(method: string, path: string, host: string, size: number, headers: Record<string, string> = {}): string {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}Content-Length: ${size}\r\n\r\n`;
}

/**
 * On one connection to `target`: write `first` (a head), then `size` body bytes in 1 MiB writes,
 * honouring back-pressure and never pausing for the answer (a client that keeps sending); then
 * each of `then` (complete requests); then end the connection. Resolves once `expect` answers
 * arrived and the connection closed, or after `timeoutMs`.
 */
export function sendWhileAnswered(
  target: { host: string; port: number },
  first: string,
  size: number,
  then: string[],
  expect: number,
  timeoutMs = 30_000,
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = net.connect(target.port, target.host);
    const started = Date.now();
    let buf = Buffer.alloc(0);
    const out: RawExchange = { responses: [], sentAtFirstAnswer: -1, sent: 0, serverClosed: false };
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(out);
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (c: Buffer) => {
      const parsed = parseResponses(Buffer.concat([buf, c]), started);
      buf = parsed.rest;
      for (const r of parsed.responses) {
        if (out.responses.length === 0) out.sentAtFirstAnswer = out.sent;
        out.responses.push(r);
      }
      if (out.responses.length >= expect && !socket.writableEnded) socket.end();
    });
    socket.on('end', () => {
      out.serverClosed = true;
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      out.socketError = e.code ?? e.message;
    });
    socket.on('close', finish);
    void (async () => {
      const chunk = Buffer.alloc(MB, 0x61);
      const write = async (b: Buffer | string) => {
        if (socket.destroyed || socket.writableEnded) return false;
        if (!socket.write(b)) await drained(socket);
        return true;
      };
      await write(first);
      for (let left = size; left > 0; left -= MB) {
        const part = left >= MB ? chunk : chunk.subarray(0, left);
        if (!(await write(part))) return;
        out.sent += part.length;
      }
      for (const r of then) if (!(await write(r))) return;
    })();
  });
}
