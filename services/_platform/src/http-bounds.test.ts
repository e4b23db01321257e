/**
 * The HTTP server bounds on a real server and real sockets: slow heads and bodies are cut with a
 * JSON 408 and the connection closed; a body at an ordinary rate, or one the service itself is slow
 * to read, passes. Bounds are scaled down (hundreds of milliseconds) so the whole file runs in a
 * few seconds; every client is bounded in count and time.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { bodyParts, writeAll } from './testing/raw-http.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BODY_TIMEOUT_MESSAGE, createBoundedServer, DEFAULT_HTTP_SERVER_BOUNDS, type HttpServerBounds } from './http-bounds.js';

const BOUNDS: HttpServerBounds = {
  headersTimeoutMs: 600,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5000,
  bodyIdleTimeoutMs: 500,
  bodyMinBytesPerSecond: 200,
  bodyRateWindowMs: 700,
  checkIntervalMs: 50,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  if (server) await new Promise((r) => server?.close(r));
  server = undefined;
});

/** What the handler saw: the body bytes it read, or how reading failed. */
interface Seen {
  bytes?: number;
  error?: string;
}

/** A server whose handler reads the whole body (after `delayReadMs`, or after answering first), then answers 200 with its size. */
async function start(
  bounds: HttpServerBounds,
  o: { delayReadMs?: number; answerFirst?: boolean } = {},
): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createBoundedServer((req: IncomingMessage, res: ServerResponse) => {
    const s: Seen = {};
    seen.push(s);
    if (o.answerFirst) {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('started\n');
    }
    const read = () => {
      let n = 0;
      req.on('data', (c: Buffer) => {
        n += c.length;
      });
      req.on('end', () => {
        s.bytes = n;
        const body = JSON.stringify({ bytes: n });
        if (!res.headersSent) res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
        res.end(body);
      });
      req.on('error', (e) => {
        s.error = e.message;
      });
      req.on('aborted', () => {
        s.error ??= 'aborted';
      });
    };
    if (o.delayReadMs) setTimeout(read, o.delayReadMs);
    else read();
  }, bounds);
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return { port: addr.port, seen };
}

/** A raw client socket: everything it receives, and when it closed (`halfOpen`: it may still send after the server's FIN). */
function client(port: number, halfOpen = false): { socket: Socket; received: () => string; closed: Promise<number> } {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: halfOpen });
  sockets.push(socket);
  let data = '';
  socket.on('data', (c) => {
    data += c.toString('latin1');
  });
  socket.on('error', () => undefined);
  const t0 = Date.now();
  const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - t0)));
  return { socket, received: () => data, closed };
}

/** Status line and JSON body of a raw answer. */
function parse(raw: string): { status: number; headers: string; body: unknown } {
  const [head, body = ''] = raw.split('\r\n\r\n');
  const json = /content-type: application\/json/i.test(head) && body;
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: json ? JSON.parse(body) : body };
}

/** Resolves with `p`, or rejects after `ms` (every wait in this file is bounded). */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`not within ${ms} ms`)))]);
}

