/**
 * Pure builders of the rows and documents the records lifecycle writes: a new parent and first
 * draft, the edit draft of a record, the next-version draft, the published record (new or an
 * edit applied), the item documents and the `record.published` event data.
 *
 * When to use: from the service and components, never with I/O: what a row looks like is decided
 * here, when and where it is written is decided by the caller.
 */
import type { EventData } from '@rdm/contracts';
import { accessStatus } from './access.js';
import { recordMedia } from './media.component.js';
import type {
  DraftRow,
  FrozenFiles,
  ItemDoc,
  ParentAccess,
  ParentCommunities,
  ParentRow,
  PidValue,
  RecordRow,
  StoredFiles,
  VersionRow,
} from './model.js';
import { summarizeManifest } from './model.js';
import { buildDoc } from './serializers.js';

const DEFAULT_SETTINGS: ParentAccess['settings'] = {
  allow_user_requests: false,
  allow_guest_requests: false,
  accept_conditions_text: null,
  secret_link_expiration: 0,
};

const clone = <T>(v: T): T => structuredClone(v);
const today = () => new Date().toISOString().slice(0, 10);

/** The files summary frozen in a record. */
export function frozenSummary(files: StoredFiles): FrozenFiles {
  return { count: files.count ?? 0, total_bytes: files.total_bytes ?? 0, entries: files.entries ?? {} };
}

/** The parent of a new first draft `draftId`, owned by `owner`. */
export function newParent(id: string, owner: string | null, draftId: string, now: Date): ParentRow {
  return {
    id,
    owner_id: owner,
    created: now,
    updated: now,
    revision_id: 1,
    access: { owned_by: owner ? { user: owner } : null, settings: { ...DEFAULT_SETTINGS }, grants: [], links: [] },
    communities: {},
    pids: {},
    latest_id: null,
    latest_index: 0,
    next_draft_id: draftId,
  };
}

/** A new first draft from the components' patch (files enabled unless said otherwise). */
export function newDraft(id: string, parentId: string, patch: Partial<VersionRow>, filesEnabled: boolean | undefined, now: Date): DraftRow {
  return {
    id,
    parent_id: parentId,
    index: 1,
    created: now,
    updated: now,
    revision_id: 1,
    expires_at: null,
    metadata: patch.metadata ?? {},
    custom_fields: patch.custom_fields ?? {},
    access: patch.access!,
    files: { enabled: filesEnabled ?? true, order: [], default_preview: null },
    media_files: patch.media_files ?? { enabled: false, order: [] },
    pids: patch.pids ?? {},
    bucket_id: id,
    resource_type_type: patch.resource_type_type ?? null,
    resource_type_subtype: patch.resource_type_subtype ?? null,
  };
}

/** The edit draft of a published record: its content, its (locked) bucket, the next draft revision. */
export function editDraft(record: RecordRow, now: Date): DraftRow {
  return {
    id: record.id,
    parent_id: record.parent_id,
    index: record.index,
    created: record.created,
    updated: now,
    revision_id: Math.max(record.draft_revision_id, 0) + 1,
    expires_at: null,
    metadata: clone(record.metadata),
    custom_fields: clone(record.custom_fields),
    access: clone(record.access),
    files: { enabled: record.files.enabled, default_preview: record.files.default_preview ?? null, order: clone(record.files.order ?? []) },
    media_files: clone(record.media_files),
    pids: clone(record.pids),
    bucket_id: record.bucket_id,
    resource_type_type: record.resource_type_type,
    resource_type_subtype: record.resource_type_subtype,
  };
}

/** The next-version draft: the latest version's metadata, `publication_date` today, no `version`, pids or files. */
export function newVersionDraft(id: string, latest: RecordRow, parent: ParentRow, now: Date): DraftRow {
  const metadata = clone(latest.metadata);
  Reflect.deleteProperty(metadata, 'version');
  metadata.publication_date = today();
  return {
    id,
    parent_id: parent.id,
    index: parent.latest_index + 1,
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
    bucket_id: id,
    resource_type_type: latest.resource_type_type,
    resource_type_subtype: latest.resource_type_subtype,
  };
}

/** The draft's stored files options as a record carries them, with the frozen summary. */
function recordFiles(draft: DraftRow, frozen: FrozenFiles): StoredFiles {
  const { count, total_bytes, entries } = frozen;
  return {
    enabled: draft.files.enabled,
    default_preview: draft.files.default_preview ?? null,
    order: draft.files.order ?? [],
    count,
    total_bytes,
    entries,
  };
}

/** A first publication of `draft` (revision 1, files frozen). */
export function newRecord(draft: DraftRow, frozen: FrozenFiles, pids: Record<string, PidValue>, now: Date): RecordRow {
  return {
    id: draft.id,
    parent_id: draft.parent_id,
    index: draft.index,
    created: now,
    updated: now,
    revision_id: 1,
    draft_revision_id: draft.revision_id,
    metadata: draft.metadata,
    custom_fields: draft.custom_fields,
    access: draft.access,
    files: recordFiles(draft, frozen),
    media_files: recordMedia(draft.media_files, frozen.media),
    pids,
    bucket_id: draft.bucket_id,
    deletion_status: 'P',
    resource_type_type: draft.resource_type_type,
    resource_type_subtype: draft.resource_type_subtype,
  };
}

/** The changes an edit draft applies to its record (the record's files stay frozen; its media files are the edit's, `media` frozen). */
export function editedRecordPatch(
  draft: DraftRow,
  record: RecordRow,
  pids: Record<string, PidValue>,
  media?: FrozenFiles['media'],
): Partial<RecordRow> {
  return {
    metadata: draft.metadata,
    custom_fields: draft.custom_fields,
    access: draft.access,
    files: recordFiles(draft, frozenSummary(record.files)),
    media_files: recordMedia(draft.media_files, media),
    pids,
    resource_type_type: draft.resource_type_type,
    resource_type_subtype: draft.resource_type_subtype,
  };
}

/** The document of a draft (`isPublished`: an edit draft). */
export function draftDoc(
  draft: DraftRow,
  parent: ParentRow,
  isPublished: boolean,
  summary: FrozenFiles = summarizeManifest(undefined),
): ItemDoc {
  return buildDoc({ kind: 'draft', row: draft, parent, isPublished, files: summary });
}

/** The document of a published record. */
export function recordDoc(record: RecordRow, parent: ParentRow): ItemDoc {
  return buildDoc({ kind: 'record', row: record, parent, isPublished: true, files: frozenSummary(record.files) });
}

/** Data of `rdm.records.record.published`. */
export function recordPublishedData(record: RecordRow, parent: ParentRow, requestId?: string): EventData['rdm.records.record.published'] {
  const communityIds = (parent.communities as ParentCommunities | undefined)?.ids ?? [];
  return {
    id: record.id,
    parent_id: parent.id,
    index: record.index,
    is_latest: parent.latest_id === record.id,
    access_status: accessStatus(record.access, record.files.enabled),
    bucket_id: record.bucket_id,
    ...(requestId ? { request_id: requestId } : {}),
    ...(communityIds.length ? { communities: communityIds } : {}),
    files_count: record.files.count ?? 0,
    files_bytes: record.files.total_bytes ?? 0,
  };
}
