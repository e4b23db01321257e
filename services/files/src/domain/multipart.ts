/**
 * InvenioRDM's multipart transfer (`transfer: {type: "M", parts, part_size}`): a file announced
 * with its size and number of parts, whose parts are uploaded separately (in parallel, in any
 * order, each streamed with its own md5 and size check) to `PUT …/files/<key>/content/<part>`, and
 * assembled by `POST …/commit`.
 *
 * Storage: each entry owns one multipart upload of the storage port, started at init and
 * assembling straight into the object's final key (S3: a real S3 multipart upload, one S3 part per
 * part; local: parts in a folder, concatenated by streaming). The whole file's md5 is computed
 * while assembling. Nothing is visible before commit: the object exists only once assembled and
 * is referenced only by the commit's transaction. Uploads are aborted when their entry goes
 * (through StorageGc) and swept by age like every unfinished upload (`FILES_UPLOAD_STALE_MS`,
 * which is also the `expiration` of the part links).
 *
 * When to use: from FilesService for entries whose `transfer.type` is `M`.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, type Knex, type Logger, writeOutbox } from '@rdm/platform';
import * as repo from '../repo/files.repo.js';
import type { FileRow } from '../repo/files.repo.js';
import { ObjectNotFoundError, type ObjectStorage, SizeLimitExceededError } from '../storage/index.js';
import type { BucketGrant } from './authorizer.js';
import { FilesErrors } from './errors.js';
import type { StorageGc } from './storage-gc.js';

/** How a multipart file is cut: `parts` parts of `partSize` bytes, the last one holding the rest of `size`. */
export interface MultipartPlan {
  parts: number;
  partSize: number;
  size: number;
}

/** S3 refuses parts under 5 MiB (except the last). */
export const S3_MIN_PART_BYTES = 5 * 1024 * 1024;

/** Storage key of an object: fanned out by the first bytes of its uuid. */
export const objectStorageKey = (id: string) => `objects/${id.slice(0, 2)}/${id.slice(2, 4)}/${id}`;

/**
 * Check the announced `size`, `parts` and `part_size` (InvenioRDM's TransferException messages
 * where it has them). Without `part_size`, parts are `ceil(size / parts)` bytes.
 */
export function planMultipart(
  item: { key: string; size?: number; transfer: { parts?: number; part_size?: number } },
  o: { engine: 'local' | 's3'; maxPartBytes: number },
): MultipartPlan {
  const { parts } = item.transfer;
  if (!parts) throw FilesErrors.multipartRequires('parts');
  // Why `!size`: InvenioRDM refuses a missing and a zero size alike.
  if (!item.size) throw FilesErrors.multipartRequires('file size');
  const size = item.size;
  const partSize = item.transfer.part_size ?? Math.ceil(size / parts);
  if (partSize * (parts - 1) >= size || partSize * parts < size) {
    throw FilesErrors.multipartPlan(`File with key ${item.key}: ${parts} parts of ${partSize} bytes cannot hold ${size} bytes.`);
  }
  if (partSize > o.maxPartBytes) throw FilesErrors.multipartPlan(`Part size must not exceed ${o.maxPartBytes} bytes.`);
  if (o.engine === 's3' && parts > 1 && partSize < S3_MIN_PART_BYTES) {
    throw FilesErrors.multipartPlan(`Part size must be at least ${S3_MIN_PART_BYTES} bytes (5 MiB) when a file has several parts.`);
  }
  return { parts, partSize, size };
}

/** The plan stored with an entry. */
export function planOf(f: FileRow): MultipartPlan {
  return { parts: f.transfer.parts ?? 1, partSize: f.transfer.part_size ?? f.declared_size ?? 0, size: f.declared_size ?? 0 };
}

/** Bytes part `part` must have: `partSize`, the last one the rest. */
export function expectedPartSize(p: MultipartPlan, part: number): number {
  return part < p.parts ? p.partSize : p.size - p.partSize * (p.parts - 1);
}

/** Is this a multipart entry? */
export const isMultipart = (f: FileRow) => f.transfer?.type === 'M';

/** Dependencies of MultipartTransfers. */
export interface MultipartDeps {
  db: Knex;
  storage: ObjectStorage;
  gc: StorageGc;
  uploadStaleMs: number;
  logger: Pick<Logger, 'info' | 'warn'>;
}

/** Storage side of multipart entries: start uploads, store parts, assemble. */
export class MultipartTransfers {
  constructor(private readonly d: MultipartDeps) {}

  /**
   * Start one storage upload per key (before the init transaction). Each is queued for abort after
   * `FILES_UPLOAD_STALE_MS`, so a crash before the entry exists leaves nothing for good; the init
   * transaction adopts them (`repo.unqueueGc`), a failed one aborts them (`abort`).
   */
  async begin(keys: string[]): Promise<Map<string, { key: string; uploadId: string }>> {
    const out = new Map<string, { key: string; uploadId: string }>();
    try {
      for (const k of keys) {
        const key = objectStorageKey(randomUUID());
        const uploadId = await this.d.storage.createMultipart(key);
        await repo.queueGc(this.d.db, [{ key, uploadId }], this.d.uploadStaleMs);
        out.set(k, { key, uploadId });
      }
    } catch (err) {
      await this.abort([...out.values()]);
      throw err;
    }
    return out;
  }

  /** Abort uploads whose entries were never written. */
  abort(uploads: { key: string; uploadId: string }[]): Promise<void> {
    return this.d.gc.collect(uploads);
  }

