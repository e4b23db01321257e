/**
 * All SQL over `search_docs`, the postgres engine's index table (its only owner: the records
 * domain writes through pg-indexer.ts, search reads through it too).
 *
 * Writes run in the caller's transaction. Reads: the page of hits, the exact total and the facet
 * rows (separately for queries without `q`, whose hits and counts have their own indexes; in one
 * statement over the matching documents for queries with `q`, see `searchMatches`).
 * Each read statement runs in its own short read-only transaction with JIT off (PostgreSQL's JIT
 * compiles an aggregation over 100,000 rows for 300–900 ms, several times the query itself),
 * 16 MB of work memory and the search statement timeout, cancelled when the client goes away
 * (`searchRead`), so independent statements can run side by side on the pool.
 */
import { type Knex, prepared, searchRead, searchVectorSql } from '@rdm/platform';
import type { ItemDoc } from '../model/rows.js';
import { aggregationSql, fileTypeRowsSql } from './facet-sql.js';
import { FILES_READABLE_COLUMN } from './files-guard.js';
import type { AggRow } from './indexer.js';
import type { SearchDocRow } from './search-doc.js';
import type { Sql } from './sql.js';

type Db = Knex | Knex.Transaction;

// ---------------------------------------------------------------------------------------------
// writes

/** Columns of a search document row, in statement order (the vector is computed from `texts`). */
const DOC_COLUMNS = [
  'id',
  'kind',
  'parent_id',
  'owner_id',
  'is_published',
  'is_latest',
  'is_latest_draft',
  'has_draft',
  'deletion_status',
  'access_record',
  'access_files',
  'access_status',
  'resource_type_id',
  'resource_type_type',
  'resource_type_subtype',
  'publication_date_start',
  'publication_date_end',
  'created',
  'updated',
  'version_index',
  'revision_id',
] as const;

/** Insert or replace the search document of one draft or record. */
export async function upsertDoc(db: Db, r: SearchDocRow): Promise<void> {
  const v = searchVectorSql(r.texts);
  const names = [...DOC_COLUMNS, 'doc', 'file_types', 'community_ids', 'search_vector'].map((c) => `"${c}"`);
  const values = [...DOC_COLUMNS.map(() => '?'), '?', '?::text[]', '?::text[]', v.sql];
  const bindings = [...DOC_COLUMNS.map((c) => r[c]), JSON.stringify(r.doc), r.file_types, r.community_ids, ...v.bindings];
  await prepared(
    db,
    `INSERT INTO search_docs (${names.join(', ')}) VALUES (${values.join(', ')})
     ON CONFLICT (id, kind) DO UPDATE SET ${names.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`,
    bindings,
  );
}

/** Delete the search document of one draft or record. */
export async function deleteDoc(db: Db, id: string, kind: 'draft' | 'record'): Promise<void> {
  await prepared(db, 'DELETE FROM search_docs WHERE id = ? AND kind = ?', [id, kind]);
}

/** Set `has_draft` on a record's search document. */
export async function setHasDraft(db: Db, id: string, hasDraft: boolean): Promise<void> {
  await prepared(db, "UPDATE search_docs SET has_draft = ? WHERE id = ? AND kind = 'record'", [hasDraft, id]);
}

/** Usage counters of every record document of a parent (the `mostviewed`/`mostdownloaded` sort keys). */
export async function setUsage(db: Db, parentId: string, views: number, downloads: number): Promise<void> {
  await prepared(db, "UPDATE search_docs SET views = ?, downloads = ? WHERE parent_id = ? AND kind = 'record'", [
    views,
    downloads,
    parentId,
  ]);
}

/**
 * Recompute the version flags (`is_latest`, `is_latest_draft`) of the given ids' documents
 * (both kinds) from the parent's versions state, in one statement.
 */
