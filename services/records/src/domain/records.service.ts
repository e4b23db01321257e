/**
 * The records service: drafts, publishing, edits, versions and PIDs (reference §4.4–§4.12), as a
 * thin orchestration of lifecycle components, as InvenioRDM's `ServiceConfig.components`: ONE
 * ordered list (`recordComponents`: access, metadata, pids, review, communities, files, media,
 * versions) whose phases `runComponents` calls in that order. Each lifecycle method reads what it
 * needs, runs the phases, and writes in ONE transaction the rows, the search documents
 * (`SearchIndexPort`) and the outbox events. Row shapes come from builders.ts, messages from
 * errors.ts.
 *
 * When to use: every draft and record lifecycle action (routes, the review saga). Methods return
 * views (`{kind, doc}`) that routes render with `serializeItem`.
 */
import {
  AppError,
  Errors,
  type EventEnvelope,
  type FieldError,
  type Identity,
  type Knex,
  withTransaction,
  writeOutbox,
} from '@rdm/platform';
import * as repo from '../repo/records.repo.js';
import { AccessComponent, ctxOf } from './access.component.js';
import {
  draftDoc,
  editDraft,
  editedRecordPatch,
  frozenSummary,
  newDraft,
  newParent,
  newRecord,
  recordDoc,
  recordPublishedData,
} from './builders.js';
import {
  type DraftDeletion,
  type DraftWrite,
  type ItemView,
  loadDraft,
  type PublishCheck,
  type PublishCommit,
  type RecordComponent,
  type RecordsServiceDeps,
  runComponents,
  type VersionsView,
} from './component.js';
import type { CustomFields } from './custom-fields.js';
import { fieldErrors } from './errors.js';
import { type AuthorizeFilesRequest, type BucketGrant, FilesComponent } from './files.component.js';
import { MediaComponent } from './media.component.js';
import { MetadataComponent } from './metadata.component.js';
import type { DraftRow, FrozenFiles, ParentRow, RecordRow } from './model.js';
import { PidsComponent } from './pids.component.js';
import { type RecordAccessCtx, type RecordAction, recordsPolicy } from './records.policy.js';
import { parentDoc } from './serializers.js';
import { type LoadResult, loadWriteForm } from './validation.js';
import { newUniqueIds, VersionsComponent } from './versions.component.js';

export type { ItemView, RecordComponent, RecordsServiceConfig, RecordsServiceDeps, VersionsView } from './component.js';
export type { AuthorizeFilesRequest, BucketGrant } from './files.component.js';
export { ctxOf };

/** What a publication writes besides the draft's content (the saga's community, review unlinked). */
export interface CommitOptions {
  id: string;
  parentId: string;
  isEdit: boolean;
  frozen: FrozenFiles;
  parentPatch?: (parent: ParentRow) => Partial<ParentRow>;
  checkParent?: (parent: ParentRow) => void | Promise<void>;
  requestId?: string;
}

/** The lax write form of a body (InvenioRDM's save: invalid values dropped into `errors`); 400 on hard errors. */
function loadInput(body: unknown, customFields: CustomFields | undefined): LoadResult {
  const input = loadWriteForm(body, customFields);
  if (input.hardErrors.length) throw Errors.validation(input.hardErrors);
  return input;
}

/** The lifecycle components of the service: the ordered list, and the core ones by name (their own operations). */
export interface RecordComponents {
  /** Every lifecycle component, in the order their phases run. */
  list: readonly RecordComponent[];
  access: AccessComponent;
  metadata: MetadataComponent;
  files: FilesComponent;
  media: MediaComponent;
  pids: PidsComponent;
  versions: VersionsComponent;
}

/** The lifecycle components of other concerns, each at its place in the list (present when their ports are). */
export interface ComponentExtensions {
  /** Reviews (review/review.component.ts): no direct publication or deletion while a review is open. */
  review?: RecordComponent;
  /** Record communities (communities/communities.component.ts): community roles, the schema extension. */
  communities?: RecordComponent;
}

