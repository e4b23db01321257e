/**
 * Slow request bodies (issue 18, finding 4), bounded in count and time: it proves the timeouts,
 * not load. The real gateway app on a socket in front of stub services, a pool of 4 connections
 * per service and timeouts scaled down (a byte every 250 ms against a minimum of 100 bytes/s over
 * 1.5 s windows stands for a byte every 5 s against the defaults). What must hold:
 * - every slow client is cut (408 once the gateway read its body too slowly, or 503 with
 *   `Retry-After` while it waited for a connection) and its connection closed, within seconds;
 * - slow bodies on ordinary routes hold none of the service's connections (collected first), so
 *   a normal client of that service is answered while they still trickle;
 * - slow uploads hold the upload service's connections only until they are cut, and a normal
 *   request waiting behind them gets its answer or a 503 with `Retry-After` within the queue
 *   timeout, never waits without bound;
 * - one client has at most CLIENT_MAX_CONCURRENT requests in flight (429 with `Retry-After`).
 */
import http, { type Server } from 'node:http';
import net from 'node:net';
import { createLogger, loadConfig } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, createApp } from '../../src/app.js';
import { configProperties } from '../../src/config.js';
import type { ServiceName } from '../../src/routes.js';
import { type StubUpstream, listen, startUpstreams, upstreamEnv } from './stubs.js';

const verifyToken = async (token: string) => (token === 'normal' ? { userId: '1', roles: [], tokenId: 'tn' } : null);

let stubs: Record<ServiceName, StubUpstream>;
const running: { gw: Gateway; server: Server }[] = [];

async function startGateway(env: Record<string, string>): Promise<{ port: number; gw: Gateway }> {
  const config = loadConfig(configProperties, {
    IDENTITY_SECRET: 'slow-bodies-secret',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_STORE: 'local',
    RATE_LIMIT_ANONYMOUS: '100000',
    RATE_LIMIT_AUTHENTICATED: '100000',
    READY_UPSTREAMS: 'none',
    OPENAPI_FETCH_ATTEMPTS: '0',
    UPSTREAM_MAX_SOCKETS: '4',
    UPSTREAM_QUEUE_TIMEOUT_MS: '2000',
    BODY_IDLE_TIMEOUT_MS: '1000',
    BODY_MIN_RATE: '100',
    BODY_RATE_WINDOW_MS: '1500',
    BODY_TIMEOUT_MS: '4000',
    EARLY_ANSWER_DRAIN_MS: '1000',
    ...upstreamEnv(stubs),
    ...env,
  });
  const gw = createApp({ config, logger: createLogger('gateway', 'silent'), verifyToken });
  const server = http.createServer(gw.app.callback());
  const port = Number(new URL(await listen(server)).port);
  running.push({ gw, server });
  return { port, gw };
}

beforeAll(async () => {
  stubs = await startUpstreams();
});

afterAll(async () => {
  for (const { gw, server } of running) {
    await gw.proxy.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
  for (const s of Object.values(stubs ?? {})) await s.close();
});

/** What became of one slow client. */
interface Slow {
  status: number;
  headers: string;
  body: string;
  /** Milliseconds from the start: the answer's arrival, the connection's close. */
  answeredAt: number;
  closedAt: number;
}

/**
 * A client sending a chunked body one byte every `everyMs` until the gateway answers or closes
 * (at most `capMs`, then it gives up: the test fails on status 0).
 */
function slowClient(port: number, head: string, everyMs: number, started: number, capMs = 8000): Promise<Slow> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    const out: Slow = { status: 0, headers: '', body: '', answeredAt: -1, closedAt: -1 };
    const ticker = setInterval(() => {
      if (!sock.destroyed && sock.writable) sock.write('1\r\nx\r\n');
    }, everyMs);
    const cap = setTimeout(() => sock.destroy(), capMs);
    sock.on('connect', () => sock.write(head));
    sock.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const end = got.indexOf('\r\n\r\n');
      if (out.status === 0 && end !== -1) {
        out.status = Number(got.toString('latin1', 9, 12));
        out.headers = got.toString('latin1', 0, end).toLowerCase();
        out.answeredAt = Date.now() - started;
        clearInterval(ticker);
      }
      if (end !== -1) out.body = got.toString('utf8', end + 4);
    });
    sock.on('error', () => undefined);
    sock.on('close', () => {
      clearInterval(ticker);
      clearTimeout(cap);
      out.closedAt = Date.now() - started;
      resolve(out);
    });
  });
}