export async function refreshVersionFlags(
  db: Db,
  ids: string[],
  state: { latest_id: string | null; next_draft_id: string | null },
): Promise<void> {
  const unique = [...new Set(ids.filter(Boolean))];
  if (unique.length === 0) return;
  await db.raw(
    `UPDATE search_docs SET
        is_latest = (id = :latest),
        is_latest_draft = CASE WHEN :next::text IS NOT NULL THEN id = :next ELSE id = :latest END,
        doc = jsonb_set(jsonb_set(doc, '{versions,is_latest}', to_jsonb(id = :latest)),
                        '{versions,is_latest_draft}',
                        to_jsonb(CASE WHEN :next::text IS NOT NULL THEN id = :next ELSE id = :latest END))
      WHERE id = ANY(:ids)`,
    { latest: state.latest_id ?? '', next: state.next_draft_id, ids: unique },
  );
}

/** Replace the `parent` part and the community ids of every search document of a parent (one statement). */
export async function setParentOfDocs(db: Db, parentId: string, parent: unknown, communityIds: string[]): Promise<void> {
  await db.raw(`UPDATE search_docs SET doc = jsonb_set(doc, '{parent}', ?::jsonb), community_ids = ?::text[] WHERE parent_id = ?`, [
    JSON.stringify(parent),
    communityIds,
    parentId,
  ]);
}

/** Replace the files summary (and file types) of a draft's search document. */
export async function setDraftDocFiles(db: Db, id: string, files: unknown, types: string[]): Promise<void> {
  await prepared(
    db,
    `UPDATE search_docs SET doc = jsonb_set(doc, '{files}', ?::jsonb), file_types = ?::text[] WHERE id = ? AND kind = 'draft'`,
    [JSON.stringify(files), types, id],
  );
}

/** Set `status` in the search documents of a parent's drafts. */
export async function setDraftDocsStatus(db: Db, parentId: string, status: string): Promise<void> {
  await prepared(db, `UPDATE search_docs SET doc = jsonb_set(doc, '{status}', to_jsonb(?::text)) WHERE parent_id = ? AND kind = 'draft'`, [
    status,
    parentId,
  ]);
}

// ---------------------------------------------------------------------------------------------
// reads

/** The files part of a draft's stored document. */
export async function draftDocFiles(db: Db, id: string): Promise<ItemDoc['files'] | undefined> {
  const r = await prepared(db, "SELECT doc -> 'files' AS files FROM search_docs WHERE id = ? AND kind = 'draft'", [id]);
  return (r.rows[0] as { files?: ItemDoc['files'] } | undefined)?.files ?? undefined;
}

/** The stored `metadata.resource_type.title.en` of one document per resource type id. */
export async function resourceTypeTitles(db: Db, ids: string[]): Promise<Map<string, string>> {
  const r = await db.raw(
    `SELECT k.id, (SELECT d.doc #>> '{metadata,resource_type,title,en}' FROM search_docs d WHERE d.resource_type_id = k.id LIMIT 1) AS title
       FROM unnest(?::text[]) AS k(id)`,
    [ids],
  );
  const out = new Map<string, string>();
  for (const row of r.rows as { id: string; title: string | null }[]) if (row.title) out.set(row.id, row.title);
  return out;
}

/**
 * The write stamp of `search_docs`: the last value of the sequence every insert, update and
 * delete of a row draws from (migration 20261126000000: `index_version` and the tombstones), with
 * the table's file node (a TRUNCATE). Not transactional: a write changes it before it commits, so
 * a later search always reads a newer stamp than any computation that missed the write.
 */
export async function writeStamp(db: Knex): Promise<string> {
  const r = await prepared(
    db,
    `SELECT coalesce(pg_sequence_last_value('search_docs_index_version_seq'::regclass), 0)::text || '/' || pg_relation_filenode('search_docs'::regclass)::text AS s`,
    [],
  );
  return String((r.rows[0] as { s: string | null }).s);
}

/**
 * Whether another transaction holds a write lock on `search_docs` now (a writer in flight: what
 * it wrote may be committed after a snapshot taken next, under a stamp read before). Read after
 * the stamp and before the computation cached under it (agg-cache.ts `Stamp`).
 */
