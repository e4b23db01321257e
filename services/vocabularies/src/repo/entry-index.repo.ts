/**
 * SQL of the search engine index (SEARCH_ENGINE opensearch|elasticsearch): entry rows with what
 * their index documents need (sort key, folded field texts, suggest lexemes, index version), and
 * the tombstones of deleted entries. No business rules here.
 */
import type { Knex } from '@rdm/platform';
import type { EntryRow } from '../domain/documents.js';
import { ENTRY_COLUMNS, pgTextArray } from './vocabularies.repo.js';

type Db = Knex | Knex.Transaction;

/** An entry row with the columns of its index document. */
export interface IndexRow extends EntryRow {
  sort_key: string | null;
  search_fields: Record<string, string>;
  /** bigint: the external version of the document. */
  index_version: string;
  /** `created` in microseconds since the epoch (sorts as PostgreSQL does; a date field keeps milliseconds). */
  created_us: string;
  /** The lexemes of `suggest_vector`: `suggest` matches their prefixes on both engines. */
  suggest_terms: string[];
}

const INDEX_COLUMNS = `${ENTRY_COLUMNS}, e.sort_key, e.search_fields, e.index_version,
  (extract(epoch FROM e.created) * 1000000)::bigint AS created_us, tsvector_to_array(e.suggest_vector) AS suggest_terms`;

/** Index rows of some entries of one type (absent ids are simply missing). */
export async function indexRows(db: Db, type: string, ids: string[]): Promise<IndexRow[]> {
  if (ids.length === 0) return [];
  const res = await db.raw(`SELECT ${INDEX_COLUMNS} FROM entries e WHERE e.type = ? AND e.id = ANY(?::text[])`, [type, pgTextArray(ids)]);
  return res.rows as IndexRow[];
}

/**
 * A page of index rows of the given types in (type, id) order after `after`; with `since`, only
 * those updated since then (the catch-up passes of a reindex).
 */
export async function indexRowsPage(
  db: Db,
  o: { types: readonly string[]; since?: Date; after?: { type: string; id: string }; limit: number },
): Promise<IndexRow[]> {
  const where = ['e.type = ANY(?::text[])'];
  const binds: Knex.RawBinding[] = [pgTextArray([...o.types])];
  if (o.since) {
    where.push('e.updated >= ?');
    binds.push(o.since);
  }
  if (o.after) {
    where.push('(e.type, e.id) > (?, ?)');
    binds.push(o.after.type, o.after.id);
  }
  const res = await db.raw(`SELECT ${INDEX_COLUMNS} FROM entries e WHERE ${where.join(' AND ')} ORDER BY e.type, e.id LIMIT ?`, [
    ...binds,
    o.limit,
  ]);
  return res.rows as IndexRow[];
}

/** A deleted entry and the version of its delete. */
export interface Tombstone {
  type: string;
  id: string;
  index_version: string;
}

/** Tombstones of some ids of one type. */
export async function tombstonesOf(db: Db, type: string, ids: string[]): Promise<Tombstone[]> {
  if (ids.length === 0) return [];
  const res = await db.raw('SELECT type, id, index_version FROM deleted_entries WHERE type = ? AND id = ANY(?::text[])', [
    type,
    pgTextArray(ids),
  ]);
  return res.rows as Tombstone[];
}

/** Tombstones of the given types written since `since` (deletes that raced with a reindex). */
export async function tombstonesSince(db: Db, types: readonly string[], since: Date): Promise<Tombstone[]> {
  const res = await db.raw('SELECT type, id, index_version FROM deleted_entries WHERE type = ANY(?::text[]) AND deleted >= ?', [
    pgTextArray([...types]),
    since,
  ]);
  return res.rows as Tombstone[];
}
