/**
 * Content transfers of the files domain: a pending entry's bytes streamed into storage
 * (`upload`), a multipart entry's parts (`uploadPart`, multipart.ts), and the commit that makes
 * the entry `completed` and writes `rdm.files.file.committed` to the outbox. Each asks
 * `FilesAccess` first. Use it through `FilesService`.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, isAppError, type Knex, writeOutbox } from '@rdm/platform';
import * as repo from '../repo/files.repo.js';
import type { FileRow } from '../repo/files.repo.js';
import { SizeLimitExceededError } from '../storage/index.js';
import type { FilesTarget } from './authorizer.js';
import type { Buckets } from './buckets.js';
import { FilesErrors } from './errors.js';
import type { FilesAccess } from './files.access.js';
import type { FileResult, FilesServiceDeps } from './files.types.js';
import { isMultipart, type MultipartTransfers, objectStorageKey } from './multipart.js';

/** Storage key of an upload's temporary object. */
export const uploadStorageKey = (id: string) => `uploads/${id}`;

const FILE_COMMITTED = 'rdm.files.file.committed';

/** Did the upload fail because the client went away (not because storage failed)? */
export function isClientAbort(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return e?.message === 'aborted' || e?.code === 'ERR_STREAM_PREMATURE_CLOSE' || e?.code === 'ECONNABORTED';
}

/** Uploads, parts and commits of file content. */
export class FileTransfers {
  constructor(
    private readonly d: FilesServiceDeps,
    private readonly access: FilesAccess,
    private readonly buckets: Buckets,
    private readonly multipart: MultipartTransfers,
  ) {}

  /**
   * Row-lock the bucket and the entry of `key` in one statement (`FOR UPDATE OF b, f`, the order
   * of `lockBucket` + `findFile`), with the errors those two gave: 403 locked bucket, 404 when the
   * entry is missing or is not `fileId` any more. Why a completed entry is read again: a statement
   * that waited for a lock sees the locked rows' new versions but not rows inserted meanwhile (its
   * snapshot is older), here the object a parallel commit just created.
   * Not for the upload's budget re-check: that needs the other entries as of after the lock.
   */
  private async lockForCommit(trx: Knex.Transaction, t: FilesTarget, bucketId: string, key: string, fileId: string): Promise<FileRow> {
    const found = await repo.findFileForWrite(trx, bucketId, key, { lockBucket: true });
    if (!found) {
      // No entry, so nothing was locked: the bucket's own answer first, as before.
      if ((await repo.lockBucket(trx, bucketId)).locked) throw FilesErrors.bucketLocked();
      throw FilesErrors.fileKeyNotFound(t.recordId, key);
    }
    if (found.bucketLocked) throw FilesErrors.bucketLocked();
    if (found.file.id !== fileId) throw FilesErrors.fileKeyNotFound(t.recordId, key);
    if (found.file.status !== 'completed') return found.file;
    return (await repo.findFile(trx, bucketId, key)) ?? found.file;
  }

  /**
   * Stream the content of a pending entry into storage (`PUT …/content`). The bytes land under a
   * temporary key; the entry stays `pending` until commit. Limits: `contentLength` is checked
   * before reading, the streamed byte count while reading. A failed upload leaves no object; a
   * client that goes away also loses the entry (InvenioRDM deletes it on a failed transfer).
   */
  async upload(t: FilesTarget, key: string, body: Readable, contentLength?: number): Promise<FileResult> {
    const { maxFileBytes, maxRecordBytes, uploadStaleMs } = this.d.limits;
    const tmpKey = uploadStorageKey(randomUUID());
    // Why queued with the pre-check: if this process dies mid-upload, the janitor removes the temporary object later.
    const {
      grant,
      file,
      usedByOthers: used,
      bucketQuota,
    } = await this.access.authorizeWrite(t, key, true, false, { key: tmpKey, delayMs: uploadStaleMs });
    // The bucket's quota: its own (an accepted quota-increase request) or the configured default.
    const limit = Math.min(Math.max(maxFileBytes, bucketQuota ?? 0), (bucketQuota ?? maxRecordBytes) - used);
    try {
      if (file.status === 'completed') throw FilesErrors.alreadyCommitted(key);
      if (isMultipart(file)) throw FilesErrors.multipartWholeContent();
      if (limit < 0 || (contentLength !== undefined && contentLength > limit)) throw FilesErrors.fileSizeLimit();
    } catch (err) {
      await this.d.gc.collect([tmpKey]);
      throw err;
    }

    let stored: { size: number; md5: string };
    try {
      stored = await this.d.storage.put(tmpKey, body, { size: contentLength, limit });
    } catch (err) {
      await this.d.gc.collect([tmpKey]);
      if (err instanceof SizeLimitExceededError) throw FilesErrors.fileSizeLimit();
      if (isClientAbort(err)) {
        this.d.logger.info({ key, bucket: grant.bucket_id }, 'upload aborted by the client; entry removed');
        const released = await this.d.db.transaction(async (trx) => {
          const cur = await repo.findFile(trx, grant.bucket_id, key, { forUpdate: true });
          return cur && cur.id === file.id && cur.status === 'pending' ? this.buckets.dropEntries(trx, [cur]) : [];
        });
        await this.d.gc.collect(released);
        throw FilesErrors.transferFailed(key);
      }
      throw err;
    }

    let replaced: string[] = [];
    try {
      const updated = await this.d.db.transaction(async (trx) => {
        const bucket = await repo.lockBucket(trx, grant.bucket_id);
        if (bucket.locked) throw FilesErrors.bucketLocked();
        // Why a statement of its own after the lock: the budget must count what others committed meanwhile.
        const found = await repo.findFileForWrite(trx, grant.bucket_id, key, { forUpdate: true, used: true });
        const cur = found?.file;
        if (!found || !cur || cur.id !== file.id) throw FilesErrors.fileKeyNotFound(t.recordId, key);
        if (cur.status === 'completed') throw FilesErrors.alreadyCommitted(key);
        // Why: concurrent uploads to other keys of the record may have used the budget meanwhile.
        if (found.usedByOthers + stored.size > (found.bucketQuota ?? maxRecordBytes)) throw FilesErrors.fileSizeLimit();
        replaced = cur.upload_key ? [cur.upload_key] : [];
        await repo.queueGc(trx, replaced);
        // setUpload + unqueueGc([tmpKey]): the entry adopts its temporary object.
        return repo.attachUpload(trx, cur.id, { key: tmpKey, size: stored.size, checksum: `md5:${stored.md5}` });
      });
      await this.d.gc.collect(replaced);
      return { grant, file: updated };
    } catch (err) {
      await this.d.gc.collect([tmpKey]);
      throw err;
    }
  }

