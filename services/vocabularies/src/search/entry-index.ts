/**
 * The large vocabularies (names, affiliations, funders, awards, subjects) on the OpenSearch/
 * Elasticsearch engines (`SEARCH_ENGINE` other than `postgres`): the index this service owns
 * (`vocabularies-entries-v1` behind the alias `vocabularies-entries`), its documents, the search that
 * mirrors the postgres one (`buildEntrySearch`: same `q` fields, `suggest`, `tags`, sorts, paging,
 * totals and the awards' `funders` facet), inline indexing after commit, the outbox-driven indexer and
 * the `reindex` command. The small generic vocabularies are not indexed: they always search PostgreSQL.
 *
 * - Versions: a document's external version is the entry's `index_version` (a sequence value taken
 *   under the type's row lock, so it grows in commit order and across delete + re-create); a delete
 *   uses its tombstone's version. A late or repeated write is ignored by the engine.
 * - `suggest` runs on the edge n-grams of the very lexemes PostgreSQL's `suggest_vector` holds
 *   (`suggest_terms`), so both engines find the same entries; exact acronym, id and title matches
 *   get the same bonuses as on postgres (relevance within a bonus class differs: BM25 vs ts_rank_cd).
 * - Hits are loaded from PostgreSQL by id in the engine's order: never staler than the database.
 */
import {
  type AggregateRef,
  type BulkOp,
  type DslFieldMap,
  type DslFieldSpec,
  Errors,
  type IndexDefinition,
  type IndexDoc,
  type Knex,
  type Logger,
  type NatsHandle,
  type QueryAst,
  QuerySyntaxError,
  type SearchEngine,
  type SortKey,
  baseIndexSettings,
  dateField,
  fullTextField,
  keywordField,
  longField,
  runSearchIndexer,
  searchTextOf,
  textField,
} from '@rdm/platform';
import { type EntryRow, rowToDoc, textsOf } from '../domain/documents.js';
import { INDEXED_TYPES } from '../domain/kinds.js';
import { dynamicTextFields, LANGS, type ParsedSuggest } from '../domain/search.js';
import { type IndexRow, indexRows, indexRowsPage, tombstonesOf, tombstonesSince } from '../repo/entry-index.repo.js';
import { getEntries } from '../repo/vocabularies.repo.js';

/** Longest edge n-gram indexed; longer `suggest` words use a prefix query on the whole lexeme. */
const MAX_GRAM = 20;
const LONG_KEYWORD = { type: 'keyword', ignore_above: 8191 };

/** The entries index: alias, version, settings and mappings. */
export const ENTRIES_INDEX: IndexDefinition = {
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
    dynamic_templates: [{ folded_text: { path_match: 'f.*', match_mapping_type: 'string', mapping: textField() } }],
    properties: {
      type: keywordField(),
      id: LONG_KEYWORD,
      id_lower: LONG_KEYWORD,
      tags: keywordField(),
      icon: keywordField(),
      created: dateField(),
      created_us: longField(),
      updated: dateField(),
      sort_key: LONG_KEYWORD,
      title_key: LONG_KEYWORD,
      acronym: keywordField(),
      acronym_lower: keywordField(),
      country: keywordField(),
      status: keywordField(),
      types: keywordField(),
      identifier_values: keywordField(),
      identifier_schemes: keywordField(),
      scheme: keywordField(),
      number: keywordField(),
      funder_id: keywordField(),
      affiliation_ids: keywordField(),
      search_text: fullTextField(),
      suggest_terms: {
        ...LONG_KEYWORD,
        fields: { edge: { type: 'text', analyzer: 'suggest_term', search_analyzer: 'keyword' } },
      },
      f: { type: 'object', dynamic: true },
      index_version: longField(),
    },
  },
};

/** The index definition under a name prefix (`SEARCH_INDEX_PREFIX`). */
export function entriesIndex(prefix = ''): IndexDefinition {
  return { ...ENTRIES_INDEX, alias: `${prefix}${ENTRIES_INDEX.alias}` };
}

