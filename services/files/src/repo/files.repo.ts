/**
 * SQL of the files service: buckets, file entries, refcounted objects and the storage garbage
 * queue. Every function takes a `Knex` or a transaction; the service decides the boundaries.
 *
 * Why one file over 400 lines: it is the one owner of the files schema's SQL (buckets, entries,
 * refcounted objects, the garbage queue); splitting it would give tables two owners again.
 */
import { type Knex, prepared } from '@rdm/platform';

/** A pool or a transaction. */
export type Db = Knex | Knex.Transaction;

/** Status of a file entry. */
export type FileStatus = 'pending' | 'completed';

/** A file entry joined with its object (when committed). */
export interface FileRow {
  id: string;
  bucket_id: string;
  key: string;
  status: FileStatus;
  object_id: string | null;
  version_id: string | null;
  metadata: Record<string, unknown> | null;
  access: { hidden: boolean };
  transfer: { type: string; parts?: number; part_size?: number };
  upload_key: string | null;
  upload_size: number | null;
  upload_checksum: string | null;
  /** Multipart transfer: the storage key the upload assembles into, and its upload id. */
  multipart_key: string | null;
  multipart_upload_id: string | null;
  /** Size announced at init (multipart transfers). */
  declared_size: number | null;
  /** A key registered on an edit draft (locked bucket): shown to the draft only, never given content. */
  draft_only: boolean;
  revision: number;
  created: string;
  updated: string;
  /** Object size (committed files). */
  size: number | null;
  /** `md5:<hex>` (committed files). */
  checksum: string | null;
  /** Storage key of the object (committed files). */
  storage_key: string | null;
}

/** A bucket row. */
export interface BucketRow {
  id: string;
  locked: boolean;
  /** The bucket's own byte quota (an accepted quota-increase); null: the configured default. */
  quota_bytes: number | null;
}

/** A content object. */
export interface ObjectRow {
  id: string;
  storage_key: string;
  size: number;
  checksum: string;
  refcount: number;
}

// Why: InvenioRDM timestamps carry microseconds and `+00:00`; JS Dates would drop the microseconds.
const ts = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;

const FILE_COLUMNS = `f.id, f.bucket_id, f.key, f.status, f.object_id, f.version_id, f.metadata, f.access, f.transfer,
  f.upload_key, f.upload_size, f.upload_checksum, f.multipart_key, f.multipart_upload_id, f.declared_size, f.draft_only,
  f.revision, ${ts('f.created')} AS created, ${ts('f.updated')} AS updated, o.size, o.checksum, o.storage_key`;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toFile(r: Record<string, unknown>): FileRow {
  return {
    ...(r as unknown as FileRow),
    upload_size: num(r.upload_size),
    declared_size: num(r.declared_size),
    draft_only: r.draft_only === true,
    size: num(r.size),
    revision: Number(r.revision),
  };
}

// Statements below run as prepared statements (`prepared`: planned once per connection) when
// their text is fixed; every WHERE/suffix passed to selectFiles is a constant.
async function selectFiles(db: Db, where: string, bindings: unknown[], suffix = ''): Promise<FileRow[]> {
  const res = await prepared(
    db,
    `SELECT ${FILE_COLUMNS} FROM files f LEFT JOIN objects o ON o.id = f.object_id WHERE ${where} ${suffix}`,
    bindings,
  );
  return (res.rows as Record<string, unknown>[]).map(toFile);
}

/**
 * Files of a bucket, in creation (insertion) order. Keys registered on an edit draft
 * (`draft_only`) belong to the draft, not to the bucket's record: only with `withDraftOnly`.
 */
export function listFiles(db: Db, bucketId: string, opts: { withDraftOnly?: boolean } = {}): Promise<FileRow[]> {
  return opts.withDraftOnly
    ? selectFiles(db, 'f.bucket_id = ?', [bucketId], 'ORDER BY f.seq')
    : selectFiles(db, 'f.bucket_id = ? AND NOT f.draft_only', [bucketId], 'ORDER BY f.seq');
}

/**
 * A bucket's `locked` flag and its files (as `getBucket` + `listFiles`); one statement when the
 * bucket has files, two when it has none (the flag is then read on its own).
 */
