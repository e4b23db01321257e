/**
 * The gateway's upstream hop (proxy.ts over undici, upstream.ts) against a scripted raw TCP
 * service: response framings split at every byte, keep-alive reuse, informational answers, HEAD,
 * a stale keep-alive connection, malformed and ambiguous answers (503, or the client cut), bytes
 * nobody asked for (the connection destroyed), and a request body's framing upstream.
 */
import http, { type Server } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { AppError } from '@rdm/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Exchange, type Upstream, UpstreamProxy, parseUpstream } from '../../src/proxy.js';
import { listen } from './stubs.js';

/** What the scripted service does with one request (`n`: the request's index on its connection). */
type Script = (req: { head: string; body: Buffer; n: number }, sock: Socket) => void;

let script: Script;
/** Connections the service accepted. */
let accepted = 0;
/** Request heads the service received. */
const heads: string[] = [];
let service: net.Server;
let upstream: Upstream;
let proxy: UpstreamProxy;
let front: Server;
let frontUrl: string;

function serve(sock: Socket): void {
  accepted++;
  let buf = Buffer.alloc(0);
  let n = 0;
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buf.toString('latin1', 0, end);
      const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      let bodyEnd = end + 4 + len;
      if (/transfer-encoding: chunked/i.test(head)) {
        const last = buf.indexOf('0\r\n\r\n', end + 4);
        if (last === -1) return;
        bodyEnd = last + 5;
      }
      if (buf.length < bodyEnd) return;
      const body = buf.subarray(end + 4, bodyEnd);
      buf = buf.subarray(bodyEnd);
      heads.push(head);
      script({ head, body, n: n++ }, sock);
    }
  });
  sock.on('error', () => undefined);
}

/** Write `text` in two pieces split at `at`, the second a moment later. */
function split(sock: Socket, text: string | Buffer, at: number): void {
  const b = typeof text === 'string' ? Buffer.from(text, 'latin1') : text;
  sock.write(b.subarray(0, at));
  setTimeout(() => sock.write(b.subarray(at)), 1);
}

const newProxy = () =>
  new UpstreamProxy({
    connectTimeoutMs: 1000,
    headersTimeoutMs: 2000,
    bodyTimeoutMs: 2000,
    maxSockets: 4,
    queueTimeoutMs: 2000,
  });