export async function writersInFlight(db: Knex): Promise<boolean> {
  const r = await prepared(
    db,
    `SELECT EXISTS (SELECT 1 FROM pg_locks
                     WHERE locktype = 'relation' AND relation = 'search_docs'::regclass
                       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                       AND mode IN ('RowExclusiveLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')
                       AND pid <> pg_backend_pid()) AS busy`,
    [],
  );
  return Boolean((r.rows[0] as { busy: boolean }).busy);
}

/** Memory of one search statement's sorts, hashes and materialized matches (avoids temp files). */
const WORK_MEM = '16MB';

/**
 * Run one statement with JIT off, enough work memory, the search statement timeout (503 after
 * SEARCH_STATEMENT_TIMEOUT_MS) and cancelled in PostgreSQL when the client goes away (`searchRead`).
 */
async function read<T>(db: Knex, sql: string, bindings: unknown[]): Promise<T[]> {
  return searchRead(
    db,
    async (on) => {
      const r = await on(db.raw(sql, bindings as Knex.RawBinding[]));
      return r.rows as T[];
    },
    { settings: ['SET LOCAL jit = off', `SET LOCAL work_mem = '${WORK_MEM}'`] },
  );
}

/** One page of hits: stored documents and their kind. */
export async function findHits(
  db: Knex,
  where: Sql,
  order: Sql,
  page: { limit: number; offset: number },
): Promise<{ kind: 'draft' | 'record'; doc: ItemDoc }[]> {
  return read(db, `SELECT kind, doc FROM search_docs WHERE ${where.sql} ORDER BY ${order.sql} LIMIT ? OFFSET ?`, [
    ...where.bindings,
    ...order.bindings,
    page.limit,
    page.offset,
  ]);
}

/**
 * One page of hits and the sort key of its last hit (`key`: the expression of keyset.ts
 * `keyExpr`). `after`: a keyset condition (keyset.ts `keysetAfter`) replacing the offset.
 */
export async function findHitsKeyed(
  db: Knex,
  where: Sql,
  order: string,
  page: { limit: number; offset: number },
  o: { key: string; after: Sql | null },
): Promise<{ hits: { kind: 'draft' | 'record'; doc: ItemDoc }[]; last: (string | null)[] | null }> {
  const cond = o.after ? { sql: `(${where.sql}) AND ${o.after.sql}`, bindings: [...where.bindings, ...o.after.bindings] } : where;
  const rows = await read<{ kind: 'draft' | 'record'; doc: ItemDoc; k: (string | null)[] }>(
    db,
    `SELECT kind, doc, ${o.key} AS k FROM search_docs WHERE ${cond.sql} ORDER BY ${order} LIMIT ? OFFSET ?`,
    [...cond.bindings, page.limit, o.after ? 0 : page.offset],
  );
  return { hits: rows.map((r) => ({ kind: r.kind, doc: r.doc })), last: rows.length ? rows[rows.length - 1].k : null };
}

/** The exact number of documents matching `where`. */
export async function countHits(db: Knex, where: Sql): Promise<number> {
  const rows = await read<{ n: number }>(db, `SELECT count(*)::int AS n FROM search_docs WHERE ${where.sql}`, where.bindings);
  return Number(rows[0]?.n ?? 0);
}

/** Facet rows of the documents matching `where` (see `aggregationSql`; `fileTypes`: what counts as file types). */
export async function facetRows(db: Knex, where: Sql, o: { isPublished?: boolean; fileTypes?: Sql } = {}): Promise<AggRow[]> {
  const q = aggregationSql(where, o);
  return read<AggRow>(db, q.sql, q.bindings);
}

/** File-type facet rows only, of the documents matching `where` (see `fileTypeRowsSql`). */
export async function fileTypeRows(db: Knex, where: Sql): Promise<AggRow[]> {
  const q = fileTypeRowsSql(where);
  return read<AggRow>(db, q.sql, q.bindings);
}

/** Columns a narrow search keeps per matching document (sort keys and facet columns). */
const MATCH_COLUMNS = [
  'id',
  'kind',
  'created',
  'updated',
  'version_index',
  'views',
  'downloads',
  'access_status',
  'resource_type_type',
  'resource_type_subtype',
  'file_types',
  'publication_date_start',
  'publication_date_end',
  'is_published',
];

