import http from 'node:http';
import net from 'node:net';
import type { Server } from 'node:http';
import { Readable } from 'node:stream';
import { createLogger, isTelemetryEnabled, serveRpc, startTelemetry, type RpcServer } from '@rdm/platform';
import { spawnNatsServer, testNats, waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type Gateway } from '../../src/app.js';
import { type NatsConnection, natsTokenVerifier, subscribeInvalidations } from '../../src/auth.js';
import { configProperties } from '../../src/config.js';
import { loadConfig } from '@rdm/platform';
import type { ServiceName } from '../../src/routes.js';
import { type StubUpstream, closedPort, identityOf, listen, startUpstreams, upstreamEnv } from './stubs.js';

const SECRET = 'integration-identity-secret';
// Why a private nats-server: a users service running on the shared NATS would answer
// verify-token in the same queue group as the stub.
const nats = spawnNatsServer({ port: 20000 + Math.floor(Math.random() * 20000) });
let nc: NatsConnection;
let closeNats: () => Promise<void>;
let stubs: Record<ServiceName, StubUpstream>;
let rpc: RpcServer;
/** token → what users answers. */
const users = new Map<string, { user_id: string; roles: string[]; token_id: string }>();
let rpcCalls = 0;

function serveUsers(): RpcServer {
  return serveRpc<{ token: string }>(
    nc,
    'rdm.users.rpc.verify-token',
    async ({ token }) => {
      rpcCalls++;
      return users.get(token) ?? null;
    },
    { queue: 'users', logger: createLogger('users-stub', 'silent') },
  );
}

interface Running {
  url: string;
  gw: Gateway;
  close(): Promise<void>;
}
const running: Running[] = [];

