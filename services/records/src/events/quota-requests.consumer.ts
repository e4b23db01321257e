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
 * redelivered with growing delays; the inbox rows send nothing twice. The workers are the shared
 * ones of `record-requests/record-request-workers.ts` (the effect worker only closes records'
 * slot); this file is the type's definition.
 *
 * When to use: records' workers (bootstrap.ts).
 */
import type { Knex } from '@rdm/platform';
import { quotaOutcomeMail, quotaRequestedMail } from '../quota/quota-request-mail.js';
import { type RecordRequestWorkersOptions, recordRequestWorkers } from '../record-requests/record-request-workers.js';
import * as qr from '../repo/quota-requests.repo.js';
import { draftByBucketWithRecordFlag, getDraftWithParent } from '../repo/records.repo.js';

/** Durable consumer closing records' slot of a quota-increase request once it is no longer open. */
export const QUOTA_REQUEST_SLOTS_DURABLE = 'records-quota-request-slots';
/** Durable consumer mailing administrators (new) and owners (declined). */
export const QUOTA_REQUEST_MAILER_DURABLE = 'records-quota-request-mailer';
/** Durable consumer mailing owners whose quota was raised. */
export const QUOTA_MAILER_DURABLE = 'records-quota-mailer';

/** What the workers need. */
export type QuotaRequestWorkersOptions = RecordRequestWorkersOptions;

const titleOf = (d: { id: string; metadata?: Record<string, unknown> } | undefined, fallback: string) =>
  String(d?.metadata?.title || d?.id || fallback);
const closeSlot = (trx: Knex.Transaction, requestId: string) => qr.closeRequest(trx, requestId);

/** The slot closer and the two mailers (for runService). */
export function quotaRequestWorkers(o: QuotaRequestWorkersOptions) {
  return recordRequestWorkers(o, {
    type: 'quota-increase',
    durables: { effect: QUOTA_REQUEST_SLOTS_DURABLE, requestMailer: QUOTA_REQUEST_MAILER_DURABLE, outcomeMailer: QUOTA_MAILER_DURABLE },
    close: closeSlot,
    // The quota itself is the files service's effect: accepted only closes records' slot.
    accept: (trx, e) => closeSlot(trx, e.data.id),
    facts: async (trx, r) => {
      const draftId = r.topic?.record ?? '';
      const found = draftId ? await getDraftWithParent(trx, draftId) : undefined;
      return { topicId: draftId, title: titleOf(found?.draft, draftId), ...(r.created_by?.user ? { requester: r.created_by.user } : {}) };
    },
    requestedMail: (base, p) =>
      quotaRequestedMail({ ...base, quotaSize: typeof p.quota_size === 'number' ? p.quota_size : 0, reason: String(p.reason ?? '') }),
    declinedMail: (base) => quotaOutcomeMail({ ...base, outcome: 'declined' }),
    outcome: {
      stream: 'FILES',
      filterSubject: 'rdm.files.bucket.quota-changed',
      skip: (env) => typeof (env.data as { request_id?: unknown } | undefined)?.request_id !== 'string',
      handler: async (trx, e) => {
        const { bucket_id, quota_bytes, request_id } = e.data as { bucket_id: string; quota_bytes: number; request_id: string };
        const byBucket = await draftByBucketWithRecordFlag(trx, bucket_id);
        const found = byBucket ? await getDraftWithParent(trx, byBucket.draft.id) : undefined;
        const owner = found?.parent?.owner_id;
        if (!found || !owner) {
          o.logger.info({ bucket: bucket_id, request: request_id }, 'quota raised for a bucket without a draft; nobody mailed');
          return;
        }
        const to = await o.users.emails([String(owner)]);
        const base = { from: o.from, baseUrl: o.baseUrl, requestId: request_id, topicId: found.draft.id, to };
        if (to.length)
          await o.sender.send(
            quotaOutcomeMail({ ...base, title: titleOf(found.draft, found.draft.id), outcome: 'granted', quotaBytes: quota_bytes }),
          );
      },
    },
  });
}
