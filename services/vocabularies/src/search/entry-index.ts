/**
 * The large vocabularies (names, affiliations, funders, awards, subjects) on the OpenSearch/
 * Elasticsearch engines (`SEARCH_ENGINE` other than `postgres`): the index this service owns
 * (`vocabularies-entries-v1` behind the alias `vocabularies-entries`), its documents, the search that
 * mirrors the postgres one (`buildEntrySearch`: same `q` fields, `suggest`, `tags`, sorts, paging,
 * totals and the awards' `funders` facet). Inline indexing after commit, the outbox-driven indexer and
 * `reindex` are the platform's (`defineServiceIndex`). The small generic vocabularies are not
 * indexed: they always search PostgreSQL.
 *
 * - Versions: a document's external version is the entry's `index_version` (a sequence value taken
 *   under the type's row lock, so it grows in commit order and across delete + re-create); a delete
 *   uses its tombstone's version. A late or repeated write is ignored by the engine.
 * - `suggest` runs on the edge n-grams of the very lexemes PostgreSQL's `suggest_vector` holds
 *   (`suggest_terms`), so both engines find the same entries; exact acronym, id and title matches
 *   get the same bonuses as on postgres (relevance within a bonus class differs: BM25 vs ts_rank_cd).
 * - Hits are loaded from PostgreSQL by id in the engine's order: never staler than the database.
 */
import type { DslFieldMap, DslFieldSpec, GoneDoc, IndexDoc, Knex, QueryAst, SearchEngine, SortKey } from '@rdm/platform';
import { baseIndexSettings, defineServiceIndex, engineFields, inHitOrder, mapping, queryFilters, searchTextOf } from '@rdm/platform';
import { type EntryRow, rowToDoc, textsOf } from '../domain/documents.js';
import { INDEXED_TYPES } from '../domain/kinds.js';
import { fieldPath, type ParsedSuggest, STATIC_SEARCH_FIELDS, searchFieldsFor } from '../domain/search.js';
import { type IndexRow, indexRows, indexRowsPage, tombstonesOf, tombstonesSince } from '../repo/entry-index.repo.js';
import { getEntries } from '../repo/vocabularies.repo.js';

export { fieldPath };

/** Longest edge n-gram indexed; longer `suggest` words use a prefix query on the whole lexeme. */
const MAX_GRAM = 20;
const LONG_KEYWORD = { type: 'keyword', ignore_above: 8191 };

const kw = (path: string, caseSensitive = false): DslFieldSpec => ({ kind: 'keyword', path, caseSensitive });

/** The `q` fields of `search.ts`'s STATIC_SEARCH_FIELDS, on the index. */
export const ENTRY_DSL_FIELDS = engineFields(STATIC_SEARCH_FIELDS);

/** Fields only the service's own filters use; a `q` naming one matches nothing, as on postgres. */
const INTERNAL: Record<string, DslFieldSpec> = {
  '@type': kw('type', true),
  '@funder': kw('funder_id', true),
  '@suggest': { kind: 'text', path: 'suggest_terms.edge' },
  '@suggest_term': kw('suggest_terms', true),
  '@id_lower': kw('id_lower', true),
  '@acronym_lower': kw('acronym_lower', true),
  '@title_key': kw('title_key', true),
};

/** The field map of one query: static, per-language and the dynamic `props.*`/`title.*`/… it names. */
export function dslFieldsFor(ast: QueryAst): DslFieldMap {
  return { ...engineFields(searchFieldsFor(ast)), ...INTERNAL };
}