/**
 * The ONE ordered list of lifecycle components (InvenioRDM's `ServiceConfig.components`). The order
 * is the order of every phase: access and metadata decide a write's content first; files before
 * media (their save-time errors in that order); `files.lockPublish` after every other check, so
 * that files are frozen only for a valid draft; pids before versions in a publication.
 */
export function recordComponents(d: RecordsServiceDeps, ext: ComponentExtensions = {}): RecordComponents {
  const { db, index, logger, config } = d;
  let list: readonly RecordComponent[] = [];
  const access = new AccessComponent(config, () => list);
  const metadata = new MetadataComponent(d.vocabularies, config.customFields);
  const media = new MediaComponent({ db, files: d.files, access, logger });
  const files = new FilesComponent({ db, files: d.files, index, access, media, logger, baseUrl: config.baseUrl });
  const pids = new PidsComponent({ db, index, config, access, files });
  const versions = new VersionsComponent({ db, index, access, files, logger });
  const optional = [ext.review, ext.communities].filter((c): c is RecordComponent => c !== undefined);
  list = [access, metadata, pids, ...optional, files, media, versions];
  return { list, access, metadata, files, media, pids, versions };
}

/** The records domain service. */
export class RecordsService {
  readonly access: AccessComponent;
  readonly metadata: MetadataComponent;
  readonly files: FilesComponent;
  readonly media: MediaComponent;
  readonly pids: PidsComponent;
  readonly versions: VersionsComponent;
  private readonly components: readonly RecordComponent[];

  constructor(
    private readonly d: RecordsServiceDeps,
    parts: RecordComponents = recordComponents(d),
  ) {
    this.components = parts.list;
    ({
      access: this.access,
      metadata: this.metadata,
      files: this.files,
      media: this.media,
      pids: this.pids,
      versions: this.versions,
    } = parts);
  }

  /** `policy.require(action)` widened by community roles when the plain rules refuse (access component). */
  requireWith(action: RecordAction, identity: Identity, ctx: RecordAccessCtx, parent: ParentRow): Promise<RecordAccessCtx> {
    return this.access.require(action, identity, ctx, parent);
  }

  // ---------------------------------------------------------------------------------------
  // reads

  /** GET /api/records/{id}: a published record; a parent id redirects to its latest version. */
  async readRecord(identity: Identity, id: string): Promise<ItemView | { redirect: string }> {
    const found = await repo.getRecordWithParent(this.d.db, id);
    if (found) {
      const { record } = found;
      if (record.deletion_status !== 'P') throw Errors.gone();
      const parent = found.parent!;
      const ctx = ctxOf(record, parent);
      await this.access.require('read', identity, ctx, parent);
      // A stamp lets HTTP reuse this rendering for this caller (record-read-cache.ts) while the
      // record and parent rows are unchanged: only when those rows and the caller decided the read.
      // A read allowed by a community role is not reusable: the role lives in the communities
      // service, outside the stamp, and must be asked again by the next read.
      if (!this.access.can('read', identity, ctx)) return { kind: 'record', doc: recordDoc(record, parent) };
      const stamp = repo.stampOf(record.revision_id, parent.revision_id, record.deletion_status);
      return { kind: 'record', doc: recordDoc(record, parent), stamp };
    }
    if (await repo.getDraft(this.d.db, id)) throw Errors.pidNotRegistered();
    const parent = await repo.getParent(this.d.db, id);
    if (!parent) throw Errors.pidDoesNotExist();
    if (!parent.latest_id) throw Errors.pidNotRegistered();
    // Permission before the redirect: the Location would name the latest version of a record the
    // caller may not read. Such a caller gets the answer of an id that does not exist (no oracle).
    // A deleted latest version is redirected to: its id answers with the tombstone (410, or 404
    // when hidden), the same to everyone.
    const latest = await repo.getRecord(this.d.db, parent.latest_id);
    if (!latest) throw Errors.pidDoesNotExist();
    if (latest.deletion_status === 'P') {
      try {
        await this.access.require('read', identity, ctxOf(latest, parent), parent);
      } catch (err) {
        if (err instanceof AppError && err.status === 403) throw Errors.pidDoesNotExist();
        throw err;
      }
    }
    return { redirect: `${this.d.config.baseUrl}/api/records/${encodeURIComponent(parent.latest_id)}` };
  }

