/**
 * Consumers of owners' `file-modification` requests, each a durable `runConsumer` with the inbox:
 *
 * - `records-file-modification-requests` (stream REQUESTS, `rdm.requests.request.*`): an accepted
 *   request unlocks its record's files (records' slot `open` → `unlocked`,
 *   `rdm.records.record.files-unlocked` with `request_id`, which confirms the requests saga); a
 *   record that cannot be unlocked (unknown, deleted, not the request's) yields
 *   `rdm.records.record.files-unlock-failed` (the request goes back to `submitted`). Declined,
 *   cancelled, expired and deleted requests close records' slot, so the owner may ask again.
 * - `records-file-modification-mailer` (stream REQUESTS and RECORDS): e-mails the site's
 *   moderation address (`ABUSE_EMAIL_TO`) of a request that waits for an administrator
 *   (`created`, not immediate), the owner of a declined one, and the owner once the files were
 *   unlocked (`files-unlocked`). `created` is published while records' ask has not committed its
 *   row yet: an event whose row is missing is retried with back-off.
 * Mail delivery as the other mailers: an SMTP failure rolls the transaction back and the message
 * is redelivered with growing delays; `mailed_at` and the inbox rows send nothing twice.
 *
 * When to use: records' workers (bootstrap.ts).
 */
import { consumerWorker, type EventEnvelope, type Knex, type Logger, type NatsHandle, writeOutbox } from '@rdm/platform';
import type { UserEmailsPort } from '../domain/ports.js';
import { fileModificationOutcomeMail, fileModificationRequestedMail } from '../file-modification/file-modification-mail.js';
import type { MailSender } from '../mail/mailer.js';
import * as fm from '../repo/file-modification-requests.repo.js';
import { getRecord } from '../repo/records.repo.js';
import type { RequestEventData } from './review-saga.js';

/** Durable consumer of the requests' events (the effect). */
export const FILE_MODIFICATION_REQUESTS_DURABLE = 'records-file-modification-requests';
/** Durable consumer mailing the administrators and declined owners. */
export const FILE_MODIFICATION_REQUEST_MAILER_DURABLE = 'records-file-modification-request-mailer';
/** Durable consumer mailing owners whose files were unlocked. */
export const FILE_MODIFICATION_MAILER_DURABLE = 'records-file-modification-mailer';

const CLOSING: Record<string, 'declined' | 'cancelled'> = {
  'rdm.requests.request.declined': 'declined',
  'rdm.requests.request.cancelled': 'cancelled',
  'rdm.requests.request.expired': 'cancelled',
  'rdm.requests.request.deleted': 'cancelled',
};

const TYPE = 'file-modification';

