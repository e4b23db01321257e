/**
 * The files component: what records knows of files, which live in the files service
 * (`FilesPort`). A draft's files summary (the live manifest; an edit draft's is its record's
 * frozen one), the `files` options of a draft write, freezing the files at publish (ONE `lock`
 * call with `if_complete`: checked and locked atomically, idempotent), the bucket dropped after a
 * draft deletion, the previous version's files linked into a new version, the files summary of
 * search documents, and the `authorize-files` answer the files service asks for on every request
 * (media-files buckets answered by media.component.ts).
 *
 * File modification (InvenioRDM 13+, `file-modification/`): an edit draft shares its record's
 * locked bucket, unless the record's files were unlocked by an accepted file-modification
 * request. Then the edit draft gets its OWN copy of the bucket (`editCopy`: objects linked, no
 * bytes copied; new id), whose files are editable (grant `locked: false`) and summarized live;
 * publishing it freezes that bucket (one `lock` with `if_complete`, as a first publication), the
 * record takes it as its `bucket_id` (a new revision; the earlier bucket stays locked with the
 * earlier revision's files) and the unlock is consumed in the publication's transaction
 * (`publish`). Discarding such an edit draft drops its copy; the unlock stays for the next edit.
 *
 * When to use: a lifecycle component (`update`, `lockPublish`, `publish`, `afterDeleteDraft`)
 * and for the files operations it delegates (`importFiles`, `refreshDraftFiles`, `authorize`,
 * `editCopy`).
 */
import { randomUUID } from 'node:crypto';
import { AppError, Errors, type Identity, type Knex, type MsgLogger, withTransaction } from '@rdm/platform';
import type { BucketGrant, RecordsAuthorizeFilesRequest } from '@rdm/contracts';
import * as fm from '../repo/file-modification-requests.repo.js';
import * as repo from '../repo/records.repo.js';
import { type AccessComponent, ctxOf } from './access.component.js';
import { withLinkToken } from './link-token.js';
import { draftDoc, frozenSummary } from './builders.js';
import {
  type DraftDeletion,
  type DraftWrite,
  loadDraft,
  loadRecord,
  type PublishCheck,
  type PublishCommit,
  type RecordComponent,
} from './component.js';
import { fieldErrors, RecordErrors } from './errors.js';
import { fileListLinks } from './links.js';
import type { MediaComponent } from './media.component.js';
import { type DraftRow, type FrozenFiles, type RecordRow, type StoredFiles, summarizeManifest } from './model.js';
import type { FilesPort, Manifest, SearchIndexPort } from './ports.js';
import { filesReadForm } from './serializers.js';

/** Authorization request of the files service (`rdm.records.rpc.authorize-files`, proto/rpc/records/authorize-files.json). */
export type AuthorizeFilesRequest = RecordsAuthorizeFilesRequest;
export type { BucketGrant };

/** Dependencies of the files component. */
export interface FilesDeps {
  db: Knex;
  files: FilesPort;
  index: SearchIndexPort;
  access: AccessComponent;
  media: MediaComponent;
  logger: MsgLogger;
  baseUrl: string;
}

/** Files of drafts and records. */
export class FilesComponent implements RecordComponent {
  readonly name = 'files';

  constructor(private readonly d: FilesDeps) {}

  /** The files summary of a draft: its record's frozen one for edit drafts sharing its bucket, else the live manifest. */
  async summaryOf(draft: DraftRow, hasRecord: boolean): Promise<{ summary: FrozenFiles; record?: RecordRow }> {
    const record = hasRecord ? await repo.getRecord(this.d.db, draft.id) : undefined;
    if (record && !ownsBucket(draft, record)) return { summary: frozenSummary(record.files), record };
    if (record) return { summary: summarizeManifest(await this.d.files.manifest(draft.bucket_id)), record };
    return { summary: summarizeManifest(await this.d.files.manifest(draft.bucket_id)) };
  }

