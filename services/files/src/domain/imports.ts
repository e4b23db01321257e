/**
 * Administrator-only import of a file's bytes into a bucket (issue 26: the migration from
 * InvenioRDM, services/migration): `PUT /internal/import/buckets/{bucket_id}/files/{key+}` with
 * the source's checksum. The bytes are streamed to storage under their final object key (never
 * held in memory), their md5 computed on the way and compared with the announced one: a mismatch
 * keeps nothing and answers 422. A match creates the entry `completed` at once (no pending step,
 * no `rdm.files.file.committed` event: no draft waits for it; records' import RPC locks the
 * bucket and freezes its manifest).
 *
 * Idempotent: an entry already committed under the key with the same checksum is answered as it
 * is (the body is discarded), so a resumed migration can send a file again; a different
 * checksum replaces the entry while the bucket is unlocked, and a locked bucket answers 403 for
 * anything but the same content.
 *
 * When to use: only from the internal import route (the migration service calls the files
 * service directly, with a signed system or administrator identity; the gateway routes nothing here).
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError } from '@rdm/platform';
import * as repo from '../repo/files.repo.js';
import type { FileRow } from '../repo/files.repo.js';
import { SizeLimitExceededError } from '../storage/index.js';
import type { Buckets } from './buckets.js';
import { FilesErrors } from './errors.js';
import type { FilesServiceDeps } from './files.types.js';
import { objectStorageKey } from './multipart.js';

/** What the importer announces about a file. */
export interface ImportedFile {
  bucketId: string;
  key: string;
  /** `md5:<32 hex>` as the source reports it. */
  checksum: string;
  /** Content-Length when sent. */
  size?: number;
  metadata?: Record<string, unknown> | null;
}

/** The result of an import: the entry and whether bytes were stored. */
export interface ImportResult {
  file: FileRow;
  stored: boolean;
}

/** Imports of file content (see the file header). */
export class FileImports {
  constructor(
    private readonly d: FilesServiceDeps,
    private readonly buckets: Buckets,
  ) {}

  /** Stream `body` into the bucket under `key`, verified against `checksum`. */
  async importFile(f: ImportedFile, body: Readable): Promise<ImportResult> {
    if (!/^md5:[0-9a-f]{32}$/.test(f.checksum)) {
      throw new AppError('validation_error', 400, 'A valid checksum is required.', {
        fieldErrors: [{ field: 'checksum', messages: ['Expected md5:<32 lowercase hex digits>.'] }],
      });
    }
    const before = await repo.findFileForWrite(this.d.db, f.bucketId, f.key);
    if (before?.file.status === 'completed' && before.file.checksum === f.checksum) {
      body.resume();
      return { file: before.file, stored: false };
    }
    if (before?.bucketLocked || (await repo.getBucket(this.d.db, f.bucketId))?.locked) throw FilesErrors.bucketLocked();

    const objectId = randomUUID();
    const finalKey = objectStorageKey(objectId);
    // Why queued first: a crash mid-transfer leaves an object the janitor removes later.
    await repo.queueGc(this.d.db, [finalKey], this.d.limits.uploadStaleMs);
    let stored: { size: number; md5: string };
    try {
      stored = await this.d.storage.put(finalKey, body, { size: f.size, limit: Number.MAX_SAFE_INTEGER });
    } catch (err) {
      await this.d.gc.collect([finalKey]);
      if (err instanceof SizeLimitExceededError) throw FilesErrors.fileSizeLimit();
      throw err;
    }
    const checksum = `md5:${stored.md5}`;
    if (checksum !== f.checksum || (f.size !== undefined && stored.size !== f.size)) {
      await this.d.gc.collect([finalKey]);
      throw new AppError(
        'checksum_mismatch',
        422,
        `Checksum mismatch for ${f.key}: received ${checksum} (${stored.size} bytes), announced ${f.checksum}.`,
      );
    }

    let released: repo.GcItem[] = [];
    try {
      const file = await this.d.db.transaction(async (trx) => {
        const bucket = await repo.lockBucket(trx, f.bucketId);
        const cur = await repo.findFile(trx, f.bucketId, f.key, { forUpdate: true });
        if (cur?.status === 'completed' && cur.checksum === f.checksum) return { row: cur, fresh: false };
        if (bucket.locked) throw FilesErrors.bucketLocked();
        if (cur) released = await this.buckets.dropEntries(trx, [cur]);
        const id = randomUUID();
        await repo.insertPendingAndList(trx, f.bucketId, [
          { id, bucket_id: f.bucketId, key: f.key, metadata: f.metadata ?? null, access: { hidden: false }, transfer: { type: 'L' } },
        ]);
        const row = await repo.completeWithObject(
          trx,
          id,
          { id: objectId, storage_key: finalKey, size: stored.size, checksum },
          randomUUID(),
          { adopt: [finalKey], release: [] },
        );
        return { row, fresh: true };
      });
      if (!file.fresh) await this.d.gc.collect([finalKey]);
      await this.d.gc.collect(released);
      return { file: file.row, stored: file.fresh };
    } catch (err) {
      await this.d.gc.collect([finalKey]);
      throw err;
    }
  }
}
