/**
 * SQL of owners' record-deletion requests (table `deletion_requests`, migration
 * 20261204000000). No domain rules here.
 *
 * When to use: only from `deletion/deletion-request.service.ts` and its consumer.
 */
import type { Knex } from '@rdm/platform';

type Db = Knex | Knex.Transaction;

/** Records' bookkeeping of one record-deletion request. */
export interface DeletionRequestRow {
  id: string;
  request_id: string | null;
  record_id: string;
  parent_id: string;
  requester: string;
  is_open: boolean;
  immediate: boolean;
  outcome: 'deleted' | 'declined' | 'cancelled' | 'failed' | null;
  mailed_at: Date | null;
}

/** Claim the open slot of a record: inserts the row, or answers the open row holding it. */
export async function claimOpen(
  db: Db,
  row: Pick<DeletionRequestRow, 'id' | 'record_id' | 'parent_id' | 'requester' | 'immediate'>,
): Promise<{ claimed: true } | { claimed: false; existing: DeletionRequestRow | undefined }> {
  const r = await db.raw<{ rows: { id: string }[] }>(
    `INSERT INTO deletion_requests (id, record_id, parent_id, requester, immediate)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT (record_id) WHERE is_open DO NOTHING RETURNING id`,
    [row.id, row.record_id, row.parent_id, row.requester, row.immediate],
  );
  if (r.rows.length > 0) return { claimed: true };
  const existing = await db<DeletionRequestRow>('deletion_requests').where({ record_id: row.record_id, is_open: true }).first();
  return { claimed: false, existing };
}

/** Attach the requests service's id to a claimed row. */
export async function setRequestId(db: Db, id: string, requestId: string): Promise<void> {
  await db('deletion_requests').where({ id }).update({ request_id: requestId, updated: new Date() });
}

/** The row of a request (locked for the transaction with `forUpdate`). */
export async function byRequestId(db: Db, requestId: string, forUpdate = false): Promise<DeletionRequestRow | undefined> {
  const q = db<DeletionRequestRow>('deletion_requests').where({ request_id: requestId });
  return (forUpdate ? q.forUpdate() : q).first();
}

/** Close a request with its outcome (it no longer blocks a new one). */
export async function closeRequest(db: Db, requestId: string, outcome: NonNullable<DeletionRequestRow['outcome']>): Promise<void> {
  await db('deletion_requests').where({ request_id: requestId }).update({ is_open: false, outcome, updated: new Date() });
}

/** Mark the outcome e-mail sent. */
export async function markMailed(db: Db, requestId: string): Promise<void> {
  await db('deletion_requests').where({ request_id: requestId }).update({ mailed_at: new Date() });
}