  /** As `summaryOf`, but a files outage answers the summary last indexed (draft reads survive it). */
  async readSummary(draft: DraftRow, hasRecord: boolean): Promise<{ summary: FrozenFiles; record?: RecordRow }> {
    try {
      return await this.summaryOf(draft, hasRecord);
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 503) throw err;
      this.d.logger.warn({ err, id: draft.id }, 'files manifest unavailable; using the indexed summary');
      const f = await this.d.index.storedDraftFiles(draft.id);
      return { summary: { count: f?.count ?? 0, total_bytes: f?.total_bytes ?? 0, entries: f?.entries ?? {} } };
    }
  }

  /** Update: the draft's files summary and its `files` options (InvenioRDM's draft files component; `files` omitted means enabled). */
  async update(w: DraftWrite): Promise<void> {
    const draft = w.draft!;
    const { summary } = await this.summaryOf(draft, w.hasRecord === true);
    w.summary = summary;
    const filesIn = (w.input.data.files ?? {}) as Record<string, any>;
    let enabled: boolean = typeof filesIn.enabled === 'boolean' ? filesIn.enabled : true;
    let checkMissing = true;
    if (enabled !== draft.files.enabled && !this.d.access.can('manage_files', w.identity, w.ctx!)) {
      fieldErrors.add(w.errors, fieldErrors.noFilesOptionsPermission());
      enabled = draft.files.enabled;
      checkMissing = false;
    } else if (!enabled && summary.count > 0) {
      fieldErrors.add(w.errors, fieldErrors.deleteFilesFirst());
      enabled = draft.files.enabled;
      checkMissing = false;
    }
    if (checkMissing && enabled && summary.count === 0) fieldErrors.add(w.errors, fieldErrors.missingFiles());
    let defaultPreview: string | null = null;
    const dp = filesIn.default_preview;
    if (typeof dp === 'string' && dp !== '') {
      if (Object.hasOwn(summary.entries, dp)) defaultPreview = dp;
      else fieldErrors.add(w.errors, fieldErrors.invalidDefaultPreview(dp));
    }
    const order = Array.isArray(filesIn.order) ? filesIn.order : (draft.files.order ?? []);
    w.patch.files = { enabled, default_preview: defaultPreview, order };
  }

  /**
   * Publish: files present and complete (else field errors). With `lock` and no error from the
   * other components, the files of a first-version draft are frozen by ONE `lock` call with
   * `if_complete` (idempotent: a publication retried after a failed transaction, or a
   * redelivered event, locks nothing twice); without, only the manifest is read (submit-review
   * validates without freezing). Sets the files summary the record will carry.
   */
  async lockPublish(c: PublishCheck): Promise<void> {
    c.frozen = await this.checkAndLock(c, { lock: c.lock });
  }

  private async checkAndLock(c: PublishCheck, o: { lock: boolean }): Promise<FrozenFiles> {
    const { draft } = c;
    // An edit draft with its own bucket (file modification) is frozen as a first publication.
    const record = c.record && !ownsBucket(draft, c.record) ? c.record : undefined;
    // Why files errors count: the media check runs first (a pending media file must not freeze the files).
    const othersValid = c.errors.metadata.length + c.errors.files.length + c.errors.pids.length + c.errors.communities.length === 0;
    let manifest: Manifest | undefined;
    if (draft.files.enabled) {
      if (record?.files.enabled) {
        if ((record.files.count ?? 0) === 0) c.errors.files.push(fieldErrors.missingFiles());
      } else if (o.lock && !record && othersValid) {
        manifest = await this.d.files.lock(draft.bucket_id, { ifComplete: true });
      } else {
        manifest = await this.d.files.manifest(draft.bucket_id);
      }
      if (manifest && manifest.count === 0) c.errors.files.push(fieldErrors.missingFiles());
      else if (manifest && manifest.pending > 0) c.errors.files.push(fieldErrors.filesPending());
    }
    if (record) return frozenSummary(record.files);
    return summarizeManifest(draft.files.enabled ? manifest : undefined);
  }

  /**
   * Publication (in its transaction): an edit draft with its own bucket consumes the record's
   * file-modification unlock (400 when there is none: its files cannot replace the version's).
   */
  async publish(trx: Knex.Transaction, p: PublishCommit): Promise<void> {
    if (!p.isEdit || !p.record || !ownsBucket(p.draft, p.record)) return;
    const unlock = await fm.unlocked(trx, p.record.id, true);
    if (!unlock?.request_id) throw Errors.badRequest('The files of this record are locked: ask for a file modification first.');
    await fm.setState(trx, unlock.request_id, 'consumed', ['unlocked']);
    p.fileModification = { requestId: unlock.request_id, supersededBucketId: p.record.bucket_id };
  }

  /**
   * Edit: the bucket of an edit draft of `record` — the record's own (locked) one, or, when an
   * accepted file-modification request unlocked its files, a new copy of it (objects linked).
   * `current`: the bucket the edit draft has now (an existing edit draft's), kept when it is
   * already its own copy.
   */
  async editCopy(record: RecordRow, current?: string): Promise<string> {
    if (current && current !== record.bucket_id) return current;
    if (!record.files.enabled || !(await fm.unlocked(this.d.db, record.id))) return record.bucket_id;
    const copy = `${record.id}-files-${randomUUID()}`;
    await this.d.files.importFiles(record.bucket_id, copy);
    return copy;
  }

  /** After a draft deletion (an edit draft's only when it had its own copy): ask files to drop the bucket now (best effort). */
  async afterDeleteDraft(d: DraftDeletion): Promise<void> {
    if (d.kind === 'edit') {
      const record = await repo.getRecord(this.d.db, d.draft.id);
      if (!record || !ownsBucket(d.draft, record)) return;
    }
    await this.drop(d.draft.bucket_id);
  }

  /** Drop a bucket nothing refers to (a deleted draft's, an unused edit copy): best effort, files' event consumer retries. */
  async drop(bucketId: string): Promise<void> {
    // Why: the event makes the files service drop the bucket eventually; asking now frees it at once.
    try {
      await this.d.files.deleteBucket(bucketId);
    } catch (err) {
      this.d.logger.warn({ err, bucket: bucketId }, 'delete-bucket failed; the draft.deleted event will retry');
    }
  }

  /** POST /api/records/{id}/draft/actions/files-import: link the previous version's files. */
  async importFiles(identity: Identity, id: string): Promise<Record<string, unknown>> {
    const { draft, parent, hasRecord } = await loadDraft(this.d.db, id, { write: true });
    const ctx = await this.d.access.require('import_files', identity, ctxOf(draft, parent), parent);
    const latest = parent.latest_id ? await repo.getRecord(this.d.db, parent.latest_id) : undefined;
    if (!latest) throw Errors.notFound();
    // The files of a deleted version are not linked into anything (issue 18, finding 7).
    if (latest.deletion_status !== 'P') throw Errors.gone();
    // The latest version's own protection, with the roles already asked (same parent, same communities).
    await this.d.access.require('read_files', identity, { ...ctx, ...ctxOf(latest, parent) }, parent);
    if (!draft.files.enabled) throw RecordErrors.filesMustBeEnabled();
    const current = hasRecord ? { count: latest.files.count ?? 0 } : await this.d.files.manifest(draft.bucket_id);
    if (current.count > 0) throw RecordErrors.removeFilesFirst();
    if (!latest.files.enabled || (latest.files.count ?? 0) === 0) throw RecordErrors.recordHasNoFiles();
    const manifest = await this.d.files.importFiles(latest.bucket_id, draft.bucket_id);
    const summary = summarizeManifest(manifest);
    const preview = latest.files.default_preview;
    const files: StoredFiles = {
      enabled: true,
      default_preview: preview && summary.entries[preview] ? preview : null,
      order: (latest.files.order ?? []).filter((k) => k in summary.entries),
    };
    await withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      const now = new Date();
      const revision = await repo.updateDraft(trx, id, { files }, now);
      const updated: DraftRow = { ...locked, files, updated: now, revision_id: revision };
      await this.d.index.index(trx, { kind: 'draft', row: updated, doc: draftDoc(updated, parent, false, summary) });
    });
    return {
      enabled: true,
      links: fileListLinks(id, 'draft', { baseUrl: this.d.baseUrl }),
      entries: manifest.entries.map((e) => fileListEntry(id, e, this.d.baseUrl)),
      default_preview: files.default_preview ?? null,
      order: files.order,
    };
  }

  /**
   * Refresh the files summary in the search document of the draft using `bucketId` (called by the
   * `rdm.files.file.committed` consumer inside its transaction). Edit drafts are skipped.
   */
  async refreshDraftFiles(trx: Knex.Transaction, bucketId: string): Promise<void> {
    const found = await repo.draftByBucketWithRecordFlag(trx, bucketId);
    if (!found || found.hasRecord) return;
    const summary = summarizeManifest(await this.d.files.manifest(bucketId));
    await this.d.index.setDraftFiles(trx, found.draft.id, filesReadForm(found.draft.files, summary));
  }

  /** RPC rdm.records.rpc.authorize-files: the bucket and options, or the HTTP route's 404/403/410. */
  async authorize(req: AuthorizeFilesRequest): Promise<BucketGrant> {
    const base: Identity = { sub: req.identity?.sub ?? null, roles: req.identity?.roles ?? [] };
    const identity = await withLinkToken(this.d.db, base, req.access_token);
    if (req.bucket === 'media') return this.d.media.authorize(req, identity);
    if (req.scope === 'draft') {
      const { draft, parent, hasRecord } = await loadDraft(this.d.db, req.record_id, { write: req.action === 'update' });
      await this.d.access.require(req.action === 'update' ? 'update_draft' : 'read_draft', identity, ctxOf(draft, parent), parent);
      // An edit draft's files are locked, unless it has its own copy (file modification).
      const record = hasRecord ? await repo.getRecord(this.d.db, draft.id) : undefined;
      return withMetadata(grantOf(draft, !!record && !ownsBucket(draft, record)), draft, req);
    }
    const { record, parent } = await loadRecord(this.d.db, req.record_id);
    if (req.action === 'update') throw Errors.permissionDenied();
    const ctx = await this.d.access.require('read', identity, ctxOf(record, parent), parent);
    await this.d.access.require('read_files', identity, ctx, parent);
    return withMetadata(grantOf(record, true), record, req);
  }
}

