/**
 * SQL of the review snapshot on parents and the `review_effects` ledger of the saga (one row per
 * accepted request). No domain rules here.
 */
import { type Knex, prepared } from '@rdm/platform';
import type { ParentRow } from '../model/rows.js';
import { getParent } from './records.repo.js';

type Db = Knex | Knex.Transaction;

/** The parent whose review snapshot is request `requestId` (optionally locked FOR UPDATE). */
export async function parentByReview(db: Db, requestId: string, forUpdate = false): Promise<ParentRow | undefined> {
  const r = await prepared(db, "SELECT id FROM parents WHERE review->>'id' = ? AND review IS NOT NULL", [requestId]);
  const id = (r.rows[0] as { id: string } | undefined)?.id;
  return id ? getParent(db, id, forUpdate) : undefined;
}

/** Outcomes of an accepted request's effect. */
export type EffectOutcome = 'pending' | 'published' | 'included' | 'failed';

/** A row of `review_effects`. */
export interface EffectRow {
  request_id: string;
  outcome: EffectOutcome;
  event_id: string | null;
}

/**
 * Claim the effect of request `requestId` for this transaction: insert its row if absent, then
 * lock it. A concurrent transaction handling the same request waits here until this one ends,
 * then sees its outcome — so the effect happens at most once whatever is delivered concurrently.
 */
export async function claimEffect(
  trx: Knex.Transaction,
  e: { request_id: string; request_type: string; record_id: string; community_id: string },
): Promise<EffectRow> {
  await prepared(
    trx,
    `INSERT INTO review_effects (request_id, request_type, record_id, community_id, outcome) VALUES (?, ?, ?, ?, 'pending')
     ON CONFLICT (request_id) DO NOTHING`,
    [e.request_id, e.request_type, e.record_id, e.community_id],
  );
  const r = await prepared(trx, 'SELECT request_id, outcome, event_id FROM review_effects WHERE request_id = ? FOR UPDATE', [e.request_id]);
  return r.rows[0] as EffectRow;
}

/** Record the outcome of a claimed effect. */
export async function settleEffect(
  trx: Knex.Transaction,
  requestId: string,
  outcome: Exclude<EffectOutcome, 'pending'>,
  o: { eventId?: string; message?: string } = {},
): Promise<void> {
  await prepared(trx, 'UPDATE review_effects SET outcome = ?, event_id = ?, message = ?, updated = now() WHERE request_id = ?', [
    outcome,
    o.eventId ?? null,
    o.message ?? null,
    requestId,
  ]);
}
