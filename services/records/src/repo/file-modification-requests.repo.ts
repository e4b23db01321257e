/**
 * SQL of owners' file-modification requests (table `file_modification_requests`, migration
 * 20261205000000). No domain rules here.
 *
 * When to use: only from `file-modification/`, its consumer and the files component.
 */
import type { Knex } from '@rdm/platform';
import { type RequestSlotRow, slotTable } from './request-slots.repo.js';

type Db = Knex | Knex.Transaction;

/** State of one request on records' side. */
export type FileModificationState = 'open' | 'unlocked' | 'consumed' | 'declined' | 'cancelled' | 'failed';

/** Records' bookkeeping of one file-modification request. */
export interface FileModificationRow extends RequestSlotRow {
  state: FileModificationState;
}

const slots = slotTable<FileModificationRow>('file_modification_requests');
/** Attach the requests service's id to a claimed row. */
export const setRequestId = slots.setRequestId;
/** The row of a request (locked for the transaction with `forUpdate`). */
export const byRequestId = slots.byRequestId;
/** Mark the outcome e-mail sent. */
export const markMailed = slots.markMailed;

/** Claim the active slot of a record: inserts the row, or answers the active row holding it. */
export async function claimActive(
  db: Db,
  row: Pick<FileModificationRow, 'id' | 'record_id' | 'parent_id' | 'requester' | 'immediate'>,
): Promise<{ claimed: true } | { claimed: false; existing: FileModificationRow | undefined }> {
  if (await slots.insertClaim(db, row, "state IN ('open', 'unlocked')")) return { claimed: true };
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

/** Move a request to `state` (from one of `from`); true when it moved. */
export async function setState(db: Db, requestId: string, state: FileModificationState, from: FileModificationState[]): Promise<boolean> {
  const n = await db('file_modification_requests')
    .where({ request_id: requestId })
    .whereIn('state', from)
    .update({ state, updated: new Date() });
  return n > 0;
}
