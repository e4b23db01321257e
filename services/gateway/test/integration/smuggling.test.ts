/**
 * Request smuggling through the gateway (issue 18, finding 1): the real gateway app on a real
 * socket in front of a real node HTTP service that records every request it receives, one
 * upstream connection (UPSTREAM_MAX_SOCKETS=1) so that every request shares it.
 *
 * Each attack is written by an attacker (its own token, a cookie) over a raw TCP socket; then a
 * second client (another token) sends a normal request. What must hold every time:
 * - the second client's answer is its own (the service echoes method, target and the identity it
 *   received for it);
 * - every request the service received was forwarded by the gateway: it carries a signed identity
 *   bound to exactly that method, target and request id, and the service never received more
 *   requests than the gateway forwarded (a request hidden in a body would be one more, unsigned);
 * - the service never sees `Authorization`, `Cookie` or `Proxy-Authorization`.
 * Run twice: against node's default parser (what the services run) and against a lenient one
 * (`insecureHTTPParser`), so the gateway's framing is what keeps them apart, not the service's
 * strictness.
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createLogger, loadConfig, verifyIdentity } from '@rdm/platform';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Gateway, createApp } from '../../src/app.js';
import type { TokenVerifier } from '../../src/auth.js';
import { configProperties } from '../../src/config.js';
import { listen } from './stubs.js';

const SECRET = 'smuggling-identity-secret';
const ATTACKER = 'attacker-token';
const VICTIM = 'victim-token';
const verifyToken: TokenVerifier = async (token) =>
  token === ATTACKER ? { userId: '66', roles: [], tokenId: 'ta' } : token === VICTIM ? { userId: '7', roles: [], tokenId: 'tv' } : null;

/** What the service received of one request. */
interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
  /** The subject of a valid identity bound to this request, null for anonymous, or why it was refused. */
  sub: string | null | { refused: string };
}

function service(lenient: boolean) {
  const received: Received[] = [];
  const server = http.createServer({ insecureHTTPParser: lenient }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const value = req.headers['x-rdm-identity'];
      const rid = req.headers['x-request-id'];
      let sub: Received['sub'] = { refused: 'missing' };
      if (typeof value === 'string') {
        const v = verifyIdentity(value, SECRET, {
          method: req.method ?? '',
          target: req.url ?? '',
          requestId: typeof rid === 'string' ? rid : '',
        });
        sub = 'refused' in v ? { refused: v.refused } : v.identity.sub;
      }
      const r: Received = { method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, body: Buffer.concat(chunks), sub };
      received.push(r);
      const text = JSON.stringify({ method: r.method, url: r.url, sub: r.sub, size: r.body.length });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-upstream': '1' });
      res.end(text);
    });
  });
  // Answers of the service that clients can not tell apart from real ones.
  server.on('clientError', (_err, socket) => socket.destroy());
  return { server, received };
}

/** Write `bytes` on a raw connection; collect what comes back until it closes or stays quiet. */
function raw(port: number, bytes: string | Buffer, quietMs = 250, maxMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    let quiet: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(quiet);
      clearTimeout(cap);
      sock.destroy();
      resolve(Buffer.concat(got).toString('latin1'));
    };
    const cap = setTimeout(done, maxMs);
    const arm = () => {
      clearTimeout(quiet);
      quiet = setTimeout(done, quietMs);
    };
    sock.on('connect', () => {
      sock.write(bytes);
      arm();
    });
    sock.on('data', (d: Buffer) => {
      got.push(d);
      arm();
    });
    sock.on('error', () => undefined);
    sock.on('close', done);
  });
}