  /**
   * Store part `part` of a pending multipart entry (already authorized for writing). The size is
   * checked against the plan up front (Content-Length) and while streaming; the part row is
   * written under the entry's row lock, unless the entry was committed, replaced or is being
   * assembled meanwhile.
   */
  async uploadPart(grant: BucketGrant, file: FileRow, part: number, body: Readable, contentLength?: number): Promise<FileRow> {
    if (file.status === 'completed') throw FilesErrors.alreadyCommitted(file.key);
    if (!isMultipart(file)) throw FilesErrors.notMultipart(file.transfer?.type ?? 'L');
    const plan = planOf(file);
    if (part < 1 || part > plan.parts) throw FilesErrors.partNumber(part);
    const expected = expectedPartSize(plan, part);
    const last = part === plan.parts;
    if (contentLength !== undefined && contentLength !== expected) throw FilesErrors.partSize(last, expected);
    if (file.upload_key) throw FilesErrors.assembling(file.key);
    let stored: { size: number; md5: string; etag: string };
    try {
      stored = await this.d.storage.putPart(file.multipart_key!, file.multipart_upload_id!, part, body, {
        size: expected,
        limit: expected,
      });
    } catch (err) {
      if (err instanceof SizeLimitExceededError) throw FilesErrors.partSize(last, expected);
      if (err instanceof ObjectNotFoundError) throw FilesErrors.multipartExpired(file.key);
      throw err;
    }
    if (stored.size !== expected) throw FilesErrors.partSize(last, expected);
    return this.d.db.transaction(async (trx) => {
      const cur = await repo.findFile(trx, grant.bucket_id, file.key, { forUpdate: true });
      if (!cur || cur.id !== file.id) throw FilesErrors.fileKeyNotFound(grant.record_id, file.key);
      if (cur.status === 'completed') throw FilesErrors.alreadyCommitted(file.key);
      if (cur.upload_key) throw FilesErrors.assembling(file.key);
      await repo.upsertPart(trx, cur.id, { part, size: stored.size, checksum: `md5:${stored.md5}`, etag: stored.etag });
      return cur;
    });
  }

  /**
   * Assemble a multipart entry (`POST …/commit`): every part must be there (else 400). A first
   * short transaction marks the entry as assembling (parts can no longer change); storage then
   * assembles the object under its final key, computing the md5; a second transaction turns the
   * entry `completed` (transfer type `L`, as InvenioRDM) with `rdm.files.file.committed`. The
   * object is queued for removal until that transaction adopts it, so no failure leaves it behind.
   */
  async commit(grant: BucketGrant, file: FileRow, event: 'rdm.files.file.committed'): Promise<FileRow> {
    const finalKey = file.multipart_key!;
    const uploadId = file.multipart_upload_id!;
    const plan = planOf(file);
    const parts = await this.d.db.transaction(async (trx) => {
      const bucket = await repo.lockBucket(trx, grant.bucket_id);
      if (bucket.locked) throw FilesErrors.bucketLocked();
      const cur = await repo.findFile(trx, grant.bucket_id, file.key, { forUpdate: true });
      if (!cur || cur.id !== file.id) throw FilesErrors.fileKeyNotFound(grant.record_id, file.key);
      if (cur.status === 'completed') return undefined;
      const stored = await repo.listParts(trx, cur.id);
      const have = new Set(stored.map((p) => p.part));
      const missing: number[] = [];
      for (let n = 1; n <= plan.parts; n++) if (!have.has(n)) missing.push(n);
      if (missing.length > 0) throw FilesErrors.missingParts(file.key, missing);
      await repo.markAssembling(trx, cur.id, finalKey);
      await repo.queueGc(trx, [finalKey], this.d.uploadStaleMs);
      return stored;
    });
    if (!parts) return (await repo.findFile(this.d.db, grant.bucket_id, file.key))!;

    let whole: { size: number; md5: string };
    try {
      whole = await this.d.storage.completeMultipart(
        finalKey,
        uploadId,
        parts.map((p) => ({ part: p.part, etag: p.etag })),
      );
    } catch (err) {
      // A parallel commit may have assembled it first: answer what it committed.
      const cur = await repo.findFile(this.d.db, grant.bucket_id, file.key);
      if (cur && cur.id === file.id && cur.status === 'completed') return cur;
      if (err instanceof ObjectNotFoundError) throw FilesErrors.multipartExpired(file.key);
      throw err;
    }
    try {
      return await this.d.db.transaction(async (trx) => {
        const bucket = await repo.lockBucket(trx, grant.bucket_id);
        if (bucket.locked) throw FilesErrors.bucketLocked();
        const cur = await repo.findFile(trx, grant.bucket_id, file.key, { forUpdate: true });
        if (!cur || cur.id !== file.id) throw FilesErrors.fileKeyNotFound(grant.record_id, file.key);
        if (cur.status === 'completed') return cur;
        if (whole.size !== plan.size)
          throw new AppError('transfer_error', 400, `File with key ${file.key}: assembled ${whole.size} bytes, announced ${plan.size}.`);
        const objectId = finalKey.slice(finalKey.lastIndexOf('/') + 1);
        const done = await repo.completeWithObject(
          trx,
          cur.id,
          { id: objectId, storage_key: finalKey, size: whole.size, checksum: `md5:${whole.md5}` },
          randomUUID(),
        );
        await repo.deleteParts(trx, cur.id);
        await repo.unqueueGc(trx, [finalKey]);
        await writeOutbox(trx, {
          subject: event,
          aggregate: { type: 'file', id: done.id, revision: done.revision },
          data: { bucket_id: grant.bucket_id, key: file.key, size: done.size!, checksum: done.checksum! },
        });
        return done;
      });
    } catch (err) {
      await this.d.gc.collect([finalKey]);
      throw err;
    }
  }
}