beforeAll(async () => {
  service = net.createServer(serve);
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  upstream = parseUpstream('records', `http://127.0.0.1:${(service.address() as AddressInfo).port}`);
  proxy = newProxy();
  front = http.createServer((req, res) => {
    const ex: Exchange = {
      req,
      res,
      requestId: 'rid',
      headers: ['X-Request-Id', 'rid'],
      proto: 'http',
      host: 'h',
      clientIp: '127.0.0.1',
      forwardedFor: '127.0.0.1',
    };
    proxy.forward(ex, upstream, { upload: false, bodyLimit: 1_000_000 }).catch((e: AppError) => {
      const text = JSON.stringify(e.toBody());
      res.writeHead(e.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  frontUrl = await listen(front);
});

afterEach(async () => {
  await proxy.close();
  proxy = newProxy();
  heads.length = 0;
  accepted = 0;
});

afterAll(async () => {
  await proxy.close();
  front.closeAllConnections();
  await new Promise<void>((r) => front.close(() => r()));
  await new Promise<void>((r) => service.close(() => r()));
});

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
afterAll(() => agent.destroy());

/** One request through the front with node's client (one keep-alive socket), the body as text. */
function get(path: string, method = 'GET', body?: string | Buffer, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request(`${frontUrl}${path}`, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('latin1') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('upstream hop', { timeout: 60_000 }, () => {
  it('should decode a chunked answer split at every byte, on one kept-alive connection', async () => {
    const text =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n';
    for (let at = 1; at < text.length; at++) {
      script = (_, sock) => split(sock, text, at);
      const r = await get('/api/records/x');
      expect(r.status, `split at ${at}`).toBe(200);
      expect(r.body, `split at ${at}`).toBe('hello world');
      expect(r.headers['x-a']).toBe('1');
      expect(r.headers['x-trailer']).toBeUndefined();
    }
    expect(accepted).toBe(1);
  });

  it('should relay a Content-Length answer split at every byte, and a large one streamed', async () => {
    const text = 'HTTP/1.1 201 Created\r\nContent-Length: 11\r\nETag: "2"\r\n\r\nhello world';
    for (let at = 1; at < text.length; at++) {
      script = (_, sock) => split(sock, text, at);
      const r = await get('/api/records/x');
      expect([r.status, r.body, r.headers.etag, r.headers['content-length']], `split at ${at}`).toEqual([201, 'hello world', '"2"', '11']);
    }
    const big = Buffer.alloc(300_000, 'z');
    script = (_, sock) =>
      split(sock, Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n`), big]), 70_000);
    const r = await get('/api/records/big');
    expect(r.body).toBe(big.toString('latin1'));
    expect(accepted).toBe(1);
  });

  it('should relay a body that runs to the close, then open a new connection', async () => {
    script = (_, sock) => {
      sock.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil ');
      setTimeout(() => sock.end('the end'), 5);
    };
    expect((await get('/api/records/a')).body).toBe('until the end');
    expect((await get('/api/records/b')).body).toBe('until the end');
    expect(accepted).toBe(2);
  });

  it('should skip informational answers, and read no body after HEAD, 204 and 304', async () => {
    script = ({ head }, sock) => {
      if (head.startsWith('HEAD')) sock.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n');
      else if (head.includes('/no-content')) sock.write('HTTP/1.1 204 No Content\r\n\r\n');
      else if (head.includes('/not-modified')) sock.write('HTTP/1.1 304 Not Modified\r\nETag: "1"\r\n\r\n');
      else sock.write('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    };
    const h = await get('/api/records/x', 'HEAD');
    expect([h.status, h.headers['content-length'], h.body]).toEqual([200, '10', '']);
    expect((await get('/api/records/x/no-content')).status).toBe(204);
    expect((await get('/api/records/x/not-modified')).status).toBe(304);
    const r = await get('/api/records/x');
    expect([r.status, r.body]).toEqual([200, 'ok']);
    expect(accepted).toBe(1);
  });

  it('should retry a bodiless request once when a kept-alive connection turns out closed, never a body', async () => {
    script = ({ n }, sock) => {
      if (n === 0) sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      else sock.destroy();
    };
    expect((await get('/api/records/x')).body).toBe('ok');
    // The second request on that connection is dropped unanswered: retried on a new one.
    expect((await get('/api/records/x')).body).toBe('ok');
    expect(accepted).toBe(2);
    // A request with a body is not replayed: one attempt, then 503.
    script = ({ head }, sock) => {
      if (head.startsWith('POST')) sock.destroy();
      else sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    };
    const r = await get('/api/records/x', 'POST', '{"a":1}', { 'content-type': 'application/json' });
    expect(r.status).toBe(503);
    expect(JSON.parse(r.body)).toEqual({ status: 503, message: 'Service unavailable.' });
    expect(heads.filter((h) => h.startsWith('POST'))).toHaveLength(1);
  });

  it('should answer 503 for a malformed head, cut the client on a malformed body, and close that connection', async () => {
    for (const bad of ['HELLO\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n']) {
      script = (_, sock) => sock.write(bad);
      const r = await get('/api/records/x');
      expect(r.status, bad).toBe(503);
    }
    script = (_, sock) => sock.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
    await expect(get('/api/records/x')).rejects.toThrow();
    expect(accepted).toBe(3);
    script = (_, sock) => sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect((await get('/api/records/x')).body).toBe('ok');
  });

  it('should destroy a connection that sends bytes nobody asked for, and answer the next request on a new one', async () => {
    // An extra answer right behind the first (a service, or something in between, out of step).
    let calls = 0;
    script = (_, sock) => {
      calls++;
      if (calls === 1) sock.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirstHTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled');
      else if (calls === 3) {
        sock.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nthird');
        // The same, a moment later, while the connection is idle in the pool.
        setTimeout(() => sock.write('HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled'), 20);
      } else sock.write(`HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\ncall-${calls}`);
    };
    expect((await get('/api/records/a')).body).toBe('first');
    expect((await get('/api/records/b')).body).toBe('call-2');
    expect(accepted).toBe(2);
    expect((await get('/api/records/c')).body).toBe('third');
    await new Promise((r) => setTimeout(r, 100));
    expect((await get('/api/records/d')).body).toBe('call-4');
    expect(accepted).toBe(3);
  });

  it('should refuse ambiguous answer framing (503) and cut an answer shorter than its length', async () => {
    for (const bad of [
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nX-A: a\r\n Folded: b\r\nContent-Length: 2\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 2\r\n\r\nok',
    ]) {
      script = (_, sock) => sock.write(bad);
      const r = await get('/api/records/x');
      expect(r.status, JSON.stringify(bad)).toBe(503);
    }
    script = (_, sock) => sock.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort');
    await expect(get('/api/records/x')).rejects.toThrow();
  });

  it('should send a small body with its head, and a streamed body of unknown length chunked', async () => {
    script = ({ body }, sock) =>
      sock.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`), body]));
    const small = await get('/api/records/x', 'PUT', '{"title":"ä"}', { 'content-type': 'application/json' });
    expect(small.body).toBe(Buffer.from('{"title":"ä"}').toString('latin1'));
    expect(heads.at(-1)).toMatch(/^PUT \/api\/records\/x HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/);
    expect(heads.at(-1)).toContain('content-length: 14');

    /** POST `parts` chunked (node's client), a moment apart; the body the service received. */
    const sendChunked = (parts: (string | Buffer)[]) =>
      new Promise<string>((resolve, reject) => {
        const req = http.request(`${frontUrl}/api/records/x`, { method: 'POST', agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
        });
        req.on('error', reject);
        const [head, ...rest] = parts;
        req.write(head);
        setTimeout(() => req.end(Buffer.concat(rest.map((p) => Buffer.from(p)))), 5);
      });
    // A small chunked body is collected at the gateway and sent with its length.
    expect(await sendChunked(['abc', 'def'])).toBe('abcdef');
    expect(heads.at(-1)).toContain('content-length: 6');
    expect(heads.at(-1)).not.toContain('transfer-encoding');
    // One that outgrows collecting is streamed, chunked by undici, what came first first.
    const big = await sendChunked(['a'.repeat(40_000), 'b'.repeat(40_000), 'c'.repeat(100)]);
    expect(heads.at(-1)).toContain('transfer-encoding: chunked');
    expect(heads.at(-1)).not.toContain('content-length');
    let decoded = '';
    for (let at = 0; ; ) {
      const eol = big.indexOf('\r\n', at);
      const size = Number.parseInt(big.slice(at, eol), 16);
      if (size === 0) break;
      decoded += big.slice(eol + 2, eol + 2 + size);
      at = eol + 2 + size + 2;
    }
    expect(decoded).toBe(`${'a'.repeat(40_000)}${'b'.repeat(40_000)}${'c'.repeat(100)}`);
  });
});