  /** Store one part of a multipart entry (`PUT …/content/<part>`); answers the entry, still `pending`. */
  async uploadPart(t: FilesTarget, key: string, part: number, body: Readable, contentLength?: number): Promise<FileResult> {
    const { grant, file } = await this.access.authorizeWrite(t, key);
    return { grant, file: await this.multipart.uploadPart(grant, file, part, body, contentLength) };
  }

  /**
   * Commit an uploaded entry (`POST …/commit`): its temporary object is linked to its final,
   * id-addressed key (no bytes copied on the local engine; a server-side copy on S3), the entry
   * becomes `completed` and `rdm.files.file.committed` goes to the outbox. Committing a completed
   * entry again is a no-op.
   */
  async commit(t: FilesTarget, key: string): Promise<FileResult> {
    const objectId = randomUUID();
    const finalKey = objectStorageKey(objectId);
    // Why queued with the pre-check: a crash between the link and the commit would otherwise leave an unreferenced object.
    const { grant, file } = await this.access.authorizeWrite(t, key, false, false, { key: finalKey, delayMs: this.d.limits.uploadStaleMs });
    if (file.status === 'completed' || isMultipart(file) || !file.upload_key || file.upload_size === null || !file.upload_checksum) {
      // Nothing will be linked under finalKey (a multipart entry is assembled under its own key).
      await this.d.gc.collect([finalKey]);
      if (file.status === 'completed') return { grant, file };
      if (isMultipart(file)) return { grant, file: await this.multipart.commit(grant, file, FILE_COMMITTED) };
      throw FilesErrors.notUploaded(key);
    }

    try {
      await this.d.storage.copy(file.upload_key, finalKey);
      const committed = await this.d.db.transaction(async (trx) => {
        const cur = await this.lockForCommit(trx, t, grant.bucket_id, key, file.id);
        if (cur.status === 'completed') return { row: cur, fresh: false };
        // Why: the content may have been replaced by another upload since we read the entry.
        if (cur.upload_key !== file.upload_key)
          throw new AppError('conflict', 409, `File with key ${key} was re-uploaded during the commit; retry.`);
        // insertObject + markCompleted + unqueueGc([finalKey]) + queueGc([upload key]), one statement.
        const row = await repo.completeWithObject(
          trx,
          cur.id,
          { id: objectId, storage_key: finalKey, size: file.upload_size!, checksum: file.upload_checksum! },
          randomUUID(),
          { adopt: [finalKey], release: [file.upload_key!] },
        );
        await writeOutbox(trx, {
          subject: FILE_COMMITTED,
          aggregate: { type: 'file', id: row.id, revision: row.revision },
          data: { bucket_id: grant.bucket_id, key, size: row.size!, checksum: row.checksum! },
        });
        return { row, fresh: true };
      });
      if (committed.fresh) await this.d.gc.collect([file.upload_key]);
      else await this.d.gc.collect([finalKey]);
      return { grant, file: committed.row };
    } catch (err) {
      await this.d.gc.collect([finalKey]);
      // A parallel commit of the same entry may have won: it completed the entry and removed the
      // upload object our copy needed. Answer what it committed rather than a 500.
      if (!isAppError(err)) {
        const cur = await repo.findFile(this.d.db, grant.bucket_id, key);
        if (cur && cur.id === file.id && cur.status === 'completed') return { grant, file: cur };
        if (cur && cur.id === file.id && cur.upload_key !== file.upload_key) {
          throw new AppError('conflict', 409, `File with key ${key} was re-uploaded during the commit; retry.`);
        }
      }
      throw err;
    }
  }
}
