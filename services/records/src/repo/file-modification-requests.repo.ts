/**
 * SQL of owners' file-modification requests (table `file_modification_requests`, migration
 * 20261205000000). No domain rules here.
 *
 * When to use: only from `file-modification/`, its consumer and the files component.
 */
import type { Knex } from '@rdm/platform';

type Db = Knex | Knex.Transaction;

/** State of one request on records' side. */
export type FileModificationState = 'open' | 'unlocked' | 'consumed' | 'declined' | 'cancelled' | 'failed';

/** Records' bookkeeping of one file-modification request. */
export interface FileModificationRow {
  id: string;
  request_id: string | null;
  record_id: string;
  parent_id: string;
  requester: string;
  state: FileModificationState;
  immediate: boolean;
  mailed_at: Date | null;
}

/** Claim the active slot of a record: inserts the row, or answers the active row holding it. */
export async function claimActive(
  db: Db,
  row: Pick<FileModificationRow, 'id' | 'record_id' | 'parent_id' | 'requester' | 'immediate'>,
): Promise<{ claimed: true } | { claimed: false; existing: FileModificationRow | undefined }> {
  const r = await db.raw<{ rows: { id: string }[] }>(
    `INSERT INTO file_modification_requests (id, record_id, parent_id, requester, immediate)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT (record_id) WHERE state IN ('open', 'unlocked') DO NOTHING RETURNING id`,
    [row.id, row.record_id, row.parent_id, row.requester, row.immediate],
  );
  if (r.rows.length > 0) return { claimed: true };
  return { claimed: false, existing: await active(db, row.record_id) };
}

/** The active (open or unlocked) request of a record, if any. */
export async function active(db: Db, recordId: string): Promise<FileModificationRow | undefined> {
  return db<FileModificationRow>('file_modification_requests')
    .where({ record_id: recordId })
    .whereIn('state', ['open', 'unlocked'])
    .first();
}

/** The unlocked request of a record (locked for the transaction with `forUpdate`), if any. */
export async function unlocked(db: Db, recordId: string, forUpdate = false): Promise<FileModificationRow | undefined> {
  const q = db<FileModificationRow>('file_modification_requests').where({ record_id: recordId, state: 'unlocked' });
  return (forUpdate ? q.forUpdate() : q).first();
}

/** Attach the requests service's id to a claimed row. */
export async function setRequestId(db: Db, id: string, requestId: string): Promise<void> {
  await db('file_modification_requests').where({ id }).update({ request_id: requestId, updated: new Date() });
}

/** The row of a request (locked for the transaction with `forUpdate`). */
export async function byRequestId(db: Db, requestId: string, forUpdate = false): Promise<FileModificationRow | undefined> {
  const q = db<FileModificationRow>('file_modification_requests').where({ request_id: requestId });
  return (forUpdate ? q.forUpdate() : q).first();
}

/** Move a request to `state` (from one of `from`); true when it moved. */
export async function setState(db: Db, requestId: string, state: FileModificationState, from: FileModificationState[]): Promise<boolean> {
  const n = await db('file_modification_requests')
    .where({ request_id: requestId })
    .whereIn('state', from)
    .update({ state, updated: new Date() });
  return n > 0;
}

/** Mark the outcome e-mail sent. */
export async function markMailed(db: Db, requestId: string): Promise<void> {
  await db('file_modification_requests').where({ request_id: requestId }).update({ mailed_at: new Date() });
}
