/**
 * Outages and start-up as a service's clients see them (issue 10, defects 5, 6 and 10):
 * PostgreSQL unreachable → 503 `Service unavailable.` with Retry-After and `/readyz` 503, back to
 * 200 without a restart; NATS down → `/readyz` 503 after a short grace, 200 after it returns; a
 * service never ready before its RPC subscriptions reached NATS.
 */
import net, { type AddressInfo } from 'node:net';
import pg from 'pg';
import supertest from 'supertest';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb } from '../../src/db.js';
import { Health } from '../../src/health.js';
import { createHttpApp, mountRouter, Router } from '../../src/http.js';
import { callRpc, connectNats, natsHealthCheck, type RpcServer, serveRpc } from '../../src/nats.js';
import { runService } from '../../src/service.js';
import {
  spawnNatsServer,
  TEST_DATABASE_URL,
  testDb,
  type TestDb,
  testLogger,
  testNats,
  uniqueId,
  waitFor,
  withParams,
} from '../../src/testing/index.js';
import { tcpProxy } from './fixtures/tcp-proxy.js';

const logger = testLogger('readiness');
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('PostgreSQL outage', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await testDb('pgout', { migrationsDir: false });
    cleanups.push(() => t.destroy());
  });

  it('should answer 503 with Retry-After and be not ready while the database is unreachable, and recover without a restart', async () => {
    const pgUrl = new URL(TEST_DATABASE_URL);
    const proxy = await tcpProxy({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
    cleanups.push(() => proxy.stop());
    const viaProxy = new URL(TEST_DATABASE_URL);
    viaProxy.port = String(proxy.port);
    const db = createDb({ url: viaProxy.toString(), service: t.schema, pool: { max: 2 }, acquireTimeoutMs: 2000 });
    cleanups.push(() => db.destroy());

    const { app, health } = createHttpApp({ name: 'pgout', logger });
    health.add('db', () => db.raw('select 1'));
    const router = new Router();
    router.get('/thing', async (ctx) => {
      ctx.body = (await db.raw('select 42 as n')).rows[0];
    });
    mountRouter(app, router);
    const http = supertest(app.callback());

    expect((await http.get('/thing')).body).toEqual({ n: 42 });
    expect((await http.get('/readyz')).status).toBe(200);

    await proxy.stop();
    for (let i = 0; i < 3; i++) {
      const res = await http.get('/thing');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({ status: 503, message: 'Service unavailable.' });
    }
    const ready = await http.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.db).toMatch(/^down/);

    await proxy.start();
    await waitFor(async () => (await http.get('/thing')).status === 200, { timeoutMs: 10_000 });
    expect((await http.get('/readyz')).status).toBe(200);
  });

  it('should answer 503 when the server terminates the connection mid-query (57P01)', async () => {
    const marker = `rdm_${uniqueId()}`;
    const db = createDb({ url: withParams(TEST_DATABASE_URL, { application_name: marker }), service: t.schema, pool: { max: 2 } });
    cleanups.push(() => db.destroy());
    const { app } = createHttpApp({ name: 'pgkill', logger });
    const router = new Router();
    router.get('/slow', async (ctx) => {
      ctx.body = (await db.raw('select pg_sleep(20) as slept')).rows[0];
    });
    mountRouter(app, router);
    const pending = supertest(app.callback())
      .get('/slow')
      .then((r) => r);

    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    cleanups.push(() => admin.end());
    await waitFor(async () => {
      const r = await admin.query(
        "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1 AND query LIKE '%pg_sleep%'",
        [marker],
      );
      return r.rows.length > 0;
    });
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 503, message: 'Service unavailable.' });
  });
});

/** Resolves at the connection's next status event of this type. */
async function nextStatus(nc: NatsConnection, type: string): Promise<void> {
  for await (const s of nc.status()) if (s.type === type) return;
}

