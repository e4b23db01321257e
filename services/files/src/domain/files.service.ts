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
 * The parts: `files.access.ts` (records' grant and the entry acted on: every HTTP path goes
 * through it), `transfers.ts` (uploads, parts, commits), `buckets.ts` (what records drives over
 * RPC and events: manifests, locks, imports, deletions), multipart.ts, keys.ts, storage-gc.ts.
 * This class keeps the entry operations (list, read, register, update, delete) and is the one
 * entry point the HTTP routes, the RPC handlers and the consumers use.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Knex } from '@rdm/platform';
import * as repo from '../repo/files.repo.js';
import type { FilesTarget } from './authorizer.js';
import { Buckets } from './buckets.js';
import { FilesErrors } from './errors.js';
import { FilesAccess } from './files.access.js';
import type { FileResult, FilesResult, FilesServiceDeps, Manifest } from './files.types.js';
import { type InitItem, parseInitBody, parseUpdateBody } from './input.js';
import { MultipartTransfers, planMultipart } from './multipart.js';
import { FileTransfers } from './transfers.js';

import { FileImports, type ImportedFile, type ImportResult } from './imports.js';

export type { ImportedFile, ImportResult } from './imports.js';
export type { FileResult, FilesLimits, FilesResult, FilesServiceDeps, Manifest } from './files.types.js';
export { objectStorageKey } from './multipart.js';
export { isClientAbort, uploadStorageKey } from './transfers.js';

/** The files domain service. */
export class FilesService {
  private readonly multipart: MultipartTransfers;
  private readonly access: FilesAccess;
  private readonly buckets: Buckets;
  private readonly transfers: FileTransfers;
  private readonly imports: FileImports;

  constructor(private readonly d: FilesServiceDeps) {
    this.multipart = new MultipartTransfers({
      db: d.db,
      storage: d.storage,
      gc: d.gc,
      uploadStaleMs: d.limits.uploadStaleMs,
      logger: d.logger,
    });
    this.access = new FilesAccess(d);
    this.buckets = new Buckets(d);
    this.transfers = new FileTransfers(d, this.access, this.buckets, this.multipart);
    this.imports = new FileImports(d, this.buckets);
  }

  /** `FileImports.importFile`: the administrator-only import of a file's bytes (issue 26). */
  importFile(f: ImportedFile, body: Readable): Promise<ImportResult> {
    return this.imports.importFile(f, body);
  }

  // ── reads ───────────────────────────────────────────────────────────────────────────────────

  /** All entries of the draft/record (empty when files are disabled). */
  async list(t: FilesTarget): Promise<FilesResult> {
    const grant = await this.access.authorize(t, 'read', undefined, { listing: true });
    const files = grant.enabled ? await repo.listFiles(this.d.db, grant.bucket_id, { withDraftOnly: t.scope === 'draft' }) : [];
    return { grant, files };
  }

  /** Every entry with the grant and the record's descriptive metadata (IIIF manifests: src/iiif/). */
  async listWithMetadata(t: FilesTarget): Promise<FilesResult> {
    const grant = await this.access.authorize(t, 'read', undefined, { listing: true, metadata: true });
    const files = grant.enabled ? await repo.listFiles(this.d.db, grant.bucket_id, { withDraftOnly: t.scope === 'draft' }) : [];
    return { grant, files };
  }

  /** Committed entries for a zip archive. */
  async archive(t: FilesTarget): Promise<FilesResult> {
    const grant = await this.access.authorize(t, 'read');
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    const files = (await repo.listFiles(this.d.db, grant.bucket_id)).filter((f) => f.status === 'completed');
    return { grant, files };
  }

  /** One entry. */
  read(t: FilesTarget, key: string): Promise<FileResult> {
    return this.access.authorizeFile(t, 'read', key);
  }

  /** A committed entry whose content is about to be downloaded. */
  async content(t: FilesTarget, key: string): Promise<FileResult & { storageKey: string }> {
    const r = await this.access.authorizeFile(t, 'read', key);
    if (r.file.status !== 'completed' || !r.file.storage_key) throw FilesErrors.noContent(key);
    return { ...r, storageKey: r.file.storage_key };
  }

