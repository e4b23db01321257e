/**
 * A raw HTTP/1.1 client over one TCP connection (net.Socket), for what fetch and http.request
 * hide: a request whose body keeps coming while the answer is already there (no
 * `Expect: 100-continue`, as curl sends bodies under its threshold), how the connection ends
 * (a clean close or a reset), and several requests on one connection.
 *
 * When to use: tests of early answers and HTTP bounds (the platform's `http-bounds.test.ts`, the
 * gateway's and files' integration tests, e2e `support/raw-http.ts`). `rawExchange` writes a
 * sequence of heads (strings) and body bytes (Buffers) honouring back-pressure and never pausing
 * for an answer; `writeAll`, `bodyParts` and `drained` are its pieces for a test holding its own
 * socket; `parseResponses` frames answers (Content-Length or chunked).
 */
import net, { type Socket } from 'node:net';

/** One MiB. */
export const MB = 1024 * 1024;

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
  /** Body bytes the client had written when the first answer was complete (-1: no answer). */
  sentAtFirstAnswer: number;
  /** Body bytes written in all (Buffers; heads and chunk framing, written as strings, not counted). */
  sent: number;
  /** The socket error, if the connection broke (ECONNRESET, EPIPE…); undefined: it ended cleanly. */
  socketError?: string;
  /** The server closed its side (FIN) before the client ended. */
  serverClosed: boolean;
  /** The connection closed (or the time ran out) before `expect` answers arrived. */
  closedEarly: boolean;
}

/** Parse as many complete answers as `buf` holds (Content-Length or chunked framing). */
export function parseResponses(buf: Buffer, started = Date.now()): { responses: RawResponse[]; rest: Buffer } {
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
export function drained(socket: Socket): Promise<void> {
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

/**
 * Write each of `writes` to `socket`, honouring back-pressure and never waiting for an answer;
 * `onBody` is told the length of every Buffer written (body bytes). Resolves false as soon as the
 * socket is destroyed or ended (what is left is not written), true once everything was written.
 */
export async function writeAll(socket: Socket, writes: Iterable<string | Buffer>, onBody?: (bytes: number) => void): Promise<boolean> {
  for (const w of writes) {
    if (socket.destroyed || socket.writableEnded) return false;
    if (!socket.write(w)) await drained(socket);
    if (typeof w !== 'string') onBody?.(w.length);
  }
  return !socket.destroyed;
}

/**
 * `size` body bytes as Buffers of `chunkBytes` (default 1 MiB) filled with `fill` (default `a`);
 * `chunked`: each framed as a chunk (the framing as strings) and the last chunk after them.
 */
export function* bodyParts(size: number, o: { chunkBytes?: number; fill?: number; chunked?: boolean } = {}): Generator<string | Buffer> {
  const chunk = Buffer.alloc(o.chunkBytes ?? MB, o.fill ?? 0x61);
  for (let left = size; left > 0; left -= chunk.length) {
    const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
    if (o.chunked) yield `${part.length.toString(16)}\r\n`;
    yield part;
    if (o.chunked) yield '\r\n';
  }
  if (o.chunked) yield '0\r\n\r\n';
}

/**
 * A request head (no `Expect`): `size` a Content-Length, `'chunked'` a chunked body, null no
 * body header; `headers` are added as given.
 */
export function requestHead(
  method: string,
  path: string,
  host: string,
  size: number | 'chunked' | null,
  headers: Record<string, string> = {},
): string {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const framing = size === null ? '' : size === 'chunked' ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${size}\r\n`;
  return `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}${framing}\r\n`;
}

/**
 * On one connection to `target`, write `writes` (see `writeAll`) and collect answers until
 * `expect` arrived — then (`afterAnswers`) `end` the client's side and wait for the close
 * (default), or `destroy` at once — or until the connection closed or `timeoutMs` (default 30 s) passed.
 */
export function rawExchange(
  target: { host: string; port: number },
  writes: Iterable<string | Buffer>,
  o: { expect: number; afterAnswers?: 'end' | 'destroy'; timeoutMs?: number },
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = net.connect(target.port, target.host);
    const started = Date.now();
    let buf = Buffer.alloc(0);
    const out: RawExchange = { responses: [], sentAtFirstAnswer: -1, sent: 0, serverClosed: false, closedEarly: false };
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      out.closedEarly = out.responses.length < o.expect;
      socket.destroy();
      resolve(out);
    };
    const timer = setTimeout(finish, o.timeoutMs ?? 30_000);
    socket.on('data', (c: Buffer) => {
      const parsed = parseResponses(Buffer.concat([buf, c]), started);
      buf = parsed.rest;
      for (const r of parsed.responses) {
        if (out.responses.length === 0) out.sentAtFirstAnswer = out.sent;
        out.responses.push(r);
      }
      if (out.responses.length < o.expect) return;
      if (o.afterAnswers === 'destroy') finish();
      else if (!socket.writableEnded) socket.end();
    });
    socket.on('end', () => {
      out.serverClosed = true;
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      out.socketError = e.code ?? e.message;
    });
    socket.on('close', finish);
    void writeAll(socket, writes, (n) => {
      out.sent += n;
    });
  });
}