async function startGateway(env: Record<string, string> = {}): Promise<Running> {
  const config = loadConfig(configProperties, {
    IDENTITY_SECRET: SECRET,
    LOG_LEVEL: 'silent',
    TOKEN_CACHE_TTL_MS: '60000',
    ...upstreamEnv(stubs),
    ...env,
  });
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const gw = createApp({ config, logger, nc, verifyToken: natsTokenVerifier(nc, 1000) });
  const subs = subscribeInvalidations(nc, gw.tokens, logger);
  const server: Server = http.createServer(gw.app.callback());
  const url = await listen(server);
  const r: Running = {
    url,
    gw,
    close: async () => {
      for (const s of subs) s.unsubscribe();
      gw.proxy.close();
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
  running.push(r);
  return r;
}

let gw: Running;

beforeAll(async () => {
  await nats.start();
  const h = await testNats(nats.url, 'gateway-test');
  nc = h.nc;
  closeNats = h.close;
  rpc = serveUsers();
  stubs = await startUpstreams();
  gw = await startGateway();
});

afterAll(async () => {
  for (const r of running) await r.close();
  for (const s of Object.values(stubs ?? {})) await s.close();
  await rpc?.stop();
  await closeNats?.();
  await nats.dispose();
});

beforeEach(() => {
  for (const s of Object.values(stubs)) s.seen.length = 0;
  rpcCalls = 0;
});

const last = (service: ServiceName) => stubs[service].seen.at(-1);

describe('gateway routing and headers', () => {
  it('should route each path to its owning service and stream the answer back', async () => {
    const cases: [string, string, ServiceName][] = [
      ['GET', '/api/vocabularies/resourcetypes/image-photo', 'vocabularies'],
      ['GET', '/api/affiliations/01ggx4157', 'vocabularies'],
      ['GET', '/api/records?q=title:x&page=2', 'records'],
      ['GET', '/api/records/abcde-fgh12/draft/files', 'files'],
      ['POST', '/api/records/abcde-fgh12/draft/actions/files-import', 'records'],
      ['GET', '/api/communities/my-comm/records', 'records'],
      ['GET', '/api/communities/my-comm', 'communities'],
      ['GET', '/api/user/requests', 'requests'],
      ['GET', '/api/users/1', 'users'],
    ];
    for (const [method, path, service] of cases) {
      const res = await fetch(`${gw.url}${path}`, { method });
      expect(res.headers.get('x-stub-service'), `${method} ${path}`).toBe(service);
      await res.arrayBuffer();
      expect(last(service)?.url).toBe(path);
    }
  });

  it('should forward request id, forwarding headers and trace context, and strip hop-by-hop headers both ways', async () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    // Raw http: fetch may not set Host.
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get(
          `${gw.url}/api/vocabularies/resourcetypes/dataset`,
          { headers: { 'x-request-id': 'req-123', traceparent: tp, 'x-forwarded-for': '6.6.6.6', host: 'repo.example.org' } },
          resolve,
        )
        .on('error', reject);
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"3"');
    expect(res.headers['x-hop']).toBeUndefined();
    expect(res.headers['keep-alive']).not.toBe('timeout=65');
    expect(res.headers['x-request-id']).toBe('req-123');
    expect(res.headers['x-ratelimit-limit']).toBe('500');
    res.resume();
    await new Promise((r) => res.on('end', r));
    const h = last('vocabularies')!.headers;
    expect(h['x-request-id']).toBe('req-123');
    expect(h['x-forwarded-for']).toBe('127.0.0.1');
    expect(h['x-forwarded-proto']).toBe('http');
    expect(h['x-forwarded-host']).toBe('repo.example.org');
    expect(h.traceparent).toBe(tp);
    // Anonymous, signed all the same: the client address for the services' limiters.
    expect(identityOf(last('vocabularies'), SECRET)).toEqual({ sub: null, roles: [], clientIp: '127.0.0.1' });
  });

  it('should frame a bodiless POST with Content-Length: 0 and send the service its own Host', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(`${gw.url}/api/records/abcde-fgh12/draft/actions/publish`, { method: 'POST' }, resolve);
      req.on('error', reject);
      req.end();
    });
    res.resume();
    await new Promise((r) => res.on('end', r));
    const seen = last('records')!;
    expect(seen.method).toBe('POST');
    expect(seen.headers['content-length']).toBe('0');
    expect(seen.headers['transfer-encoding']).toBeUndefined();
    expect(seen.headers.host).toBe(new URL(stubs.records.url).host);
    // No client request id: the gateway's own, the same one upstream and back.
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.headers['x-request-id']).toBe(res.headers['x-request-id']);
  });

  it('should forward through koa, with the span as trace context, while OpenTelemetry is on', async () => {
    const saved = process.env.OTEL_TRACES_EXPORTER;
    process.env.OTEL_TRACES_EXPORTER = 'none';
    const telemetry = startTelemetry('gateway-test', true);
    try {
      expect(isTelemetryEnabled()).toBe(true);
      const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const res = await fetch(`${gw.url}/api/vocabularies/resourcetypes/dataset`, {
        headers: { traceparent: tp, 'x-request-id': 'otel-1' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBe('"3"');
      expect(res.headers.get('x-request-id')).toBe('otel-1');
      expect(res.headers.get('x-ratelimit-limit')).toBe('500');
      await res.arrayBuffer();
      const h = last('vocabularies')!.headers;
      expect(h['x-request-id']).toBe('otel-1');
      // One traceparent: the same trace, the gateway's span as parent once the SDK runs.
      expect(typeof h.traceparent).toBe('string');
      expect(String(h.traceparent).split('-')[1]).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      const refused = await fetch(`${gw.url}/api/nothing`);
      expect(refused.status).toBe(404);
      expect(await refused.json()).toEqual({
        status: 404,
        message: 'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.',
      });
    } finally {
      await telemetry.shutdown();
      if (saved === undefined) Reflect.deleteProperty(process.env, 'OTEL_TRACES_EXPORTER');
      else process.env.OTEL_TRACES_EXPORTER = saved;
    }
    expect(isTelemetryEnabled()).toBe(false);
  });

  it("should pass a service's own error answers through untouched", async () => {
    const res = await fetch(`${gw.url}/api/records/missing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ status: 404, message: 'The persistent identifier does not exist.' });
    const head = await fetch(`${gw.url}/api/records/abcde-fgh12/files-archive`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('should never forward an identity header sent by a client', async () => {
    const res = await fetch(`${gw.url}/api/records`, { headers: { 'x-rdm-identity': 'eyJzdWIiOiIxIn0.forged' } });
    await res.arrayBuffer();
    expect(last('records')!.headers['x-rdm-identity']).not.toContain('forged');
    expect(identityOf(last('records'), SECRET)).toEqual({ sub: null, roles: [], clientIp: '127.0.0.1' });
  });

  it('should never forward Authorization, Cookie or Proxy-Authorization', async () => {
    users.set('cookie-token', { user_id: '5', roles: [], token_id: 'tok-5' });
    const res = await fetch(`${gw.url}/api/records`, {
      headers: { authorization: 'Bearer cookie-token', cookie: 'session=abc', 'proxy-authorization': 'Basic eDp5' },
    });
    await res.arrayBuffer();
    const h = last('records')!.headers;
    expect([h.authorization, h.cookie, h['proxy-authorization']]).toEqual([undefined, undefined, undefined]);
    expect(identityOf(last('records'), SECRET)).toMatchObject({ sub: '5' });
  });
});

describe('gateway authentication', () => {
  it('should forward anonymous callers with the anonymous identity, without asking users', async () => {
    await (await fetch(`${gw.url}/api/records`)).arrayBuffer();
    expect(identityOf(last('records'), SECRET)).toEqual({ sub: null, roles: [], clientIp: '127.0.0.1' });
    expect(rpcCalls).toBe(0);
  });

  it('should forward a signed identity for a good token (header or query) and cache the answer', async () => {
    users.set('good-token', { user_id: '42', roles: ['admin'], token_id: 'tok-42' });
    for (const init of [{ headers: { authorization: 'Bearer good-token' } }, {}]) {
      const url = init.headers ? `${gw.url}/api/user/records` : `${gw.url}/api/user/records?access_token=good-token`;
      await (await fetch(url, init)).arrayBuffer();
      expect(identityOf(last('records'), SECRET)).toEqual({ sub: '42', roles: ['admin'], clientIp: '127.0.0.1' });
    }
    expect(rpcCalls).toBe(1);
    // The query parameter is kept for the service (never logged by the gateway).
    expect(last('records')!.url).toBe('/api/user/records?access_token=good-token');
  });

  it('should refuse a bad token with 401 by default, never forward it, and remember the answer briefly', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${gw.url}/api/records`, { headers: { authorization: 'Bearer bad-token' } });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(await res.json()).toEqual({ status: 401, message: 'The access token is invalid or has been revoked.' });
    }
    expect(stubs.records.seen).toHaveLength(0);
    expect(rpcCalls).toBe(1);
  });

  it('should treat a bad token as anonymous with AUTH_INVALID_TOKEN=anonymous (InvenioRDM) and remember the answer briefly', async () => {
    const compat = await startGateway({ AUTH_INVALID_TOKEN: 'anonymous' });
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${compat.url}/api/records`, { headers: { authorization: 'Bearer bad-token' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('www-authenticate')).toBeNull();
      await res.arrayBuffer();
      expect(identityOf(last('records'), SECRET)).toMatchObject({ sub: null, roles: [] });
    }
    expect(stubs.records.seen).toHaveLength(3);
    expect(rpcCalls).toBe(1);
  });

  /** GET /api/records with `token`: the status, and whether records saw the request (and with which identity). */
  async function callRecords(token: string): Promise<{ status: number; forwarded: boolean; identity: unknown }> {
    const before = stubs.records.seen.length;
    const res = await fetch(`${gw.url}/api/records`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    const forwarded = stubs.records.seen.length > before;
    return { status: res.status, forwarded, identity: forwarded ? last('records')!.headers['x-rdm-identity'] : undefined };
  }

  it('should drop a cached token at once when users announces its revocation, then refuse it with 401', async () => {
    users.set('soon-revoked', { user_id: '7', roles: [], token_id: 'tok-7' });
    const before = await callRecords('soon-revoked');
    expect(before).toMatchObject({ status: 200, forwarded: true });
    expect(before.identity).toBeDefined();
    users.delete('soon-revoked');
    nc.publish(
      'rdm.users.token.revoked',
      JSON.stringify({ id: 'e1', type: 'rdm.users.token.revoked', data: { id: 'tok-7', user_id: '7' } }),
    );
    // The TTL is 60 s here, so only the event can make the gateway ask again.
    await waitFor(async () => (await callRecords('soon-revoked')).status !== 200, { timeoutMs: 3000, intervalMs: 50 });
    expect(await callRecords('soon-revoked')).toEqual({ status: 401, forwarded: false, identity: undefined });
  });

  it('should drop cached tokens of a deactivated user at once, then refuse them with 401', async () => {
    users.set('user-9-token', { user_id: '9', roles: [], token_id: 'tok-9' });
    expect(await callRecords('user-9-token')).toMatchObject({ status: 200, forwarded: true });
    expect(gw.gw.tokens.size).toBeGreaterThan(0);
    users.delete('user-9-token');
    nc.publish('rdm.users.user.deactivated', JSON.stringify({ data: { id: '9' } }));
    await waitFor(async () => (await callRecords('user-9-token')).status !== 200, { timeoutMs: 3000, intervalMs: 50 });
    expect(await callRecords('user-9-token')).toEqual({ status: 401, forwarded: false, identity: undefined });
  });

  it('should answer 503 (not anonymous) when users does not answer', async () => {
    await rpc.stop();
    try {
      const started = Date.now();
      const res = await fetch(`${gw.url}/api/records`, { headers: { authorization: 'Bearer never-seen' } });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 503, message: 'Service unavailable.' });
      expect(Date.now() - started).toBeLessThan(2500);
      expect(stubs.records.seen).toHaveLength(0);
    } finally {
      rpc = serveUsers();
      await nc.flush();
    }
  });

  it('should count a token against the authenticated limit and answer 429 past it', async () => {
    const small = await startGateway({ RATE_LIMIT_AUTHENTICATED: '3' });
    users.set('limited', { user_id: '5', roles: [], token_id: 'tok-5' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${small.url}/api/records`, { headers: { authorization: 'Bearer limited' } });
      statuses.push(res.status);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await res.json()).toEqual({ status: 429, message: 'Too many requests. Please slow down.' });
      } else await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('gateway client address', () => {
  /** GET through `url` with `X-Forwarded-For: xff` (node's client: fetch may not send it as is). */
  async function via(url: string, xff: string): Promise<number> {
    const res = await fetch(`${url}/api/records`, { headers: { 'x-forwarded-for': xff } });
    await res.arrayBuffer();
    return res.status;
  }

  it.each([
    ['TRUST_PROXY_HOPS=1', { TRUST_PROXY_HOPS: '1' }],
    ['TRUST_PROXY=true (deprecated: one hop)', { TRUST_PROXY: 'true' }],
    ['TRUSTED_PROXIES=loopback', { TRUSTED_PROXIES: 'loopback' }],
  ])(
    'should establish the client address once behind a trusted proxy (%s): the limiter, the signed address and the X-Forwarded-For sent agree, a spoofed first hop changes nothing',
    async (_name, env) => {
      const behind = await startGateway({ ...env, RATE_LIMIT_STORE: 'local', RATE_LIMIT_ANONYMOUS: '2' });
      // The client wrote the first hops; the proxy in front (the test, 127.0.0.1) appended 203.0.113.9.
      expect(await via(behind.url, '198.51.100.1, 203.0.113.9')).toBe(200);
      const seen = last('records');
      expect(seen?.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
      expect(identityOf(seen, SECRET)).toEqual({ sub: null, roles: [], clientIp: '203.0.113.9' });
      // Another spoofed first hop is the same client: one budget of 2.
      expect(await via(behind.url, '198.51.100.2, 203.0.113.9')).toBe(200);
      expect(await via(behind.url, '198.51.100.3, 203.0.113.9')).toBe(429);
      // Another client behind the same proxy has its own.
      expect(await via(behind.url, '203.0.113.10')).toBe(200);
    },
  );

  it('should ignore X-Forwarded-For without trusted proxies: the peer is the client', async () => {
    const direct = await startGateway({ RATE_LIMIT_STORE: 'local', RATE_LIMIT_ANONYMOUS: '2' });
    expect(await via(direct.url, '203.0.113.20')).toBe(200);
    expect(last('records')?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(identityOf(last('records'), SECRET)).toMatchObject({ clientIp: '127.0.0.1' });
    expect(await via(direct.url, '203.0.113.21')).toBe(200);
    expect(await via(direct.url, '203.0.113.22')).toBe(429);
  });
});

describe('gateway streaming and failures', () => {
  it('should stream a chunked upload to the files service and back its checksum', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 1);
    const body = Readable.from(
      (function* () {
        for (let i = 0; i < 16; i++) yield chunk;
      })(),
    );
    const res = await fetch(`${gw.url}/api/records/abcde-fgh12/draft/files/big.bin/content`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body,
      duplex: 'half', // node fetch needs it for streamed bodies
    } as never);
    expect(res.status).toBe(200);
    const out = (await res.json()) as { size: number; service: string };
    expect(out).toMatchObject({ size: 16 * 1024 * 1024, service: 'files' });
    expect(last('files')!.headers['transfer-encoding']).toBe('chunked');
  });

  it('should refuse a streamed body over BODY_LIMIT on a non-upload route with 413', async () => {
    const small = await startGateway({ BODY_LIMIT: '1000' });
    const before = stubs.records.aborted;
    const req = http.request(`${small.url}/api/records`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    req.on('error', () => undefined);
    const response = new Promise<http.IncomingMessage>((resolve) => req.once('response', resolve));
    // Chunks arrive separately, so the limit trips mid-stream (no Content-Length to check up front).
    req.write(Buffer.alloc(600, 0x20));
    await new Promise((r) => setTimeout(r, 100));
    req.write(Buffer.alloc(600, 0x20));
    const res = await response;
    expect(res.statusCode).toBe(413);
    expect(res.headers.connection).toBe('close');
    const body = await new Promise<string>((resolve) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
      });
      res.on('end', () => resolve(text));
    });
    expect(JSON.parse(body)).toEqual({ status: 413, message: 'Request entity too large.' });
    req.destroy();
    // The service never gets the body: a chunked body on a route other than uploads is collected
    // at the gateway until it is no longer small, and this one was refused before.
    expect(stubs.records.seen).toHaveLength(0);
    expect(stubs.records.aborted).toBe(before);
  });

  it('should stream a large download through', async () => {
    const res = await fetch(`${gw.url}/api/records/abcde-fgh12/files-archive`);
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(20 * 1024 * 1024);
  });

  it('should cut the client response, not hang, when a service dies mid-body', async () => {
    const started = Date.now();
    const res = await fetch(`${gw.url}/api/records/cut-me/files-archive`).catch((e: Error) => e);
    if (!(res instanceof Error)) {
      expect(res.status).toBe(200);
      await expect(res.arrayBuffer()).rejects.toThrow();
    }
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('should answer 503 at once when a service refuses connections', async () => {
    const port = await closedPort();
    const down = await startGateway({ REQUESTS_URL: `http://127.0.0.1:${port}` });
    const started = Date.now();
    const res = await fetch(`${down.url}/api/requests`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toEqual({ status: 503, message: 'Service unavailable.' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('should answer 503 when a service sends no headers within the timeout, but wait on uploads', async () => {
    const slow = await startGateway({ UPSTREAM_HEADERS_TIMEOUT_MS: '300' });
    const started = Date.now();
    const res = await fetch(`${slow.url}/api/requests/x/comments/never`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    await res.arrayBuffer();
    const ms = Date.now() - started;
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(2000);
    const upload = await fetch(`${slow.url}/api/records/slow/draft/files/a.bin/content`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(1000),
    });
    expect(upload.status).toBe(200);
    expect(await upload.json()).toMatchObject({ size: 1000 });
  });

  // An upload has no headers timeout (its body may take hours), but a service that takes the body
  // and never answers, or stops reading it, must not hold the client for ever (the 300 s hang of a
  // small `PUT …/content` seen once in e2e): a 503 after UPSTREAM_UPLOAD_IDLE_TIMEOUT_MS, the
  // upstream request aborted, the client's connection usable or closed, never hanging.
  it('should answer 503 when a service has the whole upload and does not answer within the upload idle timeout', async () => {
    const idle = await startGateway({ UPSTREAM_UPLOAD_IDLE_TIMEOUT_MS: '1000', UPSTREAM_HEADERS_TIMEOUT_MS: '300' });
    stubs.files.aborted = 0;
    const started = Date.now();
    const res = await fetch(`${idle.url}/api/records/abcde-fgh12/draft/files/hang-after-body/content`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(200_000, 1),
    });
    const ms = Date.now() - started;
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 503, message: 'Service unavailable.' });
    expect(ms).toBeGreaterThanOrEqual(990);
    expect(ms).toBeLessThan(3500);
    // The service had the whole body, and its request was aborted (it can stop its work).
    expect(stubs.files.seen.some((s) => s.method === 'END' && s.url.endsWith('/hang-after-body/content'))).toBe(true);
    await waitFor(() => stubs.files.aborted === 1 || undefined, { timeoutMs: 2000, message: 'upstream request not aborted' });
    expect(idle.gw.proxy.inFlight(idle.gw.upstreams.files)).toBe(0);
    // A service thinking longer than the headers timeout (600 ms) but within the idle bound still answers.
    const slow = await fetch(`${idle.url}/api/records/slow/draft/files/a.bin/content`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(1000),
    });
    expect(slow.status).toBe(200);
  });

  it('should answer 503 when a service stops reading an upload, never leave the client hanging', async () => {
    const idle = await startGateway({ UPSTREAM_UPLOAD_IDLE_TIMEOUT_MS: '500', EARLY_ANSWER_DRAIN_MS: '300' });
    // 64 MiB the stub never reads: socket buffers fill, the gateway is held back, then gives up.
    const total = 64 * 1024 * 1024;
    const started = Date.now();
    const out = await new Promise<{ status: number; body: string; answeredAt: number }>((resolve) => {
      const sock = net.connect(Number(new URL(idle.url).port), '127.0.0.1');
      let got = Buffer.alloc(0);
      let sent = 0;
      const chunk = Buffer.alloc(256 * 1024, 2);
      const pump = () => {
        while (sent < total && !sock.destroyed) {
          sent += chunk.length;
          if (!sock.write(chunk)) return void sock.once('drain', pump);
        }
      };
      const done = (status: number, body: string) => {
        resolve({ status, body, answeredAt: Date.now() - started });
        sock.destroy();
      };
      sock.on('connect', () => {
        sock.write(
          `PUT /api/records/abcde-fgh12/draft/files/never/content HTTP/1.1\r\nHost: gw\r\nContent-Type: application/octet-stream\r\nContent-Length: ${total}\r\n\r\n`,
        );
        pump();
      });
      // Resolved once the whole answer (head and its Content-Length of body) has arrived.
      sock.on('data', (d: Buffer) => {
        got = Buffer.concat([got, d]);
        const text = got.toString('latin1');
        const end = text.indexOf('\r\n\r\n');
        const length = /content-length: *(\d+)/i.exec(text.slice(0, end));
        if (end !== -1 && length && got.length >= end + 4 + Number(length[1]))
          done(Number(text.slice(9, 12)), got.subarray(end + 4, end + 4 + Number(length[1])).toString('utf8'));
      });
      sock.on('error', () => undefined);
      sock.on('close', () => done(0, got.toString('utf8')));
    });
    expect(out.status).toBe(503);
    expect(JSON.parse(out.body)).toEqual({ status: 503, message: 'Service unavailable.' });
    expect(out.answeredAt).toBeGreaterThanOrEqual(490);
    expect(out.answeredAt).toBeLessThan(3000);
    expect(idle.gw.proxy.inFlight(idle.gw.upstreams.files)).toBe(0);
  });

  // A client that leaves while the service works on its answer (a costly search) must not leave the
  // service working for nobody: the gateway closes that request, the service sees it gone and stops.
  it('should abort the service request when the client leaves before the answer, for a GET as for a PUT', async () => {
    stubs.requests.abandoned = 0;
    for (const [i, head] of [
      'GET /api/requests/x/comments/never HTTP/1.1\r\nHost: gw\r\n\r\n',
      'PUT /api/requests/x/comments/never HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    ].entries()) {
      const sock = net.connect(Number(new URL(gw.url).port), '127.0.0.1');
      sock.on('error', () => undefined);
      sock.write(head);
      await waitFor(() => stubs.requests.seen.filter((s) => s.url.endsWith('/comments/never')).length === i + 1 || undefined, {
        timeoutMs: 5000,
        message: `the request never reached the service: ${JSON.stringify(stubs.requests.seen.map((s) => s.method + ' ' + s.url))}`,
      });
      sock.destroy();
      await waitFor(() => stubs.requests.abandoned === i + 1 || undefined, {
        timeoutMs: 2000,
        message: 'the service request was left open',
      });
    }
    expect(gw.gw.proxy.inFlight(gw.gw.upstreams.requests)).toBe(0);
  });

  it('should tell the service when the client abandons an upload', async () => {
    const req = http.request(`${gw.url}/api/records/abcde-fgh12/draft/files/a.bin/content`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(64 * 1024));
    await waitFor(() => stubs.files.seen.length > 0, { timeoutMs: 2000 });
    const before = stubs.files.aborted;
    req.destroy();
    await waitFor(() => stubs.files.aborted > before, { timeoutMs: 3000, message: 'files stub never saw the abort' });
  });
});

describe('gateway readiness', () => {
  const readyz = async (url: string) => {
    const res = await fetch(`${url}/readyz`);
    return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
  };
  const setNotReady = (names: ServiceName[]) => {
    for (const s of Object.values(stubs)) s.notReady = names.includes(s.service);
  };

  it('should be ready while NATS is connected and the services are ready', async () => {
    const r = await readyz(gw.url);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ready', checks: { nats: 'ok', upstreams: 'ok' } });
  });

  it('should stay ready with one service not ready, and be not ready when none is (a database outage)', async () => {
    const g = await startGateway({ READY_UPSTREAMS_CACHE_MS: '0' });
    try {
      setNotReady(['records']);
      expect((await readyz(g.url)).status).toBe(200);
      setNotReady(['users', 'vocabularies', 'records', 'files']);
      const down = await readyz(g.url);
      expect(down.status).toBe(503);
      expect(down.body.checks.upstreams).toBe('down: not ready: users 503, vocabularies 503, records 503, files 503');
      setNotReady([]);
      expect((await readyz(g.url)).status).toBe(200);
    } finally {
      setNotReady([]);
    }
  });

  it('should require every listed service with READY_UPSTREAMS_MODE=all, and none with READY_UPSTREAMS=none', async () => {
    const strict = await startGateway({ READY_UPSTREAMS_CACHE_MS: '0', READY_UPSTREAMS_MODE: 'all', READY_UPSTREAMS: 'records,files' });
    const loose = await startGateway({ READY_UPSTREAMS: 'none' });
    try {
      setNotReady(['users', 'vocabularies', 'records', 'files']);
      expect((await readyz(loose.url)).body.checks.upstreams).toBeUndefined();
      expect((await readyz(loose.url)).status).toBe(200);
      setNotReady(['files']);
      const r = await readyz(strict.url);
      expect(r.status).toBe(503);
      expect(r.body.checks.upstreams).toBe('down: not ready: files 503');
    } finally {
      setNotReady([]);
    }
  });
});