/** Inputs of `searchMatches`. */
export interface MatchSearch {
  /** Scope AND q: the documents the facets count. */
  where: Sql;
  /** Facet filters (post-filters): restrict hits and total only. */
  facets: Sql | null;
  /** Rank expression (`sort=bestmatch`), available to `order` as column `rank`. */
  rank: Sql | null;
  /** ORDER BY over the columns of MATCH_COLUMNS and `rank`. */
  order: string;
  limit: number;
  offset: number;
  isPublished?: boolean;
  /**
   * The documents whose file data the caller may read (files-guard.ts): `where` and `rank` may
   * read it as the column `rdm_files_readable`; file types of the others are not counted or filtered.
   */
  filesReadable: Sql;
}

/**
 * Hits, exact total and facet rows of a query with `q` in ONE statement: the matching documents
 * are read once (GIN on `search_vector`, one heap visit each, rank computed once) into a
 * materialized CTE, and the page, the count and the facet pass all run over it.
 */
export async function searchMatches(
  db: Knex,
  m: MatchSearch,
): Promise<{ hits: { kind: 'draft' | 'record'; doc: ItemDoc }[]; total: number; rows: AggRow[] }> {
  const rank = m.rank ?? { sql: '0', bindings: [] };
  const facets = m.facets ?? { sql: 'TRUE', bindings: [] };
  const aggs = aggregationSql({ sql: 'TRUE', bindings: [] }, { isPublished: m.isPublished, from: 'm' });
  // search_docs plus the guard column (a derived table the planner flattens: indexes still apply).
  const source = `(SELECT *, ${m.filesReadable.sql} AS ${FILES_READABLE_COLUMN} FROM search_docs) AS search_docs`;
  const columns = MATCH_COLUMNS.map((c) =>
    c === 'file_types' ? `(CASE WHEN ${FILES_READABLE_COLUMN} THEN file_types END) AS file_types` : c,
  );
  const sql = `
    WITH m AS MATERIALIZED (
      SELECT ${columns.join(', ')}, ${rank.sql} AS rank FROM ${source} WHERE ${m.where.sql}
    ), h AS (
      SELECT id, kind, row_number() OVER (ORDER BY ${m.order}) AS ord
        FROM (SELECT * FROM m WHERE ${facets.sql} ORDER BY ${m.order} LIMIT ? OFFSET ?) AS page
    )
    SELECT (SELECT count(*)::int FROM m WHERE ${facets.sql}) AS total,
           (SELECT coalesce(json_agg(json_build_object('kind', d.kind, 'doc', d.doc) ORDER BY h.ord), '[]'::json)
              FROM h JOIN search_docs d ON d.id = h.id AND d.kind = h.kind) AS hits,
           (SELECT coalesce(json_agg(agg_row), '[]'::json) FROM (${aggs.sql}) AS agg_row) AS aggs`;
  const bindings = [
    ...rank.bindings,
    ...m.filesReadable.bindings,
    ...m.where.bindings,
    ...facets.bindings,
    m.limit,
    m.offset,
    ...facets.bindings,
    ...aggs.bindings,
  ];
  const [row] = await read<{ total: number; hits: { kind: 'draft' | 'record'; doc: ItemDoc }[]; aggs: AggRow[] }>(db, sql, bindings);
  return { hits: row.hits, total: Number(row.total), rows: row.aggs };
}

// ---------------------------------------------------------------------------------------------
// the OpenSearch/Elasticsearch engines (engine-index.ts): rows to index, tombstones, hits by key

/** A `search_docs` row as the engines index it (`index_version`: external version). */
export type EngineSourceRow = Omit<SearchDocRow, 'created' | 'updated' | 'revision_id' | 'texts'> & {
  created: Date;
  updated: Date;
  views: number;
  downloads: number;
  index_version: string;
};

const ENGINE_COLUMNS = `id, kind, parent_id, owner_id, is_published, is_latest, is_latest_draft, has_draft, deletion_status,
  access_record, access_files, access_status, resource_type_id, resource_type_type, resource_type_subtype, file_types,
  community_ids, to_char(publication_date_start, 'YYYY-MM-DD') AS publication_date_start,
  to_char(publication_date_end, 'YYYY-MM-DD') AS publication_date_end, created, updated, version_index, views, downloads,
  index_version::text AS index_version, doc`;