export async function bucketWithFiles(db: Db, bucketId: string): Promise<{ locked: boolean; files: FileRow[] }> {
  const res = await prepared(
    db,
    `SELECT ${FILE_COLUMNS}, b.locked AS bucket_locked
       FROM files f LEFT JOIN objects o ON o.id = f.object_id LEFT JOIN buckets b ON b.id = f.bucket_id
      WHERE f.bucket_id = ? AND NOT f.draft_only ORDER BY f.seq`,
    [bucketId],
  );
  const rows = res.rows as Record<string, unknown>[];
  if (rows.length === 0) return { locked: (await getBucket(db, bucketId))?.locked ?? false, files: [] };
  const locked = rows[0].bucket_locked === true;
  return {
    locked,
    files: rows.map(({ bucket_locked: _b, ...r }) => toFile(r)),
  };
}

/** One file by key (optionally row-locked). */
export async function findFile(db: Db, bucketId: string, key: string, opts: { forUpdate?: boolean } = {}): Promise<FileRow | undefined> {
  const rows = await selectFiles(db, 'f.bucket_id = ? AND f.key = ?', [bucketId, key], opts.forUpdate ? 'FOR UPDATE OF f' : '');
  return rows[0];
}

/** A file with what a write needs to know about its bucket (see findFileForWrite). */
export interface FileForWrite {
  file: FileRow;
  /** The bucket row says locked. */
  bucketLocked: boolean;
  /** Bytes of the bucket's other entries (committed sizes plus uploaded-but-uncommitted sizes); only with `used`. */
  usedByOthers: number;
  /** The bucket's own byte quota; null: the configured default. */
  bucketQuota: number | null;
}

/**
 * One file by key together with its bucket's `locked` flag and, with `used`, the bytes of the
 * bucket's other entries (as `usedBytes(db, bucket, file.id)`), in ONE statement: every write
 * route needs these three answers and each statement is a round trip. `forUpdate` row-locks the
 * file entry only; `lockBucket` row-locks the bucket and then the entry (`FOR UPDATE OF b, f`:
 * PostgreSQL takes the row locks in that order, the order of `lockBucket` + `findFile` that every
 * other writer follows), as those two statements did; no entry means nothing was locked.
 * `queue` also puts a storage key into `storage_gc` (as `queueGc(db, [key], delayMs)`) in the
 * same statement: the write about to store an object registers it before it exists.
 */
export async function findFileForWrite(
  db: Db,
  bucketId: string,
  key: string,
  opts: { forUpdate?: boolean; lockBucket?: boolean; used?: boolean; queue?: { key: string; delayMs: number } } = {},
): Promise<FileForWrite | undefined> {
  const used = opts.used
    ? `(SELECT COALESCE(SUM(COALESCE(o2.size, f2.upload_size, f2.declared_size, 0)), 0) FROM files f2 LEFT JOIN objects o2 ON o2.id = f2.object_id
         WHERE f2.bucket_id = f.bucket_id AND f2.id <> f.id)`
    : '0';
  const queue = opts.queue
    ? `WITH queued AS (INSERT INTO storage_gc (storage_key, not_before) VALUES (?, now() + (? || ' milliseconds')::interval)
         ON CONFLICT (storage_key) DO UPDATE SET not_before = LEAST(storage_gc.not_before, excluded.not_before)) `
    : '';
  // Why an inner join to lock the bucket: FOR UPDATE cannot lock the nullable side of an outer join.
  const from = opts.lockBucket
    ? 'files f JOIN buckets b ON b.id = f.bucket_id LEFT JOIN objects o ON o.id = f.object_id'
    : 'files f LEFT JOIN objects o ON o.id = f.object_id LEFT JOIN buckets b ON b.id = f.bucket_id';
  const lock = opts.lockBucket ? 'FOR UPDATE OF b, f' : opts.forUpdate ? 'FOR UPDATE OF f' : '';
  const res = await prepared(
    db,
    `${queue}SELECT ${FILE_COLUMNS}, COALESCE(b.locked, false) AS bucket_locked, b.quota_bytes AS bucket_quota, ${used} AS used_by_others
       FROM ${from} WHERE f.bucket_id = ? AND f.key = ? ${lock}`,
    [...(opts.queue ? [opts.queue.key, String(Math.max(0, Math.floor(opts.queue.delayMs)))] : []), bucketId, key],
  );
  const r = res.rows[0] as Record<string, unknown> | undefined;
  if (!r) return undefined;
  const { bucket_locked, used_by_others, bucket_quota, ...rest } = r;
  return {
    file: toFile(rest),
    bucketLocked: bucket_locked === true,
    usedByOthers: Number(used_by_others),
    bucketQuota: quotaOf(bucket_quota),
  };
}

