/**
 * Shared rate limits: two gateway apps, each with its own connection to one private NATS server
 * (as two replicas), count against one budget in the KV bucket; while NATS is down each falls
 * back to its in-process limiter and answers at once; after NATS returns, limits are shared again.
 */
import http, { type Server } from 'node:http';
import { createLogger, loadConfig, type RpcServer, serveRpc } from '@rdm/platform';
import { spawnNatsServer, testNats, waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type Gateway } from '../../src/app.js';
import { type NatsConnection, natsTokenVerifier } from '../../src/auth.js';
import { configProperties } from '../../src/config.js';
import type { ServiceName } from '../../src/routes.js';
import { listen, type StubUpstream, startUpstreams, upstreamEnv } from './stubs.js';

const nats = spawnNatsServer({ port: 20000 + Math.floor(Math.random() * 20000) });
const handles: { nc: NatsConnection; close(): Promise<void> }[] = [];
let stubs: Record<ServiceName, StubUpstream>;
let rpc: RpcServer;
const servers: Server[] = [];
const gateways: Gateway[] = [];
const WINDOW_SECONDS = 3600;

interface Replica {
  url: string;
  gw: Gateway;
}

/** One gateway "replica": its own NATS connection, app and HTTP server, on the shared bucket. */
async function replica(bucket: string, env: Record<string, string>): Promise<Replica> {
  const h = await testNats(nats.url, 'gateway-replica');
  handles.push(h);
  const config = loadConfig(configProperties, {
    IDENTITY_SECRET: 'shared-rate-limit-secret',
    LOG_LEVEL: 'silent',
    TOKEN_CACHE_TTL_MS: '600000',
    RATE_LIMIT_STORE: 'nats',
    RATE_LIMIT_BUCKET: bucket,
    RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    ...upstreamEnv(stubs),
    ...env,
  });
  const gw = createApp({
    config,
    logger: createLogger('gateway', process.env.RL_LOG ?? 'silent'),
    nc: h.nc,
    verifyToken: natsTokenVerifier(h.nc, 1000),
  });
  await gw.sharedLimits?.start();
  gateways.push(gw);
  const server = http.createServer(gw.app.callback());
  servers.push(server);
  return { url: await listen(server), gw };
}

