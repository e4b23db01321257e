/**
 * Consumer of `rdm.files.file.committed` (stream FILES): refreshes the files summary of the draft
 * whose bucket received the file in its `search_docs` document, so that /api/user/records hits
 * show the draft's files without waiting for the next draft write. Draft reads never depend on
 * it (they ask the files service live). Edit drafts are skipped: their bucket is locked.
 */
import { consumerWorker, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
import type { RecordsService } from '../domain/records.service.js';

/** Data of rdm.files.file.committed. */
interface FileCommitted {
  bucket_id: string;
  key: string;
  size: number;
  checksum: string;
}

/** Durable consumer name. */
export const FILES_COMMITTED_DURABLE = 'records-files-committed';

/** A background worker running the consumer (for runService). */
export function filesCommittedWorker(opts: { db: Knex; nats: NatsHandle; service: RecordsService; logger: Logger }) {
  return consumerWorker({
    db: opts.db,
    js: opts.nats.js,
    jsm: opts.nats.jsm,
    stream: 'FILES',
    durable: FILES_COMMITTED_DURABLE,
    filterSubject: 'rdm.files.file.committed',
    logger: opts.logger,
    service: 'records',
    handler: (trx, e) => opts.service.refreshDraftFiles(trx, e.data.bucket_id),
  });
}
