import { afterAll, describe, expect, it } from 'vitest';
import { createDb, dropServiceSchema, ensureServiceSchema, migrate, withTransaction } from '../../src/db.js';
import { TEST_DATABASE_URL, testDb, uniqueId } from '../../src/testing/index.js';
import { MIGRATIONS } from './fixtures/events.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe(createDb.name, () => {
  it('should run every pooled connection as rdm_<service> in schema <service>', async () => {
    const svc = `t_db_${uniqueId()}`;
    await Promise.all([ensureServiceSchema(TEST_DATABASE_URL, svc), ensureServiceSchema(TEST_DATABASE_URL, svc)]);
    await ensureServiceSchema(TEST_DATABASE_URL, svc);
    const sut = createDb({ url: TEST_DATABASE_URL, service: svc, pool: { min: 0, max: 3 } });
    cleanups.push(async () => {
      await sut.destroy();
      await dropServiceSchema(TEST_DATABASE_URL, svc);
    });

    const rows = await Promise.all([1, 2, 3].map(() => sut.raw('SELECT current_user AS u, current_schema() AS s')));
    for (const r of rows) expect(r.rows[0]).toEqual({ u: `rdm_${svc}`, s: svc });
    await sut.raw('CREATE TABLE things (id int)');
    const owner = await sut.raw("SELECT schemaname, tableowner FROM pg_tables WHERE tablename = 'things' AND schemaname = ?", [svc]);
    expect(owner.rows).toEqual([{ schemaname: svc, tableowner: `rdm_${svc}` }]);
  });

  it('should close a connection whose role switch failed (before its migration made the role): none kept open', async () => {
    // A service started before its migration Job (Kubernetes post-install hooks) retries against a
    // role that does not exist yet; each failed attempt must not leave its connection open, or
    // the database runs out of connections and the migration itself can no longer connect.
    const svc = `t_norole_${uniqueId()}`;
    const app = `rdm-test-${svc}`;
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set('application_name', app);
    const sut = createDb({ url: url.toString(), service: svc, pool: { min: 0, max: 2 }, acquireTimeoutMs: 2_000 });
    cleanups.push(() => sut.destroy());
    for (let i = 0; i < 8; i++) await expect(sut.raw('SELECT 1')).rejects.toThrow(/role .* does not exist/);
    const probe = createDb({ url: TEST_DATABASE_URL, service: 'public_probe', pool: { min: 0, max: 1 } });
    await ensureServiceSchema(TEST_DATABASE_URL, 'public_probe');
    cleanups.push(async () => {
      await probe.destroy();
      await dropServiceSchema(TEST_DATABASE_URL, 'public_probe');
    });
    let open = -1;
    for (let i = 0; i < 20 && open !== 0; i++) {
      const r = await probe.raw('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ?', [app]);
      open = r.rows[0].n;
      if (open !== 0) await new Promise((res) => setTimeout(res, 100));
    }
    expect(open).toBe(0);
  });

  it("should not let a service write into another service's schema", async () => {
    const a = await testDb('dba', { migrationsDir: false });
    const b = await testDb('dbb', { migrationsDir: false });
    cleanups.push(a.destroy, b.destroy);
    await b.db.raw('CREATE TABLE secrets (id int)');
    await expect(a.db.raw(`INSERT INTO "${b.schema}".secrets VALUES (1)`)).rejects.toThrow(/permission denied/);
    await expect(a.db.raw(`CREATE TABLE "${b.schema}".evil (id int)`)).rejects.toThrow(/permission denied/);
  });
});

describe(migrate.name, () => {
  it('should be safe to run twice and concurrently', async () => {
    const svc = `t_mig_${uniqueId()}`;
    await ensureServiceSchema(TEST_DATABASE_URL, svc);
    const one = createDb({ url: TEST_DATABASE_URL, service: svc });
    const two = createDb({ url: TEST_DATABASE_URL, service: svc });
    cleanups.push(async () => {
      await one.destroy();
      await two.destroy();
      await dropServiceSchema(TEST_DATABASE_URL, svc);
    });

    const [ranA, ranB] = await Promise.all([
      migrate(one, { service: svc, dir: MIGRATIONS }),
      migrate(two, { service: svc, dir: MIGRATIONS }),
    ]);
    const again = await migrate(one, { service: svc, dir: MIGRATIONS });

    expect([...ranA, ...ranB].sort()).toEqual([
      '20240101000000_create_outbox.ts',
      '20240101000001_create_inbox.ts',
      '20240101000002_create_effects.ts',
    ]);
    expect(again).toEqual([]);
    const tables = await one.raw('SELECT tablename FROM pg_tables WHERE schemaname = ? ORDER BY tablename', [svc]);
    expect(tables.rows.map((r: { tablename: string }) => r.tablename)).toEqual([
      'effects',
      'inbox',
      'knex_migrations',
      'knex_migrations_lock',
      'outbox',
    ]);
  });
});

describe(withTransaction.name, () => {
  it('should commit on success and roll back on error', async () => {
    const t = await testDb('tx', { migrationsDir: MIGRATIONS });
    cleanups.push(t.destroy);
    await withTransaction(t.db, (trx) => trx('effects').insert({ event_id: 'a', consumer: 'c' }));
    await expect(
      withTransaction(t.db, async (trx) => {
        await trx('effects').insert({ event_id: 'b', consumer: 'c' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await t.db('effects').select('event_id')).map((r) => r.event_id)).toEqual(['a']);
  });
});