/** The grant plus, when asked (`with_metadata`: IIIF manifests), the descriptive metadata the files service labels with. */
function withMetadata(grant: BucketGrant, row: DraftRow | RecordRow, req: AuthorizeFilesRequest): BucketGrant {
  if (!req.with_metadata) return grant;
  const m = row.metadata ?? {};
  const metadata: NonNullable<BucketGrant['metadata']> = {};
  if (typeof m.title === 'string') metadata.title = m.title;
  if (typeof m.description === 'string') metadata.description = m.description;
  if (typeof m.publication_date === 'string') metadata.publication_date = m.publication_date;
  if (Array.isArray(m.rights)) {
    metadata.rights = m.rights.map((r: Record<string, unknown>) => ({
      ...(typeof r.id === 'string' ? { id: r.id } : {}),
      ...(r.title && typeof r.title === 'object' ? { title: r.title } : {}),
      ...(typeof r.link === 'string'
        ? { link: r.link }
        : typeof (r.props as { url?: unknown })?.url === 'string'
          ? { link: (r.props as { url: string }).url }
          : {}),
    }));
  }
  if (Array.isArray(m.creators)) {
    metadata.creators = m.creators.map((c: { person_or_org?: { name?: unknown } }) => ({ name: String(c?.person_or_org?.name ?? '') }));
  }
  return { ...grant, metadata };
}