/** A normal request: status, headers, milliseconds from `started` to the end of the answer. */
async function normal(port: number, path: string, started: number, token = 'normal') {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body, at: Date.now() - started };
}

const uploadHead = (i: number) =>
  `PUT /api/records/abcde-12345/draft/files/slow-${i}.bin/content HTTP/1.1\r\nHost: gw\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n`;
const postHead = 'POST /api/records HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';

describe('gateway against slow request bodies', { timeout: 30_000 }, () => {
  it('should cut 20 slow bodies with 408 or 503 and close them, while normal clients are answered in bounded time', async () => {
    const { port, gw } = await startGateway({ CLIENT_MAX_CONCURRENT: '0' });
    for (const s of Object.values(stubs)) s.seen.length = 0;
    const started = Date.now();
    const slow = [
      ...Array.from({ length: 10 }, (_, i) => slowClient(port, uploadHead(i), 250, started)),
      ...Array.from({ length: 10 }, () => slowClient(port, postHead, 250, started)),
    ];
    await new Promise((r) => setTimeout(r, 200));
    // A normal client of records (whose route the slow POSTs use) and one of files (whose
    // connections the slow uploads hold), while all 20 still trickle.
    const [records, files] = await Promise.all([normal(port, '/api/records/x', started), normal(port, '/api/records/x/files', started)]);
    const done = await Promise.all(slow);

    const firstCut = Math.min(...done.map((d) => d.answeredAt));
    expect(records.status).toBe(200);
    expect(records.at).toBeLessThan(firstCut);
    // Behind the slow uploads: its answer, or 503 with Retry-After, within the queue timeout (+ slack).
    expect(files.at).toBeLessThan(200 + 2000 + 1500);
    if (files.status !== 200) {
      expect(files.status).toBe(503);
      expect(files.retryAfter).toBe('2');
      expect(JSON.parse(files.body)).toEqual({ status: 503, message: 'Service unavailable.' });
    }

    for (const [i, d] of done.entries()) {
      const what = `${i < 10 ? 'upload' : 'POST'} ${i}: ${d.status} at ${d.answeredAt} ms, closed at ${d.closedAt} ms`;
      expect([408, 503], what).toContain(d.status);
      if (d.status === 408) {
        expect(d.headers, what).toContain('connection: close');
        expect(JSON.parse(d.body), what).toEqual({
          status: 408,
          message: "The server closed the network connection because the browser didn't finish the request within the specified time.",
        });
      } else expect(d.headers, what).toContain('retry-after: 2');
      // Closed by the gateway, soon after the answer (a 503 after a bounded drain of the rest).
      expect(d.closedAt, what).toBeLessThan(d.answeredAt + 1500);
      expect(d.closedAt, what).toBeLessThan(7000);
    }
    // The slow POSTs were cut while collected: records never saw one of them.
    expect(stubs.records.seen.filter((s) => s.method === 'POST')).toHaveLength(0);
    expect(done.slice(10).every((d) => d.status === 408)).toBe(true);
    // Every connection is back; files answers at once again.
    expect(gw.proxy.inFlight(gw.upstreams.files)).toBe(0);
    expect((await normal(port, '/api/records/x/files', Date.now())).status).toBe(200);
  });

  it('should cap the requests one client has in flight with 429 and Retry-After, not other clients', async () => {
    const { port } = await startGateway({ CLIENT_MAX_CONCURRENT: '3', BODY_RATE_WINDOW_MS: '2000' });
    const started = Date.now();
    // Five slow uploads from one (anonymous) client: three go on, two are refused at once.
    const slow = Array.from({ length: 5 }, (_, i) => slowClient(port, uploadHead(100 + i), 250, started));
    await new Promise((r) => setTimeout(r, 300));
    // Another client (its token) still gets the pool's fourth connection.
    const other = await normal(port, '/api/records/x/files', started);
    const done = await Promise.all(slow);
    expect(other.status).toBe(200);
    const refused = done.filter((d) => d.status === 429);
    expect(refused).toHaveLength(2);
    for (const d of refused) {
      expect(d.answeredAt).toBeLessThan(1000);
      // The unread body is discarded within EARLY_ANSWER_DRAIN_MS (1 s here), then the connection closed.
      expect(d.closedAt).toBeLessThan(d.answeredAt + 1500);
      expect(d.headers).toContain('retry-after: 1');
      expect(JSON.parse(d.body)).toEqual({ status: 429, message: 'Too many requests. Please slow down.' });
    }
    expect(done.filter((d) => d.status === 408)).toHaveLength(3);
  });
});
