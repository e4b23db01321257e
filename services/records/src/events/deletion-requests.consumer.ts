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
 * is redelivered with growing delays; `mailed_at` and the inbox rows send nothing twice.
 */
import { consumerWorker, type EventEnvelope, isAppError, type Knex, type Logger, type NatsHandle, writeOutbox } from '@rdm/platform';
import { deletionOutcomeMail, deletionRequestedMail } from '../deletion/deletion-request-mail.js';
import type { DeletionService } from '../deletion/deletion.service.js';
import type { UserEmailsPort } from '../domain/ports.js';
import type { MailSender } from '../mail/mailer.js';
import * as dr from '../repo/deletion-requests.repo.js';
import { getRecord } from '../repo/records.repo.js';
import type { RequestEventData } from './review-saga.js';

/** Durable consumer of the requests' events (the effect). */
export const DELETION_REQUESTS_DURABLE = 'records-deletion-requests';
/** Durable consumer mailing the administrators and declined owners. */
export const DELETION_REQUEST_MAILER_DURABLE = 'records-deletion-request-mailer';
/** Durable consumer mailing owners whose record was deleted. */
export const DELETION_MAILER_DURABLE = 'records-deletion-mailer';

const CLOSING: Record<string, 'declined' | 'cancelled'> = {
  'rdm.requests.request.declined': 'declined',
  'rdm.requests.request.cancelled': 'cancelled',
  'rdm.requests.request.expired': 'cancelled',
  'rdm.requests.request.deleted': 'cancelled',
};

/** What the workers need. */
export interface DeletionRequestWorkersOptions {
  db: Knex;
  nats: NatsHandle;
  deletion: Pick<DeletionService, 'deleteForRequest'>;
  users: UserEmailsPort;
  sender: MailSender;
  logger: Logger;
  from: string;
  /** The site's moderation address(es) (`ABUSE_EMAIL_TO`). */
  admins: string[];
  baseUrl: string;
  /** runConsumer tuning (tests). */
  maxDeliver?: number;
  backoffMs?: number[];
}

/** Apply one request event to records (inside the consumer's transaction). */
export async function onDeletionRequestEvent(
  trx: Knex.Transaction,
  e: EventEnvelope<RequestEventData>,
  deletion: Pick<DeletionService, 'deleteForRequest'>,
): Promise<void> {
  const r = e.data;
  if (r?.type !== 'record-deletion') return;
  const closing = CLOSING[e.type];
  if (closing) {
    await dr.closeRequest(trx, r.id, closing);
    return;
  }
  if (e.type !== 'rdm.requests.request.accepted') return;
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

const titleOf = async (db: Knex.Transaction, recordId: string) => String((await getRecord(db, recordId))?.metadata?.title ?? recordId);

/** The three background workers (for runService). */
export function deletionRequestWorkers(o: DeletionRequestWorkersOptions) {
  const common = { db: o.db, js: o.nats.js, jsm: o.nats.jsm, logger: o.logger, service: 'records' };
  const mailRetry = { maxDeliver: o.maxDeliver ?? 2000, backoffMs: o.backoffMs ?? [1000, 5000, 15000, 30000, 60000] };
  const owner = async (requester: string) => o.users.emails([requester]);
  return [
    consumerWorker({
      ...common,
      stream: 'REQUESTS',
      durable: DELETION_REQUESTS_DURABLE,
      filterSubject: 'rdm.requests.request.*',
      maxDeliver: o.maxDeliver,
      backoffMs: o.backoffMs,
      skip: (env) => (env.data as { type?: string } | undefined)?.type !== 'record-deletion',
      handler: (trx, e) => onDeletionRequestEvent(trx, e as EventEnvelope<RequestEventData>, o.deletion),
    }),
    consumerWorker({
      ...common,
      ...mailRetry,
      stream: 'REQUESTS',
      durable: DELETION_REQUEST_MAILER_DURABLE,
      filterSubject: 'rdm.requests.request.*',
      skip: (env) =>
        (env.data as { type?: string } | undefined)?.type !== 'record-deletion' ||
        !['rdm.requests.request.created', 'rdm.requests.request.declined'].includes(env.type),
      handler: async (trx, e) => {
        const r = e.data as unknown as RequestEventData;
        const slot = await dr.byRequestId(trx, r.id, true);
        // Why retry: the requests service publishes `created` from inside records' ask, before
        // records commits its row; a redelivery (back-off) finds it.
        if (!slot) throw new Error(`deletion request ${r.id} not recorded yet`);
        const title = await titleOf(trx, slot.record_id);
        const base = { from: o.from, baseUrl: o.baseUrl, requestId: r.id, recordId: slot.record_id, title };
        if (e.type === 'rdm.requests.request.created') {
          if (slot.immediate || o.admins.length === 0) return;
          const p = r.payload ?? {};
          await o.sender.send(
            deletionRequestedMail({
              ...base,
              to: o.admins,
              reason: String(p.reason ?? ''),
              comment: typeof p.comment === 'string' ? p.comment : '',
            }),
          );
          return;
        }
        if (slot.mailed_at) return;
        const to = await owner(slot.requester);
        if (to.length) await o.sender.send(deletionOutcomeMail({ ...base, to, outcome: 'declined' }));
        await dr.markMailed(trx, r.id);
      },
    }),
    consumerWorker({
      ...common,
      ...mailRetry,
      stream: 'RECORDS',
      durable: DELETION_MAILER_DURABLE,
      filterSubject: 'rdm.records.record.deleted',
      skip: (env) => typeof (env.data as { request_id?: unknown } | undefined)?.request_id !== 'string',
      handler: async (trx, e) => {
        const requestId = String(e.data.request_id);
        const slot = await dr.byRequestId(trx, requestId, true);
        if (!slot || slot.mailed_at) return;
        const to = await owner(slot.requester);
        const title = await titleOf(trx, slot.record_id);
        if (to.length)
          await o.sender.send(
            deletionOutcomeMail({ from: o.from, baseUrl: o.baseUrl, requestId, recordId: slot.record_id, title, to, outcome: 'deleted' }),
          );
        await dr.markMailed(trx, requestId);
      },
    }),
  ];
}
