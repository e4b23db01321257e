/**
 * The files domain: buckets of file entries, their content and its lifecycle
 * `pending` (registered, maybe uploaded) → `completed` (committed, immutable).
 *
 * Every HTTP-facing method first asks the records service (`FilesAuthorizer`) whether the caller
 * may read/update the files of the draft or record and which bucket holds them; records owns
 * permissions, `files.enabled`, `order` and `default_preview`. Bytes go through the storage port:
 * uploads stream into a temporary object (md5 computed on the way), commit links it to its final
 * id-addressed key, and deletes only drop references — bytes leave storage through StorageGc
 * once no entry references them (imports share objects between versions).
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, type Knex, type Logger, SYSTEM, isAppError, writeOutbox } from '@rdm/platform';
import * as repo from '../repo/files.repo.js';
import type { FileRow } from '../repo/files.repo.js';
import { type ObjectStorage, SizeLimitExceededError } from '../storage/index.js';
import type { BucketGrant, FilesAction, FilesAuthorizer, FilesTarget } from './authorizer.js';
import { FilesErrors } from './errors.js';
import { type InitItem, parseInitBody, parseUpdateBody } from './input.js';
import { keyProblem } from './keys.js';
import type { StorageGc } from './storage-gc.js';

/** Limits of the files service. */
export interface FilesLimits {
  maxCount: number;
  maxRecordBytes: number;
  maxFileBytes: number;
  /** Delay before an unfinished upload's temporary object counts as abandoned. */
  uploadStaleMs: number;
}

/** Dependencies of FilesService. */
export interface FilesServiceDeps {
  db: Knex;
  storage: ObjectStorage;
  authorizer: FilesAuthorizer;
  gc: StorageGc;
  limits: FilesLimits;
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
}

/** Files of a draft or record with the grant they were read under. */
export interface FilesResult {
  grant: BucketGrant;
  files: FileRow[];
}

/** One file with its grant. */
export interface FileResult {
  grant: BucketGrant;
  file: FileRow;
}

/** A manifest (RPC shape is built by the rpc layer). */
export interface Manifest {
  bucket_id: string;
  locked: boolean;
  files: FileRow[];
}

/** Storage key of an object: fanned out by the first bytes of its uuid. */
export const objectStorageKey = (id: string) => `objects/${id.slice(0, 2)}/${id.slice(2, 4)}/${id}`;
/** Storage key of an upload's temporary object. */
export const uploadStorageKey = (id: string) => `uploads/${id}`;

const FILE_COMMITTED = 'rdm.files.file.committed';

/** Did the upload fail because the client went away (not because storage failed)? */
export function isClientAbort(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return e?.message === 'aborted' || e?.code === 'ERR_STREAM_PREMATURE_CLOSE' || e?.code === 'ECONNABORTED';
}

const countBy = (ids: (string | null)[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const id of ids) if (id) m.set(id, (m.get(id) ?? 0) + 1);
  return m;
};

/** The files domain service. */
export class FilesService {
  constructor(private readonly d: FilesServiceDeps) {}

  // ── authorization ───────────────────────────────────────────────────────────────────────────

  /**
   * Ask records for the grant. With a `key`, an unknown key is a 404 even when the caller may not
   * act (InvenioRDM checks the key before the permission): on a 403 the bucket is looked up as
   * the system identity to tell the two apart.
   */
  private async authorize(t: FilesTarget, action: FilesAction, key?: string): Promise<BucketGrant> {
    const base = { record_id: t.recordId, scope: t.scope, ...(t.token ? { access_token: t.token } : {}) };
    try {
      return await this.d.authorizer.authorize({ ...base, action, identity: { sub: t.identity.sub, roles: t.identity.roles } });
    } catch (err) {
      if (key !== undefined && isAppError(err) && err.status === 403) {
        let sys: BucketGrant | undefined;
        try {
          sys = await this.d.authorizer.authorize({ ...base, action: 'read', identity: { sub: SYSTEM.sub, roles: SYSTEM.roles } });
        } catch {
          throw err;
        }
        if (sys.enabled && !(await repo.findFile(this.d.db, sys.bucket_id, key))) throw FilesErrors.fileKeyNotFound(t.recordId, key);
      }
      throw err;
    }
  }