/** Path of a folded field text under `f` (`title.en` → `f.title%2Een`: a dot would make `title` an object). */
export function fieldPath(key: string): string {
  return `f.${key.replace(/%/g, '%25').replace(/\./g, '%2E')}`;
}

const text = (key: string): DslFieldSpec => ({ kind: 'text', path: fieldPath(key) });
const kw = (path: string, caseSensitive = false): DslFieldSpec => ({ kind: 'keyword', path, caseSensitive });
const kwArray = (path: string, caseSensitive = false): DslFieldSpec => ({ kind: 'keyword_array', path, caseSensitive });

/** The `q` fields of `search.ts`'s STATIC_FIELDS, on the index. */
export const ENTRY_DSL_FIELDS: Readonly<Record<string, DslFieldSpec>> = {
  id: kw('id', true),
  'id.text': text('id'),
  title: text('title'),
  description: text('description'),
  tags: kwArray('tags', true),
  icon: kw('icon', true),
  created: { kind: 'date', path: 'created' },
  updated: { kind: 'date', path: 'updated' },
  acronym: text('acronym'),
  'acronym.keyword': kw('acronym', true),
  name: text('name'),
  given_name: text('given_name'),
  family_name: text('family_name'),
  country: kw('country'),
  country_name: text('country_name'),
  location_name: text('location_name'),
  status: kw('status'),
  types: kwArray('types'),
  aliases: text('aliases'),
  'identifiers.identifier': kwArray('identifier_values'),
  'identifiers.scheme': kwArray('identifier_schemes'),
  scheme: kw('scheme', true),
  subject: text('subject'),
  synonyms: text('synonyms'),
  number: kw('number'),
  program: text('program'),
  'funder.id': kw('funder_id'),
  'funder.name': text('funder.name'),
  'affiliations.id': kwArray('affiliation_ids'),
  'affiliations.name': text('affiliations.name'),
  short_description: text('short_description'),
};

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
  const fields: Record<string, DslFieldSpec> = { ...ENTRY_DSL_FIELDS, ...INTERNAL };
  for (const l of LANGS) {
    fields[`title.${l}`] = text(`title.${l}`);
    fields[`description.${l}`] = text(`description.${l}`);
  }
  for (const f of dynamicTextFields(ast)) fields[f] ??= text(f);
  return fields;
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

const term = (field: string, value: string, wildcard = false): QueryAst => ({ type: 'term', field, value, wildcard });
const anyOf = (field: string, values: string[]): QueryAst => ({ type: 'or', children: values.map((v) => term(field, v)) });
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
  const byId = new Map(
    (
      await getEntries(
        db,
        ids.map((id) => ({ type: i.type, id })),
      )
    ).map((r) => [r.id, r]),
  );
  return {
    rows: ids.map((id) => byId.get(id)).filter((r): r is EntryRow => !!r),
    total: res.total,
    funderBuckets: i.funders ? (res.aggregations.funders ?? []).map((b) => ({ key: b.key, doc_count: b.count })) : undefined,
  };
}

/** The `data` of `rdm.vocabularies.entries.changed`. */
interface ChangedData {
  type?: unknown;
  ids?: unknown;
}

/** Index writes and searches of the service: inline after commit, the outbox indexer, reindex. */
export class VocabularySearchIndex {
  private ensured?: Promise<void>;
  /** The index this service writes and reads (alias with the deployment's prefix). */
  readonly def: IndexDefinition;

  constructor(
    readonly engine: SearchEngine,
    private readonly db: Knex,
    private readonly logger: Pick<Logger, 'warn'>,
    prefix = '',
  ) {
    this.def = entriesIndex(prefix);
  }

