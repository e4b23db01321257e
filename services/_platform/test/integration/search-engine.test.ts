/**
 * The search engine port against a real OpenSearch, through both official clients (OpenSearch
 * directly; the Elasticsearch 8 client via the compatibility proxy): external versions (a late,
 * older write never overwrites a newer document), deletes, `refresh: 'wait_for'` read-your-writes,
 * reindex-and-swap behind the alias while searches keep answering, the engine down → 503 fast.
 *
 * Needs OpenSearch (`make opensearch`); skipped loudly without it, failed under CI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import {
  type DslFieldMap,
  type IndexDefinition,
  type IndexDoc,
  type SearchEngine,
  createEngine,
  fullTextField,
  keywordField,
  longField,
  parseQuery,
} from '../../src/search/index.js';
import { type BothEngines, requireOpenSearch, startBothEngines, uniqueId } from '../../src/testing/index.js';

const osUrl = await requireOpenSearch('the search engine port tests (versions, reindex, outage)');

const FIELDS: DslFieldMap = { id: { kind: 'keyword', path: 'id' }, n: { kind: 'number', path: 'n' } };
const mappings = { dynamic: 'strict', properties: { id: keywordField(), n: longField(), search_text: fullTextField() } };
const doc = (id: string, version: number, text: string): IndexDoc => ({ id, version, source: { id, n: version, search_text: text } });
const all = { query: { type: 'all' } as const, fields: FIELDS, sort: [{ path: 'id', order: 'asc' as const }], from: 0, size: 100 };

let both: BothEngines;

describe.skipIf(!osUrl)('search engine port on OpenSearch', () => {
  beforeAll(async () => {
    both = await startBothEngines(osUrl as string);
  });

  afterAll(async () => {
    await both?.close();
  });

  for (const kind of ['opensearch', 'elasticsearch']) {
    describe(kind, () => {
      const engine = () => both.of(kind);
      const def: IndexDefinition = { alias: `engine-${kind}-${uniqueId()}`, version: 1, mappings };
      afterAll(async () => {
        await engine()?.dropIndex(def.alias);
      });

      it('creates the versioned index behind its alias once (ensureIndex is idempotent)', async () => {
        await engine().ensureIndex(def);
        await engine().ensureIndex(def);
        await Promise.all([engine().ensureIndex(def), engine().ensureIndex(def)]);
        expect((await engine().search(def.alias, all)).total).toBe(0);
      });

      it('never lets an older revision overwrite a newer one (index, bulk, delete)', async () => {
        const e = engine();
        expect(await e.index(def.alias, doc('a', 3, 'third'), { refresh: 'wait_for' })).toBe(true);
        expect(await e.index(def.alias, doc('a', 2, 'second'), { refresh: 'wait_for' })).toBe(false);
        const bulk = await e.bulk(
          def.alias,
          [
            { op: 'index', ...doc('a', 1, 'first') },
            { op: 'index', ...doc('b', 1, 'bee') },
          ],
          { refresh: 'wait_for' },
        );
        expect(bulk).toEqual({ written: 1, stale: 1, failed: [] });
        const res = await e.search(def.alias, { ...all, query: parseQuery('third') });
        expect(res.hits.map((h) => h.id)).toEqual(['a']);
        expect(res.hits[0].source.n).toBe(3);
        await e.delete(def.alias, 'a', 2, { refresh: 'wait_for' }); // stale delete: ignored
        expect((await e.search(def.alias, all)).hits.map((h) => h.id)).toEqual(['a', 'b']);
        await e.delete(def.alias, 'a', 4, { refresh: 'wait_for' });
        expect((await e.search(def.alias, all)).hits.map((h) => h.id)).toEqual(['b']);
        expect(await e.index(def.alias, doc('a', 3, 'late'), { refresh: 'wait_for' })).toBe(false); // after the delete
      });

      it("sees the writer's own write at once with refresh 'wait_for'", async () => {
        const e = engine();
        for (let i = 0; i < 5; i++) {
          const id = `ryw${i}`;
          await e.index(def.alias, doc(id, 1, `unique${i}`), { refresh: 'wait_for' });
          expect((await e.search(def.alias, { ...all, query: parseQuery(`unique${i}`) })).hits.map((h) => h.id)).toEqual([id]);
        }
      });

      it('returns the same page without counting every hit (trackTotalHits false), total = the hits returned', async () => {
        const e = engine();
        const page = { ...all, size: 2 };
        const counted = await e.search(def.alias, page);
        const uncounted = await e.search(def.alias, { ...page, trackTotalHits: false });
        expect(counted.total).toBeGreaterThan(2);
        expect(uncounted.hits.map((h) => h.id)).toEqual(counted.hits.map((h) => h.id));
        expect(uncounted.total).toBe(2);
      });

      it('reindexes into a new index and swaps the alias while searches keep answering', async () => {
        const e = engine();
        const source = async function* (since?: Date) {
          if (since) return; // nothing changed during the build in this test
          for (let b = 0; b < 5; b++) yield Array.from({ length: 200 }, (_, i) => doc(`r${b * 200 + i}`, 10, `rebuilt r${b * 200 + i}`));
        };
        let searching = true;
        let answered = 0;
        const errors: unknown[] = [];
        const searcher = (async () => {
          while (searching) {
            try {
              await e.search(def.alias, all);
              answered++;
            } catch (err) {
              errors.push(err);
            }
          }
        })();
        const res = await e.reindex({ ...def, version: 2 }, source);
        searching = false;
        await searcher;
        expect(errors).toEqual([]);
        expect(answered).toBeGreaterThan(0);
        expect(res.count).toBe(1000);
        expect(res.index.startsWith(`${def.alias}-v2-`)).toBe(true);
        const after = await e.search(def.alias, { ...all, query: parseQuery('rebuilt') });
        expect(after.total).toBe(1000);
        expect((await e.search(def.alias, { ...all, query: parseQuery('bee') })).total).toBe(0); // the old index is gone
      });

      it('a reindex that fails (a rejected document, a failing source) leaves the alias and no new index behind', async () => {
        const e = engine();
        const indices = async () =>
          ((await (await fetch(`${osUrl}/_cat/indices/${def.alias}*?format=json`)).json()) as { index: string }[])
            .map((i) => i.index)
            .sort();
        const before = await indices();
        const batches = (bad: (b: number) => boolean) =>
          async function* (since?: Date) {
            if (since) return;
            for (let b = 0; b < 12; b++) {
              if (bad(b) && b === 6) throw new Error('source failed');
              yield Array.from({ length: 50 }, (_, i) =>
                bad(b) && i === 7 ? { id: `x${b}`, version: 1, source: { not_mapped: 1 } } : doc(`f${b * 50 + i}`, 20, `failed f${b}`),
              );
            }
          };
        // A document the strict mapping refuses in batch 5, with batches before and after it in flight.
        await expect(
          e.reindex(
            { ...def, version: 3 },
            batches((b) => b === 5),
          ),
        ).rejects.toThrow(/document x5 failed/);
        // The source itself throws after six batches.
        await expect(
          e.reindex(
            { ...def, version: 3 },
            batches((b) => b === 6),
          ),
        ).rejects.toThrow('source failed');
        expect(await indices()).toEqual(before);
        const res = await e.search(def.alias, { ...all, query: parseQuery('rebuilt') });
        expect(res.total).toBe(1000);
        expect((await e.search(def.alias, { ...all, query: parseQuery('failed') })).total).toBe(0);
      });
    });
  }

  it('answers 503 quickly when the engine is down (and ping says false)', async () => {
    const down = (await createEngine('opensearch', { url: 'http://127.0.0.1:9', timeoutMs: 1000 })) as SearchEngine;
    const t0 = Date.now();
    const err = await down.search('whatever', all).catch((e) => e);
    expect(isAppError(err) && err.status).toBe(503);
    expect(err.headers?.['Retry-After']).toBeDefined();
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(await down.ping()).toBe(false);
    await down.close();
  });
});
