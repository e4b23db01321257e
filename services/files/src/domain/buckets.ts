/**
 * Bucket operations of the files domain that records drives (RPC and its events): manifests,
 * locking, importing a version's files, deleting buckets, and dropping entries with their object
 * references (`dropEntries`, also used by the entry deletions and a failed upload). No
 * authorization here: records asked for these itself. Use it through `FilesService`.
 */
import { randomUUID } from 'node:crypto';
import { AppError, type Knex } from '@rdm/platform';
import * as repo from '../repo/files.repo.js';
import type { FileRow } from '../repo/files.repo.js';
import { FilesErrors } from './errors.js';
import type { FilesServiceDeps, Manifest } from './files.types.js';

const countBy = (ids: (string | null)[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const id of ids) if (id) m.set(id, (m.get(id) ?? 0) + 1);
  return m;
};

/** Buckets as records drives them, and the release of entries' objects. */
export class Buckets {
  constructor(private readonly d: Pick<FilesServiceDeps, 'db' | 'gc'>) {}

  /** Delete entries, drop their object references and queue what storage can forget (multipart uploads are aborted). */
  async dropEntries(trx: Knex.Transaction, files: FileRow[]): Promise<repo.GcItem[]> {
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

  /** `lockOnly` of every bucket of `lock` and `dropRegistrations(bucketId)`, in one statement (publication consumer). */
  lockAndDropRegistrations(trx: Knex.Transaction, lock: string[], bucketId: string): Promise<void> {
    return repo.lockAndDropRegistrations(trx, lock, bucketId);
  }

  /** Remove queued storage keys now (after the transaction that released them committed). */
  collect(keys: repo.GcItem[]): Promise<void> {
    return this.d.gc.collect(keys);
  }
}
