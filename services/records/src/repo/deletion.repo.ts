/**
 * SQL of tombstones (table `tombstones`, migration 20261123000000). The record row's
 * `deletion_status` is written through `records.repo.ts` (`updateRecord`); this file only keeps
 * the tombstone shown by a deleted record's 410.
 */
import type { Knex } from '@rdm/platform';

type Db = Knex | Knex.Transaction;

/** A stored tombstone. */
export interface TombstoneRow {
  record_id: string;
  /** Null: deleted without a reason (migration 20261203000000 made the column nullable). */
  removal_reason: { id: string; title?: Record<string, string> } | null;
  note: string;
  citation_text: string;
  is_visible: boolean;
  removed_by: { user: string };
  removal_date: Date;
}

/** Insert or replace the tombstone of a record. */
export async function upsertTombstone(db: Db, row: TombstoneRow): Promise<void> {
  await db('tombstones')
    // Why not JSON.stringify(null): that stores the JSON value `null`, not SQL NULL.
    .insert({
      ...row,
      removal_reason: row.removal_reason ? JSON.stringify(row.removal_reason) : null,
      removed_by: JSON.stringify(row.removed_by),
    })
    .onConflict('record_id')
    .merge();
}

/** The tombstone of a record, if any. */
export async function getTombstone(db: Db, recordId: string): Promise<TombstoneRow | undefined> {
  return db<TombstoneRow>('tombstones').where({ record_id: recordId }).first();
}

/** Remove the tombstone of a restored record. */
export async function deleteTombstone(db: Db, recordId: string): Promise<void> {
  await db('tombstones').where({ record_id: recordId }).delete();
}