/** The victim: a normal request with its own token on a new connection; status and echoed body. */
function victim(port: number, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, agent: false, headers: { authorization: `Bearer ${VICTIM}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: compared as text
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error('victim timed out')));
    req.on('error', reject);
    req.end();
  });
}

const AUTH = `Authorization: Bearer ${ATTACKER}\r\nCookie: session=attacker-session\r\n`;
/** A complete request to hide in a body. */
const HIDDEN = 'GET /api/records/smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
/** The start of a request to hide in a body: the next caller's request would complete it. */
const PREFIX = 'GET /api/records/smuggled HTTP/1.1\r\nHost: x\r\nX-Swallow: ';
const len = (s: string) => Buffer.byteLength(s, 'latin1');
const chunk = (s: string) => `${len(s).toString(16)}\r\n${s}\r\n`;

/** The attacks: name → raw bytes written by the attacker. */
const ATTACKS: [string, string][] = [
  // Finding 1 as reported: Connection names Content-Length, the body is the next request's start.
  [
    'Connection: content-length, hidden prefix',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Connection: content-length\r\nContent-Type: application/json\r\nContent-Length: ${len(PREFIX)}\r\n\r\n${PREFIX}`,
  ],
  [
    'Connection: content-length, hidden request',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Connection: keep-alive, Content-Length\r\nContent-Length: ${len(HIDDEN)}\r\n\r\n${HIDDEN}`,
  ],
  [
    'Connection: content-length on an upload route',
    `PUT /api/records/abcde-12345/draft/files/a.bin/content HTTP/1.1\r\nHost: gw\r\n${AUTH}Connection: content-length\r\nContent-Type: application/octet-stream\r\nContent-Length: ${len(PREFIX)}\r\n\r\n${PREFIX}`,
  ],
  [
    'Connection: transfer-encoding, chunked body',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Connection: transfer-encoding\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(PREFIX)}0\r\n\r\n`,
  ],
  [
    'Connection: host',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Connection: host, content-length\r\nContent-Length: ${len(HIDDEN)}\r\n\r\n${HIDDEN}`,
  ],
  ['Connection: authorization, cookie', `GET /api/records/a HTTP/1.1\r\nHost: gw\r\n${AUTH}Connection: authorization, cookie\r\n\r\n`],
  [
    'Connection: x-rdm-identity, x-request-id, x-forwarded-for',
    `GET /api/records/a HTTP/1.1\r\nHost: gw\r\n${AUTH}Connection: x-rdm-identity, x-request-id, x-forwarded-for, x-forwarded-host\r\nX-Request-Id: r1\r\n\r\n`,
  ],
  ['a client identity header', 'GET /api/records/a HTTP/1.1\r\nHost: gw\r\nX-Rdm-Identity: eyJzdWIiOiIxIn0.forged\r\n\r\n'],
  [
    'CL.TE',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: ${len(`0\r\n\r\n${PREFIX}`)}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${PREFIX}`,
  ],
  [
    'TE.CL',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n${chunk(HIDDEN)}0\r\n\r\n`,
  ],
  [
    'TE: xchunked with CL',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: ${len(HIDDEN)}\r\nTransfer-Encoding: xchunked\r\n\r\n${HIDDEN}`,
  ],
  [
    'TE: " chunked" (leading space) with CL',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: 4\r\nTransfer-Encoding:  chunked\r\n\r\n${chunk(HIDDEN)}0\r\n\r\n`,
  ],
  [
    'TE: chunked, identity',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Transfer-Encoding: chunked, identity\r\n\r\n${chunk(HIDDEN)}0\r\n\r\n`,
  ],
  [
    'TE: identity, chunked',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Transfer-Encoding: identity, chunked\r\n\r\n${chunk(HIDDEN)}0\r\n\r\n`,
  ],
  [
    'TE with a tab',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: 4\r\nTransfer-Encoding:\tchunked\r\n\r\n${chunk(HIDDEN)}0\r\n\r\n`,
  ],
  [
    'TE name with a space before the colon',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: ${len(HIDDEN)}\r\nTransfer-Encoding : chunked\r\n\r\n${HIDDEN}`,
  ],
  [
    'duplicate TE',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n${chunk(HIDDEN)}0\r\n\r\n`,
  ],
  [
    'duplicate TE, chunked last',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Transfer-Encoding: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(HIDDEN)}0\r\n\r\n`,
  ],
  [
    'duplicate Content-Length, same value',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: ${len(HIDDEN)}\r\nContent-Length: ${len(HIDDEN)}\r\n\r\n${HIDDEN}`,
  ],
  [
    'conflicting Content-Length',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: 0\r\nContent-Length: ${len(HIDDEN)}\r\n\r\n${HIDDEN}`,
  ],
  ['Content-Length as a list', `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: 0, ${len(HIDDEN)}\r\n\r\n${HIDDEN}`],
  ['Content-Length with a sign', `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: +${len(HIDDEN)}\r\n\r\n${HIDDEN}`],
  [
    'obs-fold of Transfer-Encoding',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: ${len(HIDDEN)}\r\nX-Folded: a\r\n Transfer-Encoding: chunked\r\n\r\n${HIDDEN}`,
  ],
  [
    'obs-fold in a Transfer-Encoding value',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Transfer-Encoding:\r\n chunked\r\nContent-Length: ${len(HIDDEN)}\r\n\r\n${HIDDEN}`,
  ],
  [
    'bare CR in a header',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}X-A: a\rTransfer-Encoding: chunked\r\nContent-Length: ${len(HIDDEN)}\r\n\r\n${HIDDEN}`,
  ],
  [
    'bare LF line ends',
    `POST /api/records HTTP/1.1\nHost: gw\n${AUTH.replace(/\r\n/g, '\n')}Content-Length: ${len(HIDDEN)}\nTransfer-Encoding: chunked\n\n${chunk(HIDDEN)}0\n\n`,
  ],
  ['bare LF before a header', `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}X-A: a\nContent-Length: ${len(HIDDEN)}\r\n\r\n${HIDDEN}`],
  ['NUL in a header value', `GET /api/records/a HTTP/1.1\r\nHost: gw\r\n${AUTH}X-A: a\0b\r\n\r\n`],
  [
    'chunk size with a 0x prefix',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Transfer-Encoding: chunked\r\n\r\n0x${len(HIDDEN).toString(16)}\r\n${HIDDEN}\r\n0\r\n\r\n`,
  ],
  [
    'chunk extension and trailers',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Transfer-Encoding: chunked\r\n\r\n${len(HIDDEN).toString(16)};a="b\r\nc"\r\n${HIDDEN}\r\n0\r\nContent-Length: 0\r\n\r\n`,
  ],
  [
    'oversized chunk size',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Transfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n${HIDDEN}\r\n0\r\n\r\n`,
  ],
  [
    'HTTP/1.0 keep-alive with a body, then a pipelined request',
    `POST /api/records HTTP/1.0\r\nHost: gw\r\n${AUTH}Connection: keep-alive\r\nContent-Length: ${len(PREFIX)}\r\n\r\n${PREFIX}GET /api/records/second HTTP/1.0\r\nConnection: keep-alive\r\n\r\n`,
  ],
  [
    'HTTP/1.0 with Transfer-Encoding',
    `POST /api/records HTTP/1.0\r\nHost: gw\r\n${AUTH}Transfer-Encoding: chunked\r\nContent-Length: ${len(HIDDEN)}\r\n\r\n${HIDDEN}`,
  ],
  [
    'pipelined requests, a body holding a request',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: ${len(HIDDEN)}\r\n\r\n${HIDDEN}GET /api/records/second HTTP/1.1\r\nHost: gw\r\n${AUTH}\r\nGET /api/records/third HTTP/1.1\r\nHost: gw\r\n\r\n`,
  ],
  ['GET with a body', `GET /api/records/a HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: ${len(PREFIX)}\r\n\r\n${PREFIX}`],
  ['HEAD with a body', `HEAD /api/records/a HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: ${len(PREFIX)}\r\n\r\n${PREFIX}`],
  ['a body shorter than its Content-Length', `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: 200\r\n\r\n${PREFIX}`],
  [
    'Expect: 100-continue',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Expect: 100-continue\r\nContent-Length: ${len(PREFIX)}\r\n\r\n${PREFIX}`,
  ],
  [
    'Upgrade: h2c',
    `GET /api/records/a HTTP/1.1\r\nHost: gw\r\n${AUTH}Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\nGET /api/records/next HTTP/1.1\r\nHost: x\r\n\r\n`,
  ],
  [
    'Upgrade: websocket with a body',
    `POST /api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Connection: Upgrade\r\nUpgrade: websocket\r\nContent-Length: ${len(PREFIX)}\r\n\r\n${PREFIX}`,
  ],
  [
    'absolute-form target',
    `POST http://evil.example/api/records HTTP/1.1\r\nHost: gw\r\n${AUTH}Content-Length: ${len(PREFIX)}\r\n\r\n${PREFIX}`,
  ],
];

