/**
 * The records service: drafts, publishing, edits, versions and PIDs (reference §4.4–§4.12).
 *
 * Every method takes `(identity, input)`, loads what the policy needs, checks it, validates,
 * calls the files/vocabularies services when it must (never on a published-record read), and
 * writes in ONE transaction the rows, the `search_docs` documents and the outbox events.
 * Methods return views (`{kind, doc}`) that routes render with `serializeItem`.
 */
import {
  AppError,
  Errors,
  type EventEnvelope,
  type FieldError,
  type Identity,
  type Knex,
  type ListArgs,
  type MsgLogger,
  parseListArgs,
  withTransaction,
  writeOutbox,
} from '@rdm/platform';
import type { FilesPort } from '../rpc/files.client.js';
import type { VocabulariesPort } from '../rpc/vocabularies.client.js';
import * as repo from '../repo/records.repo.js';
import { type Access, accessStatus, normaliseAccess } from './access.js';
import { newId } from './ids.js';
import { fileListLinks } from './links.js';
import {
  type DraftRow,
  type FilesSummary,
  type Manifest,
  type ParentAccess,
  type ParentCommunities,
  type ParentRow,
  type PidValue,
  type RecordRow,
  type StoredFiles,
  summarizeManifest,
} from './model.js';
import { managedDoi, oaiIdentifier, type PidsConfig, validatePids } from './pids.js';
import { can, type RecordAccessCtx, type RecordAction, recordsPolicy } from './records.policy.js';
import { fileTypes, searchDocRow } from './search-doc.js';
import { buildDoc, filesReadForm, type ItemDoc, parentDoc } from './serializers.js';
import { loadWriteForm, validateStored } from './validation.js';
import { resolveAndDereference } from './vocabulary-refs.js';

/** Configuration the service needs. */
export interface RecordsServiceConfig {
  baseUrl: string;
  doiPrefix: string;
  oaiPrefix: string;
  siteName: string;
  /** Days after draft creation during which public → restricted is allowed (null: always). */
  restrictionGraceDays?: number | null;
}

/** Dependencies of the service. */
export interface RecordsServiceDeps {
  db: Knex;
  files: FilesPort;
  vocabularies: VocabulariesPort;
  config: RecordsServiceConfig;
  logger: MsgLogger;
  /** Hooks of the review and communities components (set with `useHooks`). */
  hooks?: RecordsHooks;
}

/** Files summary frozen into a record at publication. */
export type FrozenFiles = Pick<FilesSummary, 'count' | 'total_bytes' | 'entries'>;

/**
 * Hooks other components plug into the draft lifecycle (review.component.ts,
 * communities.component.ts), so this service stays unaware of requests and communities.
 */
export interface RecordsHooks {
  /** Refuse a direct publication (throw), e.g. while a review is open; also run on the locked parent. */
  beforePublish?(parent: ParentRow): void;
  /** Refuse a draft deletion (throw); run on the locked parent inside the deletion's transaction. */
  beforeDeleteDraft?(parent: ParentRow): void;
  /** After a draft deletion committed (best effort: e.g. delete its `created` review request). */
  afterDeleteDraft?(parent: ParentRow): Promise<void>;
  /** Widen a permission context the plain rules refused (community roles of the caller). */
  accessCtx?(identity: Identity, ctx: RecordAccessCtx, parent: ParentRow): Promise<RecordAccessCtx>;
}

/** What a read or write returns: the document (routes add links and strip per identity). */
export interface ItemView {
  kind: 'draft' | 'record';
  doc: ItemDoc;
  /** Save-time field errors (drafts). */
  errors?: FieldError[];
  /** Published-record reads: the `recordStamp` of the rows the document was built from. */
  stamp?: string;
}

/** A list of versions. */
export interface VersionsView {
  items: ItemView[];
  total: number;
  args: ListArgs;
}

/** Authorization request of the files service. */
export interface AuthorizeFilesRequest {
  record_id: string;
  scope: 'draft' | 'record';
  action: 'read' | 'update';
  identity: { sub: string | null; roles: string[] };
  access_token?: string;
}

/** Authorization grant for the files service. */
export interface BucketGrant {
  bucket_id: string;
  record_id: string;
  enabled: boolean;
  locked: boolean;
  default_preview: string | null;
  order: string[];
}

const DEFAULT_SETTINGS: ParentAccess['settings'] = {
  allow_user_requests: false,
  allow_guest_requests: false,
  accept_conditions_text: null,
  secret_link_expiration: 0,
};

/**
 * Sorts of `GET …/versions`. InvenioRDM (since v12) validates `sort` against every record sort
 * option (RDM_SORT_OPTIONS), not only the versions default `version`, and clients send others
 * (inveniordm-py: `sort=newest`). Relevance and the stats sorts keep the version order (the list
 * has no query ranking; the versions of one record share the all-versions stats).
 */
const VERSIONS_ORDER: Readonly<Record<string, repo.VersionsOrder>> = {
  version: { column: 'index', dir: 'desc' },
  bestmatch: { column: 'index', dir: 'desc' },
  newest: { column: 'created', dir: 'desc' },
  oldest: { column: 'created', dir: 'asc' },
  'updated-desc': { column: 'updated', dir: 'desc' },
  'updated-asc': { column: 'updated', dir: 'asc' },
  mostviewed: { column: 'index', dir: 'desc' },
  mostdownloaded: { column: 'index', dir: 'desc' },
};

const MISSING_FILES = 'Missing uploaded files. To disable files for this record please mark it as metadata-only.';

/** The permission context of a draft or record and its parent (without community roles). */
export function ctxOf(row: { access: Access }, parent: ParentRow): RecordAccessCtx {
  return {
    ownerId: parent.owner_id,
    accessRecord: row.access?.record === 'restricted' ? 'restricted' : 'public',
    accessFiles: row.access?.files === 'restricted' ? 'restricted' : 'public',
    grants: (parent.access?.grants ?? []) as RecordAccessCtx['grants'],
  };
}

function mergeErrors(...lists: FieldError[][]): FieldError[] {
  const out: FieldError[] = [];
  for (const list of lists) {
    for (const e of list) {
      const existing = out.find((x) => x.field === e.field);
      if (existing) {
        for (const m of e.messages) if (!existing.messages.includes(m)) existing.messages.push(m);
      } else out.push({ field: e.field, messages: [...e.messages] });
    }
  }
  return out;
}