  /** An entry search on the engine; a value a field rejects (`created:abc`) is a 400 as on postgres. */
  async search(i: EngineEntrySearch): Promise<EngineEntryResult> {
    try {
      return await searchEntriesOnEngine(this.engine, this.def.alias, this.db, i);
    } catch (e) {
      if (e instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(e);
      throw e;
    }
  }

  /** Creates the index behind its alias when missing (once; retried after a failure). */
  ensureIndex(): Promise<void> {
    this.ensured ??= this.engine.ensureIndex(this.def).catch((err) => {
      this.ensured = undefined;
      throw err;
    });
    return this.ensured;
  }

  /**
   * Index committed entries now with `refresh: wait_for`, so the writer's next search sees its
   * write. A failure (engine down) is logged, never thrown: the write is committed and its outbox
   * event brings the index up to date once the engine is back.
   */
  async afterCommit(type: string, ids: string[]): Promise<void> {
    if (!ids.length) return;
    try {
      const ops = await this.load([{ id: type, revision: 0, subject: '', data: { type, ids } }]);
      await this.engine.bulk(this.def.alias, ops, { refresh: 'wait_for' });
    } catch (err) {
      this.logger.warn({ err, type, ids }, 'inline search indexing failed; the outbox indexer will catch up');
    }
  }

  /** Current state of the entries named by `entries.changed` events: index the rows, delete the tombstoned. */
  async load(refs: AggregateRef[]): Promise<BulkOp[]> {
    // Before any write: a bulk into a missing alias would auto-create a plain index under its name.
    await this.ensureIndex();
    const byType = new Map<string, Set<string>>();
    for (const r of refs) {
      const data = (r.data ?? {}) as ChangedData;
      if (typeof data.type !== 'string' || !Array.isArray(data.ids)) continue;
      const set = byType.get(data.type) ?? new Set<string>();
      for (const id of data.ids) if (typeof id === 'string') set.add(id);
      byType.set(data.type, set);
    }
    const ops: BulkOp[] = [];
    for (const [type, set] of byType) {
      const ids = [...set];
      const rows = await indexRows(this.db, type, ids);
      for (const row of rows) ops.push({ op: 'index', ...entryDoc(row) });
      const found = new Set(rows.map((r) => r.id));
      const gone = ids.filter((id) => !found.has(id));
      for (const t of await tombstonesOf(this.db, type, gone))
        ops.push({ op: 'delete', id: docId(type, t.id), version: Number(t.index_version) });
    }
    return ops;
  }

  /** The durable indexer of `rdm.vocabularies.entries.changed` (batches of ≤ 500 ids; ≤ 20 events per bulk). */
  startIndexer(nats: Pick<NatsHandle, 'js' | 'jsm'>, logger: Logger) {
    return runSearchIndexer({
      js: nats.js,
      jsm: nats.jsm,
      engine: this.engine,
      alias: this.def.alias,
      stream: 'VOCABULARIES',
      durable: 'vocabularies-search-indexer',
      filterSubject: 'rdm.vocabularies.entries.changed',
      load: (refs) => this.load(refs),
      logger,
      batchSize: 20,
    });
  }

  /**
   * Rebuild the index of every large vocabulary from PostgreSQL into a new versioned index and swap
   * the alias; then repeat the deletes that raced with it (the build reads rows, never tombstones).
   */
  async reindex(batch = 2000): Promise<{ index: string; count: number; deletes: number }> {
    const db = this.db;
    const started = new Date(Date.now() - 5000);
    const res = await this.engine.reindex(this.def, async function* (since?: Date) {
      const page = (after?: { type: string; id: string }) => indexRowsPage(db, { types: INDEXED_TYPES, since, after, limit: batch });
      let next = page();
      for (;;) {
        const rows = await next;
        if (!rows.length) return;
        const last = rows[rows.length - 1];
        // Why: the next page is read while this one is bulk-indexed.
        next = page({ type: last.type, id: last.id });
        yield rows.map(entryDoc);
      }
    });
    const dead = await tombstonesSince(db, INDEXED_TYPES, started);
    const ops: BulkOp[] = dead.map((t) => ({ op: 'delete', id: docId(t.type, t.id), version: Number(t.index_version) }));
    if (ops.length) await this.engine.bulk(this.def.alias, ops, { refresh: 'wait_for' });
    return { ...res, deletes: ops.length };
  }
}
