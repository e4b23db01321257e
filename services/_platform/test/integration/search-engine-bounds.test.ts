/**
 * The engines' own limits on a real OpenSearch, through both official clients (the Elasticsearch 8
 * client via the compatibility proxy): every index caps regexp length, every search is sent with
 * its `timeout` and partial results refused (both clients accept the parameter), and a regexp the
 * parser lets through but Lucene cannot determinize cheaply is a `QuerySyntaxError` (400).
 *
 * Needs OpenSearch (`make opensearch`); skipped loudly without it, failed under CI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DslFieldMap,
  type IndexDefinition,
  MAX_REGEX_LENGTH,
  QuerySyntaxError,
  type SearchEngine,
  fullTextField,
  keywordField,
  parseQuery,
} from '../../src/search/index.js';
import { type BothEngines, requireOpenSearch, startBothEngines, uniqueId } from '../../src/testing/index.js';

const osUrl = await requireOpenSearch('the search engine bounds tests');

const FIELDS: DslFieldMap = { id: { kind: 'keyword', path: 'id' } };
const mappings = { dynamic: 'strict', properties: { id: keywordField(), search_text: fullTextField() } };
const search = (engine: SearchEngine, alias: string, q: string) =>
  engine.search(alias, { query: parseQuery(q), fields: FIELDS, sort: [{ path: 'id', order: 'asc' }], from: 0, size: 10 });

let both: BothEngines;

describe.skipIf(!osUrl)('search engine bounds on OpenSearch', () => {
  beforeAll(async () => {
    both = await startBothEngines(osUrl as string);
  });

  afterAll(async () => {
    await both?.close();
  });

  for (const kind of ['opensearch', 'elasticsearch']) {
    describe(kind, () => {
      const engine = () => both.of(kind);
      const def: IndexDefinition = { alias: `bounds-${kind}-${uniqueId()}`, version: 1, mappings };

      beforeAll(async () => {
        await engine().ensureIndex(def);
        const ops = ['abacus data', 'abstract ocean', 'xylophone'].map((text, i) => ({
          op: 'index' as const,
          id: `d${i}`,
          version: 1,
          source: { id: `d${i}`, search_text: text },
        }));
        await engine().bulk(def.alias, ops, { refresh: true });
      });
      afterAll(async () => {
        await engine()?.dropIndex(def.alias);
      });

      it('should create every index with the regexp length cap of the parser', async () => {
        const res = await fetch(`${osUrl}/${def.alias}/_settings?flat_settings=true`);
        const settings = Object.values((await res.json()) as Record<string, { settings: Record<string, string> }>)[0].settings;
        expect(settings['index.max_regex_length']).toBe(String(MAX_REGEX_LENGTH));
      });

      it('should run a regex search with its timeout and partial results refused', async () => {
        const res = await search(engine(), def.alias, '/ab.*/');
        expect(res.hits.map((h) => h.id)).toEqual(['d0', 'd1']);
      });

      it('should refuse a regex Lucene cannot determinize within its budget as a query error (400), not a 500', async () => {
        // The parser accepts it (counts adding up to 63); Lucene's default budget (10,000) would run it
        // (0.8 s over 20,000 documents), ours (REGEX_MAX_DETERMINIZED_STATES) refuses it.
        await expect(search(engine(), def.alias, '/.{0,32}[a-z]{0,31}x/')).rejects.toBeInstanceOf(QuerySyntaxError);
      });
    });
  }
});