  /** Grant + the entry of `key` (404 when missing), files must be enabled. */
  private async authorizeFile(t: FilesTarget, action: FilesAction, key: string): Promise<FileResult> {
    const problem = keyProblem(key);
    if (problem) throw FilesErrors.invalidKey(problem);
    const grant = await this.authorize(t, action, key);
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    const file = await repo.findFile(this.d.db, grant.bucket_id, key);
    if (!file) throw FilesErrors.fileKeyNotFound(t.recordId, key);
    return { grant, file };
  }

  /**
   * `authorizeFile(t, 'update', key)` for a write: grant, entry (404 when missing) and the 403 when
   * records or our own bucket row says the bucket is locked, with the bucket's row read in the
   * same statement as the entry; `used` adds the bytes of the bucket's other entries.
   */
  private async authorizeWrite(t: FilesTarget, key: string, used = false): Promise<FileResult & { usedByOthers: number }> {
    const problem = keyProblem(key);
    if (problem) throw FilesErrors.invalidKey(problem);
    const grant = await this.authorize(t, 'update', key);
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    const found = await repo.findFileForWrite(this.d.db, grant.bucket_id, key, { used });
    if (!found) throw FilesErrors.fileKeyNotFound(t.recordId, key);
    if (grant.locked || found.bucketLocked) throw FilesErrors.bucketLocked();
    return { grant, file: found.file, usedByOthers: found.usedByOthers };
  }

  // ── reads ───────────────────────────────────────────────────────────────────────────────────

  /** All entries of the draft/record (empty when files are disabled). */
  async list(t: FilesTarget): Promise<FilesResult> {
    const grant = await this.authorize(t, 'read');
    const files = grant.enabled ? await repo.listFiles(this.d.db, grant.bucket_id) : [];
    return { grant, files };
  }

  /** Committed entries for a zip archive. */
  async archive(t: FilesTarget): Promise<FilesResult> {
    const grant = await this.authorize(t, 'read');
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    const files = (await repo.listFiles(this.d.db, grant.bucket_id)).filter((f) => f.status === 'completed');
    return { grant, files };
  }

  /** One entry. */
  read(t: FilesTarget, key: string): Promise<FileResult> {
    return this.authorizeFile(t, 'read', key);
  }

  /** A committed entry whose content is about to be downloaded. */
  async content(t: FilesTarget, key: string): Promise<FileResult & { storageKey: string }> {
    const r = await this.authorizeFile(t, 'read', key);
    if (r.file.status !== 'completed' || !r.file.storage_key) throw FilesErrors.noContent(key);
    return { ...r, storageKey: r.file.storage_key };
  }

  /** Open the content of a committed entry (optionally a byte range). */
  openContent(storageKey: string, range?: { start: number; end: number }): Promise<Readable> {
    return this.d.storage.get(storageKey, range);
  }

  // ── writes ──────────────────────────────────────────────────────────────────────────────────