const quotaOf = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const bucketRow = (r: Record<string, unknown> | undefined): BucketRow | undefined =>
  r ? { id: String(r.id), locked: r.locked === true, quota_bytes: quotaOf(r.quota_bytes) } : undefined;

/** A bucket, or undefined. */
export async function getBucket(db: Db, id: string): Promise<BucketRow | undefined> {
  return bucketRow((await prepared(db, 'SELECT id, locked, quota_bytes FROM buckets WHERE id = ?', [id])).rows[0]);
}

/**
 * Raise a bucket's quota to at least `bytes` (creating the bucket when missing); answers the
 * quota now in force. Idempotent: a second application, or a smaller ask, changes nothing.
 */
export async function raiseQuota(db: Db, id: string, bytes: number): Promise<number> {
  const res = await prepared(
    db,
    `INSERT INTO buckets (id, quota_bytes) VALUES (?, ?)
     ON CONFLICT (id) DO UPDATE SET quota_bytes = GREATEST(COALESCE(buckets.quota_bytes, 0), excluded.quota_bytes)
     RETURNING quota_bytes`,
    [id, bytes],
  );
  return Number(res.rows[0].quota_bytes);
}

/** Lock an existing bucket's row for the transaction; undefined when there is no such bucket. */
export async function lockExistingBucket(trx: Knex.Transaction, id: string): Promise<BucketRow | undefined> {
  return bucketRow((await prepared(trx, 'SELECT id, locked, quota_bytes FROM buckets WHERE id = ? FOR UPDATE', [id])).rows[0]);
}

/**
 * Lock a bucket's row for the transaction, creating the bucket when missing; returns it.
 * One statement either way: the insert (nothing when the row exists) and the locking select run
 * under one snapshot, so exactly one of them answers — the insert for a new bucket (a row we
 * inserted stays ours until commit), the select for an existing one. Only when a concurrent
 * transaction inserted the id and committed while we waited does neither see it: then the
 * select alone, again.
 */
export async function lockBucket(trx: Knex.Transaction, id: string): Promise<BucketRow> {
  const both = await prepared(
    trx,
    `WITH ins AS (INSERT INTO buckets (id) VALUES (?) ON CONFLICT (id) DO NOTHING RETURNING id, locked, quota_bytes),
          sel AS (SELECT id, locked, quota_bytes FROM buckets WHERE id = ? FOR UPDATE)
     SELECT id, locked, quota_bytes FROM ins UNION ALL SELECT id, locked, quota_bytes FROM sel`,
    [id, id],
  );
  const found = bucketRow(both.rows[0]);
  if (found) return found;
  return bucketRow((await prepared(trx, 'SELECT id, locked, quota_bytes FROM buckets WHERE id = ? FOR UPDATE', [id])).rows[0]) as BucketRow;
}

/** Mark a bucket locked (creating it when missing). Idempotent. */
export async function setLocked(db: Db, id: string): Promise<void> {
  await prepared(
    db,
    `INSERT INTO buckets (id, locked) VALUES (?, true)
     ON CONFLICT (id) DO UPDATE SET locked = true, updated = CASE WHEN buckets.locked THEN buckets.updated ELSE now() END`,
    [id],
  );
}

/** Delete a bucket row (its file rows cascade; release their objects first). */
export async function deleteBucketRow(db: Db, id: string): Promise<boolean> {
  return (await db('buckets').where({ id }).del()) > 0;
}

/** Number of entries of a bucket and which of `keys` it already holds, in one statement. */
export async function bucketKeys(db: Db, bucketId: string, keys: string[]): Promise<{ count: number; existing: string[] }> {
  const res = await prepared(
    db,
    'SELECT count(*) AS n, COALESCE(array_agg(key ORDER BY key) FILTER (WHERE key = ANY(?::text[])), ?::text[]) AS existing FROM files WHERE bucket_id = ?',
    [keys, [], bucketId],
  );
  const r = res.rows[0] as { n: string; existing: string[] };
  return { count: Number(r.n), existing: r.existing ?? [] };
}