/** `ast` with every internal field name replaced by an unknown one. */
function publicOnly(ast: QueryAst): QueryAst {
  switch (ast.type) {
    case 'and':
    case 'or':
      return { ...ast, children: ast.children.map(publicOnly) };
    case 'not':
      return { ...ast, child: publicOnly(ast.child) };
    case 'all':
      return ast;
    default:
      return ast.field && Object.hasOwn(INTERNAL, ast.field) ? { ...ast, field: `unknown${ast.field}` } : ast;
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The index document of an entry row (version = index_version). */
export function entryDoc(row: IndexRow): IndexDoc {
  const doc = rowToDoc(row);
  const t = textsOf(row.type, doc);
  const sf = row.search_fields ?? {};
  const f: Record<string, string> = {};
  for (const [k, v] of Object.entries(sf)) f[fieldPath(k).slice(2)] = v;
  const extra = row.extra ?? {};
  const idents = (Array.isArray(row.identifiers) ? row.identifiers : []) as Array<{ identifier?: unknown; scheme?: unknown }>;
  const affs = (Array.isArray(extra.affiliations) ? extra.affiliations : []) as Array<{ id?: unknown }>;
  return {
    id: docId(row.type, row.id),
    version: Number(row.index_version),
    source: {
      type: row.type,
      id: row.id,
      id_lower: row.id.toLowerCase(),
      tags: row.tags ?? [],
      icon: row.icon,
      created: row.created,
      created_us: Number(row.created_us),
      updated: row.updated,
      sort_key: row.sort_key,
      // The postgres suggest bonus compares `coalesce(title.en, name, subject)` (folded).
      title_key: sf['title.en'] ?? sf.name ?? sf.subject ?? null,
      acronym: row.acronym,
      acronym_lower: row.acronym?.toLowerCase() ?? null,
      country: row.country,
      status: str(extra.status),
      types: strs(extra.types),
      identifier_values: idents.map((i) => str(i?.identifier)).filter((x): x is string => x !== null),
      identifier_schemes: idents.map((i) => str(i?.scheme)).filter((x): x is string => x !== null),
      scheme: row.scheme,
      number: row.number,
      funder_id: str((extra.funder as { id?: unknown } | undefined)?.id),
      affiliation_ids: affs.map((a) => str(a?.id)).filter((x): x is string => x !== null),
      search_text: searchTextOf([t.searchA, t.searchB]),
      suggest_terms: row.suggest_terms ?? [],
      f,
      index_version: Number(row.index_version),
    },
  };
}

/** Document id of an entry (type ids never contain `/`). */
export function docId(type: string, id: string): string {
  return `${type}/${id}`;
}

const BY_KEY: SortKey[] = [
  { path: 'sort_key', order: 'asc' },
  { path: 'id', order: 'asc' },
];
const SORTS: Record<string, SortKey[]> = {
  bestmatch: [{ path: '_score', order: 'desc' }, ...BY_KEY],
  newest: [
    { path: 'created_us', order: 'desc' },
    { path: 'id', order: 'asc' },
  ],
  oldest: [
    { path: 'created_us', order: 'asc' },
    { path: 'id', order: 'asc' },
  ],
};

const { term, anyOf } = queryFilters;
/** Why ×1000: the bonuses of the postgres rank must outweigh any BM25 score, as they outweigh ts_rank_cd there. */
const BONUS = 1000;

/** One engine search: the same inputs as `buildEntrySearch`, with `q` parsed and `suggest` taken apart. */
export interface EngineEntrySearch {
  type: string;
  ast?: QueryAst;
  suggest?: ParsedSuggest;
  tags: string[];
  sort: string;
  from: number;
  size: number;
  hideUnlisted: boolean;
  /** Awards: selected funders (post filter) and the facet. */
  funders?: { selected: string[] };
}

/** What an engine search returns: rows from PostgreSQL in the engine's order, the total, the funders buckets. */
export interface EngineEntryResult {
  rows: EntryRow[];
  total: number;
  funderBuckets?: { key: string; doc_count: number }[];
}

/** The postgres entry search on a search engine: same hits (order where the sort is total), totals and buckets. */
export async function searchEntriesOnEngine(
  engine: SearchEngine,
  alias: string,
  db: Knex,
  i: EngineEntrySearch,
): Promise<EngineEntryResult> {
  const filters: QueryAst[] = [term('@type', i.type)];
  const boosts: Array<{ filter: QueryAst; weight: number }> = [];
  let query: QueryAst = { type: 'all' };
  let scored = false;
  if (i.ast) {
    query = publicOnly(i.ast);
    scored = true;
  } else if (i.suggest) {
    const { schemes, words, whole } = i.suggest;
    if (schemes.length) filters.push(anyOf('scheme', schemes));
    if (words.length) {
      // Every word is the prefix of a lexeme: an edge n-gram, or (longer words) a prefix of the whole lexeme.
      query = {
        type: 'and',
        children: words.map((w) => (w.length <= MAX_GRAM ? term('@suggest', w) : term('@suggest_term', `${w}*`, true))),
      };
      scored = true;
      boosts.push(
        { filter: term('@acronym_lower', whole), weight: 10 * BONUS },
        { filter: term('@id_lower', whole), weight: 5 * BONUS },
        { filter: term('@title_key', whole), weight: 4 * BONUS },
        { filter: term('@title_key', `${whole.replace(/[\\*?]/g, '\\$&')}*`, true), weight: 3 * BONUS },
      );
    }
  }
  if (i.tags.length) filters.push(anyOf('tags', i.tags));
  if (i.hideUnlisted) filters.push({ type: 'not', child: term('tags', 'unlisted') });
  const postFilters = i.funders?.selected.length ? [anyOf('@funder', i.funders.selected)] : [];
  const sort = i.sort === 'bestmatch' ? (scored ? SORTS.bestmatch : BY_KEY) : (SORTS[i.sort] ?? BY_KEY);
  const res = await engine.search(alias, {
    query,
    fields: dslFieldsFor(query),
    dsl: { fullTextPath: 'search_text' },
    filters,
    postFilters,
    boosts,
    sort,
    from: i.from,
    size: i.size,
    sourceIncludes: ['id'],
    aggs: i.funders ? { funders: { type: 'terms', path: 'funder_id', size: 10 } } : undefined,
  });
  const ids = res.hits.map((h) => String(h.source.id ?? h.id.slice(i.type.length + 1)));
  const rows = await getEntries(
    db,
    ids.map((id) => ({ type: i.type, id })),
  );
  return {
    rows: inHitOrder(ids, rows, (r) => r.id),
    total: res.total,
    funderBuckets: i.funders ? (res.aggregations.funders ?? []).map((b) => ({ key: b.key, doc_count: b.count })) : undefined,
  };
}

/** The document keys an `rdm.vocabularies.entries.changed` event names (`data`: `{type, ids}`, ≤ 500 ids). */
function keysOf(data: unknown): string[] {
  const { type, ids } = (data ?? {}) as { type?: unknown; ids?: unknown };
  if (typeof type !== 'string' || !Array.isArray(ids)) return [];
  return ids.filter((id): id is string => typeof id === 'string').map((id) => docId(type, id));
}

/** Entries by document key, type by type: the rows, and deletes with the tombstones' versions of the deleted ones. */
async function rowsOf(db: Knex, keys: string[]): Promise<{ rows: IndexRow[]; gone: GoneDoc[] }> {
  const byType = new Map<string, string[]>();
  for (const key of keys) {
    const at = key.indexOf('/');
    byType.set(key.slice(0, at), [...(byType.get(key.slice(0, at)) ?? []), key.slice(at + 1)]);
  }
  const out: { rows: IndexRow[]; gone: GoneDoc[] } = { rows: [], gone: [] };
  for (const [type, ids] of byType) {
    const rows = await indexRows(db, type, ids);
    out.rows.push(...rows);
    const found = new Set(rows.map((r) => r.id));
    const dead = await tombstonesOf(
      db,
      type,
      ids.filter((id) => !found.has(id)),
    );
    out.gone.push(...dead.map((t) => ({ id: docId(type, t.id), version: Number(t.index_version) })));
  }
  return out;
}

/** The entries index: inline writes after commit (read-your-writes), the outbox indexer, reindex, and the search. */
export class VocabularySearchIndex extends defineServiceIndex<IndexRow>({
  index: {
    alias: 'vocabularies-entries',
    version: 1,
    settings: {
      // Paging as deep as postgres allows: (page - 1) * size < 10000 with size ≤ 10000.
      max_result_window: 20000,
      // Fielded texts are per language and per `props` key (`f.*`).
      'mapping.total_fields.limit': 5000,
      analysis: {
        ...baseIndexSettings.analysis,
        analyzer: {
          ...baseIndexSettings.analysis.analyzer,
          // One lexeme (already folded by PostgreSQL) → its edge n-grams.
          suggest_term: { type: 'custom', tokenizer: 'keyword', filter: ['suggest_term_edge'] },
        },
        filter: { ...baseIndexSettings.analysis.filter, suggest_term_edge: { type: 'edge_ngram', min_gram: 1, max_gram: MAX_GRAM } },
      },
    },
    mappings: {
      dynamic: 'strict',
      dynamic_templates: [{ folded_text: { path_match: 'f.*', match_mapping_type: 'string', mapping: mapping.text() } }],
      properties: {
        type: mapping.keyword(),
        id: LONG_KEYWORD,
        id_lower: LONG_KEYWORD,
        tags: mapping.keyword(),
        icon: mapping.keyword(),
        created: mapping.date(),
        created_us: mapping.long(),
        updated: mapping.date(),
        sort_key: LONG_KEYWORD,
        title_key: LONG_KEYWORD,
        acronym: mapping.keyword(),
        acronym_lower: mapping.keyword(),
        country: mapping.keyword(),
        status: mapping.keyword(),
        types: mapping.keyword(),
        identifier_values: mapping.keyword(),
        identifier_schemes: mapping.keyword(),
        scheme: mapping.keyword(),
        number: mapping.keyword(),
        funder_id: mapping.keyword(),
        affiliation_ids: mapping.keyword(),
        search_text: mapping.fullText(),
        suggest_terms: {
          ...LONG_KEYWORD,
          fields: { edge: { type: 'text', analyzer: 'suggest_term', search_analyzer: 'keyword' } },
        },
        f: { type: 'object', dynamic: true },
        index_version: mapping.long(),
      },
    },
  },
  doc: entryDoc,
  keysOf: (ref) => keysOf(ref.data),
  rows: rowsOf,
  // Batches of ≤ 500 ids an event: ≤ 20 events per bulk.
  indexer: {
    stream: 'VOCABULARIES',
    durable: 'vocabularies-search-indexer',
    filterSubject: 'rdm.vocabularies.entries.changed',
    batchSize: 20,
  },
  reindex: {
    // Every large vocabulary, in (type, id) order.
    pages: [(db, { since, after, limit }) => indexRowsPage(db, { types: INDEXED_TYPES, since, after, limit })],
    batch: 2000,
    // The build reads rows, never tombstones: the deletes that raced with it.
    goneSince: async (db, since) => (await tombstonesSince(db, INDEXED_TYPES, since)).map((t) => docId(t.type, t.id)),
  },
}) {
  /** Index committed entries of one type now (read-your-writes: `afterCommit`). */
  indexEntries(type: string, ids: string[]): Promise<void> {
    return this.afterCommit(ids.map((id) => docId(type, id)));
  }

  /** An entry search on the engine. */
  search(i: EngineEntrySearch): Promise<EngineEntryResult> {
    return this.searching(() => searchEntriesOnEngine(this.engine, this.def.alias, this.db, i));
  }
}