describe.each([
  { parser: "node's default parser", lenient: false },
  { parser: 'a lenient parser (insecureHTTPParser)', lenient: true },
])('gateway request smuggling, service with $parser', { timeout: 120_000 }, ({ lenient }) => {
  let svc: ReturnType<typeof service>;
  let gw: Gateway;
  let front: Server;
  let port: number;
  let forwarded = 0;

  beforeAll(async () => {
    svc = service(lenient);
    const upstreamUrl = await listen(svc.server);
    const config = loadConfig(configProperties, {
      IDENTITY_SECRET: SECRET,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_STORE: 'local',
      RATE_LIMIT_ANONYMOUS: '100000',
      RATE_LIMIT_AUTHENTICATED: '100000',
      // One connection to the service: every request shares it.
      UPSTREAM_MAX_SOCKETS: '1',
      READY_UPSTREAMS: 'none',
      OPENAPI_FETCH_ATTEMPTS: '0',
      ...Object.fromEntries(['USERS', 'VOCABULARIES', 'RECORDS', 'FILES', 'REQUESTS', 'COMMUNITIES'].map((s) => [`${s}_URL`, upstreamUrl])),
    });
    gw = createApp({ config, logger: createLogger('gateway', 'silent'), verifyToken });
    // Count what the gateway forwards: the service must never receive more.
    const forward = gw.proxy.forward.bind(gw.proxy);
    gw.proxy.forward = (...args: Parameters<typeof forward>) => {
      forwarded++;
      return forward(...args);
    };
    front = http.createServer(gw.app.callback());
    port = Number(new URL(await listen(front)).port);
  });

  afterAll(async () => {
    gw?.proxy.close();
    front?.closeAllConnections();
    await new Promise<void>((r) => front.close(() => r()));
    svc?.server.closeAllConnections();
    await new Promise<void>((r) => svc.server.close(() => r()));
  });

  beforeEach(() => {
    svc.received.length = 0;
    forwarded = 0;
  });

  it.each(ATTACKS)('should keep the next client its own answer after: %s', async (_name, attack) => {
    const answer = await raw(port, attack);
    // Whatever the attacker was told, it came from the gateway or the service, never a 5xx of a confused proxy.
    for (const m of answer.matchAll(/HTTP\/1\.[01] (\d{3})/g)) expect(Number(m[1]), answer).toBeLessThan(500);
    const attackerSeen = svc.received.length;

    const v = await victim(port, '/api/records/victim-1');
    expect(v).toEqual({ status: 200, body: { method: 'GET', url: '/api/records/victim-1', sub: '7', size: 0 } });

    // Every request the service saw was one the gateway forwarded, signed and bound to it.
    for (const r of svc.received) {
      expect(typeof r.sub === 'object' && r.sub !== null ? r.sub : 'bound', `${r.method} ${r.url}`).toBe('bound');
      const names = r.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
      expect(names, `${r.method} ${r.url}`).not.toContain('authorization');
      expect(names).not.toContain('cookie');
      expect(names).not.toContain('proxy-authorization');
      // Never a client's request id or identity in place of the gateway's: one of each.
      expect(names.filter((n) => n === 'x-rdm-identity')).toHaveLength(1);
      expect(names.filter((n) => n === 'x-request-id')).toHaveLength(1);
      expect(names.filter((n) => n === 'host')).toHaveLength(1);
      expect(r.url).not.toBe('/api/records/smuggled');
    }
    expect(svc.received.length).toBeLessThanOrEqual(forwarded);
    // The attacker's own requests carry the attacker's identity, never the victim's.
    for (const r of svc.received.slice(0, attackerSeen)) expect(r.sub, `${r.method} ${r.url}`).not.toBe('7');
  });

  it('should keep two clients apart when their requests interleave on the one upstream connection', async () => {
    // The attacker's hidden prefix and a victim in flight at the same time, a few rounds.
    for (let i = 0; i < 5; i++) {
      const [, v] = await Promise.all([raw(port, ATTACKS[0]?.[1] as string, 100), victim(port, `/api/records/victim-${i}`)]);
      expect(v).toEqual({ status: 200, body: { method: 'GET', url: `/api/records/victim-${i}`, sub: '7', size: 0 } });
    }
    for (const r of svc.received) expect(r.url).not.toBe('/api/records/smuggled');
    expect(svc.received.length).toBeLessThanOrEqual(forwarded);
  });
});