/** Keys among `keys` that already exist in the bucket. */
export async function existingKeys(db: Db, bucketId: string, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows: { key: string }[] = await db('files').select('key').where({ bucket_id: bucketId }).whereIn('key', keys);
  return rows.map((r) => r.key);
}

/** Number of file entries in a bucket. */
export async function countFiles(db: Db, bucketId: string): Promise<number> {
  const row = await db('files').where({ bucket_id: bucketId }).count<{ n: string }[]>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Bytes a bucket holds or is about to hold: committed sizes plus uploaded-but-uncommitted sizes, except file `exceptId`. */
export async function usedBytes(db: Db, bucketId: string, exceptId?: string): Promise<number> {
  const res = await db.raw(
    `SELECT COALESCE(SUM(COALESCE(o.size, f.upload_size, f.declared_size, 0)), 0) AS n
       FROM files f LEFT JOIN objects o ON o.id = f.object_id
      WHERE f.bucket_id = ? AND (?::uuid IS NULL OR f.id <> ?::uuid)`,
    [bucketId, exceptId ?? null, exceptId ?? null],
  );
  return Number(res.rows[0].n);
}

/** New pending entries. */
export interface NewFile {
  id: string;
  bucket_id: string;
  key: string;
  metadata: Record<string, unknown> | null;
  access: { hidden: boolean };
  transfer: { type: string; parts?: number; part_size?: number };
  multipart?: { key: string; uploadId: string; size: number };
  draftOnly?: boolean;
}

/** Columns of `files` a listing reads (FILE_COLUMNS' `f.*` part), for statements that union new rows in. */
const ROW_COLUMNS = `id, seq, bucket_id, key, status, object_id, version_id, metadata, access, transfer, upload_key, upload_size,
  upload_checksum, multipart_key, multipart_upload_id, declared_size, draft_only, revision, created, updated`;

/**
 * Insert pending entries into `bucketId` and answer its listing (as an insert + `listFiles`)
 * in ONE statement. Only under the bucket's row lock (`lockBucket`): the listing is the rows
 * the statement's snapshot sees plus the inserted ones, which is the whole bucket only while no
 * other transaction can add entries to it. Why: every deposit's init did both.
 */
export async function insertPendingAndList(
  trx: Knex.Transaction,
  bucketId: string,
  files: NewFile[],
  opts: { withDraftOnly?: boolean } = {},
): Promise<FileRow[]> {
  const col = <T>(pick: (f: NewFile) => T) => files.map(pick);
  const res = await prepared(
    trx,
    `WITH ins AS (
       INSERT INTO files (id, bucket_id, key, status, metadata, access, transfer, multipart_key, multipart_upload_id, declared_size, draft_only)
       SELECT x.id, ?, x.key, 'pending', x.metadata, x.access, x.transfer, x.multipart_key, x.multipart_upload_id, x.declared_size, x.draft_only
         FROM unnest(?::uuid[], ?::text[], ?::jsonb[], ?::jsonb[], ?::jsonb[], ?::text[], ?::text[], ?::bigint[], ?::boolean[])
              WITH ORDINALITY AS x(id, key, metadata, access, transfer, multipart_key, multipart_upload_id, declared_size, draft_only, n)
        ORDER BY x.n
       RETURNING ${ROW_COLUMNS})
     SELECT ${FILE_COLUMNS}
       FROM (SELECT ${ROW_COLUMNS} FROM files WHERE bucket_id = ? UNION ALL SELECT ${ROW_COLUMNS} FROM ins) f
       LEFT JOIN objects o ON o.id = f.object_id
      WHERE ? OR NOT f.draft_only
      ORDER BY f.seq`,
    [
      bucketId,
      col((f) => f.id),
      col((f) => f.key),
      col((f) => (f.metadata === null ? null : JSON.stringify(f.metadata))),
      col((f) => JSON.stringify(f.access)),
      col((f) => JSON.stringify(f.transfer)),
      col((f) => f.multipart?.key ?? null),
      col((f) => f.multipart?.uploadId ?? null),
      col((f) => f.multipart?.size ?? null),
      col((f) => f.draftOnly === true),
      bucketId,
      opts.withDraftOnly === true,
    ],
  );
  return (res.rows as Record<string, unknown>[]).map(toFile);
}

/** Mark a multipart entry as being assembled into `key` (its `upload_key`). */
export async function markAssembling(db: Db, fileId: string, key: string): Promise<void> {
  await prepared(db, 'UPDATE files SET upload_key = ?, updated = now() WHERE id = ?', [key, fileId]);
}

/** Attach uploaded (uncommitted) content to a pending entry. */
export async function setUpload(db: Db, fileId: string, upload: { key: string; size: number; checksum: string }): Promise<void> {
  await db('files')
    .where({ id: fileId })
    .update({
      upload_key: upload.key,
      upload_size: upload.size,
      upload_checksum: upload.checksum,
      updated: db.fn.now(),
      revision: db.raw('revision + 1'),
    });
}

// RETURNING form of a file row updated in place (its object looked up, as the join would).
const RETURNED_FILE = `files.id, files.bucket_id, files.key, files.status, files.object_id, files.version_id, files.metadata, files.access,
  files.transfer, files.upload_key, files.upload_size, files.upload_checksum, files.multipart_key, files.multipart_upload_id,
  files.declared_size, files.draft_only, files.revision,
  ${ts('files.created')} AS created, ${ts('files.updated')} AS updated,
  (SELECT o.size FROM objects o WHERE o.id = files.object_id) AS size,
  (SELECT o.checksum FROM objects o WHERE o.id = files.object_id) AS checksum,
  (SELECT o.storage_key FROM objects o WHERE o.id = files.object_id) AS storage_key`;

/**
 * `setUpload` + `unqueueGc([upload.key])` in one statement (the upload adopts its temporary
 * object); returns the updated entry.
 */
export async function attachUpload(db: Db, fileId: string, upload: { key: string; size: number; checksum: string }): Promise<FileRow> {
  const res = await prepared(
    db,
    `WITH adopted AS (DELETE FROM storage_gc WHERE storage_key = ?)
     UPDATE files SET upload_key = ?, upload_size = ?, upload_checksum = ?, updated = now(), revision = revision + 1
      WHERE id = ? RETURNING ${RETURNED_FILE}`,
    [upload.key, upload.key, upload.size, upload.checksum, fileId],
  );
  return toFile(res.rows[0] as Record<string, unknown>);
}

/**
 * `insertObject` + `markCompleted` in one statement: the object (refcount 1) and the entry
 * pointing at it; returns the completed entry. With `gc`, `unqueueGc(gc.adopt)` + `queueGc(gc.release)`
 * (due now) run in the same statement (the object's key adopted, the upload's released; the
 * lists must not overlap).
 */
export async function completeWithObject(
  db: Db,
  fileId: string,
  o: Omit<ObjectRow, 'refcount'>,
  versionId: string,
  gc?: { adopt: string[]; release: string[] },
): Promise<FileRow> {
  const swap = gc
    ? `, adopted AS (DELETE FROM storage_gc WHERE storage_key = ANY(?::text[])),
       released AS (INSERT INTO storage_gc (storage_key, not_before) SELECT k, now() FROM unnest(?::text[]) AS k
         ON CONFLICT (storage_key) DO UPDATE SET not_before = LEAST(storage_gc.not_before, excluded.not_before))`
    : '';
  const res = await prepared(
    db,
    `WITH obj AS (INSERT INTO objects (id, storage_key, size, checksum, refcount) VALUES (?, ?, ?, ?, 1) RETURNING id, storage_key, size, checksum)${swap}
     UPDATE files SET status = 'completed', object_id = obj.id, version_id = ?, upload_key = NULL, upload_size = NULL,
            upload_checksum = NULL, multipart_key = NULL, multipart_upload_id = NULL, declared_size = NULL,
            transfer = jsonb_build_object('type', 'L'), updated = now(), revision = files.revision + 1
       FROM obj WHERE files.id = ?
     RETURNING files.id, files.bucket_id, files.key, files.status, files.object_id, files.version_id, files.metadata, files.access,
       files.transfer, files.upload_key, files.upload_size, files.upload_checksum, files.multipart_key, files.multipart_upload_id,
       files.declared_size, files.draft_only, files.revision,
       ${ts('files.created')} AS created, ${ts('files.updated')} AS updated, obj.size, obj.checksum, obj.storage_key`,
    [o.id, o.storage_key, o.size, o.checksum, ...(gc ? [gc.adopt, gc.release] : []), versionId, fileId],
  );
  return toFile(res.rows[0] as Record<string, unknown>);
}

/** Turn a pending entry into a completed one pointing at `objectId`. */
export async function markCompleted(db: Db, fileId: string, objectId: string, versionId: string): Promise<void> {
  await db('files')
    .where({ id: fileId })
    .update({
      status: 'completed',
      object_id: objectId,
      version_id: versionId,
      upload_key: null,
      upload_size: null,
      upload_checksum: null,
      updated: db.fn.now(),
      revision: db.raw('revision + 1'),
    });
}

/** Replace `metadata` and/or `access` of an entry. */
export async function updateEntry(
  db: Db,
  fileId: string,
  patch: { metadata?: Record<string, unknown> | null; access?: { hidden: boolean } },
): Promise<void> {
  const set: Record<string, unknown> = { updated: db.fn.now(), revision: db.raw('revision + 1') };
  if ('metadata' in patch) set.metadata = patch.metadata === null ? null : JSON.stringify(patch.metadata);
  if (patch.access) set.access = JSON.stringify(patch.access);
  await db('files').where({ id: fileId }).update(set);
}

/** Delete entries by id. */
export async function deleteFiles(db: Db, ids: string[]): Promise<void> {
  if (ids.length > 0) await db('files').whereIn('id', ids).del();
}

/** Insert an object with refcount 1. */
export async function insertObject(db: Db, o: Omit<ObjectRow, 'refcount'>): Promise<void> {
  await db('objects').insert({ ...o, refcount: 1 });
}

/** Add `n` references to each object; throws when one of them no longer exists. */
export async function addRefs(db: Db, counts: Map<string, number>): Promise<void> {
  for (const [id, n] of counts) {
    const updated = await db('objects').where({ id }).increment('refcount', n);
    if (updated !== 1) throw new Error(`object ${id} vanished while being referenced`);
  }
}

/**
 * Drop `n` references from each object; objects left without references are deleted and their
 * storage keys returned (queue them for removal from storage in the same transaction).
 */
export async function releaseRefs(db: Db, counts: Map<string, number>): Promise<string[]> {
  const released: string[] = [];
  for (const [id, n] of counts) {
    const res = await db.raw('UPDATE objects SET refcount = refcount - ? WHERE id = ? RETURNING refcount, storage_key', [n, id]);
    const row = res.rows[0] as { refcount: number; storage_key: string } | undefined;
    if (row && Number(row.refcount) <= 0) {
      await db('objects').where({ id }).del();
      released.push(row.storage_key);
    }
  }
  return released;
}

/** Copy completed entries into another bucket, pointing at the same objects (no bytes copied). */
export async function insertCopies(db: Db, toBucket: string, files: (FileRow & { newId: string; newVersionId: string })[]): Promise<void> {
  if (files.length === 0) return;
  await db('files').insert(
    files.map((f) => ({
      id: f.newId,
      bucket_id: toBucket,
      key: f.key,
      status: 'completed',
      object_id: f.object_id,
      version_id: f.newVersionId,
      metadata: f.metadata === null ? null : JSON.stringify(f.metadata),
      access: JSON.stringify(f.access),
      transfer: JSON.stringify(f.transfer),
    })),
  );
}

/** Completed files of a bucket with a share lock (they cannot be deleted until the transaction ends). */
export function listCompletedForShare(db: Db, bucketId: string): Promise<FileRow[]> {
  return selectFiles(db, "f.bucket_id = ? AND f.status = 'completed'", [bucketId], 'ORDER BY f.seq FOR SHARE OF f');
}

/** Something storage must forget: an object key, or a multipart upload to abort (with its target key). */
export type GcItem = string | { key: string; uploadId: string };

/** Storage key of a GC item. */
export const gcKey = (i: GcItem): string => (typeof i === 'string' ? i : i.key);

/** Queue storage keys (and multipart uploads) for removal, not before `delayMs` from now (0 = at once). */
export async function queueGc(db: Db, items: GcItem[], delayMs = 0): Promise<void> {
  if (items.length === 0) return;
  const ms = String(Math.max(0, Math.floor(delayMs)));
  await prepared(
    db,
    `INSERT INTO storage_gc (storage_key, upload_id, not_before)
       SELECT k, u, now() + (? || ' milliseconds')::interval FROM unnest(?::text[], ?::text[]) AS t(k, u)
     ON CONFLICT (storage_key) DO UPDATE SET not_before = LEAST(storage_gc.not_before, excluded.not_before),
       upload_id = COALESCE(excluded.upload_id, storage_gc.upload_id)`,
    [ms, items.map(gcKey), items.map((i) => (typeof i === 'string' ? null : i.uploadId))],
  );
}

/** Forget queued keys (they were adopted, or removed from storage). */
export async function unqueueGc(db: Db, keys: string[]): Promise<void> {
  if (keys.length > 0) await prepared(db, 'DELETE FROM storage_gc WHERE storage_key = ANY(?::text[])', [keys]);
}

/** Lock up to `limit` due garbage items (skipping ones another replica holds). */
export async function dueGc(trx: Knex.Transaction, limit: number): Promise<GcItem[]> {
  const rows: { storage_key: string; upload_id: string | null }[] = await trx('storage_gc')
    .select('storage_key', 'upload_id')
    .where('not_before', '<=', trx.fn.now())
    .orderBy('not_before')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  return rows.map((r) => (r.upload_id ? { key: r.storage_key, uploadId: r.upload_id } : r.storage_key));
}

// ── multipart parts and edit-draft registrations ───────────────────────────────────────────────

/** A stored part of a multipart entry. */
export interface PartRow {
  part: number;
  size: number;
  checksum: string;
  etag: string;
}

/** Record (or replace) a stored part. */
export async function upsertPart(db: Db, fileId: string, p: PartRow): Promise<void> {
  await prepared(
    db,
    `INSERT INTO file_parts (file_id, part, size, checksum, etag) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (file_id, part) DO UPDATE SET size = excluded.size, checksum = excluded.checksum, etag = excluded.etag, updated = now()`,
    [fileId, p.part, p.size, p.checksum, p.etag],
  );
}

/** Stored parts of a multipart entry, by part number. */
export async function listParts(db: Db, fileId: string): Promise<PartRow[]> {
  const res = await prepared(db, 'SELECT part, size, checksum, etag FROM file_parts WHERE file_id = ? ORDER BY part', [fileId]);
  return (res.rows as Record<string, unknown>[]).map((r) => ({
    part: Number(r.part),
    size: Number(r.size),
    checksum: String(r.checksum),
    etag: String(r.etag),
  }));
}

/** Forget every part of an entry. */
export async function deleteParts(db: Db, fileId: string): Promise<void> {
  await prepared(db, 'DELETE FROM file_parts WHERE file_id = ?', [fileId]);
}

/** Drop the keys registered on an edit draft of this bucket (the edit ended); returns how many. */
export async function deleteDraftOnly(db: Db, bucketId: string): Promise<number> {
  const res = await prepared(db, 'DELETE FROM files WHERE bucket_id = ? AND draft_only', [bucketId]);
  return res.rowCount ?? 0;
}

/**
 * The bucket effects of a publication in ONE statement (the `record.published` consumer's): lock
 * every bucket of `lock` (creating it locked when missing, as `setLocked`) and drop the draft-only
 * registrations of `dropDraftOnlyIn` (as `deleteDraftOnly`). Why one statement: this runs for every
 * published record, and each round trip costs the consumer, PostgreSQL and the loopback alike;
 * the parts touch different rows, so running them under one snapshot changes nothing (a
 * data-modifying CTE runs whether or not the main statement reads it).
 */
export async function lockAndDropRegistrations(db: Db, lock: string[], dropDraftOnlyIn: string): Promise<void> {
  await prepared(
    db,
    `WITH locked AS (
       INSERT INTO buckets (id, locked) SELECT DISTINCT unnest(?::text[]), true
       ON CONFLICT (id) DO UPDATE SET locked = true, updated = CASE WHEN buckets.locked THEN buckets.updated ELSE now() END)
     DELETE FROM files WHERE bucket_id = ? AND draft_only`,
    [lock, dropDraftOnlyIn],
  );
}

/** Record a failed removal attempt and retry later. */
export async function gcFailed(db: Db, key: string, error: string, retryMs: number): Promise<void> {
  await db.raw(
    `UPDATE storage_gc SET attempts = attempts + 1, last_error = ?, not_before = now() + (? || ' milliseconds')::interval WHERE storage_key = ?`,
    [error.slice(0, 500), String(retryMs), key],
  );
}
