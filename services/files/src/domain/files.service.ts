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
 *
 * Why one file over 400 lines: every bucket operation with its authorization step, in one place so
 * that no path skips it; multipart transfers (multipart.ts), keys (keys.ts) and storage collection
 * (storage-gc.ts) are already apart.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, type Knex, type Logger, SYSTEM, isAppError, writeOutbox } from '@rdm/platform';
import * as repo from '../repo/files.repo.js';
import type { FileRow } from '../repo/files.repo.js';
import { type ObjectStorage, SizeLimitExceededError } from '../storage/index.js';
import type { AuthorizeOptions, BucketGrant, FilesAction, FilesAuthorizer, FilesTarget } from './authorizer.js';
import { FilesErrors } from './errors.js';
import { type InitItem, parseInitBody, parseUpdateBody } from './input.js';
import { keyProblem } from './keys.js';
import { isMultipart, MultipartTransfers, objectStorageKey, planMultipart } from './multipart.js';
import type { StorageGc } from './storage-gc.js';

export { objectStorageKey } from './multipart.js';

/** Limits of the files service. */
export interface FilesLimits {
  maxCount: number;
  maxRecordBytes: number;
  maxFileBytes: number;
  /** Delay before an unfinished upload's temporary object counts as abandoned (also a multipart upload's lifetime). */
  uploadStaleMs: number;
  /** Largest part of a multipart transfer (S3 reads a part into memory before sending it). */
  maxPartBytes: number;
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

/** Storage key of an upload's temporary object. */
export const uploadStorageKey = (id: string) => `uploads/${id}`;

const FILE_COMMITTED = 'rdm.files.file.committed' as const;

/** Did the upload fail because the client went away (not because storage failed)? */
export function isClientAbort(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return e?.message === 'aborted' || e?.code === 'ERR_STREAM_PREMATURE_CLOSE' || e?.code === 'ECONNABORTED';
}

/** An entry as `t` may see it: an edit draft's registrations are the draft's, not the record's. */
const visible = (f: FileRow | undefined, t: FilesTarget): FileRow | undefined =>
  f && (!f.draft_only || t.scope === 'draft') ? f : undefined;

const countBy = (ids: (string | null)[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const id of ids) if (id) m.set(id, (m.get(id) ?? 0) + 1);
  return m;
};

/** The files domain service. */
export class FilesService {
  private readonly multipart: MultipartTransfers;

  constructor(private readonly d: FilesServiceDeps) {
    this.multipart = new MultipartTransfers({
      db: d.db,
      storage: d.storage,
      gc: d.gc,
      uploadStaleMs: d.limits.uploadStaleMs,
      logger: d.logger,
    });
  }

  // ── authorization ───────────────────────────────────────────────────────────────────────────