  /** Register new pending entries (`POST …/draft/files`); returns every entry of the draft. */
  async init(t: FilesTarget, body: unknown): Promise<FilesResult> {
    const items: InitItem[] = parseInitBody(body);
    const grant = await this.authorize(t, 'update');
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    // Why: remote/fetch/multipart transfers are not offered to users (InvenioRDM: 403 for normal users).
    if (items.some((i) => i.transfer.type !== 'L')) throw new AppError('permission_denied', 403, 'Permission denied.');
    if (grant.locked) throw FilesErrors.bucketLocked();
    const files = await this.d.db.transaction(async (trx) => {
      const bucket = await repo.lockBucket(trx, grant.bucket_id);
      if (bucket.locked) throw FilesErrors.bucketLocked();
      const seen = new Set<string>();
      for (const i of items) {
        if (seen.has(i.key)) throw FilesErrors.duplicateKey(i.key);
        seen.add(i.key);
      }
      const { count, existing } = await repo.bucketKeys(
        trx,
        grant.bucket_id,
        items.map((i) => i.key),
      );
      if (existing.length > 0) throw FilesErrors.duplicateKey(items.find((i) => existing.includes(i.key))?.key ?? existing[0]);
      if (count + items.length > this.d.limits.maxCount) throw FilesErrors.tooManyFiles();
      await repo.insertPending(
        trx,
        items.map((i) => ({
          id: randomUUID(),
          bucket_id: grant.bucket_id,
          key: i.key,
          metadata: i.metadata,
          access: i.access,
          transfer: i.transfer,
        })),
      );
      return repo.listFiles(trx, grant.bucket_id);
    });
    return { grant, files };
  }

  /** Replace `metadata`/`access` of an entry (`PUT …/draft/files/<key>`). */
  async update(t: FilesTarget, key: string, body: unknown): Promise<FileResult> {
    const input = parseUpdateBody(body);
    const { grant } = await this.authorizeWrite(t, key);
    const file = await this.d.db.transaction(async (trx) => {
      const cur = await repo.findFile(trx, grant.bucket_id, key, { forUpdate: true });
      if (!cur) throw FilesErrors.fileKeyNotFound(t.recordId, key);
      await repo.updateEntry(trx, cur.id, input);
      return (await repo.findFile(trx, grant.bucket_id, key))!;
    });
    return { grant, file };
  }

  /** Delete one entry (`DELETE …/draft/files/<key>`). */
  async remove(t: FilesTarget, key: string): Promise<void> {
    const { grant } = await this.authorizeWrite(t, key);
    const released = await this.d.db.transaction(async (trx) => {
      const bucket = await repo.lockBucket(trx, grant.bucket_id);
      if (bucket.locked) throw FilesErrors.bucketLocked();
      const cur = await repo.findFile(trx, grant.bucket_id, key, { forUpdate: true });
      if (!cur) throw FilesErrors.fileKeyNotFound(t.recordId, key);
      return this.dropEntries(trx, [cur]);
    });
    await this.d.gc.collect(released);
  }

  /** Delete every entry of the draft (`DELETE …/draft/files`). */
  async removeAll(t: FilesTarget): Promise<void> {
    const grant = await this.authorize(t, 'update');
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    if (grant.locked) throw FilesErrors.bucketLocked();
    const released = await this.d.db.transaction(async (trx) => {
      const bucket = await repo.lockBucket(trx, grant.bucket_id);
      if (bucket.locked) throw FilesErrors.bucketLocked();
      return this.dropEntries(trx, await repo.listFiles(trx, grant.bucket_id));
    });
    await this.d.gc.collect(released);
  }

  /** Delete entries, drop their object references and queue what storage can forget. */
  private async dropEntries(trx: Knex.Transaction, files: FileRow[]): Promise<string[]> {
    await repo.deleteFiles(
      trx,
      files.map((f) => f.id),
    );
    const released = await repo.releaseRefs(trx, countBy(files.map((f) => f.object_id)));
    released.push(...files.map((f) => f.upload_key).filter((k): k is string => !!k));
    await repo.queueGc(trx, released);
    return released;
  }

