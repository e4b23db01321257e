/**
 * Consumers of owners' `record-deletion` requests, each a durable `runConsumer` with the inbox:
 *
 * - `records-deletion-requests` (stream REQUESTS, `rdm.requests.request.*`): an accepted request
 *   deletes its record exactly as an administrator's deletion (`DeletionService.deleteForRequest`:
 *   tombstone, `rdm.records.record.deleted` with `request_id`, which confirms the requests saga);
 *   a record that cannot be deleted (unknown, already deleted, a reason no longer in the
 *   vocabulary) yields `rdm.records.record.deletion-failed` (the request goes back to
 *   `submitted`). Declined, cancelled, expired and deleted requests close records' slot, so the
 *   owner may ask again.
 * - `records-deletion-request-mailer` (stream REQUESTS): e-mails the site's moderation address
 *   (`ABUSE_EMAIL_TO`) of a request that waits for an administrator (`created`, not immediate),
 *   and the owner of a declined one. `created` is published while records' ask has not committed
 *   its `deletion_requests` row yet: an event whose row is missing is retried with back-off.
 * - `records-deletion-mailer` (stream RECORDS, `rdm.records.record.deleted` with a `request_id`):
 *   e-mails the owner that the record was deleted.
 * Mail delivery as the other mailers: an SMTP failure rolls the transaction back and the message
 * is redelivered with growing delays; `mailed_at` and the inbox rows send nothing twice. The
 * workers are the shared ones of `record-requests/record-request-workers.ts`; this file is the
 * type's definition (its effect, its slot table, its mails).
 *
 * When to use: records' workers (bootstrap.ts).
 */
import { type EventEnvelope, isAppError, type Knex, writeOutbox } from '@rdm/platform';
import { deletionOutcomeMail, deletionRequestedMail } from '../deletion/deletion-request-mail.js';
import type { DeletionService } from '../deletion/deletion.service.js';
import * as rr from '../record-requests/record-request-workers.js';
import * as dr from '../repo/deletion-requests.repo.js';
import type { RequestEventData } from './review-saga.js';

/** What the workers need. */
export interface DeletionRequestWorkersOptions extends rr.RecordRequestWorkersOptions {
  deletion: Pick<DeletionService, 'deleteForRequest'>;
}

/** Delete the record of an accepted request (or yield `deletion-failed`). */
async function acceptDeletion(
  trx: Knex.Transaction,
  e: EventEnvelope<RequestEventData>,
  deletion: Pick<DeletionService, 'deleteForRequest'>,
): Promise<void> {
  const r = e.data;
  const recordId = r.topic?.record;
  const slot = await dr.byRequestId(trx, r.id, true);
  const fail = (message: string) =>
    writeOutbox(trx, {
      subject: 'rdm.records.record.deletion-failed',
      aggregate: { type: 'record', id: recordId ?? r.id, revision: 0 },
      data: { request_id: r.id, record_id: recordId ?? 'unknown', message },
    });
  if (!recordId || !slot || slot.record_id !== recordId || !slot.is_open) {
    await fail('This deletion request is not one records can apply.');
    return;
  }
  const payload = r.payload ?? {};
  try {
    await trx.raw('SAVEPOINT deletion_request');
    await deletion.deleteForRequest(trx, {
      requestId: r.id,
      recordId,
      requester: slot.requester,
      ...(typeof payload.reason === 'string' ? { reasonId: payload.reason } : {}),
      note: typeof payload.comment === 'string' ? payload.comment : '',
    });
    await trx.raw('RELEASE SAVEPOINT deletion_request');
  } catch (err) {
    if (!isAppError(err) || err.status >= 500) throw err;
    await trx.raw('ROLLBACK TO SAVEPOINT deletion_request');
    await fail(err.message);
    return;
  }
  await dr.closeRequest(trx, r.id, 'deleted');
}

/** The record-deletion type's workers (for `rr.recordRequestWorkers`). */
function deletionDef(o: DeletionRequestWorkersOptions): rr.RecordRequestWorkersDef {
  return {
    type: 'record-deletion',
    durables: rr.recordRequestDurables('deletion'),
    close: dr.closeRequest,
    accept: (trx, e) => acceptDeletion(trx, e, o.deletion),
    facts: rr.slotFacts(dr.byRequestId, 'deletion request'),
    requestedMail: (base, p) =>
      deletionRequestedMail({ ...base, reason: String(p.reason ?? ''), comment: typeof p.comment === 'string' ? p.comment : '' }),
    declinedMail: (base) => deletionOutcomeMail({ ...base, outcome: 'declined' }),
    markMailed: dr.markMailed,
    outcome: {
      stream: 'RECORDS',
      filterSubject: 'rdm.records.record.deleted',
      skip: (env) => typeof (env.data as { request_id?: unknown } | undefined)?.request_id !== 'string',
      handler: rr.slotOutcomeHandler(o, dr, (base) => deletionOutcomeMail({ ...base, outcome: 'deleted' })),
    },
  };
}

/** Apply one request event to records (inside the consumer's transaction). */
export function onDeletionRequestEvent(
  trx: Knex.Transaction,
  e: EventEnvelope<RequestEventData>,
  deletion: Pick<DeletionService, 'deleteForRequest'>,
): Promise<void> {
  return rr.onRecordRequestEvent(trx, e, {
    type: 'record-deletion',
    close: dr.closeRequest,
    accept: (t, ev) => acceptDeletion(t, ev, deletion),
  });
}

/** The three background workers (for runService). */
export function deletionRequestWorkers(o: DeletionRequestWorkersOptions) {
  return rr.recordRequestWorkers(o, deletionDef(o));
}
