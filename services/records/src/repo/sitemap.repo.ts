/**
 * SQL of the sitemap (only SQL): the landing pages of public, live, latest records from
 * `search_docs`, in `(created, id)` order — the partial index `search_docs_public_created_idx`
 * (20250601000100) covers exactly these rows.
 */
import type { Knex } from '@rdm/platform';

const PUBLIC_LATEST = `kind = 'record' AND deletion_status = 'P' AND is_latest AND access_record = 'public'`;

/** How many records the sitemap lists. */
export async function countSitemapRecords(db: Knex): Promise<number> {
  const r = await db.raw(`SELECT count(*)::int AS n FROM search_docs WHERE ${PUBLIC_LATEST}`);
  return Number(r.rows[0]?.n ?? 0);
}

/** One page of `{id, updated}` (UTC text at second granularity). */
export async function sitemapRecords(db: Knex, offset: number, limit: number): Promise<{ id: string; lastmod: string }[]> {
  const r = await db.raw(
    `SELECT id, to_char(updated AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS lastmod
     FROM search_docs WHERE ${PUBLIC_LATEST} ORDER BY created, id OFFSET ? LIMIT ?`,
    [offset, limit],
  );
  return r.rows;
}
