/**
 * The media files component: InvenioRDM's `media_files`, a second bucket per draft and record in
 * the files service, managed like files under `…/media-files` (services/files/README.md, "Media
 * files"). Records keeps the bucket id in `media_files.bucket_id` (chosen when media files are
 * first enabled, so drafts that never use them cost nothing) and drives its lifecycle:
 *
 * 1. create/update: `media_files.enabled` (default false; omitted on update keeps it); disabling
 *    needs an empty bucket.
 * 2. `authorize-files` with `bucket: "media"`: the media bucket's grant, echoing `bucket`. Drafts:
 *    read = preview level, write = review level (InvenioRDM's `can_draft_media_*`); records: read
 *    follows the record's restriction (`can_media_read_files`), writes refused to everyone
 *    (`can_media_*_files = Disable`).
 * 3. publish: no pending media file (checked before the files are frozen), then ONE `lock` with
 *    `if_complete` + `allow_empty`; the summary is frozen into the record's `media_files`.
 * 4. edit: the edit draft gets its own unlocked copy (`import` with `allow_empty`, new bucket id).
 * 5. publishing an edit: `record.published` carries `media_bucket_id` (the edit's copy, now the
 *    record's) and `superseded_media_bucket_id` (the record's previous one, dropped by files).
 * 6. new version: starts without media files (builders.newVersionDraft).
 * 7. deleting a draft: `draft.deleted` carries `media_bucket_id`; the bucket is dropped at once
 *    (best effort; the event retries).
 *
 * When to use: a lifecycle component (`create`, `update`, `updateLocked`, `checkPublish`,
 * `afterPublishCheck`, `afterDeleteDraft`), after the files component; RecordsService calls
 * `editCopy`/`drop` and the event data itself.
 */
import { randomUUID } from 'node:crypto';
import { Errors, type FieldError, type Identity, type Knex, type MsgLogger } from '@rdm/platform';
import { type AccessComponent, ctxOf } from './access.component.js';
import { type DraftDeletion, type DraftWrite, loadDraft, loadRecord, type PublishCheck, type RecordComponent } from './component.js';
import { FILES_MESSAGES } from './errors.js';
import { type DraftRow, type FrozenFiles, type RecordRow, type StoredFiles, summarizeManifest } from './model.js';
import type { FilesPort } from './ports.js';

/** What authorize-files asks about media files. */
export interface MediaAuthorizeRequest {
  record_id: string;
  scope: 'draft' | 'record';
  action: 'read' | 'update';
}

/** The grant of a media bucket (authorize-files reply with the `bucket: "media"` echo). */
export interface MediaGrant {
  bucket: 'media';
  bucket_id: string;
  record_id: string;
  enabled: boolean;
  locked: boolean;
  default_preview: string | null;
  order: string[];
}

/** Dependencies of the media component. */
export interface MediaDeps {
  db: Knex;
  files: FilesPort;
  access: AccessComponent;
  logger: MsgLogger;
}

const fe = (field: string, message: string): FieldError => ({ field, messages: [message] });
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A new media bucket id (never a record id, so never a files bucket). */
export function newMediaBucketId(): string {
  return `media-${randomUUID()}`;
}

/** The stored options of a draft's media files, without a record's frozen summary. */
function optionsOf(m: StoredFiles | undefined): StoredFiles {
  const out: StoredFiles = { enabled: m?.enabled === true, order: m?.order ?? [] };
  if (m?.default_preview) out.default_preview = m.default_preview;
  if (m?.bucket_id) out.bucket_id = m.bucket_id;
  return out;
}

/** A record's `media_files`: the draft's options with the summary frozen at publish (none: options as they were). */
export function recordMedia(draft: StoredFiles | undefined, frozen: FrozenFiles['media']): StoredFiles {
  const options = optionsOf(draft);
  return frozen ? { ...options, count: frozen.count, total_bytes: frozen.total_bytes, entries: frozen.entries } : options;
}

/** Media files of drafts and records. */
export class MediaComponent implements RecordComponent {
  readonly name = 'media';

  constructor(private readonly d: MediaDeps) {}

  /** Create: `media_files.enabled` (default false); a bucket id when enabled. */
  create(w: DraftWrite): void {
    const m = w.input.data.media_files;
    const enabled = isObj(m) && typeof m.enabled === 'boolean' ? m.enabled : false;
    w.patch.media_files = { enabled, order: orderOf(m, []), ...(enabled ? { bucket_id: newMediaBucketId() } : {}) };
  }

  /** Update: `media_files` when sent (omitted: unchanged); disabling a bucket with files is a field error. */
  async update(w: DraftWrite): Promise<void> {
    const current = optionsOf(w.draft!.media_files);
    const m = w.input.data.media_files;
    if (!w.input.present.media_files || !isObj(m)) return;
    let enabled = typeof m.enabled === 'boolean' ? m.enabled : current.enabled;
    if (!enabled && current.enabled && current.bucket_id && (await this.d.files.manifest(current.bucket_id)).count > 0) {
      w.errors.push(fe('media_files.enabled', FILES_MESSAGES.deleteFirst));
      enabled = true;
    }
    const next: StoredFiles = { ...current, enabled, order: orderOf(m, current.order) };
    if (enabled && !next.bucket_id) next.bucket_id = newMediaBucketId();
    w.patch.media_files = next;
  }

  /** The media files an update writes on the locked row: the patch, but a bucket id already stored wins (concurrent enables). */
  updateLocked(_trx: Knex.Transaction, w: DraftWrite, locked: DraftRow): void {
    w.patch.media_files = this.merged(locked, w.patch.media_files);
  }

