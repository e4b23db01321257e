/**
 * The postgres engine's answers cached per write stamp of `search_docs` (pg-indexer.ts, agg-cache.ts
 * `exact`): served again while nothing is written, and never an answer that misses a committed
 * write — neither a write committed between two searches nor one that was in flight (its stamp
 * already drawn, not yet committed) while the cached answer was computed. Facet counts of the
 * shared part may lag a write by about the facet cache's 1 s, as before (then recomputed).
 */
import type { Identity, Knex } from '@rdm/platform';
import { testDb, type TestDb } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchPlan } from '../../src/search/indexer.js';
import { PostgresIndexer } from '../../src/search/pg-indexer.js';
import { seedCorpus } from './engine-corpus.js';

const anonymous: Identity = { sub: null, roles: [] };
const user7: Identity = { sub: '7', roles: [] };

const plan = (identity: Identity, q = ''): SearchPlan => ({
  scope: { kind: 'published', identity, allVersions: false },
  q,
  filters: { accessStatus: [], fileType: [], resourceTypes: [], publicationDate: [], isPublished: [], dateWindows: [] },
  sort: q ? 'bestmatch' : 'mostrecent',
  limit: 10,
  offset: 0,
});

/** Sum of the access-status facet counts: every document of the scope once. */
const counted = (rows: { f: string; n: number }[]) => rows.filter((r) => r.f === 'a').reduce((s, r) => s + r.n, 0);

describe('record search cached per write stamp (postgres engine)', () => {
  let t: TestDb;
  let db: Knex;
  let pg: PostgresIndexer;
  const statements: string[] = [];

  /** A public, latest record's id (the one the tests make restricted and public again). */
  let target: string;

  beforeAll(async () => {
    t = await testDb('records');
    db = t.db;
    await seedCorpus(db, 60);
    target = (
      await db.raw(
        "SELECT id FROM search_docs WHERE kind = 'record' AND is_latest AND access_record = 'public' ORDER BY created DESC LIMIT 1",
      )
    ).rows[0].id;
    pg = new PostgresIndexer(db);
    db.on('query', (q: { sql: string }) => statements.push(q.sql));
  }, 120_000);

  afterAll(async () => {
    await t?.destroy();
  });

  const setAccess = (conn: Knex | Knex.Transaction, access: 'public' | 'restricted') =>
    conn.raw('UPDATE search_docs SET access_record = ? WHERE id = ? AND kind = ?', [access, target, 'record']);

  /** The facet counts once the revalidation a write started has finished (bounded wait, no timing asserted). */
  async function settledRows(identity: Identity, expected: number) {
    let rows = (await pg.search(plan(identity))).rows;
    for (let i = 0; i < 250 && counted(rows) !== expected; i++) {
      await new Promise((r) => setTimeout(r, 20));
      rows = (await pg.search(plan(identity))).rows;
    }
    return rows;
  }

  /** Statements of `fn` that read documents (the stamp and lock checks excluded). */
  async function reads(fn: () => Promise<unknown>): Promise<number> {
    statements.length = 0;
    await fn();
    return statements.filter((s) => /FROM search_docs/.test(s)).length;
  }

  it('should answer an unchanged table from the cache: only the stamp is read', async () => {
    const first = await pg.search(plan(anonymous));
    let again: Awaited<ReturnType<PostgresIndexer['search']>> | undefined;
    expect(
      await reads(async () => {
        again = await pg.search(plan(anonymous));
      }),
    ).toBe(0);
    expect(again).toEqual(first);
  });

  it('should see a write committed since the cached answer, in hits, total and facets', async () => {
    const before = await pg.search(plan(anonymous));
    expect(before.hits[0].doc.id).toBe(target);
    await setAccess(db, 'restricted');
    const after = await pg.search(plan(anonymous));
    expect(after.total).toBe(before.total - 1);
    expect(after.hits.map((h) => h.doc.id)).not.toContain(target);
    expect(counted(await settledRows(anonymous, before.total - 1))).toBe(before.total - 1);
    await setAccess(db, 'public');
    expect((await pg.search(plan(anonymous))).total).toBe(before.total);
  });

  it('should not keep an answer computed while a writer was in flight', async () => {
    const before = await pg.search(plan(anonymous));
    const trx = await db.transaction();
    try {
      // The writer has drawn its stamp (the row's new version) but not committed.
      await setAccess(trx, 'restricted');
      const during = await pg.search(plan(anonymous));
      expect(during.total).toBe(before.total);
      await trx.commit();
      // Same stamp as the search above, yet that answer missed the write: it must not be served.
      const after = await pg.search(plan(anonymous));
      expect(after.total).toBe(before.total - 1);
      expect(counted(await settledRows(anonymous, before.total - 1))).toBe(before.total - 1);
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
      await setAccess(db, 'public');
    }
  });

  it("should count a signed-in caller's own restricted records live beside the cached public total", async () => {
    const anon = await pg.search(plan(anonymous));
    const own = await db.raw(
      "SELECT count(*)::int AS n FROM search_docs WHERE kind = 'record' AND is_latest AND deletion_status = 'P' AND access_record = 'restricted' AND owner_id = ?",
      [user7.sub],
    );
    const signedIn = await pg.search(plan(user7));
    expect(signedIn.total).toBeGreaterThanOrEqual(anon.total + own.rows[0].n);
    const trx = await db.transaction();
    await trx.raw("UPDATE search_docs SET owner_id = '7', access_record = 'restricted' WHERE id = ? AND kind = 'record'", [target]);
    await trx.commit();
    const after = await pg.search(plan(user7));
    expect(after.total).toBe(signedIn.total);
    expect((await pg.search(plan(anonymous))).total).toBe(anon.total - 1);
  });
  it("should serve a signed-in caller's own counts per stamp: only its page is read again, a write is seen", async () => {
    const first = await pg.search(plan(user7));
    let again: Awaited<ReturnType<PostgresIndexer['search']>> | undefined;
    // The page of a scope with a personal part is read live; its own total and facets are not.
    expect(
      await reads(async () => {
        again = await pg.search(plan(user7));
      }),
    ).toBe(1);
    expect(again).toEqual(first);
    const own = await db.raw(
      "SELECT id FROM search_docs WHERE kind = 'record' AND is_latest AND deletion_status = 'P' AND access_record = 'restricted' AND owner_id = '7' LIMIT 1",
    );
    expect(own.rows.length).toBe(1);
    await db.raw("UPDATE search_docs SET owner_id = '8' WHERE id = ? AND kind = 'record'", [own.rows[0].id]);
    try {
      const after = await pg.search(plan(user7));
      expect(after.total).toBe(first.total - 1);
      expect(counted(after.rows)).toBe(counted(first.rows) - 1);
    } finally {
      await db.raw("UPDATE search_docs SET owner_id = '7' WHERE id = ? AND kind = 'record'", [own.rows[0].id]);
    }
  });
});
