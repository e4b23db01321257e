/** SQL of usage statistics (tables `stats_counts`, `stats_seen`, migration 20261123000200). */
import type { Knex } from '@rdm/platform';

type Db = Knex | Knex.Transaction;

/** Counters of one record. */
export interface StatsRow {
  record_id: string;
  parent_id: string;
  views: number;
  unique_views: number;
  downloads: number;
  unique_downloads: number;
  data_volume: number;
}

/** The last counted visit of a visitor to a record (locked), if any. */
export async function lockSeen(db: Db, kind: 'v' | 'd', recordId: string, visitor: string) {
  const row = await db('stats_seen').where({ kind, record_id: recordId, visitor }).forUpdate().first();
  return row as { last_counted: Date; day: string } | undefined;
}

/** Record a counted visit. */
export async function upsertSeen(db: Db, kind: 'v' | 'd', recordId: string, visitor: string, at: Date, day: string): Promise<void> {
  await db('stats_seen')
    .insert({ kind, record_id: recordId, visitor, last_counted: at, day })
    .onConflict(['kind', 'record_id', 'visitor'])
    .merge();
}

/** Add to a record's counters. */
export async function addCounts(db: Db, recordId: string, parentId: string, add: Omit<StatsRow, 'record_id' | 'parent_id'>): Promise<void> {
  await db.raw(
    `INSERT INTO stats_counts (record_id, parent_id, views, unique_views, downloads, unique_downloads, data_volume)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (record_id) DO UPDATE SET views = stats_counts.views + EXCLUDED.views,
       unique_views = stats_counts.unique_views + EXCLUDED.unique_views, downloads = stats_counts.downloads + EXCLUDED.downloads,
       unique_downloads = stats_counts.unique_downloads + EXCLUDED.unique_downloads, data_volume = stats_counts.data_volume + EXCLUDED.data_volume`,
    [recordId, parentId, add.views, add.unique_views, add.downloads, add.unique_downloads, add.data_volume],
  );
}

/** This version's counters and the sums over its parent's versions. */
export async function statsOf(db: Db, recordId: string): Promise<{ this: Partial<StatsRow>; all: Partial<StatsRow> }> {
  const r = await db.raw(
    `SELECT s.views, s.unique_views, s.downloads, s.unique_downloads, s.data_volume,
       (SELECT json_build_object('views', sum(views), 'unique_views', sum(unique_views), 'downloads', sum(downloads),
          'unique_downloads', sum(unique_downloads), 'data_volume', sum(data_volume)) FROM stats_counts a WHERE a.parent_id = r.parent_id) AS all
     FROM records r LEFT JOIN stats_counts s ON s.record_id = r.id WHERE r.id = ?`,
    [recordId],
  );
  const row = r.rows[0] as (Partial<StatsRow> & { all: Partial<StatsRow> }) | undefined;
  if (!row) return { this: {}, all: {} };
  const { all, ...own } = row;
  return { this: own, all };
}

/**
 * Usage totals over every version of every record of a community's parents (`parents.communities`
 * ids, GIN-indexed): the community's `statistics.record_views` / `record_downloads`.
 */
export async function communityUsage(db: Db, communityId: string): Promise<{ views: number; downloads: number }> {
  const r = await db.raw(
    `SELECT coalesce(sum(s.views), 0)::bigint AS views, coalesce(sum(s.downloads), 0)::bigint AS downloads
     FROM parents p JOIN stats_counts s ON s.parent_id = p.id
     WHERE (p.communities->'ids') @> to_jsonb(ARRAY[?]::text[])`,
    [communityId],
  );
  const row = r.rows[0] as { views: string | number; downloads: string | number } | undefined;
  return { views: Number(row?.views ?? 0), downloads: Number(row?.downloads ?? 0) };
}

/** The parent of a published record row (any deletion status), if the record exists. */
export async function parentIdOf(db: Db, recordId: string): Promise<string | undefined> {
  const row = (await db('records').select('parent_id').where({ id: recordId }).first()) as { parent_id: string } | undefined;
  return row?.parent_id;
}

/** Serialize writers of one key until the transaction ends (a row that does not exist yet cannot be locked FOR UPDATE). */
export async function lockKey(trx: Knex.Transaction, key: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [key]);
}

/** The unique views and downloads of every version of a parent. */
export async function uniqueUsageOfParent(db: Db, parentId: string): Promise<{ views: number; downloads: number }> {
  const [sum] = await db('stats_counts').where({ parent_id: parentId }).sum({ v: 'unique_views', d: 'unique_downloads' });
  return { views: Number(sum?.v ?? 0), downloads: Number(sum?.d ?? 0) };
}