/** Has an edit draft its own bucket, not its record's (file modification)? */
export function ownsBucket(draft: DraftRow, record: RecordRow): boolean {
  return draft.bucket_id !== record.bucket_id;
}

function grantOf(row: DraftRow | RecordRow, locked: boolean): BucketGrant {
  return {
    bucket_id: row.bucket_id,
    record_id: row.id,
    enabled: row.files.enabled,
    locked,
    default_preview: row.files.default_preview ?? null,
    order: row.files.order ?? [],
  };
}

/** One entry of a draft's file list (the files service's listing form) from a manifest entry. */
export function fileListEntry(id: string, e: Manifest['entries'][number], baseUrl: string): Record<string, unknown> {
  const root = `${baseUrl}/api/records/${encodeURIComponent(id)}/draft/files/${e.key.split('/').map(encodeURIComponent).join('/')}`;
  const out: Record<string, unknown> = {
    created: e.created,
    updated: e.updated,
    mimetype: e.mimetype,
    version_id: e.version_id,
    file_id: e.file_id,
    bucket_id: e.bucket_id,
    metadata: e.metadata ?? null,
    access: { hidden: e.access?.hidden === true },
    links: { self: root, content: `${root}/content`, commit: `${root}/commit` },
    key: e.key,
    size: e.size,
    transfer: e.transfer ?? { type: 'L' },
    status: e.status ?? 'completed',
    checksum: e.checksum,
    storage_class: e.storage_class ?? 'L',
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) Reflect.deleteProperty(out, k);
  return out;
}
