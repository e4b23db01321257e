/**
 * SQL of record search over `search_docs`: the page of hits, the exact total and the facet rows
 * (separately for queries without `q`, whose hits and counts have their own indexes; in one
 * statement over the matching documents for queries with `q`, see `searchMatches`).
 * Each statement runs in its own short read-only transaction with JIT off (PostgreSQL's JIT
 * compiles an aggregation over 100,000 rows for 300–900 ms, several times the query itself),
 * 16 MB of work memory and a statement timeout, so independent statements can run side by side
 * on the pool.
 */
import { Errors, type Knex } from '@rdm/platform';
import type { ItemDoc } from '../domain/serializers.js';
import { type AggRow, aggregationSql } from './facets.js';
import type { Sql } from './sql.js';

/** Longest a search statement may run before it is cancelled (answered 503). */
export const STATEMENT_TIMEOUT_MS = 10_000;

/** Memory of one search statement's sorts, hashes and materialized matches (avoids temp files). */
const WORK_MEM = '16MB';

/** Run one statement with JIT off, enough work memory and a statement timeout. */
async function read<T>(db: Knex, sql: string, bindings: unknown[]): Promise<T[]> {
  try {
    return await db.transaction(async (trx) => {
      await trx.raw(
        `SET TRANSACTION READ ONLY; SET LOCAL jit = off; SET LOCAL work_mem = '${WORK_MEM}'; SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}`,
      );
      const r = await trx.raw(sql, bindings as Knex.RawBinding[]);
      return r.rows as T[];
    });
  } catch (err) {
    if ((err as { code?: string }).code === '57014') throw Errors.serviceUnavailable('The search took too long; please refine it.');
    throw err;
  }
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

/** The exact number of documents matching `where`. */
export async function countHits(db: Knex, where: Sql): Promise<number> {
  const rows = await read<{ n: number }>(db, `SELECT count(*)::int AS n FROM search_docs WHERE ${where.sql}`, where.bindings);
  return Number(rows[0]?.n ?? 0);
}

/** Facet rows of the documents matching `where` (see `aggregationSql`). */
export async function facetRows(db: Knex, where: Sql, o: { isPublished?: boolean } = {}): Promise<AggRow[]> {
  const q = aggregationSql(where, o);
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
  const sql = `
    WITH m AS MATERIALIZED (
      SELECT ${MATCH_COLUMNS.join(', ')}, ${rank.sql} AS rank FROM search_docs WHERE ${m.where.sql}
    ), h AS (
      SELECT id, kind, row_number() OVER (ORDER BY ${m.order}) AS ord
        FROM (SELECT * FROM m WHERE ${facets.sql} ORDER BY ${m.order} LIMIT ? OFFSET ?) AS page
    )
    SELECT (SELECT count(*)::int FROM m WHERE ${facets.sql}) AS total,
           (SELECT coalesce(json_agg(json_build_object('kind', d.kind, 'doc', d.doc) ORDER BY h.ord), '[]'::json)
              FROM h JOIN search_docs d ON d.id = h.id AND d.kind = h.kind) AS hits,
           (SELECT coalesce(json_agg(agg_row), '[]'::json) FROM (${aggs.sql}) AS agg_row) AS aggs`;
  const bindings = [...rank.bindings, ...m.where.bindings, ...facets.bindings, m.limit, m.offset, ...facets.bindings, ...aggs.bindings];
  const [row] = await read<{ total: number; hits: { kind: 'draft' | 'record'; doc: ItemDoc }[]; aggs: AggRow[] }>(db, sql, bindings);
  return { hits: row.hits, total: Number(row.total), rows: row.aggs };
}
