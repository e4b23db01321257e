/**
 * Consumers of records' events (durable, inbox-deduplicated through the platform's runConsumer):
 * - `rdm.records.draft.deleted` → forget the draft's remembered grants (domain/grant-cache.ts),
 *   drop the draft's bucket and its media bucket (their objects go when unreferenced); a locked
 *   bucket (published files, e.g. shared by an edit draft) is never dropped, but the keys that
 *   edit draft registered in it are.
 * - `rdm.records.record.published` → forget the draft's remembered grants, lock the record's bucket
 *   and media bucket (idempotent) and drop the keys an edit draft registered in the bucket (one
 *   statement), drop the media bucket an edit superseded; record the version's access in the
 *   local copy (record-access.consumers.ts, which also starts the deleted / restored /
 *   embargo-lifted consumers of that copy).
 * - `rdm.requests.request.accepted` of a `quota-increase` request → raise the bucket's quota
 *   (quota.consumer.ts).
 */
import { afterCommit, type ConsumerHandle, type EventEnvelope, type Knex, type Logger, type NatsHandle, runConsumer } from '@rdm/platform';
import type { EventData } from '@rdm/contracts';
import type { FilesService } from '../domain/files.service.js';
import { onQuotaIncreaseAccepted, QUOTA_DURABLE, QUOTA_INCREASE_TYPE, type QuotaRequestEvent } from './quota.consumer.js';
import { applyPublished, startRecordAccessConsumers } from './record-access.consumers.js';

type DraftDeleted = EventData['rdm.records.draft.deleted'];
type RecordPublished = EventData['rdm.records.record.published'];

/** Queue storage removals for after the consumer's transaction commits. */
function collectAfterCommit(service: FilesService, trx: Knex.Transaction, released: Parameters<FilesService['collect']>[0]): void {
  if (released.length === 0) return;
  // Why: bytes may only go once the transaction that released them has committed.
  afterCommit(trx, () => service.collect(released));
}

/** Handle rdm.records.draft.deleted inside the consumer's transaction. */
export async function onDraftDeleted(
  service: FilesService,
  trx: Knex.Transaction,
  e: EventEnvelope<DraftDeleted>,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<void> {
  service.forgetGrants(e.data.id);
  const r = await service.deleteBucketIn(trx, e.data.bucket_id, { refuseLocked: false });
  if (r.skippedLocked) {
    await service.dropRegistrations(trx, e.data.bucket_id);
    if (e.data.kind !== 'edit')
      logger.warn({ bucket: e.data.bucket_id, draft: e.data.id, kind: e.data.kind }, 'draft deleted; its bucket is locked and is kept');
  }
  collectAfterCommit(service, trx, r.released);
  if (e.data.media_bucket_id && e.data.media_bucket_id !== e.data.bucket_id) {
    const m = await service.deleteBucketIn(trx, e.data.media_bucket_id, { refuseLocked: false });
    if (m.skippedLocked)
      logger.warn({ bucket: e.data.media_bucket_id, draft: e.data.id }, 'draft deleted; its media bucket is locked and is kept');
    collectAfterCommit(service, trx, m.released);
  }
}

/** Handle rdm.records.record.published inside the consumer's transaction (`seq`: its RECORDS stream sequence, for the access copy). */
export async function onRecordPublished(
  service: FilesService,
  trx: Knex.Transaction,
  e: EventEnvelope<RecordPublished>,
  seq?: number,
): Promise<void> {
  service.forgetGrants(e.data.id);
  if (seq !== undefined) await applyPublished(trx, e, seq);
  // Why one call: bucket lock, registrations dropped and media bucket lock are one statement.
  const lock = e.data.media_bucket_id ? [e.data.bucket_id, e.data.media_bucket_id] : [e.data.bucket_id];
  await service.lockAndDropRegistrations(trx, lock, e.data.bucket_id);
  const old = e.data.superseded_media_bucket_id;
  if (old && old !== e.data.media_bucket_id && old !== e.data.bucket_id) {
    const r = await service.deleteBucketIn(trx, old, { refuseLocked: false, force: true });
    collectAfterCommit(service, trx, r.released);
  }
}

/** Start the consumers of records' events (buckets and the access copy). */
export function startFilesConsumers(opts: { db: Knex; nats: NatsHandle; service: FilesService; logger: Logger }): ConsumerHandle[] {
  const { db, nats, service, logger } = opts;
  const common = { db, js: nats.js, jsm: nats.jsm, stream: 'RECORDS', logger, service: 'files' };
  return [
    runConsumer({
      ...common,
      durable: 'files-draft-deleted',
      filterSubject: 'rdm.records.draft.deleted',
      handler: (trx, e) => onDraftDeleted(service, trx, e, logger),
    }),
    runConsumer({
      ...common,
      durable: 'files-record-published',
      filterSubject: 'rdm.records.record.published',
      handler: (trx, e, msg) => onRecordPublished(service, trx, e, msg.seq),
    }),
    runConsumer({
      db,
      js: nats.js,
      jsm: nats.jsm,
      stream: 'REQUESTS',
      logger,
      service: 'files',
      durable: QUOTA_DURABLE,
      filterSubject: 'rdm.requests.request.accepted',
      skip: (env) => (env.data as { type?: string } | undefined)?.type !== QUOTA_INCREASE_TYPE,
      handler: (trx, e) => onQuotaIncreaseAccepted(trx, e as unknown as EventEnvelope<QuotaRequestEvent>, logger),
    }),
    ...startRecordAccessConsumers({ db, nats, logger }),
  ];
}
