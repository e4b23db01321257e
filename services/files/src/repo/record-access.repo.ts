/**
 * SQL of `record_access`, the event-fed copy of published records' file access
 * (domain/record-access.ts). Every write is guarded by the RECORDS stream sequence: an event
 * older than the row's last one changes nothing, so redeliveries and the independent consumers'
 * interleaving cannot move a row backwards.
 */
import { prepared } from '@rdm/platform';
import type { Db } from './files.repo.js';

/** One record version's access as records last announced it. */
export interface RecordAccessRow {
  record_id: string;
  parent_id: string;
  bucket_id: string;
  /** `open`, `embargoed`, `restricted` or `metadata-only` (records' computed status). */
  access_status: string;
  deleted: boolean;
  seq: number;
}

/** Insert or replace the row of a published record version (unless a newer event was applied). */
export async function upsertPublished(
  db: Db,
  r: { record_id: string; parent_id: string; bucket_id: string; access_status: string; seq: number },
): Promise<void> {
  await prepared(
    db,
    `INSERT INTO record_access (record_id, parent_id, bucket_id, access_status, deleted, seq) VALUES (?, ?, ?, ?, false, ?)
     ON CONFLICT (record_id) DO UPDATE SET parent_id = excluded.parent_id, bucket_id = excluded.bucket_id,
       access_status = excluded.access_status, seq = excluded.seq, updated = now()
     WHERE record_access.seq < excluded.seq`,
    [r.record_id, r.parent_id, r.bucket_id, r.access_status, r.seq],
  );
}

/** Mark a record version deleted or restored (no row: nothing known, nothing to change). */
export async function setDeleted(db: Db, recordId: string, deleted: boolean, seq: number): Promise<void> {
  await prepared(db, 'UPDATE record_access SET deleted = ?, seq = ?, updated = now() WHERE record_id = ? AND seq < ?', [
    deleted,
    seq,
    recordId,
    seq,
  ]);
}

/** Set the access status after an embargo was lifted. */
export async function setAccessStatus(db: Db, recordId: string, accessStatus: string, seq: number): Promise<void> {
  await prepared(db, 'UPDATE record_access SET access_status = ?, seq = ?, updated = now() WHERE record_id = ? AND seq < ?', [
    accessStatus,
    seq,
    recordId,
    seq,
  ]);
}

/** The row of a record version, if any event about it was applied. */
export async function findRecordAccess(db: Db, recordId: string): Promise<RecordAccessRow | undefined> {
  const res = await prepared(
    db,
    'SELECT record_id, parent_id, bucket_id, access_status, deleted, seq FROM record_access WHERE record_id = ?',
    [recordId],
  );
  const r = res.rows[0] as Record<string, unknown> | undefined;
  if (!r) return undefined;
  return {
    record_id: String(r.record_id),
    parent_id: String(r.parent_id),
    bucket_id: String(r.bucket_id),
    access_status: String(r.access_status),
    deleted: r.deleted === true,
    seq: Number(r.seq),
  };
}
