/**
 * The domain events of requests: `rdm.requests.request.<verb>` written through the outbox in the
 * transaction of the change (proto/events/requests). `data` stays thin: ids, refs, the actor.
 */
import type { EventData } from '@rdm/contracts';
import { type Knex, writeOutbox } from '@rdm/platform';
import { encodeNumber } from './number.js';
import { type Ref, type RequestRow, refJson } from './model.js';

/** Verbs of request events. */
export type RequestVerb = 'created' | 'submitted' | 'accepted' | 'declined' | 'cancelled' | 'expired' | 'deleted' | 'updated';

/** What an `updated` event says changed (a PUT's fields, the lock, comment activity, a saga accept's outcome). */
export type RequestChangeKind = 'title' | 'description' | 'payload' | 'receiver' | 'topic' | 'locked' | 'activity' | 'status';

/**
 * Write `rdm.requests.request.<verb>` for `row` (its state after the change) into the outbox of `trx`.
 * `updated` (with `changes`) covers every change that is no state transition, so the search indexer,
 * a consumer of these events, sees every change of what it indexes.
 */
export async function writeRequestEvent(
  trx: Knex.Transaction,
  verb: RequestVerb,
  row: RequestRow,
  actor: Ref,
  changes?: RequestChangeKind[],
): Promise<void> {
  // Every verb's data is the created one; `updated` adds `changes` (proto/events/requests).
  const data: EventData['rdm.requests.request.created'] & { changes?: RequestChangeKind[] } = {
    id: row.id,
    number: encodeNumber(row.number),
    type: row.type,
    created_by: refJson(row.created_by),
    receiver: refJson(row.receiver),
    topic: row.topic ? refJson(row.topic) : null,
    actor: refJson(actor),
  };
  if (row.payload) data.payload = row.payload;
  if (verb === 'updated') data.changes = changes ?? [];
  await writeOutbox(trx, {
    subject: `rdm.requests.request.${verb}`,
    aggregate: { type: 'request', id: row.id, revision: row.revision_id },
    data,
  });
}