  /**
   * Stream the content of a pending entry into storage (`PUT …/content`). The bytes land under a
   * temporary key; the entry stays `pending` until commit. Limits: `contentLength` is checked
   * before reading, the streamed byte count while reading. A failed upload leaves no object; a
   * client that goes away also loses the entry (InvenioRDM deletes it on a failed transfer).
   */
  async upload(t: FilesTarget, key: string, body: Readable, contentLength?: number): Promise<FileResult> {
    const { grant, file, usedByOthers: used } = await this.authorizeWrite(t, key, true);
    if (file.status === 'completed') throw FilesErrors.alreadyCommitted(key);
    const { maxFileBytes, maxRecordBytes, uploadStaleMs } = this.d.limits;
    const limit = Math.min(maxFileBytes, maxRecordBytes - used);
    if (limit < 0 || (contentLength !== undefined && contentLength > limit)) throw FilesErrors.fileSizeLimit();

    const tmpKey = uploadStorageKey(randomUUID());
    // Why: if this process dies mid-upload, the janitor removes the temporary object later.
    await repo.queueGc(this.d.db, [tmpKey], uploadStaleMs);
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
          return cur && cur.id === file.id && cur.status === 'pending' ? this.dropEntries(trx, [cur]) : [];
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
        const found = await repo.findFileForWrite(trx, grant.bucket_id, key, { forUpdate: true, used: true });
        const cur = found?.file;
        if (!found || !cur || cur.id !== file.id) throw FilesErrors.fileKeyNotFound(t.recordId, key);
        if (cur.status === 'completed') throw FilesErrors.alreadyCommitted(key);
        // Why: concurrent uploads to other keys of the record may have used the budget meanwhile.
        if (found.usedByOthers + stored.size > maxRecordBytes) throw FilesErrors.fileSizeLimit();
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

  /**
   * Commit an uploaded entry (`POST …/commit`): its temporary object is linked to its final,
   * id-addressed key (no bytes copied on the local engine; a server-side copy on S3), the entry
   * becomes `completed` and `rdm.files.file.committed` goes to the outbox. Committing a completed
   * entry again is a no-op.
   */
  async commit(t: FilesTarget, key: string): Promise<FileResult> {
    const { grant, file } = await this.authorizeWrite(t, key);
    if (file.status === 'completed') return { grant, file };
    if (!file.upload_key || file.upload_size === null || !file.upload_checksum) throw FilesErrors.notUploaded(key);

    const objectId = randomUUID();
    const finalKey = objectStorageKey(objectId);
    // Why: a crash between the link and the commit would otherwise leave an unreferenced object.
    await repo.queueGc(this.d.db, [finalKey], this.d.limits.uploadStaleMs);
    try {
      await this.d.storage.copy(file.upload_key, finalKey);
      const committed = await this.d.db.transaction(async (trx) => {
        const bucket = await repo.lockBucket(trx, grant.bucket_id);
        if (bucket.locked) throw FilesErrors.bucketLocked();
        const cur = await repo.findFile(trx, grant.bucket_id, key, { forUpdate: true });
        if (!cur || cur.id !== file.id) throw FilesErrors.fileKeyNotFound(t.recordId, key);
        if (cur.status === 'completed') return { row: cur, fresh: false };
        // Why: the content may have been replaced by another upload since we read the entry.
        if (cur.upload_key !== file.upload_key)
          throw new AppError('conflict', 409, `File with key ${key} was re-uploaded during the commit; retry.`);
        // insertObject + markCompleted, then unqueueGc([finalKey]) + queueGc([upload key]).
        const row = await repo.completeWithObject(
          trx,
          cur.id,
          { id: objectId, storage_key: finalKey, size: file.upload_size!, checksum: file.upload_checksum! },
          randomUUID(),
        );
        await repo.swapGc(trx, [finalKey], [file.upload_key!]);
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

  // ── bucket operations (RPC and events) ─────────────────────────────────────────────────────

  /** Every entry of a bucket (an unknown bucket is empty and unlocked). */
  async manifest(bucketId: string, db: repo.Db = this.d.db): Promise<Manifest> {
    const { locked, files } = await repo.bucketWithFiles(db, bucketId);
    return { bucket_id: bucketId, locked, files };
  }

  /** Lock a bucket for good (idempotent): published records' files are immutable. */
  async lock(bucketId: string, db: repo.Db = this.d.db): Promise<Manifest> {
    await repo.setLocked(db, bucketId);
    return { bucket_id: bucketId, locked: true, files: await repo.listFiles(db, bucketId) };
  }

  /**
   * Lock a bucket only when it holds at least one entry and none is pending, checked and locked
   * in one transaction under the bucket's row lock (uploads and commits take it too); answers the
   * manifest, whose `locked` says whether it happened. An unknown bucket is answered empty and
   * unlocked, and is not created.
   */
  async lockIfComplete(bucketId: string): Promise<Manifest> {
    return this.d.db.transaction(async (trx) => {
      const bucket = await repo.lockExistingBucket(trx, bucketId);
      if (!bucket) return { bucket_id: bucketId, locked: false, files: [] };
      const files = await repo.listFiles(trx, bucketId);
      const complete = files.length > 0 && files.every((f) => f.status === 'completed');
      if (complete && !bucket.locked) await repo.setLocked(trx, bucketId);
      return { bucket_id: bucketId, locked: bucket.locked || complete, files };
    });
  }

  /** `lock` without reading the manifest back (event consumers need no answer). */
  async lockOnly(bucketId: string, db: repo.Db = this.d.db): Promise<void> {
    await repo.setLocked(db, bucketId);
  }

  /**
   * Link the committed files of `from` into the empty, unlocked bucket `to`: new entries (new
   * ids and version ids) referencing the same objects. No byte is copied.
   */
  async importFiles(from: string, to: string): Promise<Manifest> {
    if (from === to)
      throw new AppError('validation_error', 400, 'A validation error occurred.', {
        fieldErrors: [{ field: 'to_bucket_id', messages: ['Must differ from from_bucket_id.'] }],
      });
    return this.d.db.transaction(async (trx) => {
      const target = await repo.lockBucket(trx, to);
      if (target.locked) throw FilesErrors.bucketLocked();
      if ((await repo.countFiles(trx, to)) > 0) {
        throw new AppError('validation_error', 400, 'A validation error occurred.', {
          fieldErrors: [{ field: 'files.enabled', messages: ['Please remove all files first.'] }],
        });
      }
      const source = await repo.listCompletedForShare(trx, from);
      if (source.length === 0) {
        throw new AppError('validation_error', 400, 'A validation error occurred.', {
          fieldErrors: [{ field: 'files.enabled', messages: ['The record has no files.'] }],
        });
      }
      await repo.addRefs(trx, countBy(source.map((f) => f.object_id)));
      await repo.insertCopies(
        trx,
        to,
        source.map((f) => ({ ...f, newId: randomUUID(), newVersionId: randomUUID() })),
      );
      return this.manifest(to, trx);
    });
  }

  /** Drop a bucket with its entries; objects go when no other bucket references them. Locked buckets are refused. */
  async deleteBucket(bucketId: string): Promise<boolean> {
    const { existed, released } = await this.d.db.transaction((trx) => this.deleteBucketIn(trx, bucketId, { refuseLocked: true }));
    await this.d.gc.collect(released);
    return existed;
  }

  /** Delete a bucket inside `trx`; with `refuseLocked` a locked bucket is a 403, else it is kept and reported. */
  async deleteBucketIn(
    trx: Knex.Transaction,
    bucketId: string,
    opts: { refuseLocked: boolean },
  ): Promise<{ existed: boolean; released: string[]; skippedLocked: boolean }> {
    const bucket = await trx('buckets').select('id', 'locked').where({ id: bucketId }).forUpdate().first();
    if (!bucket) return { existed: false, released: [], skippedLocked: false };
    if (bucket.locked) {
      if (opts.refuseLocked) throw FilesErrors.bucketLocked();
      return { existed: true, released: [], skippedLocked: true };
    }
    const released = await this.dropEntries(trx, await repo.listFiles(trx, bucketId));
    await repo.deleteBucketRow(trx, bucketId);
    return { existed: true, released, skippedLocked: false };
  }

  /** Remove queued storage keys now (after the transaction that released them committed). */
  collect(keys: string[]): Promise<void> {
    return this.d.gc.collect(keys);
  }
}
