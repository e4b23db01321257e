/**
 * SQL of owners' record-deletion requests (table `deletion_requests`, migration
 * 20261204000000). No domain rules here.
 *
 * When to use: only from `deletion/deletion-request.service.ts` and its consumer.
 */
import type { Knex } from '@rdm/platform';
import { type RequestSlotRow, slotTable } from './request-slots.repo.js';

type Db = Knex | Knex.Transaction;

/** Records' bookkeeping of one record-deletion request. */
export interface DeletionRequestRow extends RequestSlotRow {
  is_open: boolean;
  outcome: 'deleted' | 'declined' | 'cancelled' | 'failed' | null;
}

const slots = slotTable<DeletionRequestRow>('deletion_requests');
/** Attach the requests service's id to a claimed row. */
export const setRequestId = slots.setRequestId;
/** The row of a request (locked for the transaction with `forUpdate`). */
export const byRequestId = slots.byRequestId;
/** Mark the outcome e-mail sent. */
export const markMailed = slots.markMailed;

/** Claim the open slot of a record: inserts the row, or answers the open row holding it. */
export async function claimOpen(
  db: Db,
  row: Pick<DeletionRequestRow, 'id' | 'record_id' | 'parent_id' | 'requester' | 'immediate'>,
): Promise<{ claimed: true } | { claimed: false; existing: DeletionRequestRow | undefined }> {
  if (await slots.insertClaim(db, row, 'is_open')) return { claimed: true };
  const existing = await db<DeletionRequestRow>('deletion_requests').where({ record_id: row.record_id, is_open: true }).first();
  return { claimed: false, existing };
}

/** Close a request with its outcome (it no longer blocks a new one). */
export async function closeRequest(db: Db, requestId: string, outcome: NonNullable<DeletionRequestRow['outcome']>): Promise<void> {
  await db('deletion_requests').where({ request_id: requestId }).update({ is_open: false, outcome, updated: new Date() });
}