const today = () => new Date().toISOString().slice(0, 10);
const clone = <T>(v: T): T => structuredClone(v);

function frozenSummary(files: StoredFiles): FrozenFiles {
  return { count: files.count ?? 0, total_bytes: files.total_bytes ?? 0, entries: files.entries ?? {} };
}

/** The records domain service. */
export class RecordsService {
  private readonly pidsCfg: PidsConfig;

  constructor(private readonly d: RecordsServiceDeps) {
    this.pidsCfg = { doiPrefix: d.config.doiPrefix, siteName: d.config.siteName };
  }

  /** Plug the hooks of the review/communities components in (app.ts). */
  useHooks(hooks: RecordsHooks): void {
    this.d.hooks = { ...this.d.hooks, ...hooks };
  }

  /**
   * `policy.require(action)` on `ctx` (returns the context used), first widened by the `accessCtx` hook when the plain rules
   * refuse (so owners never pay for the community-roles lookup).
   */
  async requireWith(action: RecordAction, identity: Identity, ctx: RecordAccessCtx, parent: ParentRow): Promise<RecordAccessCtx> {
    if (can(action, identity, ctx) || !this.d.hooks?.accessCtx || identity.sub === null) {
      recordsPolicy.require(action, identity, ctx);
      return ctx;
    }
    const wide = await this.d.hooks.accessCtx(identity, ctx, parent);
    recordsPolicy.require(action, identity, wide);
    return wide;
  }

  // ---------------------------------------------------------------------------------------
  // helpers

  private async newUniqueId(db: Knex | Knex.Transaction, avoid: string[] = []): Promise<string> {
    for (let i = 0; i < 20; i++) {
      const id = newId();
      if (!avoid.includes(id) && !(await repo.idInUse(db, id))) return id;
    }
    throw Errors.internal('Could not allocate an identifier.');
  }

  /** `n` distinct unused ids, checked in one statement per attempt. */
  private async newUniqueIds(db: Knex | Knex.Transaction, n: number): Promise<string[]> {
    for (let i = 0; i < 20; i++) {
      const ids = [...new Set(Array.from({ length: n }, newId))];
      if (ids.length === n && (await repo.idsInUse(db, ids)).size === 0) return ids;
    }
    throw Errors.internal('Could not allocate an identifier.');
  }

  /** 404/410 for an id without a draft. */
  private async draftMissing(id: string): Promise<never> {
    const record = await repo.getRecord(this.d.db, id);
    if (record && record.deletion_status !== 'P') throw Errors.gone();
    throw Errors.pidDoesNotExist();
  }

  /** A draft with its parent (one statement); `hasRecord`: a published record shares its id (edit draft). */
  private async loadDraft(id: string): Promise<{ draft: DraftRow; parent: ParentRow; hasRecord: boolean }> {
    const found = await repo.getDraftWithParent(this.d.db, id);
    if (!found) return this.draftMissing(id);
    if (!found.parent) throw Errors.pidDoesNotExist();
    return { draft: found.draft, parent: found.parent, hasRecord: found.hasRecord };
  }

  /** The published record sharing a draft's id, read only when `loadDraft` said there is one. */
  private async recordOf(id: string, hasRecord: boolean): Promise<RecordRow | undefined> {
    return hasRecord ? repo.getRecord(this.d.db, id) : undefined;
  }

  /**
   * `lock` with `if_complete` (see proto/README.md). A files service that does not know the flag
   * yet refuses it (400 on `if_complete`): then the manifest alone, and the caller locks after
   * its checks, as before the flag existed.
   */
  private async lockIfComplete(bucketId: string): Promise<Manifest> {
    try {
      return await this.d.files.lock(bucketId, { ifComplete: true });
    } catch (err) {
      if (err instanceof AppError && err.status === 400 && err.fieldErrors?.some((e) => e.field === 'if_complete')) {
        return this.d.files.manifest(bucketId);
      }
      throw err;
    }
  }

  /** The files summary of a draft: the record's frozen one for edit drafts, else the live manifest. */
  private async draftFiles(
    draft: DraftRow,
    record: RecordRow | undefined,
  ): Promise<{ summary: Pick<FilesSummary, 'count' | 'total_bytes' | 'entries'>; manifest?: Manifest }> {
    if (record) return { summary: frozenSummary(record.files) };
    const manifest = await this.d.files.manifest(draft.bucket_id);
    return { summary: summarizeManifest(manifest), manifest };
  }

  private draftDoc(
    draft: DraftRow,
    parent: ParentRow,
    isPublished: boolean,
    summary: Pick<FilesSummary, 'count' | 'total_bytes' | 'entries'>,
  ): ItemDoc {
    return buildDoc({ kind: 'draft', row: draft, parent, isPublished, files: summary });
  }

  private recordDoc(record: RecordRow, parent: ParentRow): ItemDoc {
    return buildDoc({ kind: 'record', row: record, parent, isPublished: true, files: frozenSummary(record.files) });
  }

