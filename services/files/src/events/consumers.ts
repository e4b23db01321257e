/**
 * Consumers of records' events (durable, inbox-deduplicated through the platform's runConsumer):
 * - `rdm.records.draft.deleted` → drop the draft's bucket (its objects go when unreferenced);
 *   a locked bucket (published files, e.g. shared by an edit draft) is never dropped.
 * - `rdm.records.record.published` → lock the record's bucket (idempotent).
 */
import { type ConsumerHandle, type EventEnvelope, type Knex, type Logger, type NatsHandle, runConsumer } from '@rdm/platform';
import type { FilesService } from '../domain/files.service.js';

/** Data of rdm.records.draft.deleted. */
interface DraftDeleted {
  id: string;
  bucket_id: string;
  kind: string;
}
/** Data of rdm.records.record.published. */
interface RecordPublished {
  id: string;
  bucket_id: string;
}

/** Handle rdm.records.draft.deleted inside the consumer's transaction. */
export async function onDraftDeleted(
  service: FilesService,
  trx: Knex.Transaction,
  e: EventEnvelope<DraftDeleted>,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<void> {
  const r = await service.deleteBucketIn(trx, e.data.bucket_id, { refuseLocked: false });
  if (r.skippedLocked)
    logger.warn({ bucket: e.data.bucket_id, draft: e.data.id, kind: e.data.kind }, 'draft deleted; its bucket is locked and is kept');
  if (r.released.length > 0) {
    // Why: bytes may only go once the transaction that released them has committed.
    const committed = (trx as unknown as { executionPromise?: Promise<unknown> }).executionPromise;
    void committed?.then(
      () => service.collect(r.released),
      () => undefined,
    );
  }
}

/** Handle rdm.records.record.published inside the consumer's transaction. */
export async function onRecordPublished(service: FilesService, trx: Knex.Transaction, e: EventEnvelope<RecordPublished>): Promise<void> {
  await service.lockOnly(e.data.bucket_id, trx);
}

/** Start both consumers. */
export function startFilesConsumers(opts: { db: Knex; nats: NatsHandle; service: FilesService; logger: Logger }): ConsumerHandle[] {
  const { db, nats, service, logger } = opts;
  const common = { db, js: nats.js, jsm: nats.jsm, stream: 'RECORDS', logger, service: 'files' };
  return [
    runConsumer<DraftDeleted>({
      ...common,
      durable: 'files-draft-deleted',
      filterSubject: 'rdm.records.draft.deleted',
      handler: (trx, e) => onDraftDeleted(service, trx, e, logger),
    }),
    runConsumer<RecordPublished>({
      ...common,
      durable: 'files-record-published',
      filterSubject: 'rdm.records.record.published',
      handler: (trx, e) => onRecordPublished(service, trx, e),
    }),
  ];
}
