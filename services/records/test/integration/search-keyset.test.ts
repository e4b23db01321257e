/**
 * Keyset pagination of deep pages (keyset.ts, pg-indexer.ts `keyedHits`): paging a whole result
 * set by keyset gives exactly the pages OFFSET gives, for every column sort (ties in the sort
 * columns, mixed directions, a draft and a record sharing an id), in the anonymous, signed-in
 * and user scopes; after a write (stamp changed) or with a writer in flight when a key was taken,
 * the next page falls back to OFFSET and is still right.
 */
import type { Identity, Knex } from '@rdm/platform';
import { testDb, type TestDb } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FacetFilters } from '../../src/search/facet-params.js';
import type { ScopeSpec, SearchPlan } from '../../src/search/indexer.js';
import { PostgresIndexer } from '../../src/search/pg-indexer.js';
import { seedCorpus } from './engine-corpus.js';

const anonymous: Identity = { sub: null, roles: [] };
const user7: Identity = { sub: '7', roles: [] };
const noFilters = (): FacetFilters => ({
  accessStatus: [],
  fileType: [],
  resourceTypes: [],
  publicationDate: [],
  isPublished: [],
  dateWindows: [],
});
const SORTS = ['mostrecent', 'newest', 'oldest', 'version', 'updated-desc', 'updated-asc', 'mostviewed', 'mostdownloaded', 'bestmatch'];
const SIZE = 7;

const plan = (scope: ScopeSpec, sort: string, page: number, filters = noFilters()): SearchPlan => ({
  scope,
  q: '',
  filters,
  sort,
  limit: SIZE,
  offset: (page - 1) * SIZE,
});

const ids = (p: { hits: { kind: string; doc: { id: string } }[] }) => p.hits.map((h) => `${h.kind}:${h.doc.id}`);

