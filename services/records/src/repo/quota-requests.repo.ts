/**
 * SQL of owners' quota-increase requests (table `quota_requests`, migration 20261205000100). No
 * domain rules here.
 *
 * When to use: only from `quota/quota-request.service.ts` and its consumer.
 */
import type { Knex } from '@rdm/platform';
import { slotTable } from './request-slots.repo.js';

type Db = Knex | Knex.Transaction;

/** Claim the open slot of a draft: true when inserted, false when an open request holds it. */
export async function claimOpen(db: Db, id: string, draftId: string): Promise<boolean> {
  const r = await db.raw<{ rows: { id: string }[] }>(
    'INSERT INTO quota_requests (id, draft_id) VALUES (?, ?) ON CONFLICT (draft_id) WHERE is_open DO NOTHING RETURNING id',
    [id, draftId],
  );
  return r.rows.length > 0;
}

/** Attach the requests service's id to a claimed row. */
export const setRequestId = slotTable('quota_requests').setRequestId;

/** Close a request (it no longer blocks a new one). */
export async function closeRequest(db: Db, requestId: string): Promise<void> {
  await db('quota_requests').where({ request_id: requestId, is_open: true }).update({ is_open: false, updated: new Date() });
}