  /** The current stamp of a published record (`repo.recordStamp`): lets HTTP reuse a rendering. */
  recordStamp(id: string): Promise<string | undefined> {
    return repo.recordStamp(this.d.db, id);
  }

  /** The current stamps of several published records in one statement (`repo.recordStamps`). */
  recordStamps(ids: readonly string[]): Promise<Map<string, string>> {
    return repo.recordStamps(this.d.db, ids);
  }

  /** GET /api/records/{id}/draft. */
  async readDraft(identity: Identity, id: string): Promise<ItemView> {
    const { draft, parent, hasRecord } = await loadDraft(this.d.db, id);
    await this.access.require('read_draft', identity, ctxOf(draft, parent), parent);
    const { summary } = await this.files.readSummary(draft, hasRecord);
    return { kind: 'draft', doc: draftDoc(draft, parent, hasRecord, summary) };
  }

  // ---------------------------------------------------------------------------------------
  // create / update / delete draft

  /** POST /api/records. */
  async createDraft(identity: Identity, body: unknown): Promise<ItemView> {
    recordsPolicy.require('create', identity);
    const w: DraftWrite = { identity, input: loadInput(body, this.d.config.customFields), patch: {}, errors: [] };
    await runComponents(this.components, 'create', w);
    return withTransaction(this.d.db, async (trx) => {
      const [id, parentId] = await newUniqueIds(trx, 2);
      await runComponents(this.components, 'createLocked', trx, w, id);
      const now = new Date();
      const parent = newParent(parentId, identity.sub, id, now);
      const draft = newDraft(id, parentId, w.patch, w.input.data.files?.enabled as boolean | undefined, now);
      await repo.insertParent(trx, parent);
      await repo.insertDraft(trx, draft);
      const doc = draftDoc(draft, parent, false);
      await this.d.index.index(trx, { kind: 'draft', row: draft, doc });
      await writeOutbox(trx, {
        subject: 'rdm.records.draft.created',
        aggregate: { type: 'draft', id, revision: draft.revision_id },
        data: { id, parent_id: parentId, owner: identity.sub },
      });
      return { kind: 'draft' as const, doc, errors: w.errors };
    });
  }