/** A deleted row's tombstone. */
export interface GoneRow {
  id: string;
  kind: 'draft' | 'record';
  index_version: string;
}

/** Current rows and tombstones of the given documents (`kind:id` keys) and of every document of the given parents. */
export async function engineRows(db: Knex, keys: string[], parents: string[]): Promise<{ rows: EngineSourceRow[]; gone: GoneRow[] }> {
  const ids = keys.map((k) => k.slice(k.indexOf(':') + 1));
  const kinds = keys.map((k) => k.slice(0, k.indexOf(':')));
  const where = '(id, kind) IN (SELECT * FROM unnest(?::text[], ?::text[])) OR parent_id = ANY(?::text[])';
  const [rows, gone] = await Promise.all([
    db.raw(`SELECT ${ENGINE_COLUMNS} FROM search_docs WHERE ${where}`, [ids, kinds, parents]),
    db.raw(`SELECT id, kind, index_version::text AS index_version FROM search_docs_gone WHERE ${where}`, [ids, kinds, parents]),
  ]);
  return { rows: rows.rows as EngineSourceRow[], gone: gone.rows as GoneRow[] };
}

/**
 * One batch of rows in `(changed_at, id, kind)` order after `after` (keyset), optionally only those
 * changed since `since`: the source of a reindex.
 */
export async function engineRowsPage(
  db: Knex,
  o: { since?: Date; after?: { changed_at: string; id: string; kind: string }; limit: number },
): Promise<(EngineSourceRow & { changed_at: string })[]> {
  const conds: string[] = [];
  const bindings: unknown[] = [];
  if (o.since) {
    conds.push('changed_at >= ?');
    bindings.push(o.since);
  }
  if (o.after) {
    conds.push('(changed_at, id, kind) > (?::timestamptz, ?, ?)');
    bindings.push(o.after.changed_at, o.after.id, o.after.kind);
  }
  const r = await db.raw(
    // Why text: a JS Date keeps milliseconds, the column microseconds (the keyset must be exact).
    // Why `search_docs.changed_at` in ORDER BY: a bare `changed_at` is the text output column, which
    // no index orders: every page sorted all remaining rows (1.7 ms vs 280 ms a page at 1,000,000).
    `SELECT ${ENGINE_COLUMNS}, changed_at::text AS changed_at FROM search_docs ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''}
      ORDER BY search_docs.changed_at, id, kind LIMIT ?`,
    [...bindings, o.limit] as Knex.RawBinding[],
  );
  return r.rows;
}

/** Tombstones newer than `since` (catch-up passes of a reindex). */
export async function goneSince(db: Knex, since: Date): Promise<GoneRow[]> {
  const r = await db.raw('SELECT id, kind, index_version::text AS index_version FROM search_docs_gone WHERE gone_at >= ?', [since]);
  return r.rows as GoneRow[];
}

/** Forget tombstones older than `days` (the engines keep deletes for `index.gc_deletes` only). */
export async function pruneGone(db: Knex, days: number): Promise<number> {
  const r = await db.raw('DELETE FROM search_docs_gone WHERE gone_at < now() - make_interval(days => ?)', [days]);
  return r.rowCount ?? 0;
}

/** The stored documents of `kind:id` keys (any order; missing ones left out). */
export async function docsByKeys(db: Knex, keys: string[]): Promise<{ kind: 'draft' | 'record'; id: string; doc: ItemDoc }[]> {
  if (!keys.length) return [];
  const ids = keys.map((k) => k.slice(k.indexOf(':') + 1));
  const kinds = keys.map((k) => k.slice(0, k.indexOf(':')));
  const r = await db.raw('SELECT kind, id, doc FROM search_docs WHERE (id, kind) IN (SELECT * FROM unnest(?::text[], ?::text[]))', [
    ids,
    kinds,
  ]);
  return r.rows;
}
