/**
 * SQL of the OAI-PMH endpoint (only SQL). Items are the published records that were public when
 * published (they carry an OAI identifier in `pids.oai`; restricted records never get one), read
 * from `search_docs` (kind `record`, whose `doc` is the full read form). An item is *deleted* when
 * its `deletion_status` is not `P` (tombstoned/removed: the marker is read, though records are not
 * deleted today) or it was made restricted after publication; deleted items keep their
 * identifier and show as `<header status="deleted">` (deletedRecord = persistent).
 *
 * Lists are keyset-paginated on `(updated, id)` with the timestamp carried as text with
 * microseconds (a JS Date would truncate it and skip or repeat rows). Index:
 * 20250901000000_index_oai_records.ts.
 */
import type { Knex } from '@rdm/platform';
import type { ItemDoc } from '../model/rows.js';

/** One OAI item. */
export interface OaiItemRow {
  id: string;
  /** `updated` as an exact UTC text (`YYYY-MM-DDThh:mm:ss.uuuuuuZ`): the keyset cursor. */
  cursor: string;
  deleted: boolean;
  community_ids: string[];
  resource_type_id: string | null;
  oai_identifier: string;
  /** The stored document (only for live items when asked for). */
  doc?: ItemDoc;
}

/** Filters of a list. */
export interface OaiListFilter {
  /** Inclusive lower bound of `updated` (ISO). */
  from?: string;
  /** Exclusive upper bound of `updated` (ISO). */
  untilExclusive?: string;
  communityId?: string;
  resourceTypeId?: string;
  /** Keyset: items strictly after this `(cursor, id)`. */
  after?: { cursor: string; id: string };
}

const ITEM = `kind = 'record' AND (doc->'pids'->'oai'->>'identifier') IS NOT NULL`;
const DELETED = `(deletion_status <> 'P' OR access_record <> 'public')`;
const CURSOR = `to_char(updated AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

function where(q: Knex.QueryBuilder, f: OaiListFilter): Knex.QueryBuilder {
  q.whereRaw(ITEM);
  if (f.from) q.whereRaw('updated >= ?::timestamptz', [f.from]);
  if (f.untilExclusive) q.whereRaw('updated < ?::timestamptz', [f.untilExclusive]);
  if (f.communityId) q.whereRaw('community_ids @> ARRAY[?]::text[]', [f.communityId]);
  if (f.resourceTypeId) q.where('resource_type_id', f.resourceTypeId);
  if (f.after) q.whereRaw('(updated, id) > (?::timestamptz, ?)', [f.after.cursor, f.after.id]);
  return q;
}

function columns(withDocs: boolean): string[] {
  const cols = [
    'id',
    `${CURSOR} AS cursor`,
    `${DELETED} AS deleted`,
    'community_ids',
    'resource_type_id',
    `doc->'pids'->'oai'->>'identifier' AS oai_identifier`,
  ];
  // Why: a deleted item's metadata must never be rendered, so its document is not even read.
  if (withDocs) cols.push(`CASE WHEN ${DELETED} THEN NULL ELSE doc END AS doc`);
  return cols;
}

/** A page of items in `(updated, id)` order. */
export async function listOaiItems(db: Knex, f: OaiListFilter, limit: number, withDocs: boolean): Promise<OaiItemRow[]> {
  const q = db('search_docs').select(db.raw(columns(withDocs).join(', ')));
  where(q, f);
  return (await q.orderBy([{ column: 'updated' }, { column: 'id' }]).limit(limit)) as OaiItemRow[];
}

/** How many items match (the `completeListSize` of the first page). */
export async function countOaiItems(db: Knex, f: Omit<OaiListFilter, 'after'>): Promise<number> {
  const q = db('search_docs').count({ n: '*' });
  where(q, f);
  const row = (await q.first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

/** One item by record id. */
export async function getOaiItem(db: Knex, id: string): Promise<OaiItemRow | undefined> {
  const q = db('search_docs')
    .select(db.raw(columns(true).join(', ')))
    .where('id', id);
  where(q, {});
  return (await q.first()) as OaiItemRow | undefined;
}

/** The earliest datestamp of any item (Identify), or undefined when there is none. */
export async function earliestOaiDatestamp(db: Knex): Promise<string | undefined> {
  const row = (await db('search_docs')
    .select(db.raw(`min(${CURSOR}) AS cursor`))
    .whereRaw(ITEM)
    .first()) as { cursor: string | null } | undefined;
  return row?.cursor ?? undefined;
}

/** Community ids and resource types (with a title) of the live items: the sets in use. */
export async function oaiSetsInUse(db: Knex): Promise<{ communityIds: string[]; resourceTypes: { id: string; title: unknown }[] }> {
  const live = `${ITEM} AND NOT ${DELETED}`;
  const communities = await db.raw(`SELECT DISTINCT unnest(community_ids) AS id FROM search_docs WHERE ${live}`);
  const types = await db.raw(
    `SELECT DISTINCT ON (resource_type_id) resource_type_id AS id, doc->'metadata'->'resource_types'->0->'title' AS title
     FROM search_docs WHERE ${live} AND resource_type_id IS NOT NULL ORDER BY resource_type_id`,
  );
  return {
    communityIds: (communities.rows as { id: string }[]).map((r) => r.id).sort(),
    resourceTypes: types.rows as { id: string; title: unknown }[],
  };
}
