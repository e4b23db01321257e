/**
 * Consumer of accepted `quota-increase` requests (stream REQUESTS, durable `files-quota-increase`,
 * inbox-deduplicated): the request's `payload` names the draft's bucket (`bucket_id`, put there by
 * records when the owner asked) and the asked size (`quota_size`, bytes). The bucket's quota rises
 * to at least that size (`raiseQuota`: idempotent, never lowers it) and
 * `rdm.files.bucket.quota-changed` with the `request_id` goes through the outbox in the same
 * transaction: it confirms the requests service's saga. A payload without a usable bucket or size
 * is acknowledged without effect (records never creates one).
 *
 * When to use: started with the other consumers in main.ts (`startFilesConsumers`).
 */
import { type EventEnvelope, type Knex, type Logger, writeOutbox } from '@rdm/platform';
import * as repo from '../repo/files.repo.js';

/** The request type whose acceptance raises a quota. */
export const QUOTA_INCREASE_TYPE = 'quota-increase';
/** Durable name of the consumer. */
export const QUOTA_DURABLE = 'files-quota-increase';

/** The part of a request event this consumer reads. */
export interface QuotaRequestEvent {
  id: string;
  type: string;
  payload?: Record<string, unknown>;
}

/** Apply one accepted quota-increase request inside the consumer's transaction. */
export async function onQuotaIncreaseAccepted(
  trx: Knex.Transaction,
  e: EventEnvelope<QuotaRequestEvent>,
  logger: Pick<Logger, 'warn'>,
): Promise<void> {
  const r = e.data;
  if (r?.type !== QUOTA_INCREASE_TYPE) return;
  const bucketId = r.payload?.bucket_id;
  const size = r.payload?.quota_size;
  if (typeof bucketId !== 'string' || !bucketId || typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    logger.warn({ request: r.id }, 'quota-increase request without a bucket or size; ignored');
    return;
  }
  const quota = await repo.raiseQuota(trx, bucketId, size);
  await writeOutbox(trx, {
    subject: 'rdm.files.bucket.quota-changed',
    aggregate: { type: 'bucket', id: bucketId, revision: 0 },
    data: { bucket_id: bucketId, quota_bytes: quota, request_id: r.id },
  });
}
