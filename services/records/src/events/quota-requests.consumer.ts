/**
 * Mailers of owners' `quota-increase` requests, durable `runConsumer`s with the inbox (the quota
 * itself is the files service's effect):
 *
 * - `records-quota-request-mailer` (stream REQUESTS, `rdm.requests.request.{created,declined}` of
 *   `quota-increase`): e-mails the site's moderation address (`ABUSE_EMAIL_TO`) of a new request,
 *   and its creator when it was declined.
 * - `records-quota-mailer` (stream FILES, `rdm.files.bucket.quota-changed` with a `request_id`):
 *   e-mails the owner of the draft whose bucket it is the quota now in force.
 * Delivery as the other mailers: an SMTP failure rolls the transaction back and the message is
 * redelivered with growing delays; the inbox rows send nothing twice.
 */
import { consumerWorker, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
import type { UserEmailsPort } from '../domain/ports.js';
import type { MailSender } from '../mail/mailer.js';
import { quotaOutcomeMail, quotaRequestedMail } from '../quota/quota-request-mail.js';
import * as qr from '../repo/quota-requests.repo.js';
import { draftByBucketWithRecordFlag, getDraftWithParent } from '../repo/records.repo.js';
import type { RequestEventData } from './review-saga.js';

/** Durable consumer closing records' slot of a quota-increase request once it is no longer open. */
export const QUOTA_REQUEST_SLOTS_DURABLE = 'records-quota-request-slots';
/** Events after which a quota-increase request is no longer open. */
const CLOSING = [
  'rdm.requests.request.accepted',
  'rdm.requests.request.declined',
  'rdm.requests.request.cancelled',
  'rdm.requests.request.expired',
  'rdm.requests.request.deleted',
];

/** Durable consumer mailing administrators (new) and owners (declined). */
export const QUOTA_REQUEST_MAILER_DURABLE = 'records-quota-request-mailer';
/** Durable consumer mailing owners whose quota was raised. */
export const QUOTA_MAILER_DURABLE = 'records-quota-mailer';

/** What the workers need. */
export interface QuotaRequestWorkersOptions {
  db: Knex;
  nats: NatsHandle;
  users: UserEmailsPort;
  sender: MailSender;
  logger: Logger;
  from: string;
  /** The site's moderation address(es) (`ABUSE_EMAIL_TO`). */
  admins: string[];
  baseUrl: string;
  maxDeliver?: number;
  backoffMs?: number[];
}

/** The slot closer and the two mailers (for runService). */
export function quotaRequestWorkers(o: QuotaRequestWorkersOptions) {
  const common = { db: o.db, js: o.nats.js, jsm: o.nats.jsm, logger: o.logger, service: 'records' };
  const retry = { maxDeliver: o.maxDeliver ?? 2000, backoffMs: o.backoffMs ?? [1000, 5000, 15000, 30000, 60000] };
  const titleOf = (d: { id: string; metadata?: Record<string, unknown> } | undefined, fallback: string) =>
    String(d?.metadata?.title || d?.id || fallback);
  return [
    consumerWorker({
      ...common,
      stream: 'REQUESTS',
      durable: QUOTA_REQUEST_SLOTS_DURABLE,
      filterSubject: 'rdm.requests.request.*',
      maxDeliver: o.maxDeliver,
      backoffMs: o.backoffMs,
      skip: (env) => (env.data as { type?: string } | undefined)?.type !== 'quota-increase' || !CLOSING.includes(env.type),
      handler: (trx: Knex.Transaction, e) => qr.closeRequest(trx, String((e.data as unknown as RequestEventData).id)),
    }),
    consumerWorker({
      ...common,
      ...retry,
      stream: 'REQUESTS',
      durable: QUOTA_REQUEST_MAILER_DURABLE,
      filterSubject: 'rdm.requests.request.*',
      skip: (env) =>
        (env.data as { type?: string } | undefined)?.type !== 'quota-increase' ||
        !['rdm.requests.request.created', 'rdm.requests.request.declined'].includes(env.type),
      handler: async (trx: Knex.Transaction, e) => {
        const r = e.data as unknown as RequestEventData;
        const draftId = r.topic?.record ?? '';
        const p = r.payload ?? {};
        const found = draftId ? await getDraftWithParent(trx, draftId) : undefined;
        const base = { from: o.from, baseUrl: o.baseUrl, requestId: r.id, draftId, title: titleOf(found?.draft, draftId) };
        if (e.type === 'rdm.requests.request.created') {
          if (o.admins.length === 0) return;
          const quotaSize = typeof p.quota_size === 'number' ? p.quota_size : 0;
          await o.sender.send(quotaRequestedMail({ ...base, to: o.admins, quotaSize, reason: String(p.reason ?? '') }));
          return;
        }
        const requester = r.created_by?.user;
        const to = requester ? await o.users.emails([requester]) : [];
        if (to.length) await o.sender.send(quotaOutcomeMail({ ...base, to, outcome: 'declined' }));
      },
    }),
    consumerWorker({
      ...common,
      ...retry,
      stream: 'FILES',
      durable: QUOTA_MAILER_DURABLE,
      filterSubject: 'rdm.files.bucket.quota-changed',
      skip: (env) => typeof (env.data as { request_id?: unknown } | undefined)?.request_id !== 'string',
      handler: async (trx: Knex.Transaction, e) => {
        const { bucket_id, quota_bytes, request_id } = e.data;
        const byBucket = await draftByBucketWithRecordFlag(trx, bucket_id);
        const found = byBucket ? await getDraftWithParent(trx, byBucket.draft.id) : undefined;
        const owner = found?.parent?.owner_id;
        if (!found || !owner) {
          o.logger.info({ bucket: bucket_id, request: request_id }, 'quota raised for a bucket without a draft; nobody mailed');
          return;
        }
        const to = await o.users.emails([String(owner)]);
        if (to.length)
          await o.sender.send(
            quotaOutcomeMail({
              from: o.from,
              baseUrl: o.baseUrl,
              requestId: request_id,
              draftId: found.draft.id,
              title: titleOf(found.draft, found.draft.id),
              to,
              outcome: 'granted',
              quotaBytes: quota_bytes,
            }),
          );
      },
    }),
  ];
}