const HEAD = (len: number | 'chunked') =>
  `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n${
    len === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${len}`
  }\r\n\r\n`;

describe('createBoundedServer', () => {
  it('should cut a body trickling a byte at a time (not idle, too slow) with a JSON 408 and close the connection', async () => {
    const { port, seen } = await start(BOUNDS);
    const c = client(port);
    c.socket.write(HEAD(1000));
    // A byte every 150 ms: never idle for 500 ms, but 7 bytes/s against the 200 bytes/s minimum.
    const trickle = setInterval(() => c.socket.writable && c.socket.write('x'), 150);
    try {
      const closedAfter = await within(c.closed, 3000);
      expect(closedAfter).toBeGreaterThanOrEqual(BOUNDS.bodyRateWindowMs - 50);
      expect(closedAfter).toBeLessThan(BOUNDS.bodyRateWindowMs + 1000);
    } finally {
      clearInterval(trickle);
    }
    const answer = parse(c.received());
    expect(answer.status).toBe(408);
    expect(answer.headers).toContain('connection: close');
    expect(answer.headers).toContain('content-type: application/json');
    expect(answer.body).toEqual({ status: 408, message: BODY_TIMEOUT_MESSAGE });
    expect(seen[0].bytes).toBeUndefined(); // the handler never got a whole body
  });

  it('should cut a chunked body that stops (idle) with a JSON 408', async () => {
    const { port } = await start({ ...BOUNDS, bodyMinBytesPerSecond: 0 });
    const c = client(port);
    c.socket.write(`${HEAD('chunked')}5\r\nhello\r\n`);
    const closedAfter = await within(c.closed, 3000);
    expect(closedAfter).toBeGreaterThanOrEqual(BOUNDS.bodyIdleTimeoutMs - 50);
    expect(parse(c.received())).toMatchObject({ status: 408, body: { status: 408, message: BODY_TIMEOUT_MESSAGE } });
  });

  it('should cut many slow bodies at once, each within its bound (a pool of connections cannot be held)', { timeout: 10_000 }, async () => {
    const { port } = await start(BOUNDS);
    const clients = Array.from({ length: 20 }, () => client(port));
    for (const c of clients) c.socket.write(`${HEAD(100)}x`);
    const trickle = setInterval(() => {
      for (const c of clients) if (c.socket.writable) c.socket.write('x');
    }, 200);
    try {
      const times = await within(Promise.all(clients.map((c) => c.closed)), 4000);
      expect(Math.max(...times)).toBeLessThan(BOUNDS.bodyRateWindowMs + 1500);
    } finally {
      clearInterval(trickle);
    }
    for (const c of clients) expect(parse(c.received()).status).toBe(408);
  });

  it('should pass a large body sent at an ordinary rate, in many writes over more than one window', { timeout: 15_000 }, async () => {
    const { port, seen } = await start(BOUNDS);
    const c = client(port);
    const size = 4 * 1024 * 1024;
    c.socket.write(HEAD(size));
    // 32 KiB every 20 ms (~1.6 MB/s) for ~2.5 s: several rate windows, never close to the minimum.
    const chunk = Buffer.alloc(32 * 1024, 'a');
    for (let sent = 0; sent < size; sent += chunk.length) {
      c.socket.write(chunk);
      await sleep(20);
    }
    await within(
      (async () => {
        while (!c.received().includes('"bytes"')) await sleep(20);
      })(),
      5000,
    );
    expect(parse(c.received())).toMatchObject({ status: 200, body: { bytes: size } });
    expect(seen[0].bytes).toBe(size);
  });

  it('should not count the time the service itself does not read (its buffer full) against the client', { timeout: 15_000 }, async () => {
    // The handler starts reading after 1.5 s: three idle timeouts, two rate windows.
    const { port, seen } = await start(BOUNDS, { delayReadMs: 1500 });
    const c = client(port);
    const size = 2 * 1024 * 1024;
    c.socket.write(HEAD(size));
    c.socket.write(Buffer.alloc(size, 'b'));
    await within(
      (async () => {
        while (!c.received().includes('"bytes"')) await sleep(20);
      })(),
      5000,
    );
    expect(parse(c.received())).toMatchObject({ status: 200, body: { bytes: size } });
    expect(seen[0].bytes).toBe(size);
  });

  it('should close the connection without a 408 once the answer has started', async () => {
    const { port } = await start(BOUNDS, { answerFirst: true });
    const c = client(port);
    c.socket.write(`${HEAD(1000)}x`);
    await within(c.closed, 3000);
    expect(parse(c.received()).status).toBe(200);
    expect(c.received()).not.toContain('408');
  });

  it('should answer a head that does not arrive in time with a JSON 408 and close', async () => {
    const { port } = await start(BOUNDS);
    const c = client(port);
    c.socket.write('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const closedAfter = await within(c.closed, 3000);
    expect(closedAfter).toBeGreaterThanOrEqual(BOUNDS.headersTimeoutMs - 50);
    expect(parse(c.received())).toMatchObject({
      status: 408,
      body: { status: 408, message: 'Request timeout: the request was not received in time.' },
    });
    expect(parse(c.received()).headers).toContain('connection: close');
  });

  it('should keep an idle keep-alive connection past the head timeout (the gateway pool reuses it)', { timeout: 10_000 }, async () => {
    const { port } = await start(BOUNDS);
    const c = client(port);
    const ask = async (n: number) => {
      c.socket.write('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok');
      await within(
        (async () => {
          while (c.received().split('"bytes"').length - 1 < n) await sleep(20);
        })(),
        3000,
      );
    };
    await ask(1);
    await sleep(BOUNDS.headersTimeoutMs * 2 + BOUNDS.bodyIdleTimeoutMs); // idle between requests
    await ask(2);
    expect(c.received().match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    expect(c.received()).not.toContain('408');
  });

  it('should answer a malformed request with a JSON 400 (node would send an empty body)', async () => {
    const { port } = await start(BOUNDS);
    const c = client(port);
    c.socket.write('GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    await within(c.closed, 3000);
    expect(parse(c.received())).toMatchObject({ status: 400, body: { status: 400, message: 'Bad request.' } });
  });

  it('should set node timeouts from the bounds, none of them unlimited by default', async () => {
    await start(BOUNDS);
    expect(server?.headersTimeout).toBe(BOUNDS.headersTimeoutMs);
    expect(server?.requestTimeout).toBe(BOUNDS.requestTimeoutMs);
    expect(server?.keepAliveTimeout).toBe(BOUNDS.keepAliveTimeoutMs);
    const d = DEFAULT_HTTP_SERVER_BOUNDS;
    for (const v of [d.headersTimeoutMs, d.requestTimeoutMs, d.keepAliveTimeoutMs, d.bodyIdleTimeoutMs, d.bodyMinBytesPerSecond]) {
      expect(v).toBeGreaterThan(0);
    }
    // The request timeout is a last resort: a 1 GiB upload at an ordinary 2 MB/s (~9 minutes) fits in it.
    expect((1024 ** 3 / 2e6) * 1000).toBeLessThan(d.requestTimeoutMs);
  });
});

/** A server whose handler answers 404 before it read the body: at once, or after reading `readFirst` bytes and stopping. */
async function startEarly(bounds: HttpServerBounds, o: { close?: boolean; readFirst?: number } = {}): Promise<{ port: number }> {
  server = createBoundedServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/next') {
      req.resume();
      req.on('end', () => res.end('next'));
      return;
    }
    const answer = () => {
      const body = JSON.stringify({ status: 404, message: 'Refused early.' });
      const headers: Record<string, string | number> = { 'Content-Type': 'application/json', 'Content-Length': body.length };
      if (o.close) headers.Connection = 'close';
      res.writeHead(404, headers);
      res.end(body);
    };
    if (!o.readFirst) return answer();
    let n = 0;
    const onData = (c: Buffer) => {
      n += c.length;
      if (n < (o.readFirst as number)) return;
      // As a storage pipeline that failed: stops listening, the body left paused mid-way.
      req.off('data', onData);
      req.pause();
      answer();
    };
    req.on('data', onData);
  }, bounds);
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return { port: addr.port };
}

/** Send a head and `size` body bytes without waiting for the answer (honouring back-pressure), then `then`. */
async function keepSending(port: number, size: number, then = ''): Promise<{ c: ReturnType<typeof client>; sent: number; error?: string }> {
  const c = client(port, true);
  let error: string | undefined;
  c.socket.on('error', (e: NodeJS.ErrnoException) => {
    error = e.code ?? e.message;
  });
  let sent = 0;
  await writeAll(c.socket, [HEAD(size), ...bodyParts(size, { chunkBytes: 256 * 1024, fill: 0x63 }), ...(then ? [then] : [])], (n) => {
    sent += n;
  });
  // Done sending: the connection may close once the server is done too.
  c.socket.end();
  return { c, sent, error };
}

describe('createBoundedServer: answers sent before the body was read', () => {
  const LOOSE: HttpServerBounds = { ...BOUNDS, bodyIdleTimeoutMs: 0, bodyMinBytesPerSecond: 0 };
  const size = 20 * 1024 * 1024;

  it(
    'should read the rest of the body of a `Connection: close` refusal before closing (no reset), 10 times',
    { timeout: 30_000 },
    async () => {
      const { port } = await startEarly(LOOSE, { close: true });
      for (let i = 0; i < 10; i++) {
        const { c, sent, error } = await keepSending(port, size);
        await within(c.closed, 5000);
        expect({ error, sent, status: parse(c.received()).status }).toEqual({ error: undefined, sent: size, status: 404 });
        expect(parse(c.received()).body).toEqual({ status: 404, message: 'Refused early.' });
      }
    },
  );

  it(
    'should discard the rest of a body its handler stopped reading mid-way, then serve the next request on the connection',
    { timeout: 30_000 },
    async () => {
      const { port } = await startEarly(LOOSE, { readFirst: 1024 * 1024 });
      const { c, sent, error } = await keepSending(port, size, 'GET /next HTTP/1.1\r\nHost: x\r\n\r\n');
      await within(
        (async () => {
          while (!c.received().endsWith('next')) await sleep(20);
        })(),
        5000,
      );
      expect({ error, sent }).toEqual({ error: undefined, sent: size });
      expect(c.received().match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 404', 'HTTP/1.1 200']);
    },
  );

  it(
    'should say `Connection: close` when the declared body exceeds the drain bound, and close once the bound is read',
    { timeout: 15_000 },
    async () => {
      const { port } = await startEarly({ ...LOOSE, drainMaxBytes: 1024 * 1024 }, { readFirst: 0 });
      const c = client(port);
      c.socket.write(HEAD(8 * 1024 * 1024));
      c.socket.write(Buffer.alloc(3 * 1024 * 1024, 'd'));
      await within(c.closed, 5000);
      const answer = parse(c.received());
      expect(answer.status).toBe(404);
      expect(answer.headers).toContain('connection: close');
    },
  );

  it('should close after the drain time bound when the rest of the body does not come', { timeout: 15_000 }, async () => {
    const { port } = await startEarly({ ...LOOSE, drainTimeoutMs: 400 });
    const c = client(port);
    c.socket.write(`${HEAD(1000)}xx`);
    const closedAfter = await within(c.closed, 5000);
    expect(closedAfter).toBeGreaterThanOrEqual(350);
    expect(parse(c.received()).status).toBe(404);
    expect(parse(c.received()).headers).not.toContain('connection: close');
  });
});