  /**
   * Ask records for the grant. With a `key`, an unknown key is a 404 even when the caller may not
   * act (InvenioRDM checks the key before the permission): on a 403 the bucket is looked up as
   * the system identity to tell the two apart.
   */
  private async authorize(t: FilesTarget, action: FilesAction, key?: string, opts: AuthorizeOptions = {}): Promise<BucketGrant> {
    const base = {
      record_id: t.recordId,
      scope: t.scope,
      ...(t.token ? { access_token: t.token } : {}),
      ...(t.kind === 'media' ? { bucket: 'media' as const } : {}),
    };
    try {
      return await this.d.authorizer.authorize({ ...base, action, identity: { sub: t.identity.sub, roles: t.identity.roles } }, opts);
    } catch (err) {
      if (key !== undefined && isAppError(err) && err.status === 403) {
        let sys: BucketGrant | undefined;
        try {
          sys = await this.d.authorizer.authorize({ ...base, action: 'read', identity: { sub: SYSTEM.sub, roles: SYSTEM.roles } });
        } catch {
          throw err;
        }
        if (sys.enabled && !visible(await repo.findFile(this.d.db, sys.bucket_id, key), t))
          throw FilesErrors.fileKeyNotFound(t.recordId, key);
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
    const file = visible(await repo.findFile(this.d.db, grant.bucket_id, key), t);
    if (!file) throw FilesErrors.fileKeyNotFound(t.recordId, key);
    return { grant, file };
  }

  /**
   * `authorizeFile(t, 'update', key)` for a write: grant, entry (404 when missing) and the 403 when
   * records or our own bucket row says the bucket is locked, with the bucket's row read in the
   * same statement as the entry; `used` adds the bytes of the bucket's other entries. `queue`
   * registers a storage key in `storage_gc` in that same statement (one round trip less for the
   * upload and the commit, which must register the object they are about to write); when this
   * refuses, the key is unqueued again.
   */
  private async authorizeWrite(
    t: FilesTarget,
    key: string,
    used = false,
    registrationOk = false,
    queue?: { key: string; delayMs: number },
  ): Promise<FileResult & { usedByOthers: number }> {
    const problem = keyProblem(key);
    if (problem) throw FilesErrors.invalidKey(problem);
    // Why reuse: the entry must exist, so a grant records gave this identity moments ago (its init) will do.
    const grant = await this.authorize(t, 'update', key, { reuse: true });
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    const found = await repo.findFileForWrite(this.d.db, grant.bucket_id, key, { used, queue });
    try {
      if (!found || !visible(found.file, t)) throw FilesErrors.fileKeyNotFound(t.recordId, key);
      if ((grant.locked || found.bucketLocked) && !(registrationOk && found.file.draft_only)) throw FilesErrors.bucketLocked();
    } catch (err) {
      if (queue) await this.d.gc.collect([queue.key]);
      throw err;
    }
    return { grant, file: found.file, usedByOthers: found.usedByOthers };
  }

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

  // ── reads ───────────────────────────────────────────────────────────────────────────────────

  /** All entries of the draft/record (empty when files are disabled). */
  async list(t: FilesTarget): Promise<FilesResult> {
    const grant = await this.authorize(t, 'read', undefined, { listing: true });
    const files = grant.enabled ? await repo.listFiles(this.d.db, grant.bucket_id, { withDraftOnly: t.scope === 'draft' }) : [];
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

  /**
   * Register new pending entries (`POST …/draft/files`); returns every entry of the draft.
   * Multipart entries (`transfer.type` `M`) get their storage upload at once. On an edit draft
   * (records grants it `locked`: its bucket is the published record's), local-transfer keys are
   * accepted as InvenioRDM does — registered for the draft only (`draft_only`), never visible on
   * the record, and the content upload is what answers 403; a multipart init there is a 403
   * (InvenioRDM creates the object version at init).
   */
  async init(t: FilesTarget, body: unknown): Promise<FilesResult> {
    const items: InitItem[] = parseInitBody(body);
    const grant = await this.authorize(t, 'update');
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    const multipart = items.filter((i) => i.transfer.type === 'M');
    const plans = new Map(
      multipart.map((i) => [i.key, planMultipart(i, { engine: this.d.storage.kind, maxPartBytes: this.d.limits.maxPartBytes })]),
    );
    const draftOnly = grant.locked && t.scope === 'draft';
    if (grant.locked && (!draftOnly || multipart.length > 0)) throw FilesErrors.bucketLocked();
    const announced = [...plans.values()].reduce((n, p) => n + p.size, 0);
    if ([...plans.values()].some((p) => p.size > this.d.limits.maxFileBytes)) throw FilesErrors.fileSizeLimit();
    const uploads = await this.multipart.begin([...plans.keys()]);
    try {
      const files = await this.d.db.transaction(async (trx) => {
        const bucket = await repo.lockBucket(trx, grant.bucket_id);
        if (bucket.locked && !draftOnly) throw FilesErrors.bucketLocked();
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
        if (announced > 0 && (await repo.usedBytes(trx, grant.bucket_id)) + announced > this.d.limits.maxRecordBytes)
          throw FilesErrors.fileSizeLimit();
        // The entries adopt their storage uploads.
        await repo.unqueueGc(
          trx,
          [...uploads.values()].map((u) => u.key),
        );
        // Insert and the listing in one statement (the bucket's row is locked above).
        return repo.insertPendingAndList(
          trx,
          grant.bucket_id,
          items.map((i) => {
            const plan = plans.get(i.key);
            const up = uploads.get(i.key);
            return {
              id: randomUUID(),
              bucket_id: grant.bucket_id,
              key: i.key,
              metadata: i.metadata,
              access: i.access,
              transfer: plan ? { type: 'M', parts: plan.parts, part_size: plan.partSize } : { type: i.transfer.type },
              ...(plan && up ? { multipart: { key: up.key, uploadId: up.uploadId, size: plan.size } } : {}),
              draftOnly,
            };
          }),
          { withDraftOnly: t.scope === 'draft' },
        );
      });
      return { grant, files };
    } catch (err) {
      await this.multipart.abort([...uploads.values()]);
      throw err;
    }
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

  /** Delete one entry (`DELETE …/draft/files/<key>`); an edit draft's registration goes even though the bucket is locked. */
  async remove(t: FilesTarget, key: string): Promise<void> {
    const { grant } = await this.authorizeWrite(t, key, false, true);
    const released = await this.d.db.transaction(async (trx) => {
      const bucket = await repo.lockBucket(trx, grant.bucket_id);
      const cur = await repo.findFile(trx, grant.bucket_id, key, { forUpdate: true });
      if (!cur) throw FilesErrors.fileKeyNotFound(t.recordId, key);
      if (bucket.locked && !cur.draft_only) throw FilesErrors.bucketLocked();
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
      return this.dropEntries(trx, await repo.listFiles(trx, grant.bucket_id, { withDraftOnly: true }));
    });
    await this.d.gc.collect(released);
  }

  /** Delete entries, drop their object references and queue what storage can forget (multipart uploads are aborted). */
  private async dropEntries(trx: Knex.Transaction, files: FileRow[]): Promise<repo.GcItem[]> {
    await repo.deleteFiles(
      trx,
      files.map((f) => f.id),
    );
    const released: repo.GcItem[] = await repo.releaseRefs(trx, countBy(files.map((f) => f.object_id)));
    for (const f of files) {
      if (f.multipart_key && f.multipart_upload_id) released.push({ key: f.multipart_key, uploadId: f.multipart_upload_id });
      // A multipart entry being assembled has upload_key = multipart_key: the item above covers it.
      if (f.upload_key && f.upload_key !== f.multipart_key) released.push(f.upload_key);
    }
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
    const { maxFileBytes, maxRecordBytes, uploadStaleMs } = this.d.limits;
    const tmpKey = uploadStorageKey(randomUUID());
    // Why queued with the pre-check: if this process dies mid-upload, the janitor removes the temporary object later.
    const { grant, file, usedByOthers: used } = await this.authorizeWrite(t, key, true, false, { key: tmpKey, delayMs: uploadStaleMs });
    const limit = Math.min(maxFileBytes, maxRecordBytes - used);
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
        // Why a statement of its own after the lock: the budget must count what others committed meanwhile.
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

  /** Store one part of a multipart entry (`PUT …/content/<part>`); answers the entry, still `pending`. */
  async uploadPart(t: FilesTarget, key: string, part: number, body: Readable, contentLength?: number): Promise<FileResult> {
    const { grant, file } = await this.authorizeWrite(t, key);
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
    const { grant, file } = await this.authorizeWrite(t, key, false, false, { key: finalKey, delayMs: this.d.limits.uploadStaleMs });
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
   * Lock a bucket only when it holds at least one entry (unless `allowEmpty`: media buckets may
   * be empty) and none is pending, checked and locked in one transaction under the bucket's row
   * lock (uploads and commits take it too); answers the manifest, whose `locked` says whether it
   * happened. An unknown bucket is answered empty and unlocked, and is not created — unless
   * `allowEmpty`, where it is created locked.
   */
  async lockIfComplete(bucketId: string, opts: { allowEmpty?: boolean } = {}): Promise<Manifest> {
    return this.d.db.transaction(async (trx) => {
      const bucket = opts.allowEmpty ? await repo.lockBucket(trx, bucketId) : await repo.lockExistingBucket(trx, bucketId);
      if (!bucket) return { bucket_id: bucketId, locked: false, files: [] };
      const files = await repo.listFiles(trx, bucketId);
      const complete = (files.length > 0 || opts.allowEmpty === true) && files.every((f) => f.status === 'completed');
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
   * ids and version ids) referencing the same objects. No byte is copied. `allowEmpty` (an edit
   * draft's copy of its record's media files) accepts a source without files.
   */
  async importFiles(from: string, to: string, opts: { allowEmpty?: boolean } = {}): Promise<Manifest> {
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
      if (source.length === 0 && opts.allowEmpty) return this.manifest(to, trx);
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

  /**
   * Delete a bucket inside `trx`; with `refuseLocked` a locked bucket is a 403, else it is kept
   * and reported — unless `force` (a media bucket a publication superseded: nothing refers to it).
   */
  async deleteBucketIn(
    trx: Knex.Transaction,
    bucketId: string,
    opts: { refuseLocked: boolean; force?: boolean },
  ): Promise<{ existed: boolean; released: repo.GcItem[]; skippedLocked: boolean }> {
    const bucket = await trx('buckets').select('id', 'locked').where({ id: bucketId }).forUpdate().first();
    if (!bucket) return { existed: false, released: [], skippedLocked: false };
    if (bucket.locked && !opts.force) {
      if (opts.refuseLocked) throw FilesErrors.bucketLocked();
      return { existed: true, released: [], skippedLocked: true };
    }
    const released = await this.dropEntries(trx, await repo.listFiles(trx, bucketId, { withDraftOnly: true }));
    await repo.deleteBucketRow(trx, bucketId);
    return { existed: true, released, skippedLocked: false };
  }

  /** Drop the keys an edit draft registered in its record's locked bucket (the edit was published or discarded). */
  dropRegistrations(trx: Knex.Transaction, bucketId: string): Promise<number> {
    return repo.deleteDraftOnly(trx, bucketId);
  }

  /** Forget the remembered grants of record/draft `recordId` (event consumers: published, deleted). */
  forgetGrants(recordId: string): void {
    this.d.authorizer.forget?.(recordId);
  }

  /** `lockOnly` of every bucket of `lock` and `dropRegistrations(bucketId)`, in one statement (publication consumer). */
  lockAndDropRegistrations(trx: Knex.Transaction, lock: string[], bucketId: string): Promise<void> {
    return repo.lockAndDropRegistrations(trx, lock, bucketId);
  }

  /** Remove queued storage keys now (after the transaction that released them committed). */
  collect(keys: repo.GcItem[]): Promise<void> {
    return this.d.gc.collect(keys);
  }
}
