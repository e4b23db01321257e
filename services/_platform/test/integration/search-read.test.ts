/**
 * `searchRead` on the real PostgreSQL: a search statement stops at the statement timeout (503, not
 * 500), and stops in PostgreSQL when its client goes away (seen in pg_stat_activity), behind the
 * platform's koa app on a real socket; the pooled connection comes back clean. Bounded in time.
 */
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import { createBoundedServer, DEFAULT_HTTP_SERVER_BOUNDS } from '../../src/http-bounds.js';
import { createHttpApp, mountRouter, Router } from '../../src/http.js';
import { searchRead } from '../../src/search/pg-read.js';
import { statementWatch, type TestDb, testDb, testLogger, uniqueId, waitFor } from '../../src/testing/index.js';

let t: TestDb;
let watch: Awaited<ReturnType<typeof statementWatch>>;
beforeAll(async () => {
  t = await testDb('searchread', { migrationsDir: false, pool: { max: 2 } });
  watch = await statementWatch();
});
afterAll(async () => {
  await watch?.close();
  await t?.destroy();
});

/** Backends running a statement that contains `marker`. */
const running = (marker: string) => watch.running(`%${marker}%`);

describe('searchRead', () => {
  it('should stop a statement at the timeout with a 503, never a 500', async () => {
    const t0 = Date.now();
    const err = await searchRead(t.db, (on) => on(t.db.raw('SELECT pg_sleep(10)')), { timeoutMs: 300, signal: null }).catch((e) => e);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(isAppError(err) && { status: err.status, message: err.message }).toEqual({
      status: 503,
      message: 'The search took too long; please refine it.',
    });
  });

  it('should run read-only with the timeout set only for its own transaction', async () => {
    const inside = await searchRead(t.db, async (on) => (await on(t.db.raw('SHOW statement_timeout'))).rows[0].statement_timeout, {
      timeoutMs: 1234,
      signal: null,
    });
    expect(inside).toBe('1234ms');
    const after = (await t.db.raw('SHOW statement_timeout')).rows[0].statement_timeout;
    expect(after).toBe('0');
    const write = await searchRead(t.db, (on) => on(t.db.raw('CREATE TABLE nope (x int)')), { signal: null }).catch((e) => e);
    expect((write as { code?: string }).code).toBe('25006'); // read_only_sql_transaction
  });

  it('should cancel the statement in PostgreSQL when the client goes away, and return a clean connection', async () => {
    const marker = `search_marker_${uniqueId()}`;
    const { app } = createHttpApp({ name: 'search-read-test', logger: testLogger(), requestScope: true });
    const router = new Router();
    let outcome: unknown;
    router.get('/slow', async (ctx) => {
      try {
        await searchRead(t.db, (on) => on(t.db.raw(`SELECT pg_sleep(30), '${marker}'`)), { timeoutMs: 60_000 });
        ctx.body = { done: true };
      } catch (e) {
        outcome = e;
        throw e;
      }
    });
    mountRouter(app, router);
    const server = createBoundedServer(app.callback(), DEFAULT_HTTP_SERVER_BOUNDS);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => undefined);
    try {
      socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
      await waitFor(async () => (await running(marker)) === 1, { timeoutMs: 5000, intervalMs: 50, message: 'the search never started' });
      const gone = Date.now();
      socket.destroy();
      await waitFor(async () => (await running(marker)) === 0, { timeoutMs: 3000, intervalMs: 50, message: 'the search kept running' });
      expect(Date.now() - gone).toBeLessThan(3000);
      await waitFor(() => outcome !== undefined, { timeoutMs: 3000, intervalMs: 20 });
      expect(isAppError(outcome) && outcome.status).toBe(499);
      // The pool (2 connections) still answers on both: none was left in a cancelled or timed-out state.
      const pids = await Promise.all(
        [0, 1].map(() => searchRead(t.db, (on) => on(t.db.raw('SELECT pg_backend_pid() AS pid, 1 AS ok')), { signal: null })),
      );
      expect(pids.map((p) => p.rows[0].ok)).toEqual([1, 1]);
    } finally {
      socket.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('should not start a statement for a client already gone', async () => {
    const controller = new AbortController();
    controller.abort();
    let ran = false;
    const err = await searchRead(
      t.db,
      async (on) => {
        ran = true;
        return on(t.db.raw('SELECT 1'));
      },
      { signal: controller.signal },
    ).catch((e) => e);
    expect(ran).toBe(false);
    expect(isAppError(err) && err.status).toBe(499);
  });
});