describe('NATS outage', () => {
  const server = spawnNatsServer({ port: 21000 + Math.floor(Math.random() * 9000) });
  beforeAll(async () => {
    await server.start();
    cleanups.push(() => server.dispose());
  });

  it('should be not ready while NATS is down beyond the grace period, and ready again once it is back', { timeout: 60_000 }, async () => {
    const { nc } = await connectNats({ url: server.url, name: 'readiness', reconnectTimeWaitMs: 200 });
    cleanups.push(() => nc.close());
    const health = new Health();
    health.add('nats', natsHealthCheck(nc, { graceMs: 4000 }));
    expect(await health.readiness()).toEqual({ ready: true, checks: { nats: 'ok' } });

    // Why a frozen clock: how long nats-server takes to exit, and how late this process runs
    // again on a loaded machine, are not ours to decide; the grace period is measured on Date,
    // so the test moves Date itself (timers stay real, the client reconnects as usual).
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const disconnected = nextStatus(nc, 'disconnect');
      await server.stop();
      await disconnected;
      await new Promise((r) => setImmediate(r)); // the connection's own tracker saw it too
      // Within the grace period a blip does not count.
      expect(await health.readiness()).toEqual({ ready: true, checks: { nats: 'ok' } });
      vi.setSystemTime(Date.now() + 3000);
      expect((await health.readiness()).ready).toBe(true);
      vi.setSystemTime(Date.now() + 2000);
      const down = await health.readiness();
      expect(down.ready).toBe(false);
      expect(down.checks.nats).toBe('down: nats disconnected for 5 s');
    } finally {
      vi.useRealTimers();
    }

    await server.start();
    await waitFor(async () => (await health.readiness()).ready, { timeoutMs: 20_000, message: 'not ready after NATS came back' });
  });
});

describe('ready only when reachable', () => {
  it('should have an RPC responder reachable once its subscription is ready, even behind a busy connection', async () => {
    const a = await testNats(undefined, 'rpc-server');
    const b = await testNats(undefined, 'rpc-client');
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const servers: RpcServer[] = [];
    cleanups.push(() => Promise.all(servers.map((s) => s.stop())));
    const payload = new Uint8Array(512 * 1024);
    for (let i = 0; i < 5; i++) {
      // A connection with megabytes queued (a service under load): its SUB waits behind them.
      for (let j = 0; j < 16; j++) a.nc.publish(`rdmtest.${uniqueId()}.sink`, payload);
      const subject = `rdmtest.${uniqueId()}.ready`;
      const s = serveRpc(a.nc, subject, async () => i, { queue: 'ready', logger });
      servers.push(s);
      await s.ready;
      expect(await callRpc(b.nc, subject, {}, { timeoutMs: 2000 })).toBe(i);
    }
  });

  it('should keep /readyz 503 (starting) until the workers started and the RPC subscriptions reached NATS', async () => {
    const nats = await testNats(undefined, 'run-service');
    cleanups.push(() => nats.close());
    const { app, health } = createHttpApp({ name: 'starting', logger });
    const port = await freePort();
    let release!: () => void;
    const workerStarted = new Promise<void>((r) => {
      release = r;
    });
    const subject = `rdmtest.${uniqueId()}.started`;
    const rpc = serveRpc(nats.nc, subject, async () => 'pong', { queue: 'starting', logger });
    cleanups.push(() => rpc.stop());
    const running = runService({
      name: 'starting',
      app,
      health,
      logger,
      host: '127.0.0.1',
      port,
      workers: [{ name: 'slow', start: () => workerStarted, stop: () => undefined }],
    });
    const readyz = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return res ? { status: res.status, body: (await res.json()) as { checks: Record<string, string> } } : undefined;
    };
    const first = await waitFor(readyz, { timeoutMs: 5000 });
    expect(first?.status).toBe(503);
    expect(first?.body.checks.startup).toBe('down: starting');
    release();
    const { stop } = await running;
    cleanups.push(() => stop('test'));
    expect((await readyz())?.status).toBe(200);
    expect(await callRpc(nats.nc, subject, {})).toBe('pong');
  });

  it('should keep accepting for the drain delay after SIGTERM while /readyz answers 503, then close', async () => {
    const { app, health } = createHttpApp({ name: 'draining', logger });
    const port = await freePort();
    const { stop } = await runService({ name: 'draining', app, health, logger, host: '127.0.0.1', port, drainDelayMs: 1_500 });
    const readyz = () =>
      fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
    expect(await readyz()).toBe(200);
    const stopped = stop('test');
    // Kubernetes takes a moment to drop a terminating pod from its endpoints: a connection made
    // meanwhile is answered (not refused), and readiness says the pod is leaving.
    await new Promise((r) => setTimeout(r, 300));
    expect(await readyz()).toBe(503);
    await stopped;
    expect(await readyz()).toBe(0);
  });
});