/** A keyset condition's leading comparison, e.g. `(created, id) <= ($1::timestamptz, $2::text)` (as pg receives it). */
const KEYSET = / AS k FROM .*(\)| created| updated) [<>]=? \(?\$\d+::/;

describe('record search: keyset pagination of deep pages (postgres engine)', () => {
  let t: TestDb;
  let db: Knex;
  let keyed: PostgresIndexer;
  let offset: PostgresIndexer;
  const statements: string[] = [];

  beforeAll(async () => {
    t = await testDb('records');
    db = t.db;
    await seedCorpus(db, 60);
    // Ties everywhere: five distinct `created` (with microseconds), three `updated`, few usage counts.
    await db.raw(`UPDATE search_docs SET
        created = '2026-01-01 00:00:00.123457+00'::timestamptz + (abs(hashtext(parent_id)) % 5) * interval '1 hour',
        updated = '2026-02-01 00:00:00.000001+00'::timestamptz + (abs(hashtext(id)) % 3) * interval '1 minute',
        views = abs(hashtext(id)) % 3, downloads = abs(hashtext(parent_id)) % 2`);
    // Half of everything owned by user 7 (the user scope pages through drafts and records).
    await db.raw("UPDATE search_docs SET owner_id = '7' WHERE abs(hashtext(parent_id)) % 2 = 0");
    // A record shown beside its edit draft (same id, same created): only `kind` orders them.
    const edited = await db.raw(
      "SELECT id FROM search_docs WHERE kind = 'record' AND has_draft AND owner_id = '7' AND deletion_status = 'P' ORDER BY id LIMIT 1",
    );
    expect(edited.rows.length).toBe(1);
    await db.raw('UPDATE search_docs SET has_draft = false WHERE id = ? AND kind = ?', [edited.rows[0].id, 'record']);
    keyed = new PostgresIndexer(db, { keysetFrom: 0 });
    offset = new PostgresIndexer(db, { keysetFrom: -1 });
    db.on('query', (q: { sql: string }) => statements.push(q.sql));
  }, 120_000);

  afterAll(async () => {
    await t?.destroy();
  });

  const scopes: [string, ScopeSpec][] = [
    ['anonymous', { kind: 'published', identity: anonymous, allVersions: false }],
    ['signed-in, all versions', { kind: 'published', identity: user7, allVersions: true }],
    ['user records, all versions', { kind: 'user', identity: user7, allVersions: true }],
  ];

  for (const [name, scope] of scopes) {
    it(`should page by keyset exactly as by offset: ${name}, every column sort`, async () => {
      for (const sort of SORTS) {
        // Fresh caches per sort (`newest` orders as `mostrecent`: its pages would be served cached).
        keyed = new PostgresIndexer(db, { keysetFrom: 0 });
        const total = (await offset.search(plan(scope, sort, 1))).total;
        const pages = Math.ceil(total / SIZE) + 1;
        expect(pages).toBeGreaterThan(3);
        statements.length = 0;
        const seen: string[] = [];
        for (let page = 1; page <= pages; page++) {
          const a = await keyed.search(plan(scope, sort, page));
          const b = await offset.search(plan(scope, sort, page));
          expect(ids(a), `${sort} page ${page}`).toEqual(ids(b));
          expect(a.total).toBe(b.total);
          seen.push(...ids(a));
        }
        expect(seen.length).toBe(total);
        expect(new Set(seen).size).toBe(total);
        // Every page after a full page was read by keyset.
        expect(statements.filter((s) => KEYSET.test(s)).length, sort).toBe(Math.floor(total / SIZE));
      }
    });
  }

  it('should page by keyset exactly as by offset with a facet filter', async () => {
    const scope: ScopeSpec = { kind: 'published', identity: anonymous, allVersions: true };
    const filters = { ...noFilters(), resourceTypes: ['publication'] };
    const total = (await offset.search(plan(scope, 'mostrecent', 1, filters))).total;
    expect(total).toBeGreaterThan(SIZE);
    for (let page = 1; page <= Math.ceil(total / SIZE); page++) {
      expect(ids(await keyed.search(plan(scope, 'mostrecent', page, filters)))).toEqual(
        ids(await offset.search(plan(scope, 'mostrecent', page, filters))),
      );
    }
  });

  /** The first hit of page 1 moved to the end of the `mostrecent` order (or back). */
  const moveFirst = async (conn: Knex | Knex.Transaction, id: string, kind: string, created: string) =>
    conn.raw('UPDATE search_docs SET created = ?::timestamptz WHERE id = ? AND kind = ?', [created, id, kind]);

  it('should fall back to offset after a write between pages (stamp changed)', async () => {
    const scope: ScopeSpec = { kind: 'user', identity: user7, allVersions: true };
    const p1 = await keyed.search(plan(scope, 'mostrecent', 1));
    await keyed.search(plan(scope, 'mostrecent', 2));
    const first = p1.hits[0];
    const old = (await db.raw('SELECT created::text AS c FROM search_docs WHERE id = ? AND kind = ?', [first.doc.id, first.kind])).rows[0]
      .c;
    await moveFirst(db, first.doc.id, first.kind, '2000-01-01T00:00:00Z');
    try {
      statements.length = 0;
      const p3 = await keyed.search(plan(scope, 'mostrecent', 3));
      expect(statements.filter((s) => KEYSET.test(s)).length).toBe(0);
      expect(ids(p3)).toEqual(ids(await offset.search(plan(scope, 'mostrecent', 3))));
      // The keys of this stamp are taken again: page 4 by keyset, still identical.
      statements.length = 0;
      const p4 = await keyed.search(plan(scope, 'mostrecent', 4));
      expect(statements.filter((s) => KEYSET.test(s)).length).toBe(1);
      expect(ids(p4)).toEqual(ids(await offset.search(plan(scope, 'mostrecent', 4))));
    } finally {
      await moveFirst(db, first.doc.id, first.kind, old);
    }
  });

  it('should not keep a key taken while a writer was in flight', async () => {
    const scope: ScopeSpec = { kind: 'published', identity: anonymous, allVersions: false };
    const p1 = await offset.search(plan(scope, 'mostrecent', 1));
    const first = p1.hits[0];
    const old = (await db.raw('SELECT created::text AS c FROM search_docs WHERE id = ? AND kind = ?', [first.doc.id, first.kind])).rows[0]
      .c;
    const trx = await db.transaction();
    try {
      // The writer has drawn its stamp but not committed: pages 1 and 2 miss the move.
      await moveFirst(trx, first.doc.id, first.kind, '2000-01-01T00:00:00Z');
      await keyed.search(plan(scope, 'mostrecent', 1));
      await keyed.search(plan(scope, 'mostrecent', 2));
      await trx.commit();
      // Same stamp as pages 1–2, yet their keys missed the write: page 3 must not follow them.
      const p3 = await keyed.search(plan(scope, 'mostrecent', 3));
      expect(ids(p3)).toEqual(ids(await offset.search(plan(scope, 'mostrecent', 3))));
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
      await moveFirst(db, first.doc.id, first.kind, old);
    }
  });
});