  /** PUT /api/records/{id}/draft: full replace of metadata/custom_fields; pids/access when sent. */
  async updateDraft(identity: Identity, id: string, body: unknown, ifMatch?: number): Promise<ItemView> {
    const { draft, parent, hasRecord } = await loadDraft(this.d.db, id, { write: true });
    // The widened context (community roles) also decides the access and files options below.
    const ctx = await this.access.require('update_draft', identity, ctxOf(draft, parent), parent);
    if (ifMatch !== undefined && ifMatch !== draft.revision_id) throw Errors.revisionMismatch(ifMatch, draft.revision_id);
    const w: DraftWrite = {
      identity,
      input: loadInput(body, this.d.config.customFields),
      draft,
      parent,
      ctx,
      hasRecord,
      patch: {},
      errors: [],
    };
    await runComponents(this.components, 'update', w);
    return withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      if (ifMatch !== undefined && ifMatch !== locked.revision_id) throw Errors.revisionMismatch(ifMatch, locked.revision_id);
      await runComponents(this.components, 'updateLocked', trx, w, locked);
      const now = new Date();
      const patch = w.patch;
      const revision = await repo.updateDraft(trx, id, patch, now);
      const updated: DraftRow = { ...locked, ...patch, updated: now, revision_id: revision };
      const doc = draftDoc(updated, parent, hasRecord, w.summary!);
      await this.d.index.index(trx, { kind: 'draft', row: updated, doc });
      return { kind: 'draft' as const, doc, errors: w.errors };
    });
  }

  /** DELETE /api/records/{id}/draft. */
  async deleteDraft(identity: Identity, id: string, ifMatch?: number): Promise<void> {
    const { draft, parent } = await loadDraft(this.d.db, id);
    await this.access.require('delete_draft', identity, ctxOf(draft, parent), parent);
    if (ifMatch !== undefined && ifMatch !== draft.revision_id) throw Errors.revisionMismatch(ifMatch, draft.revision_id);
    const result = await withTransaction(this.d.db, async (trx) => {
      const lockedParent = (await repo.getParent(trx, draft.parent_id, true))!;
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      if (ifMatch !== undefined && ifMatch !== locked.revision_id) throw Errors.revisionMismatch(ifMatch, locked.revision_id);
      const deletion = await this.removeDraft(trx, locked, lockedParent);
      await writeOutbox(trx, {
        subject: 'rdm.records.draft.deleted',
        aggregate: { type: 'draft', id, revision: locked.revision_id },
        data: { id, parent_id: lockedParent.id, bucket_id: locked.bucket_id, kind: deletion.kind, ...this.media.deletedEventData(locked) },
      });
      return deletion;
    });
    // Best effort: the deletion is committed; a failure here is logged (each event retries it).
    for (const c of this.components) {
      try {
        await c.afterDeleteDraft?.(result);
      } catch (err) {
        this.d.logger.warn({ err, id, component: c.name }, 'after-delete hook failed');
      }
    }
  }

  /** The rows of a deleted draft (locked): an edit draft, a new-version draft or a first draft with its parent. */
  private async removeDraft(trx: Knex.Transaction, draft: DraftRow, parent: ParentRow): Promise<DraftDeletion> {
    const record = await repo.getRecord(trx, draft.id, true);
    const d: DraftDeletion = { draft, parent, kind: record ? 'edit' : parent.latest_id ? 'new_version' : 'new' };
    await runComponents(this.components, 'beforeDeleteDraft', d);
    await repo.deleteDraft(trx, draft.id);
    await this.d.index.remove(trx, draft.id, 'draft');
    await runComponents(this.components, 'deleteDraft', trx, d);
    if (d.kind === 'edit') {
      await this.d.index.setHasDraft(trx, draft.id, false);
      await repo.setDraftRevision(trx, draft.id, draft.revision_id);
    }
    if (d.kind === 'new') await repo.deleteParent(trx, parent.id);
    return d;
  }

  // ---------------------------------------------------------------------------------------
  // edit / publish

  /**
   * POST /api/records/{id}/draft: the edit draft of a published record (idempotent). A deleted
   * record is not edited, not even through an edit draft made before its deletion: 410 with its
   * tombstone (issue 18, finding 7; InvenioRDM disables `edit` on deleted records).
   */
  async edit(identity: Identity, id: string): Promise<ItemView> {
    const existing = await repo.getDraft(this.d.db, id);
    if (existing) {
      const parent = (await repo.getParent(this.d.db, existing.parent_id))!;
      await this.access.require('edit', identity, ctxOf(existing, parent), parent);
      const current = await repo.getRecord(this.d.db, id);
      if (current && current.deletion_status !== 'P') throw Errors.gone();
      const draft = current ? await this.ownFilesCopy(existing, current, parent) : existing;
      const { summary } = await this.files.summaryOf(draft, !!current);
      return { kind: 'draft', doc: draftDoc(draft, parent, !!current, summary) };
    }
    const record = await repo.getRecord(this.d.db, id);
    if (!record) throw Errors.pidDoesNotExist();
    const parent = (await repo.getParent(this.d.db, record.parent_id))!;
    if (record.deletion_status !== 'P') throw Errors.gone();
    await this.access.require('edit', identity, ctxOf(record, parent), parent);
    const media = await this.media.editCopy(record);
    // The record's bucket, or its own copy when a file-modification request unlocked the files.
    const bucket = await this.files.editCopy(record);
    const dropCopies = async () => {
      await this.media.drop(media.bucket_id);
      if (bucket !== record.bucket_id) await this.files.drop(bucket);
    };
    return withTransaction(this.d.db, async (trx) => {
      const lockedRecord = (await repo.getRecord(trx, id, true))!;
      // Deleted meanwhile (the deletion locks the same row): no edit draft of it.
      if (lockedRecord.deletion_status !== 'P') {
        await dropCopies();
        throw Errors.gone();
      }
      const again = await repo.getDraft(trx, id);
      const lockedParent = (await repo.getParent(trx, record.parent_id))!;
      const frozen = frozenSummary(lockedRecord.files);
      if (again || lockedRecord.media_files?.bucket_id !== record.media_files?.bucket_id || lockedRecord.bucket_id !== record.bucket_id) {
        // Why: a concurrent edit won (or was even published meanwhile): these copies are nobody's.
        await dropCopies();
        if (!again) throw Errors.conflict('The record changed meanwhile; please retry.');
        return { kind: 'draft' as const, doc: draftDoc(again, lockedParent, true, frozen) };
      }
      // A new copy of the files holds what the record's do: the frozen summary describes both.
      const draft: DraftRow = { ...editDraft(lockedRecord, new Date()), media_files: media, bucket_id: bucket };
      await repo.insertDraft(trx, draft);
      const doc = draftDoc(draft, lockedParent, true, frozen);
      await this.d.index.index(trx, { kind: 'draft', row: draft, doc });
      await this.d.index.setHasDraft(trx, id, true);
      return { kind: 'draft' as const, doc };
    });
  }

  /**
   * An existing edit draft of `record` after a file-modification unlock: it gets its own copy of
   * the files bucket (written on the locked row; a concurrent edit's copy wins, ours is dropped).
   * Unchanged when it already has one or the files are not unlocked.
   */
  private async ownFilesCopy(draft: DraftRow, record: RecordRow, parent: ParentRow): Promise<DraftRow> {
    const bucket = await this.files.editCopy(record, draft.bucket_id);
    if (bucket === draft.bucket_id) return draft;
    const updated = await withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getDraft(trx, draft.id, true);
      if (!locked || locked.bucket_id !== record.bucket_id) return locked;
      const now = new Date();
      const revision = await repo.updateDraft(trx, draft.id, { bucket_id: bucket }, now);
      const row: DraftRow = { ...locked, bucket_id: bucket, updated: now, revision_id: revision };
      await this.d.index.index(trx, { kind: 'draft', row, doc: draftDoc(row, parent, true, frozenSummary(record.files)) });
      return row;
    });
    if (!updated || updated.bucket_id !== bucket) await this.files.drop(bucket);
    if (!updated) throw Errors.pidDoesNotExist();
    return updated;
  }

  /** POST /api/records/{id}/draft/actions/publish. */
  async publish(identity: Identity, id: string): Promise<ItemView> {
    const { draft, parent, hasRecord } = await loadDraft(this.d.db, id, { write: true });
    await this.access.require('publish', identity, ctxOf(draft, parent), parent);
    // An open review blocks a direct publication (checked again on the locked parent below).
    await runComponents(this.components, 'beforePublish', parent);
    const record = hasRecord ? await repo.getRecord(this.d.db, id) : undefined;
    const frozen = await this.checkPublishable(draft, record, { lock: true });
    return withTransaction(this.d.db, async (trx) => {
      const checkParent = (p: ParentRow) => runComponents(this.components, 'beforePublish', p);
      const { view } = await this.commitPublication(trx, { id, parentId: draft.parent_id, isEdit: !!record, frozen, checkParent });
      return view;
    });
  }

  /**
   * The checks of a publication that need no transaction, every error at once (400): schema,
   * files, PIDs and the community schema extension; with `lock`, the files of a valid draft are
   * then frozen (files component). Returns the files summary the record will carry. Shared by
   * direct publish, submit-review (`lock: false`) and the saga.
   */
  async checkPublishable(draft: DraftRow, record: RecordRow | undefined, o: { lock: boolean }): Promise<FrozenFiles> {
    const c: PublishCheck = {
      draft,
      record,
      errors: { metadata: [], files: [], pids: [], communities: [] },
      lock: o.lock,
      frozen: { count: 0, total_bytes: 0, entries: {} },
    };
    await runComponents(this.components, 'checkPublish', c);
    await runComponents(this.components, 'lockPublish', c);
    const errors: FieldError[] = fieldErrors.merge(c.errors.metadata, c.errors.files, c.errors.pids, c.errors.communities);
    if (errors.length) throw Errors.validation(errors);
    await runComponents(this.components, 'afterPublishCheck', c);
    return c.frozen;
  }

  /**
   * The writes of a publication inside `trx` (the caller's: the HTTP publish's own, or the
   * request-accepted consumer's, together with its inbox row): record row, pids, parent versions
   * state, search documents and `rdm.records.record.published`. `parentPatch` adds parent changes
   * (communities, review unlinked) made in the same statement; `checkParent` may refuse on the
   * locked parent; `requestId` goes into the event. Returns the view and the event envelope.
   */
  async commitPublication(trx: Knex.Transaction, o: CommitOptions): Promise<{ view: ItemView; event: EventEnvelope }> {
    const { id, isEdit } = o;
    const lockedParent = (await repo.getParent(trx, o.parentId, true))!;
    const locked = await repo.getDraft(trx, id, true);
    if (!locked) throw Errors.pidDoesNotExist();
    await o.checkParent?.(lockedParent);
    const lockedRecord = isEdit ? await repo.getRecord(trx, id, true) : undefined;
    await this.requireLiveSource(trx, lockedParent, lockedRecord, isEdit);
    const p: PublishCommit = {
      draft: locked,
      record: lockedRecord,
      parent: lockedParent,
      isEdit,
      pids: {},
      parentPatch: {},
      parentChanged: false,
    };
    await runComponents(this.components, 'publish', trx, p);
    const pids = { pids: p.pids, parentChanged: p.parentChanged };
    const now = new Date();
    const extra = o.parentPatch?.(lockedParent) ?? {};
    const extraChanged = Object.keys(extra).length > 0;
    const parentPatch = { ...p.parentPatch, ...extra };
    let published: RecordRow;
    if (lockedRecord) {
      const patch = editedRecordPatch(locked, lockedRecord, pids.pids, o.frozen.media);
      // File modification: the edit draft's own bucket, frozen at the checks, replaces the version's files.
      if (p.fileModification) {
        const { count, total_bytes, entries } = o.frozen;
        Object.assign(patch, { bucket_id: locked.bucket_id, files: { ...patch.files, count, total_bytes, entries } });
      }
      const revision = await repo.updateRecord(trx, id, patch, now);
      await repo.setDraftRevision(trx, id, locked.revision_id);
      published = { ...lockedRecord, ...patch, updated: now, revision_id: revision };
    } else {
      published = newRecord(locked, o.frozen, pids.pids, now);
      await repo.insertRecord(trx, published);
    }
    if (!lockedRecord || pids.parentChanged || extraChanged) await repo.updateParent(trx, lockedParent.id, parentPatch);
    const newParent: ParentRow = { ...lockedParent, ...parentPatch };
    await repo.deleteDraft(trx, id);
    await this.d.index.remove(trx, id, 'draft');
    const doc = recordDoc(published, newParent);
    await this.d.index.index(trx, { kind: 'record', row: published, doc });
    await runComponents(this.components, 'afterPublish', trx, p);
    if (pids.parentChanged || extraChanged) await this.d.index.refreshParent(trx, lockedParent.id, parentDoc(newParent));
    const event = await writeOutbox(trx, {
      subject: 'rdm.records.record.published',
      aggregate: { type: 'record', id, revision: published.revision_id },
      data: {
        ...recordPublishedData(published, newParent, o.requestId),
        ...this.media.publishedEventData(published, lockedRecord),
        ...(p.fileModification
          ? { file_modification_request_id: p.fileModification.requestId, superseded_bucket_id: p.fileModification.supersededBucketId }
          : {}),
      },
    });
    return { view: { kind: 'record', doc }, event: event as unknown as EventEnvelope };
  }

  /**
   * A publication never brings a deleted record's content back (issue 18, finding 7): 410 when
   * the edited record, or (new version) the latest version the draft was copied from, is deleted.
   * Checked on the row locked FOR UPDATE, as the deletion locks it: a deletion racing the
   * publication is either seen here or waits until the publication committed.
   */
  private async requireLiveSource(trx: Knex.Transaction, parent: ParentRow, record: RecordRow | undefined, isEdit: boolean) {
    const source = isEdit ? record : parent.latest_id ? await repo.getRecord(trx, parent.latest_id, true) : undefined;
    if (source && source.deletion_status !== 'P') throw Errors.gone();
  }

  // ---------------------------------------------------------------------------------------
  // operations of one component

  /** POST /api/records/{id}/versions. */
  newVersion(identity: Identity, id: string): Promise<ItemView> {
    return this.versions.newVersion(identity, id);
  }

  /** GET /api/records/{id}/versions. */
  listVersions(identity: Identity, id: string, query: Record<string, string | string[] | undefined>): Promise<VersionsView> {
    return this.versions.list(identity, id, query);
  }

  /** GET /api/records/{id}/versions/latest. */
  readLatest(identity: Identity, id: string): Promise<ItemView> {
    return this.versions.latest(identity, id);
  }

  /** POST /api/records/{id}/draft/actions/files-import. */
  importFiles(identity: Identity, id: string): Promise<Record<string, unknown>> {
    return this.files.importFiles(identity, id);
  }

  /** POST /api/records/{id}/draft/pids/{scheme}. */
  reservePid(identity: Identity, id: string, scheme: string): Promise<ItemView> {
    return this.pids.reserve(identity, id, scheme);
  }

  /** DELETE /api/records/{id}/draft/pids/{scheme}. */
  discardPid(identity: Identity, id: string, scheme: string): Promise<void> {
    return this.pids.discard(identity, id, scheme);
  }

  /** The `rdm.files.file.committed` consumer's effect (inside its transaction). */
  refreshDraftFiles(trx: Knex.Transaction, bucketId: string): Promise<void> {
    return this.files.refreshDraftFiles(trx, bucketId);
  }

  /**
   * RPC rdm.records.rpc.authorize-record: may `identity` read the published record `id` (as
   * `GET /api/records/<id>` decides: 404 unknown or a draft, 410 deleted, 403 refused)? Answers
   * its id and its parent's id.
   */
  async authorizeRecord(req: { record_id: string; identity: { sub: string | null; roles: string[] } }): Promise<{
    record_id: string;
    parent_id: string;
  }> {
    const identity = { sub: req.identity.sub, roles: req.identity.roles } as Identity;
    const found = await repo.getRecordWithParent(this.d.db, req.record_id);
    if (!found?.parent) {
      if (await repo.getDraft(this.d.db, req.record_id)) throw Errors.pidNotRegistered();
      throw Errors.pidDoesNotExist();
    }
    const { record, parent } = found;
    if (record.deletion_status !== 'P') throw Errors.gone();
    await this.access.require('read', identity, ctxOf(record, parent), parent);
    return { record_id: record.id, parent_id: parent.id };
  }

  /** RPC rdm.records.rpc.authorize-files. */
  authorizeFiles(req: AuthorizeFilesRequest): Promise<BucketGrant> {
    return this.files.authorize(req);
  }
}