async function get(r: Replica, token?: string) {
  const res = await fetch(`${r.url}/api/records`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  await res.arrayBuffer();
  return {
    status: res.status,
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
    retryAfter: res.headers.get('retry-after'),
  };
}

/** Why: fixed windows turn at multiples of the window; a case must not straddle the turn. */
async function awayFromWindowEnd(marginMs = 15_000): Promise<void> {
  const left = WINDOW_SECONDS * 1000 - (Date.now() % (WINDOW_SECONDS * 1000));
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}

beforeAll(async () => {
  await nats.start();
  const h = await testNats(nats.url, 'users-stub');
  handles.push(h);
  rpc = serveRpc<{ token: string }>(
    h.nc,
    'rdm.users.rpc.verify-token',
    async ({ token }) => ({ user_id: `u-${token}`, roles: [], token_id: `tok-${token}` }),
    { queue: 'users', logger: createLogger('users-stub', 'silent') },
  );
  await rpc.ready;
  stubs = await startUpstreams();
});

afterAll(async () => {
  for (const g of gateways) {
    g.sharedLimits?.stop();
    g.proxy.close();
  }
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  await rpc?.stop();
  for (const h of handles) await h.close().catch(() => undefined);
  if (stubs) for (const s of Object.values(stubs)) await s.close();
  await nats.dispose();
});

describe('SharedRateLimiter', () => {
  it('should make two gateways on one NATS share one budget per token, with the same headers', async () => {
    await awayFromWindowEnd();
    const a = await replica('rl_shared', { RATE_LIMIT_AUTHENTICATED: '6' });
    const b = await replica('rl_shared', { RATE_LIMIT_AUTHENTICATED: '6' });
    expect(a.gw.sharedLimits?.shared).toBe(true);
    const seen = [];
    for (let i = 0; i < 7; i++) seen.push(await get(i % 2 === 0 ? a : b, 'alice'));
    expect(seen.map((s) => s.status)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(seen.map((s) => s.remaining)).toEqual(['5', '4', '3', '2', '1', '0', '0']);
    expect(new Set(seen.map((s) => s.limit))).toEqual(new Set(['6']));
    // Reset is the end of the window, the same on both replicas.
    const windowEnd = Math.ceil(((Math.floor(Date.now() / (WINDOW_SECONDS * 1000)) + 1) * WINDOW_SECONDS * 1000) / 1000);
    expect(new Set(seen.map((s) => Number(s.reset)))).toEqual(new Set([windowEnd]));
    expect(Number(seen[6].retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(seen[6].retryAfter)).toBeLessThanOrEqual(WINDOW_SECONDS);
    // Refused on the other replica too; another token has its own budget.
    expect((await get(a, 'alice')).status).toBe(429);
    expect((await get(a, 'bob')).status).toBe(200);
  });

  it('should let exactly the limit through when both replicas take concurrently', async () => {
    await awayFromWindowEnd();
    const a = await replica('rl_concurrent', { RATE_LIMIT_AUTHENTICATED: '25', RATE_LIMIT_ANONYMOUS: '15' });
    const b = await replica('rl_concurrent', { RATE_LIMIT_AUTHENTICATED: '25', RATE_LIMIT_ANONYMOUS: '15' });
    const tokenRuns = await Promise.all(Array.from({ length: 60 }, (_, i) => get(i % 2 === 0 ? a : b, 'carol')));
    expect(tokenRuns.filter((s) => s.status === 200)).toHaveLength(25);
    expect(tokenRuns.filter((s) => s.status === 429)).toHaveLength(35);
    // Every allowed answer has a distinct remaining count: no slot was handed out twice.
    const remaining = tokenRuns.filter((s) => s.status === 200).map((s) => Number(s.remaining));
    expect(new Set(remaining).size).toBe(25);
    // Anonymous callers are counted per address (both replicas see 127.0.0.1) in the same bucket.
    const anon = await Promise.all(Array.from({ length: 30 }, (_, i) => get(i % 2 === 0 ? a : b)));
    expect(anon.filter((s) => s.status === 200)).toHaveLength(15);
  });

  it('should reserve slots for a client busy on this replica (no round trip for them), none for one at a time nor near the limit', async () => {
    await awayFromWindowEnd();
    const a = await replica('rl_reserve', { RATE_LIMIT_AUTHENTICATED: '1000' });
    const b = await replica('rl_reserve', { RATE_LIMIT_AUTHENTICATED: '1000' });
    const limits = a.gw.sharedLimits as NonNullable<Gateway['sharedLimits']>;
    // Ten requests of the client in flight here: the write reserves spare slots (8 × 9 = 72).
    const first = limits.take('t:busy', 1000, 10);
    expect(first).toBeInstanceOf(Promise);
    expect((await first).remaining).toBe(999);
    const next = limits.take('t:busy', 1000, 10);
    expect(next).not.toBeInstanceOf(Promise);
    expect((next as Awaited<typeof first>).remaining).toBe(998);
    // The other replica counts after the reservation.
    const other = await (b.gw.sharedLimits as NonNullable<Gateway['sharedLimits']>).take('t:busy', 1000, 1);
    expect(other.remaining).toBe(1000 - 1 - 72 - 1);
    // One request at a time: every take is a write, and counts are exact.
    expect((await limits.take('t:calm', 1000, 1)).remaining).toBe(999);
    expect(limits.take('t:calm', 1000, 1)).toBeInstanceOf(Promise);
    // Near the limit no spare slot is taken: exactly the limit passes.
    const near = await Promise.all(Array.from({ length: 6 }, () => limits.take('t:near', 5, 6)));
    expect(near.filter((d) => d.allowed)).toHaveLength(5);
    expect((await (b.gw.sharedLimits as NonNullable<Gateway['sharedLimits']>).take('t:near', 5, 1)).allowed).toBe(false);
  });

  it('should fall back to in-process limits at once while NATS is down, and share again after', async () => {
    await awayFromWindowEnd(30_000);
    const a = await replica('rl_outage', { RATE_LIMIT_ANONYMOUS: '4' });
    const b = await replica('rl_outage', { RATE_LIMIT_ANONYMOUS: '4' });
    expect((await get(a)).status).toBe(200);
    await nats.stop();
    try {
      await waitFor(() => a.gw.sharedLimits?.shared === false && b.gw.sharedLimits?.shared === false, {
        message: 'replicas noticed the outage',
      });
      // Each replica now enforces the limit on its own (N replicas → N × limit), never refusing
      // for the outage itself and never waiting for NATS.
      for (const r of [a, b]) {
        const started = Date.now();
        const seen = [];
        for (let i = 0; i < 5; i++) seen.push(await get(r));
        expect(Date.now() - started).toBeLessThan(2000);
        expect(seen.map((s) => s.status)).toEqual([200, 200, 200, 200, 429]);
        expect(seen[4].retryAfter).not.toBeNull();
        expect(seen[0].limit).toBe('4');
      }
    } finally {
      await nats.start();
    }
    // NATS is back (a fresh server: the memory bucket is gone and is re-created): shared again.
    await waitFor(
      async () => {
        const s = await get(a, 'dave');
        return s.status === 200 && a.gw.sharedLimits?.shared === true;
      },
      { timeoutMs: 20_000, intervalMs: 300, message: 'limits shared again after NATS returned' },
    );
    await waitFor(async () => (await get(b, 'dave')).status === 200 && b.gw.sharedLimits?.shared === true, { timeoutMs: 20_000 });
    const before = Number((await get(a, 'erin')).remaining);
    const after = Number((await get(b, 'erin')).remaining);
    expect(after).toBe(before - 1);
  });
});