  private async index(
    trx: Knex.Transaction,
    kind: 'draft' | 'record',
    row: DraftRow | RecordRow,
    doc: ItemDoc,
    hasDraft: boolean,
  ): Promise<void> {
    await repo.upsertSearchDoc(
      trx,
      searchDocRow(doc, {
        kind,
        hasDraft,
        rtType: row.resource_type_type,
        rtSubtype: row.resource_type_subtype,
        created: row.created,
        updated: row.updated,
      }),
    );
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
      await this.requireWith('read', identity, ctxOf(record, parent), parent);
      return {
        kind: 'record',
        doc: this.recordDoc(record, parent),
        stamp: repo.stampOf(record.revision_id, parent.revision_id, record.deletion_status),
      };
    }
    if (await repo.getDraft(this.d.db, id)) throw Errors.pidNotRegistered();
    const parent = await repo.getParent(this.d.db, id);
    if (parent) {
      if (!parent.latest_id) throw Errors.pidNotRegistered();
      return { redirect: `${this.d.config.baseUrl}/api/records/${encodeURIComponent(parent.latest_id)}` };
    }
    throw Errors.pidDoesNotExist();
  }

  /**
   * The current stamp of a published record (see `repo.recordStamp`), or undefined: lets the
   * HTTP layer reuse a rendering made from rows with the same stamp, with one narrow statement.
   */
  recordStamp(id: string): Promise<string | undefined> {
    return repo.recordStamp(this.d.db, id);
  }

  /** GET /api/records/{id}/draft. */
  async readDraft(identity: Identity, id: string): Promise<ItemView> {
    const { draft, parent, hasRecord } = await this.loadDraft(id);
    await this.requireWith('read_draft', identity, ctxOf(draft, parent), parent);
    const record = await this.recordOf(id, hasRecord);
    let summary: Pick<FilesSummary, 'count' | 'total_bytes' | 'entries'>;
    try {
      summary = (await this.draftFiles(draft, record)).summary;
    } catch (err) {
      // Why: a draft read should survive a files outage; the last indexed summary is close enough.
      if (!(err instanceof AppError) || err.status !== 503) throw err;
      this.d.logger.warn({ err, id }, 'files manifest unavailable; using the indexed summary');
      const row = await this.d.db('search_docs').where({ id, kind: 'draft' }).first('doc');
      const f = (row?.doc as ItemDoc | undefined)?.files;
      summary = { count: f?.count ?? 0, total_bytes: f?.total_bytes ?? 0, entries: f?.entries ?? {} };
    }
    return { kind: 'draft', doc: this.draftDoc(draft, parent, !!record, summary) };
  }

  // ---------------------------------------------------------------------------------------
  // create / update / delete draft

  /** POST /api/records. */
  async createDraft(identity: Identity, body: unknown): Promise<ItemView> {
    recordsPolicy.require('create', identity);
    const load = loadWriteForm(body);
    if (load.hardErrors.length) throw Errors.validation(load.hardErrors);
    const data = load.data;
    const rt = await resolveAndDereference(data as Record<string, any>, load.vocabRefs, this.d.vocabularies);
    const metadata = (data.metadata ?? {}) as Record<string, any>;
    const pids = (data.pids ?? {}) as Record<string, PidValue>;

    return withTransaction(this.d.db, async (trx) => {
      const [id, parentId] = await this.newUniqueIds(trx, 2);
      const pidErrors = await validatePids(trx, pids, { recordId: id, metadata }, this.pidsCfg);
      const now = new Date();
      const parent: ParentRow = {
        id: parentId,
        owner_id: identity.sub,
        created: now,
        updated: now,
        revision_id: 1,
        access: { owned_by: identity.sub ? { user: identity.sub } : null, settings: { ...DEFAULT_SETTINGS }, grants: [], links: [] },
        communities: {},
        pids: {},
        latest_id: null,
        latest_index: 0,
        next_draft_id: id,
      };
      const draft: DraftRow = {
        id,
        parent_id: parentId,
        index: 1,
        created: now,
        updated: now,
        revision_id: 1,
        expires_at: null,
        metadata,
        custom_fields: (data.custom_fields ?? {}) as Record<string, any>,
        access: normaliseAccess(data.access),
        files: { enabled: data.files?.enabled ?? true, order: [], default_preview: null },
        media_files: { enabled: false, order: [] },
        pids,
        bucket_id: id,
        resource_type_type: rt.type,
        resource_type_subtype: rt.subtype,
      };
      await repo.insertParent(trx, parent);
      await repo.insertDraft(trx, draft);
      const doc = this.draftDoc(draft, parent, false, summarizeManifest(undefined));
      await this.index(trx, 'draft', draft, doc, false);
      await writeOutbox(trx, {
        subject: 'rdm.records.draft.created',
        aggregate: { type: 'draft', id, revision: draft.revision_id },
        data: { id, parent_id: parentId, owner: identity.sub },
      });
      return { kind: 'draft' as const, doc, errors: mergeErrors(load.errors, pidErrors) };
    });
  }

  /** PUT /api/records/{id}/draft: full replace of metadata/custom_fields; pids/access when sent. */
  async updateDraft(identity: Identity, id: string, body: unknown, ifMatch?: number): Promise<ItemView> {
    const { draft, parent, hasRecord } = await this.loadDraft(id);
    const ctx = ctxOf(draft, parent);
    recordsPolicy.require('update_draft', identity, ctx);
    if (ifMatch !== undefined && ifMatch !== draft.revision_id) throw Errors.revisionMismatch(ifMatch, draft.revision_id);
    const load = loadWriteForm(body);
    if (load.hardErrors.length) throw Errors.validation(load.hardErrors);
    const data = load.data;
    const hard: FieldError[] = [];
    let access = draft.access;
    if (load.present.access && data.access) {
      const next = normaliseAccess(data.access, draft.access);
      if (next.record !== draft.access.record && !can('manage_record_access', identity, ctx)) {
        hard.push({ field: 'access', messages: ["You don't have permissions to manage record access."] });
      }
      const grace = this.d.config.restrictionGraceDays;
      if (grace !== null && grace !== undefined && draft.access.record === 'public' && next.record === 'restricted') {
        if (draft.created.getTime() + grace * 86_400_000 <= Date.now()) {
          hard.push({
            field: '_schema',
            messages: [
              'Record visibility can not be changed to restricted anymore. Please contact support if you still need to make these changes.',
            ],
          });
        }
      }
      access = next;
    }
    if (hard.length) throw Errors.validation(hard);
    const rt = await resolveAndDereference(data as Record<string, any>, load.vocabRefs, this.d.vocabularies);
    const metadata = (data.metadata ?? {}) as Record<string, any>;
    const record = await this.recordOf(id, hasRecord);
    const { summary } = await this.draftFiles(draft, record);

    // Files options (InvenioRDM's draft files component; `files` omitted means enabled).
    const fileErrors: FieldError[] = [];
    const filesIn = (data.files ?? {}) as Record<string, any>;
    let enabled: boolean = typeof filesIn.enabled === 'boolean' ? filesIn.enabled : true;
    const keys = Object.keys(summary.entries);
    let checkMissing = true;
    if (enabled !== draft.files.enabled && !can('manage_files', identity, ctx)) {
      fileErrors.push({ field: 'files.enabled', messages: ["You don't have permissions to manage files options."] });
      enabled = draft.files.enabled;
      checkMissing = false;
    } else if (!enabled && summary.count > 0) {
      fileErrors.push({ field: 'files.enabled', messages: ['You must first delete all files to set the record to be metadata-only.'] });
      enabled = draft.files.enabled;
      checkMissing = false;
    }
    if (checkMissing && enabled && summary.count === 0) fileErrors.push({ field: 'files.enabled', messages: [MISSING_FILES] });
    let defaultPreview: string | null = null;
    const dp = filesIn.default_preview;
    if (typeof dp === 'string' && dp !== '') {
      if (keys.includes(dp)) defaultPreview = dp;
      else fileErrors.push({ field: 'files.default_preview', messages: [`Invalid value for default preview: file ${dp} does not exist.`] });
    }
    const files: StoredFiles = {
      enabled,
      default_preview: defaultPreview,
      order: Array.isArray(filesIn.order) ? filesIn.order : (draft.files.order ?? []),
    };
    const pids = load.present.pids ? ((data.pids ?? {}) as Record<string, PidValue>) : clone(draft.pids);
    const pidErrors = await validatePids(this.d.db, pids, { recordId: id, metadata }, this.pidsCfg);

    return withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      if (ifMatch !== undefined && ifMatch !== locked.revision_id) throw Errors.revisionMismatch(ifMatch, locked.revision_id);
      const now = new Date();
      const patch = {
        metadata,
        custom_fields: (data.custom_fields ?? {}) as Record<string, any>,
        access,
        files,
        media_files: locked.media_files,
        pids,
        resource_type_type: rt.type,
        resource_type_subtype: rt.subtype,
      };
      const revision = await repo.updateDraft(trx, id, patch, now);
      // A reserved (unregistered) DOI dropped from the draft is released.
      const oldDoi = locked.pids?.doi?.identifier;
      if (oldDoi && oldDoi !== pids?.doi?.identifier) {
        const row = await repo.findPid(trx, 'doi', oldDoi);
        if (row && row.status === 'N' && row.record_id === id) await repo.deletePid(trx, 'doi', oldDoi);
      }
      const updated: DraftRow = { ...locked, ...patch, updated: now, revision_id: revision };
      const doc = this.draftDoc(updated, parent, !!record, summary);
      await this.index(trx, 'draft', updated, doc, false);
      return { kind: 'draft' as const, doc, errors: mergeErrors(load.errors, fileErrors, pidErrors) };
    });
  }

  /** DELETE /api/records/{id}/draft. */
  async deleteDraft(identity: Identity, id: string, ifMatch?: number): Promise<void> {
    const { draft, parent } = await this.loadDraft(id);
    recordsPolicy.require('delete_draft', identity, ctxOf(draft, parent));
    if (ifMatch !== undefined && ifMatch !== draft.revision_id) throw Errors.revisionMismatch(ifMatch, draft.revision_id);
    const result = await withTransaction(this.d.db, async (trx) => {
      const lockedParent = (await repo.getParent(trx, draft.parent_id, true))!;
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      if (ifMatch !== undefined && ifMatch !== locked.revision_id) throw Errors.revisionMismatch(ifMatch, locked.revision_id);
      const record = await repo.getRecord(trx, id, true);
      if (!record) this.d.hooks?.beforeDeleteDraft?.(lockedParent);
      let kind: 'edit' | 'new_version' | 'new';
      await repo.deleteDraft(trx, id);
      await repo.deleteSearchDoc(trx, id, 'draft');
      await repo.deleteNewPids(trx, id);
      if (record) {
        kind = 'edit';
        await repo.setHasDraft(trx, id, false);
        await repo.setDraftRevision(trx, id, locked.revision_id);
      } else if (lockedParent.latest_id) {
        kind = 'new_version';
        await repo.updateParent(trx, lockedParent.id, { next_draft_id: null });
        await repo.refreshVersionFlags(trx, [lockedParent.latest_id], { latest_id: lockedParent.latest_id, next_draft_id: null });
      } else {
        kind = 'new';
        await repo.deleteParent(trx, lockedParent.id);
      }
      await writeOutbox(trx, {
        subject: 'rdm.records.draft.deleted',
        aggregate: { type: 'draft', id, revision: locked.revision_id },
        data: { id, parent_id: lockedParent.id, bucket_id: locked.bucket_id, kind },
      });
      return { kind, bucket: locked.bucket_id, parent: lockedParent };
    });
    if (result.kind !== 'edit' && this.d.hooks?.afterDeleteDraft) {
      try {
        await this.d.hooks.afterDeleteDraft(result.parent);
      } catch (err) {
        this.d.logger.warn({ err, id }, 'after-delete hook failed');
      }
    }
    if (result.kind !== 'edit') {
      // Why: the event makes the files service drop the bucket eventually; asking now frees it at once.
      try {
        await this.d.files.deleteBucket(result.bucket);
      } catch (err) {
        this.d.logger.warn({ err, bucket: result.bucket }, 'delete-bucket failed; the draft.deleted event will retry');
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // edit / publish

  /** POST /api/records/{id}/draft: the edit draft of a published record (idempotent). */
  async edit(identity: Identity, id: string): Promise<ItemView> {
    const existing = await repo.getDraft(this.d.db, id);
    if (existing) {
      const parent = (await repo.getParent(this.d.db, existing.parent_id))!;
      recordsPolicy.require('edit', identity, ctxOf(existing, parent));
      const record = await repo.getRecord(this.d.db, id);
      const { summary } = await this.draftFiles(existing, record);
      return { kind: 'draft', doc: this.draftDoc(existing, parent, !!record, summary) };
    }
    const record = await repo.getRecord(this.d.db, id);
    if (!record) throw Errors.pidDoesNotExist();
    const parent = (await repo.getParent(this.d.db, record.parent_id))!;
    if (record.deletion_status !== 'P') throw Errors.permissionDenied();
    recordsPolicy.require('edit', identity, ctxOf(record, parent));
    return withTransaction(this.d.db, async (trx) => {
      const lockedRecord = (await repo.getRecord(trx, id, true))!;
      const again = await repo.getDraft(trx, id);
      const lockedParent = (await repo.getParent(trx, record.parent_id))!;
      if (again) return { kind: 'draft' as const, doc: this.draftDoc(again, lockedParent, true, frozenSummary(lockedRecord.files)) };
      const now = new Date();
      const draft: DraftRow = {
        id,
        parent_id: lockedRecord.parent_id,
        index: lockedRecord.index,
        created: lockedRecord.created,
        updated: now,
        revision_id: Math.max(lockedRecord.draft_revision_id, 0) + 1,
        expires_at: null,
        metadata: clone(lockedRecord.metadata),
        custom_fields: clone(lockedRecord.custom_fields),
        access: clone(lockedRecord.access),
        files: {
          enabled: lockedRecord.files.enabled,
          default_preview: lockedRecord.files.default_preview ?? null,
          order: clone(lockedRecord.files.order ?? []),
        },
        media_files: clone(lockedRecord.media_files),
        pids: clone(lockedRecord.pids),
        bucket_id: lockedRecord.bucket_id,
        resource_type_type: lockedRecord.resource_type_type,
        resource_type_subtype: lockedRecord.resource_type_subtype,
      };
      await repo.insertDraft(trx, draft);
      const doc = this.draftDoc(draft, lockedParent, true, frozenSummary(lockedRecord.files));
      await this.index(trx, 'draft', draft, doc, false);
      await repo.setHasDraft(trx, id, true);
      return { kind: 'draft' as const, doc };
    });
  }

  /** POST /api/records/{id}/draft/actions/publish. */
  async publish(identity: Identity, id: string): Promise<ItemView> {
    const { draft, parent, hasRecord } = await this.loadDraft(id);
    recordsPolicy.require('publish', identity, ctxOf(draft, parent));
    // An open review blocks a direct publication (checked again on the locked parent below).
    this.d.hooks?.beforePublish?.(parent);
    const record = await this.recordOf(id, hasRecord);
    const frozen = await this.checkPublishable(draft, record, { lock: true });
    return withTransaction(this.d.db, async (trx) => {
      const { view } = await this.commitPublication(trx, {
        id,
        parentId: draft.parent_id,
        isEdit: !!record,
        frozen,
        checkParent: (p) => this.d.hooks?.beforePublish?.(p),
      });
      return view;
    });
  }

  /**
   * The checks of a publication that need no transaction, every error at once (400): schema,
   * files and PIDs. With `lock`, the files of a valid first-version draft are then frozen by ONE
   * `lock` call with `if_complete` (checked and locked atomically by files; idempotent, so a
   * publication retried after a failed transaction or a redelivered event locks nothing twice).
   * Without `lock` only the manifest is read (submit-review validates without freezing).
   * Returns the files summary the record will carry. Shared by direct publish and the saga.
   */
  async checkPublishable(draft: DraftRow, record: RecordRow | undefined, o: { lock: boolean }): Promise<FrozenFiles> {
    const isEdit = !!record;
    const id = draft.id;
    // Validation: every schema error, then files and PIDs, reported at once.
    const schemaErrors = validateStored(draft);
    const pids = clone(draft.pids ?? {});
    const pidErrors = await validatePids(this.d.db, pids, { recordId: id, metadata: draft.metadata }, this.pidsCfg);
    const fileErrors: FieldError[] = [];
    let manifest: Manifest | undefined;
    let filesLocked = false;
    if (draft.files.enabled) {
      if (isEdit && record.files.enabled) {
        if ((record.files.count ?? 0) === 0) fileErrors.push({ field: 'files.enabled', messages: [MISSING_FILES] });
      } else if (o.lock && !isEdit && schemaErrors.length === 0 && pidErrors.length === 0) {
        // Freeze the files: locked only when complete, checked and locked by files in one call
        // (idempotent, so a retry after a failed transaction works).
        manifest = await this.lockIfComplete(draft.bucket_id);
        filesLocked = manifest.locked;
      } else {
        manifest = await this.d.files.manifest(draft.bucket_id);
      }
      if (manifest && manifest.count === 0) fileErrors.push({ field: 'files.enabled', messages: [MISSING_FILES] });
      else if (manifest && manifest.pending > 0) {
        fileErrors.push({ field: 'files', messages: ['One or more files have not completed their transfer, please wait.'] });
      }
    }
    const errors = mergeErrors(schemaErrors, fileErrors, pidErrors);
    if (errors.length) throw Errors.validation(errors);

    if (isEdit) return frozenSummary(record.files);
    if (!draft.files.enabled) return summarizeManifest(undefined);
    if (!o.lock) return summarizeManifest(manifest);
    return summarizeManifest(filesLocked ? manifest : await this.d.files.lock(draft.bucket_id));
  }

  /**
   * The writes of a publication inside `trx` (the caller's: the HTTP publish's own, or the
   * request-accepted consumer's, together with its inbox row): record row, pids, parent versions
   * state, search documents and `rdm.records.record.published`. `parentPatch` adds parent changes
   * (communities, review unlinked) made in the same statement; `checkParent` may refuse on the
   * locked parent; `requestId` goes into the event. Returns the view and the event envelope.
   */
  async commitPublication(
    trx: Knex.Transaction,
    o: {
      id: string;
      parentId: string;
      isEdit: boolean;
      frozen: FrozenFiles;
      parentPatch?: (parent: ParentRow) => Partial<ParentRow>;
      checkParent?: (parent: ParentRow) => void;
      requestId?: string;
    },
  ): Promise<{ view: ItemView; event: EventEnvelope }> {
    const { id, isEdit, frozen } = o;

    {
      const lockedParent = (await repo.getParent(trx, o.parentId, true))!;
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      o.checkParent?.(lockedParent);
      const extra = o.parentPatch?.(lockedParent) ?? {};
      const parentExtraChanged = Object.keys(extra).length > 0;
      const lockedRecord = isEdit ? await repo.getRecord(trx, id, true) : undefined;
      const now = new Date();
      const isPublic = locked.access.record === 'public';
      const finalPids: Record<string, PidValue> = clone(locked.pids ?? {});
      // Required pids removed on an edit draft are restored from the record.
      for (const [scheme, pid] of Object.entries(lockedRecord?.pids ?? {})) if (!finalPids[scheme]) finalPids[scheme] = pid;
      if (finalPids.doi) {
        const doi = finalPids.doi;
        const row = doi.identifier ? await repo.findPid(trx, 'doi', doi.identifier) : undefined;
        const registered = row?.status === 'R' && row.record_id === id;
        if (!isPublic && doi.provider === 'datacite' && !registered) {
          // Restricted records get no DOI: an unregistered managed DOI is deleted.
          Reflect.deleteProperty(finalPids, 'doi');
          if (row && row.record_id === id) await repo.deletePid(trx, 'doi', doi.identifier);
        } else if (doi.identifier) {
          if (row && row.record_id !== id)
            throw Errors.validation([{ field: 'pids.doi', messages: [`doi:${doi.identifier} already exists.`] }]);
          await repo.upsertPid(trx, { scheme: 'doi', identifier: doi.identifier, record_id: id, provider: doi.provider, status: 'R' });
        }
      }
      if (isPublic && !finalPids.oai) finalPids.oai = { identifier: oaiIdentifier(this.d.config.oaiPrefix, id), provider: 'oai' };
      if (finalPids.oai?.identifier) {
        await repo.upsertPid(trx, { scheme: 'oai', identifier: finalPids.oai.identifier, record_id: id, provider: 'oai', status: 'R' });
      }
      // Concept DOI on the parent once a version has a registered managed DOI.
      let parentPids = lockedParent.pids ?? {};
      let parentPidsChanged = false;
      if (finalPids.doi?.provider === 'datacite' && !parentPids.doi) {
        const conceptDoi = managedDoi(this.d.config.doiPrefix, lockedParent.id);
        parentPids = { ...parentPids, doi: { identifier: conceptDoi, provider: 'datacite', client: 'datacite' } };
        parentPidsChanged = true;
        await repo.upsertPid(trx, { scheme: 'doi', identifier: conceptDoi, record_id: lockedParent.id, provider: 'datacite', status: 'R' });
      }

      let published: RecordRow;
      let newParent: ParentRow;
      if (lockedRecord) {
        const patch: Partial<RecordRow> = {
          metadata: locked.metadata,
          custom_fields: locked.custom_fields,
          access: locked.access,
          files: {
            ...frozenSummary(lockedRecord.files),
            enabled: locked.files.enabled,
            default_preview: locked.files.default_preview ?? null,
            order: locked.files.order ?? [],
          },
          media_files: locked.media_files,
          pids: finalPids,
          resource_type_type: locked.resource_type_type,
          resource_type_subtype: locked.resource_type_subtype,
        };
        const revision = await repo.updateRecord(trx, id, patch, now);
        await repo.setDraftRevision(trx, id, locked.revision_id);
        published = { ...lockedRecord, ...(patch as RecordRow), updated: now, revision_id: revision };
        if (parentPidsChanged || parentExtraChanged) await repo.updateParent(trx, lockedParent.id, { pids: parentPids, ...extra });
        newParent = { ...lockedParent, pids: parentPids, ...extra };
      } else {
        published = {
          id,
          parent_id: locked.parent_id,
          index: locked.index,
          created: now,
          updated: now,
          revision_id: 1,
          draft_revision_id: locked.revision_id,
          metadata: locked.metadata,
          custom_fields: locked.custom_fields,
          access: locked.access,
          files: {
            enabled: locked.files.enabled,
            default_preview: locked.files.default_preview ?? null,
            order: locked.files.order ?? [],
            ...frozen,
          },
          media_files: locked.media_files,
          pids: finalPids,
          bucket_id: locked.bucket_id,
          deletion_status: 'P',
          resource_type_type: locked.resource_type_type,
          resource_type_subtype: locked.resource_type_subtype,
        };
        await repo.insertRecord(trx, published);
        const patch = { latest_id: id, latest_index: locked.index, next_draft_id: null, pids: parentPids, ...extra };
        newParent = { ...lockedParent, ...patch };
        await repo.updateParent(trx, lockedParent.id, patch);
      }
      await repo.deleteDraft(trx, id);
      await repo.deleteSearchDoc(trx, id, 'draft');
      const doc = this.recordDoc(published, newParent);
      await this.index(trx, 'record', published, doc, false);
      if (!lockedRecord && lockedParent.latest_id) {
        await repo.refreshVersionFlags(trx, [lockedParent.latest_id], { latest_id: id, next_draft_id: null });
      }
      if (parentPidsChanged || parentExtraChanged) await repo.refreshParentInDocs(trx, lockedParent.id, parentDoc(newParent));
      const communityIds = (newParent.communities as ParentCommunities | undefined)?.ids ?? [];
      const event = await writeOutbox(trx, {
        subject: 'rdm.records.record.published',
        aggregate: { type: 'record', id, revision: published.revision_id },
        data: {
          id,
          parent_id: lockedParent.id,
          index: published.index,
          is_latest: newParent.latest_id === id,
          access_status: accessStatus(published.access, published.files.enabled),
          bucket_id: published.bucket_id,
          ...(o.requestId ? { request_id: o.requestId } : {}),
          ...(communityIds.length ? { communities: communityIds } : {}),
          files_count: published.files.count ?? 0,
          files_bytes: published.files.total_bytes ?? 0,
        },
      });
      return { view: { kind: 'record' as const, doc }, event: event as EventEnvelope };
    }
  }

  // ---------------------------------------------------------------------------------------
  // versions

  /** POST /api/records/{id}/versions: the next-version draft (existing one returned). */
  async newVersion(identity: Identity, id: string): Promise<ItemView> {
    const record = await repo.getRecord(this.d.db, id);
    if (!record) {
      if (await repo.getDraft(this.d.db, id)) throw Errors.pidNotRegistered();
      throw Errors.pidDoesNotExist();
    }
    const parent = (await repo.getParent(this.d.db, record.parent_id))!;
    recordsPolicy.require('new_version', identity, ctxOf(record, parent));
    const view = await withTransaction(this.d.db, async (trx) => {
      const lockedParent = (await repo.getParent(trx, record.parent_id, true))!;
      if (lockedParent.next_draft_id) {
        const existing = await repo.getDraft(trx, lockedParent.next_draft_id);
        if (existing) return { existing };
      }
      const latest = (await repo.getRecord(trx, lockedParent.latest_id ?? id))!;
      const newDraftId = await this.newUniqueId(trx);
      const now = new Date();
      const metadata = clone(latest.metadata);
      Reflect.deleteProperty(metadata, 'version');
      metadata.publication_date = today();
      const draft: DraftRow = {
        id: newDraftId,
        parent_id: lockedParent.id,
        index: lockedParent.latest_index + 1,
        created: now,
        updated: now,
        revision_id: 1,
        expires_at: null,
        metadata,
        custom_fields: clone(latest.custom_fields),
        access: clone(latest.access),
        files: { enabled: latest.files.enabled, default_preview: null, order: [] },
        media_files: { enabled: false, order: [] },
        pids: {},
        bucket_id: newDraftId,
        resource_type_type: latest.resource_type_type,
        resource_type_subtype: latest.resource_type_subtype,
      };
      await repo.insertDraft(trx, draft);
      await repo.updateParent(trx, lockedParent.id, { next_draft_id: newDraftId });
      const newParent: ParentRow = { ...lockedParent, next_draft_id: newDraftId };
      const doc = this.draftDoc(draft, newParent, false, summarizeManifest(undefined));
      await this.index(trx, 'draft', draft, doc, false);
      await repo.refreshVersionFlags(trx, [lockedParent.latest_id ?? id], { latest_id: lockedParent.latest_id, next_draft_id: newDraftId });
      await writeOutbox(trx, {
        subject: 'rdm.records.draft.created',
        aggregate: { type: 'draft', id: newDraftId, revision: 1 },
        data: { id: newDraftId, parent_id: lockedParent.id, owner: lockedParent.owner_id },
      });
      return { view: { kind: 'draft' as const, doc } };
    });
    if ('view' in view && view.view) return view.view;
    const existing = (view as { existing: DraftRow }).existing;
    const p = (await repo.getParent(this.d.db, existing.parent_id))!;
    const rec = await repo.getRecord(this.d.db, existing.id);
    const { summary } = await this.draftFiles(existing, rec);
    return { kind: 'draft', doc: this.draftDoc(existing, p, !!rec, summary) };
  }

  /** POST /api/records/{id}/draft/actions/files-import: link the previous version's files. */
  async importFiles(identity: Identity, id: string): Promise<Record<string, unknown>> {
    const { draft, parent, hasRecord } = await this.loadDraft(id);
    recordsPolicy.require('import_files', identity, ctxOf(draft, parent));
    if (!parent.latest_id) throw Errors.notFound();
    const latest = await repo.getRecord(this.d.db, parent.latest_id);
    if (!latest) throw Errors.notFound();
    recordsPolicy.require('read_files', identity, ctxOf(latest, parent));
    const isEdit = hasRecord;
    if (!draft.files.enabled) throw Errors.validation([{ field: 'files.enabled', messages: ['Files support must be enabled.'] }]);
    const current = isEdit ? { count: latest.files.count ?? 0 } : await this.d.files.manifest(draft.bucket_id);
    if (current.count > 0) throw Errors.validation([{ field: 'files.enabled', messages: ['Please remove all files first.'] }]);
    if (!latest.files.enabled || (latest.files.count ?? 0) === 0) {
      throw Errors.validation([{ field: 'files.enabled', messages: ['The record has no files.'] }]);
    }
    const manifest = await this.d.files.importFiles(latest.bucket_id, draft.bucket_id);
    const summary = summarizeManifest(manifest);
    const files: StoredFiles = {
      enabled: true,
      default_preview: latest.files.default_preview && summary.entries[latest.files.default_preview] ? latest.files.default_preview : null,
      order: (latest.files.order ?? []).filter((k) => k in summary.entries),
    };
    await withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      const now = new Date();
      const revision = await repo.updateDraft(trx, id, { files }, now);
      const updated: DraftRow = { ...locked, files, updated: now, revision_id: revision };
      await this.index(trx, 'draft', updated, this.draftDoc(updated, parent, false, summary), false);
    });
    const links = { baseUrl: this.d.config.baseUrl };
    return {
      enabled: true,
      links: fileListLinks(id, 'draft', links),
      entries: manifest.entries.map((e) => fileListEntry(id, e, links.baseUrl)),
      default_preview: files.default_preview ?? null,
      order: files.order,
    };
  }

  /** GET /api/records/{id}/versions: published versions of the parent, newest first. */
  async listVersions(identity: Identity, id: string, query: Record<string, string | string[] | undefined>): Promise<VersionsView> {
    // No maximum size, the page cut at the 10000 window (InvenioRDM's pagination, as in search).
    const args = parseListArgs(query, {
      sorts: Object.keys(VERSIONS_ORDER),
      defaultSort: 'version',
      defaultSortWithQ: 'version',
      maxSize: Number.MAX_SAFE_INTEGER,
    });
    let parent: ParentRow | undefined;
    let ctx: RecordAccessCtx | undefined;
    const record = await repo.getRecord(this.d.db, id);
    if (record) {
      parent = await repo.getParent(this.d.db, record.parent_id);
      if (record.deletion_status !== 'P') throw Errors.gone();
      ctx = ctxOf(record, parent!);
    } else {
      const draft = await repo.getDraft(this.d.db, id);
      if (draft) {
        parent = await repo.getParent(this.d.db, draft.parent_id);
        ctx = ctxOf(draft, parent!);
      } else {
        parent = await repo.getParent(this.d.db, id);
        if (parent?.latest_id) {
          const latest = await repo.getRecord(this.d.db, parent.latest_id);
          ctx = latest ? ctxOf(latest, parent) : undefined;
        }
      }
    }
    if (!parent || !ctx) throw Errors.pidDoesNotExist();
    recordsPolicy.require('read', identity, ctx);
    const seeRestricted = can('read', identity, { ...ctx, accessRecord: 'restricted' });
    const { rows, total } = await repo.listVersions(this.d.db, parent.id, {
      publicOnly: !seeRestricted,
      limit: Math.max(0, Math.min(args.size, 10_000 - args.from)),
      offset: args.from,
      order: VERSIONS_ORDER[args.sort],
    });
    const p = parent;
    return { items: rows.map((r) => ({ kind: 'record' as const, doc: this.recordDoc(r, p) })), total, args };
  }

  /** GET /api/records/{id}/versions/latest: the latest published version (id may be the parent's). */
  async readLatest(identity: Identity, id: string): Promise<ItemView> {
    const record = await repo.getRecord(this.d.db, id);
    let parent: ParentRow | undefined;
    if (record) parent = await repo.getParent(this.d.db, record.parent_id);
    else {
      parent = await repo.getParent(this.d.db, id);
      if (!parent) {
        if (await repo.getDraft(this.d.db, id)) throw Errors.pidNotRegistered();
        throw Errors.pidDoesNotExist();
      }
    }
    if (!parent?.latest_id) throw Errors.pidNotRegistered();
    const latest = await repo.getRecord(this.d.db, parent.latest_id);
    if (!latest) throw Errors.pidDoesNotExist();
    if (latest.deletion_status !== 'P') throw Errors.gone();
    recordsPolicy.require('read', identity, ctxOf(latest, parent));
    return { kind: 'record', doc: this.recordDoc(latest, parent) };
  }

  // ---------------------------------------------------------------------------------------
  // pids

  private requireDoiScheme(scheme: string): void {
    if (scheme !== 'doi') throw Errors.validation([{ field: 'pids', messages: ['Invalid persistent identifier scheme.'] }]);
  }

  /** POST /api/records/{id}/draft/pids/{scheme}: reserve a managed DOI. */
  async reservePid(identity: Identity, id: string, scheme: string): Promise<ItemView> {
    const { draft, parent, hasRecord } = await this.loadDraft(id);
    recordsPolicy.require('pid_manage', identity, ctxOf(draft, parent));
    this.requireDoiScheme(scheme);
    if (draft.pids?.doi?.identifier) throw Errors.validation([{ field: 'pids.doi', messages: ['A PID already exists for type doi'] }]);
    const record = await this.recordOf(id, hasRecord);
    const { summary } = await this.draftFiles(draft, record);
    return withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      if (locked.pids?.doi?.identifier) throw Errors.validation([{ field: 'pids.doi', messages: ['A PID already exists for type doi'] }]);
      const doi = managedDoi(this.d.config.doiPrefix, id);
      const existing = await repo.findPid(trx, 'doi', doi);
      if (existing && existing.record_id !== id) throw Errors.validation([{ field: 'pids.doi', messages: [`doi:${doi} already exists.`] }]);
      if (!existing) await repo.upsertPid(trx, { scheme: 'doi', identifier: doi, record_id: id, provider: 'datacite', status: 'N' });
      const pids = { ...(locked.pids ?? {}), doi: { identifier: doi, provider: 'datacite', client: 'datacite' } };
      const now = new Date();
      const revision = await repo.updateDraft(trx, id, { pids }, now);
      const updated: DraftRow = { ...locked, pids, updated: now, revision_id: revision };
      const doc = this.draftDoc(updated, parent, !!record, summary);
      await this.index(trx, 'draft', updated, doc, false);
      return { kind: 'draft' as const, doc };
    });
  }

  /** GET /api/records/{id}/draft/pids/{scheme}: 404 unless a draft or record with this id exists. */
  async pidsProbe(id: string): Promise<void> {
    if (await repo.getDraft(this.d.db, id)) return;
    if (await repo.getRecord(this.d.db, id)) return;
    throw Errors.pidDoesNotExist();
  }

  /** DELETE /api/records/{id}/draft/pids/{scheme}: discard a DOI that is not registered. */
  async discardPid(identity: Identity, id: string, scheme: string): Promise<void> {
    const { draft, parent, hasRecord } = await this.loadDraft(id);
    recordsPolicy.require('pid_manage', identity, ctxOf(draft, parent));
    this.requireDoiScheme(scheme);
    const pid = draft.pids?.doi;
    if (!pid?.identifier) throw Errors.pidDoesNotExist();
    const row = await repo.findPid(this.d.db, 'doi', pid.identifier);
    if (row && row.status === 'R') {
      throw Errors.validation([{ field: 'pids.doi', messages: ['Cannot discard a reserved or registered persistent identifier.'] }]);
    }
    const record = await this.recordOf(id, hasRecord);
    const { summary } = await this.draftFiles(draft, record);
    await withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      const pids = { ...(locked.pids ?? {}) };
      Reflect.deleteProperty(pids, 'doi');
      if (row && row.record_id === id) await repo.deletePid(trx, 'doi', pid.identifier);
      const now = new Date();
      const revision = await repo.updateDraft(trx, id, { pids }, now);
      const updated: DraftRow = { ...locked, pids, updated: now, revision_id: revision };
      await this.index(trx, 'draft', updated, this.draftDoc(updated, parent, !!record, summary), false);
    });
  }

  /**
   * Refresh the files summary in the search document of the draft using `bucketId` (called by the
   * `rdm.files.file.committed` consumer inside its transaction). Edit drafts are skipped.
   */
  async refreshDraftFiles(trx: Knex.Transaction, bucketId: string): Promise<void> {
    const found = await repo.draftByBucketWithRecordFlag(trx, bucketId);
    if (!found || found.hasRecord) return;
    const { draft } = found;
    const summary = summarizeManifest(await this.d.files.manifest(bucketId));
    const files = filesReadForm(draft.files, summary);
    await repo.setDraftDocFiles(trx, draft.id, files, fileTypes(files.entries));
  }

  // ---------------------------------------------------------------------------------------
  // files service authorization

  /** RPC rdm.records.rpc.authorize-files: the bucket and options, or the HTTP route's 404/403/410. */
  async authorizeFiles(req: AuthorizeFilesRequest): Promise<BucketGrant> {
    const identity: Identity = { sub: req.identity?.sub ?? null, roles: req.identity?.roles ?? [] };
    if (req.scope === 'draft') {
      const { draft, parent, hasRecord } = await this.loadDraft(req.record_id);
      await this.requireWith(req.action === 'update' ? 'update_draft' : 'read_draft', identity, ctxOf(draft, parent), parent);
      return {
        bucket_id: draft.bucket_id,
        record_id: draft.id,
        enabled: draft.files.enabled,
        locked: hasRecord,
        default_preview: draft.files.default_preview ?? null,
        order: draft.files.order ?? [],
      };
    }
    const found = await repo.getRecordWithParent(this.d.db, req.record_id);
    if (!found) {
      if (await repo.getDraft(this.d.db, req.record_id)) throw Errors.pidNotRegistered();
      throw Errors.pidDoesNotExist();
    }
    const { record } = found;
    if (record.deletion_status !== 'P') throw Errors.gone();
    const parent = found.parent!;
    if (req.action === 'update') throw Errors.permissionDenied();
    const ctx = await this.requireWith('read', identity, ctxOf(record, parent), parent);
    await this.requireWith('read_files', identity, ctx, parent);
    return {
      bucket_id: record.bucket_id,
      record_id: record.id,
      enabled: record.files.enabled,
      locked: true,
      default_preview: record.files.default_preview ?? null,
      order: record.files.order ?? [],
    };
  }
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