  /** Open the content of a committed entry (optionally a byte range). */
  openContent(storageKey: string, range?: { start: number; end: number }): Promise<Readable> {
    return this.d.storage.get(storageKey, range);
  }

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
    const grant = await this.access.authorize(t, 'update');
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
        const quota = bucket.quota_bytes ?? this.d.limits.maxRecordBytes;
        if (announced > 0 && (await repo.usedBytes(trx, grant.bucket_id)) + announced > quota) throw FilesErrors.fileSizeLimit();
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
    const { grant } = await this.access.authorizeWrite(t, key);
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
    const { grant } = await this.access.authorizeWrite(t, key, false, true);
    const released = await this.d.db.transaction(async (trx) => {
      const bucket = await repo.lockBucket(trx, grant.bucket_id);
      const cur = await repo.findFile(trx, grant.bucket_id, key, { forUpdate: true });
      if (!cur) throw FilesErrors.fileKeyNotFound(t.recordId, key);
      if (bucket.locked && !cur.draft_only) throw FilesErrors.bucketLocked();
      return this.buckets.dropEntries(trx, [cur]);
    });
    await this.d.gc.collect(released);
  }

  /** Delete every entry of the draft (`DELETE …/draft/files`). */
  async removeAll(t: FilesTarget): Promise<void> {
    const grant = await this.access.authorize(t, 'update');
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    if (grant.locked) throw FilesErrors.bucketLocked();
    const released = await this.d.db.transaction(async (trx) => {
      const bucket = await repo.lockBucket(trx, grant.bucket_id);
      if (bucket.locked) throw FilesErrors.bucketLocked();
      return this.buckets.dropEntries(trx, await repo.listFiles(trx, grant.bucket_id, { withDraftOnly: true }));
    });
    await this.d.gc.collect(released);
  }

  // ── transfers (transfers.ts) ───────────────────────────────────────────────────────────────

  /** `FileTransfers.upload`: stream a pending entry's content into storage (`PUT …/content`). */
  upload(t: FilesTarget, key: string, body: Readable, contentLength?: number): Promise<FileResult> {
    return this.transfers.upload(t, key, body, contentLength);
  }

  /** `FileTransfers.uploadPart`: one part of a multipart entry (`PUT …/content/<part>`). */
  uploadPart(t: FilesTarget, key: string, part: number, body: Readable, contentLength?: number): Promise<FileResult> {
    return this.transfers.uploadPart(t, key, part, body, contentLength);
  }

  /** `FileTransfers.commit`: complete an uploaded entry (`POST …/commit`). */
  commit(t: FilesTarget, key: string): Promise<FileResult> {
    return this.transfers.commit(t, key);
  }

  // ── bucket operations (buckets.ts; RPC and events) ─────────────────────────────────────────

  /** `Buckets.manifest`. */
  manifest(bucketId: string, db?: repo.Db): Promise<Manifest> {
    return this.buckets.manifest(bucketId, db);
  }

  /** `Buckets.lock`. */
  lock(bucketId: string, db?: repo.Db): Promise<Manifest> {
    return this.buckets.lock(bucketId, db);
  }

  /** `Buckets.lockIfComplete`. */
  lockIfComplete(bucketId: string, opts: { allowEmpty?: boolean } = {}): Promise<Manifest> {
    return this.buckets.lockIfComplete(bucketId, opts);
  }

  /** `Buckets.lockOnly`. */
  lockOnly(bucketId: string, db?: repo.Db): Promise<void> {
    return this.buckets.lockOnly(bucketId, db);
  }

  /** `Buckets.importFiles`. */
  importFiles(from: string, to: string, opts: { allowEmpty?: boolean } = {}): Promise<Manifest> {
    return this.buckets.importFiles(from, to, opts);
  }

  /** `Buckets.deleteBucket`. */
  deleteBucket(bucketId: string): Promise<boolean> {
    return this.buckets.deleteBucket(bucketId);
  }

  /** `Buckets.deleteBucketIn`. */
  deleteBucketIn(
    trx: Knex.Transaction,
    bucketId: string,
    opts: { refuseLocked: boolean; force?: boolean },
  ): Promise<{ existed: boolean; released: repo.GcItem[]; skippedLocked: boolean }> {
    return this.buckets.deleteBucketIn(trx, bucketId, opts);
  }

  /** `Buckets.dropRegistrations`. */
  dropRegistrations(trx: Knex.Transaction, bucketId: string): Promise<number> {
    return this.buckets.dropRegistrations(trx, bucketId);
  }

  /** `FilesAccess.forgetGrants`. */
  forgetGrants(recordId: string): void {
    this.access.forgetGrants(recordId);
  }

  /** `Buckets.lockAndDropRegistrations`. */
  lockAndDropRegistrations(trx: Knex.Transaction, lock: string[], bucketId: string): Promise<void> {
    return this.buckets.lockAndDropRegistrations(trx, lock, bucketId);
  }

  /** `Buckets.collect`. */
  collect(keys: repo.GcItem[]): Promise<void> {
    return this.buckets.collect(keys);
  }
}