  /** The media files options of an update: the sent ones with the locked draft's bucket kept. */
  merged(locked: DraftRow, patch: StoredFiles | undefined): StoredFiles {
    const stored = optionsOf(locked.media_files);
    if (!patch) return locked.media_files ?? stored;
    return { ...patch, ...(stored.bucket_id ? { bucket_id: stored.bucket_id } : {}) };
  }

  /** Publish check, before the files are frozen: no pending media file (the reference's pending message). */
  async checkPublish(c: PublishCheck): Promise<void> {
    const bucket = enabledBucket(c.draft);
    if (!bucket) return;
    if ((await this.d.files.manifest(bucket)).pending > 0) c.errors.files.push(fe('media_files', FILES_MESSAGES.pending));
  }

  /**
   * After every check passed, with `lock`: freeze the media files by ONE `lock` call
   * (`if_complete` + `allow_empty`, idempotent); a file that went pending meanwhile is a 400.
   * Returns the summary the record will carry (undefined: media files disabled, or no lock).
   */
  async afterPublishCheck(c: PublishCheck): Promise<void> {
    const media = await this.freeze(c.draft, { lock: c.lock });
    if (media) c.frozen = { ...c.frozen, media };
  }

  /** The media summary a publication freezes (undefined: media files disabled, or no lock). */
  async freeze(draft: DraftRow, o: { lock: boolean }): Promise<FrozenFiles['media']> {
    const bucket = enabledBucket(draft);
    if (!bucket || !o.lock) return undefined;
    const manifest = await this.d.files.lock(bucket, { ifComplete: true, allowEmpty: true });
    if (manifest.pending > 0) throw Errors.validation([fe('media_files', FILES_MESSAGES.pending)]);
    return summarizeManifest(manifest);
  }

  /**
   * Edit: the media files of a new edit draft of `record` — its own unlocked copy of the record's
   * media bucket (objects linked, no bytes copied), or the options alone when the record has none.
   */
  async editCopy(record: RecordRow): Promise<StoredFiles> {
    const options = optionsOf(record.media_files);
    if (!options.bucket_id) return options;
    const copy = newMediaBucketId();
    await this.d.files.importFiles(options.bucket_id, copy, { allowEmpty: true });
    return { ...options, bucket_id: copy };
  }

  /** After a draft deletion (every kind): its own media bucket is dropped at once. */
  afterDeleteDraft(d: DraftDeletion): Promise<void> {
    return this.drop(d.draft.media_files?.bucket_id);
  }

  /** Drop a media bucket nothing refers to (an edit copy not used, a deleted draft's): best effort, files' event consumer retries. */
  async drop(bucketId: string | undefined): Promise<void> {
    if (!bucketId) return;
    try {
      await this.d.files.deleteBucket(bucketId);
    } catch (err) {
      this.d.logger.warn({ err, bucket: bucketId }, 'media delete-bucket failed; the draft.deleted event will retry');
    }
  }

  /** Data `rdm.records.draft.deleted` adds for the draft's own media bucket. */
  deletedEventData(draft: DraftRow): { media_bucket_id?: string } {
    const bucket = draft.media_files?.bucket_id;
    return bucket ? { media_bucket_id: bucket } : {};
  }

  /** Data `rdm.records.record.published` adds: the record's media bucket and, for an edit, the one it replaced. */
  publishedEventData(
    record: RecordRow,
    previous: RecordRow | undefined,
  ): { media_bucket_id?: string; superseded_media_bucket_id?: string } {
    const bucket = record.media_files?.bucket_id;
    const old = previous?.media_files?.bucket_id;
    return { ...(bucket ? { media_bucket_id: bucket } : {}), ...(old && old !== bucket ? { superseded_media_bucket_id: old } : {}) };
  }

  /** authorize-files with `bucket: "media"` (identity already widened by a link token): the grant or 404/403/410. */
  async authorize(req: MediaAuthorizeRequest, identity: Identity): Promise<MediaGrant> {
    if (req.scope === 'draft') {
      const { draft, parent } = await loadDraft(this.d.db, req.record_id, { write: req.action === 'update' });
      await this.d.access.require(req.action === 'update' ? 'update_draft' : 'read_draft', identity, ctxOf(draft, parent), parent);
      return grantOf(draft, false);
    }
    const { record, parent } = await loadRecord(this.d.db, req.record_id);
    // Why: InvenioRDM's default `can_media_{create,set_content,commit,update,delete}_files = Disable`.
    if (req.action === 'update') throw Errors.permissionDenied();
    await this.d.access.require('read', identity, ctxOf(record, parent), parent);
    return grantOf(record, true);
  }
}

/** The media bucket of a draft whose media files are enabled. */
function enabledBucket(draft: DraftRow): string | undefined {
  return draft.media_files?.enabled ? draft.media_files.bucket_id : undefined;
}

/** `media_files.order` when sent as a list of strings, else `fallback`. */
function orderOf(m: unknown, fallback: string[]): string[] {
  const order = isObj(m) ? m.order : undefined;
  return Array.isArray(order) && order.every((k) => typeof k === 'string') ? order : fallback;
}

function grantOf(row: DraftRow | RecordRow, locked: boolean): MediaGrant {
  const m = row.media_files;
  const bucket = m?.bucket_id;
  return {
    bucket: 'media',
    // Why a placeholder: without a bucket media files are disabled, and files touches no bucket then.
    bucket_id: bucket ?? `media-none-${row.id}`,
    record_id: row.id,
    enabled: m?.enabled === true && !!bucket,
    locked,
    default_preview: m?.default_preview ?? null,
    order: m?.order ?? [],
  };
}