/** What the workers need. */
export interface FileModificationWorkersOptions {
  db: Knex;
  nats: NatsHandle;
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
export async function onFileModificationRequestEvent(trx: Knex.Transaction, e: EventEnvelope<RequestEventData>): Promise<void> {
  const r = e.data;
  if (r?.type !== TYPE) return;
  const closing = CLOSING[e.type];
  if (closing) {
    await fm.setState(trx, r.id, closing, ['open']);
    return;
  }
  if (e.type !== 'rdm.requests.request.accepted') return;
  const recordId = r.topic?.record;
  const slot = await fm.byRequestId(trx, r.id, true);
  const record = recordId ? await getRecord(trx, recordId, true) : undefined;
  const fail = async (message: string) => {
    if (slot?.state === 'open') await fm.setState(trx, r.id, 'failed', ['open']);
    await writeOutbox(trx, {
      subject: 'rdm.records.record.files-unlock-failed',
      aggregate: { type: 'record', id: recordId ?? r.id, revision: record?.revision_id ?? 0 },
      data: { request_id: r.id, record_id: recordId ?? 'unknown', message },
    });
  };
  if (!recordId || !slot || slot.record_id !== recordId || !record) {
    await fail('This file modification request is not one records can apply.');
    return;
  }
  if (record.deletion_status !== 'P') {
    await fail('The record has been deleted.');
    return;
  }
  // A redelivered accept (already unlocked, or consumed since) confirms again, changing nothing.
  if (slot.state === 'open') await fm.setState(trx, r.id, 'unlocked', ['open']);
  else if (slot.state !== 'unlocked' && slot.state !== 'consumed') {
    await fail(`The request is ${slot.state} on the record's side.`);
    return;
  }
  await writeOutbox(trx, {
    subject: 'rdm.records.record.files-unlocked',
    aggregate: { type: 'record', id: recordId, revision: record.revision_id },
    data: { request_id: r.id, record_id: recordId, parent_id: record.parent_id },
  });
}

const titleOf = async (db: Knex.Transaction, recordId: string) => String((await getRecord(db, recordId))?.metadata?.title ?? recordId);

/** The three background workers (for runService). */
export function fileModificationWorkers(o: FileModificationWorkersOptions) {
  const common = { db: o.db, js: o.nats.js, jsm: o.nats.jsm, logger: o.logger, service: 'records' };
  const mailRetry = { maxDeliver: o.maxDeliver ?? 2000, backoffMs: o.backoffMs ?? [1000, 5000, 15000, 30000, 60000] };
  const owner = async (requester: string) => o.users.emails([requester]);
  return [
    consumerWorker({
      ...common,
      stream: 'REQUESTS',
      durable: FILE_MODIFICATION_REQUESTS_DURABLE,
      filterSubject: 'rdm.requests.request.*',
      maxDeliver: o.maxDeliver,
      backoffMs: o.backoffMs,
      skip: (env) => (env.data as { type?: string } | undefined)?.type !== TYPE,
      handler: (trx, e) => onFileModificationRequestEvent(trx, e as EventEnvelope<RequestEventData>),
    }),
    consumerWorker({
      ...common,
      ...mailRetry,
      stream: 'REQUESTS',
      durable: FILE_MODIFICATION_REQUEST_MAILER_DURABLE,
      filterSubject: 'rdm.requests.request.*',
      skip: (env) =>
        (env.data as { type?: string } | undefined)?.type !== TYPE ||
        !['rdm.requests.request.created', 'rdm.requests.request.declined'].includes(env.type),
      handler: async (trx, e) => {
        const r = e.data as unknown as RequestEventData;
        const slot = await fm.byRequestId(trx, r.id, true);
        // Why retry: the requests service publishes `created` from inside records' ask, before
        // records commits its row; a redelivery (back-off) finds it.
        if (!slot) throw new Error(`file modification request ${r.id} not recorded yet`);
        const title = await titleOf(trx, slot.record_id);
        const base = { from: o.from, baseUrl: o.baseUrl, requestId: r.id, recordId: slot.record_id, title };
        if (e.type === 'rdm.requests.request.created') {
          if (slot.immediate || o.admins.length === 0) return;
          const p = r.payload ?? {};
          await o.sender.send(
            fileModificationRequestedMail({ ...base, to: o.admins, comment: typeof p.comment === 'string' ? p.comment : '' }),
          );
          return;
        }
        if (slot.mailed_at) return;
        const to = await owner(slot.requester);
        if (to.length) await o.sender.send(fileModificationOutcomeMail({ ...base, to, outcome: 'declined' }));
        await fm.markMailed(trx, r.id);
      },
    }),
    consumerWorker({
      ...common,
      ...mailRetry,
      stream: 'RECORDS',
      durable: FILE_MODIFICATION_MAILER_DURABLE,
      filterSubject: 'rdm.records.record.files-unlocked',
      handler: async (trx, e) => {
        const requestId = String(e.data.request_id);
        const slot = await fm.byRequestId(trx, requestId, true);
        if (!slot || slot.mailed_at) return;
        const to = await owner(slot.requester);
        const title = await titleOf(trx, slot.record_id);
        if (to.length)
          await o.sender.send(
            fileModificationOutcomeMail({
              from: o.from,
              baseUrl: o.baseUrl,
              requestId,
              recordId: slot.record_id,
              title,
              to,
              outcome: 'unlocked',
            }),
          );
        await fm.markMailed(trx, requestId);
      },
    }),
  ];
}
