/**
 * The read form of drafts and records, in two steps so that search hits and single reads render
 * identically:
 *
 * 1. `buildDoc(...)` — pure: the full item exactly as the API shows it to its owner, minus
 *    `links`. This is what `search_docs.doc` stores (written in the same transaction as the
 *    row), so the search endpoints never rebuild an item.
 * 2. `serializeItem(doc, {baseUrl, identity, kind, canEdit})` — pure: adds `links` and strips
 *    what this identity may not see (`versions.is_latest_draft` without edit permission,
 *    `parent.access.grants/links` without manage, file details without `read_files`).
 */
import type { Identity } from '@rdm/platform';
import { accessReadForm } from './access.js';
import { fileEntryLinks, itemLinks } from './links.js';
import type { FilesSummary, ItemDoc, ParentRow, StoredFiles, VersionRow } from './model.js';
import { can, type RecordAccessCtx } from './records.policy.js';

export type { ItemDoc };

/** Format a timestamp as InvenioRDM does: ISO 8601 with microseconds and `+00:00`. */
export function formatTimestamp(d: Date | string): string {
  const date = typeof d === 'string' ? new Date(d) : d;
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

/**
 * The draft status: `published` for an edit draft; with a linked review `draft_with_review`
 * (created), `in_review` (submitted), `declined`, `expired`; else `draft` / `new_version_draft`.
 */
export function draftStatus(isEditDraft: boolean, parent: Pick<ParentRow, 'latest_id' | 'review'>): string {
  if (isEditDraft) return 'published';
  const review = parent.review;
  if (review) {
    if (review.status === 'created') return parent.latest_id ? 'new_version_draft_with_review' : 'draft_with_review';
    if (review.status === 'submitted') return 'in_review';
    if (review.status === 'declined' || review.status === 'expired') return review.status;
  }
  return parent.latest_id ? 'new_version_draft' : 'draft';
}

/** Versions block of an item from the parent's versions state. */
export function versionsOf(id: string, index: number, parent: Pick<ParentRow, 'latest_id' | 'next_draft_id'>) {
  return {
    is_latest: parent.latest_id === id,
    is_latest_draft: parent.next_draft_id ? parent.next_draft_id === id : parent.latest_id === id,
    index,
  };
}

/** The read form of the parent. */
export function parentDoc(parent: ParentRow): ItemDoc['parent'] {
  const out: ItemDoc['parent'] = {
    id: parent.id,
    access: {
      owned_by: parent.access?.owned_by ?? null,
      settings: parent.access?.settings ?? {
        allow_user_requests: false,
        allow_guest_requests: false,
        accept_conditions_text: null,
        secret_link_expiration: 0,
      },
      grants: parent.access?.grants ?? [],
      links: parent.access?.links ?? [],
    },
    communities: parent.communities ?? {},
    pids: parent.pids ?? {},
  };
  // The review request of a draft (reference §1.4): `{id, type, receiver}`; unlinked once published or cancelled.
  if (parent.review) out.review = { id: parent.review.id, type: parent.review.type, receiver: parent.review.receiver };
  return out;
}

/** The read form of `files`/`media_files` from options and a summary. */
export function filesReadForm(options: StoredFiles, summary?: Pick<FilesSummary, 'count' | 'total_bytes' | 'entries'>): FilesSummary {
  const out: FilesSummary = {
    enabled: options.enabled,
    order: options.order ?? [],
    count: summary?.count ?? 0,
    total_bytes: summary?.total_bytes ?? 0,
    entries: summary?.entries ?? {},
  };
  if (options.default_preview) out.default_preview = options.default_preview;
  return out;
}

/** Metadata in the read form: stored spec form plus InvenioRDM's aliases (DESIGN §9). */
export function metadataReadForm(metadata: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...metadata };
  if (Array.isArray(metadata.resource_types) && metadata.resource_types.length > 0) out.resource_type = metadata.resource_types[0];
  if (Array.isArray(metadata.alternate_identifiers)) out.identifiers = metadata.alternate_identifiers;
  return out;
}

/** Inputs of buildDoc. */
export interface BuildDocInput {
  kind: 'draft' | 'record';
  row: VersionRow & { expires_at?: Date | null; deletion_status?: string };
  parent: ParentRow;
  /** Drafts: a published record with the same id exists (edit draft). */
  isPublished: boolean;
  /** Files summary (drafts: from the live manifest; records: the frozen one). */
  files: Pick<FilesSummary, 'count' | 'total_bytes' | 'entries'>;
  /** Statistics of the record (records only). */
  stats?: { views: number; downloads: number; allViews: number; allDownloads: number };
}

function statsBlock(s?: BuildDocInput['stats']) {
  const part = (views: number, downloads: number) => ({
    views,
    unique_views: views,
    downloads,
    unique_downloads: downloads,
    data_volume: 0,
  });
  return { this_version: part(s?.views ?? 0, s?.downloads ?? 0), all_versions: part(s?.allViews ?? 0, s?.allDownloads ?? 0) };
}

/** The full item (as its owner sees it) without links. */
export function buildDoc(i: BuildDocInput): ItemDoc {
  const { row, parent, kind } = i;
  const files = filesReadForm(row.files, i.files);
  const doc: ItemDoc = {
    id: row.id,
    created: formatTimestamp(row.created),
    updated: formatTimestamp(row.updated),
    revision_id: row.revision_id,
    parent: parentDoc(parent),
    versions: versionsOf(row.id, row.index, parent),
    is_published: kind === 'record' ? true : i.isPublished,
    is_draft: kind === 'draft',
    status: kind === 'record' ? 'published' : draftStatus(i.isPublished, parent),
    pids: row.pids ?? {},
    metadata: metadataReadForm(row.metadata ?? {}),
    custom_fields: row.custom_fields ?? {},
    access: accessReadForm(row.access, row.files.enabled),
    files,
    // Records carry the media summary frozen at publish; drafts their options only (no manifest read).
    media_files: filesReadForm(row.media_files ?? { enabled: false, order: [] }, {
      count: row.media_files?.count ?? 0,
      total_bytes: row.media_files?.total_bytes ?? 0,
      entries: row.media_files?.entries ?? {},
    }),
  };
  if (kind === 'draft') {
    doc.expires_at = row.expires_at ? formatTimestamp(row.expires_at) : null;
  } else {
    const deleted = (row.deletion_status ?? 'P') !== 'P';
    doc.deletion_status = { is_deleted: deleted, status: row.deletion_status ?? 'P' };
    doc.stats = statsBlock(i.stats);
  }
  return doc;
}

/** The permission context of an item document. */
export function accessCtxOfDoc(doc: ItemDoc): RecordAccessCtx {
  return {
    ownerId: doc.parent?.access?.owned_by?.user ?? null,
    accessRecord: doc.access?.record === 'restricted' ? 'restricted' : 'public',
    accessFiles: doc.access?.files === 'restricted' ? 'restricted' : 'public',
    grants: Array.isArray(doc.parent?.access?.grants) ? doc.parent.access.grants : [],
    parentId: doc.parent?.id,
  };
}

/** Options of serializeItem. */
export interface SerializeOptions {
  /** PUBLIC_BASE_URL. */
  baseUrl: string;
  identity: Identity;
  kind: 'draft' | 'record';
  /** May edit (shows `versions.is_latest_draft`); computed from the policy when omitted. */
  canEdit?: boolean;
  /** May manage (shows parent grants and secret links); computed when omitted. */
  canManage?: boolean;
  /** May read the files (shows file details); computed when omitted. */
  canReadFiles?: boolean;
  /** Add per-file `links` inside `files.entries` (single record reads). */
  fileLinks?: boolean;
  /** DOI resolver base of `doi`/`self_doi` links. */
  doiResolverUrl?: string;
}

/** Render a stored document for one identity: links added, hidden parts stripped. */
export function serializeItem(doc: ItemDoc, o: SerializeOptions): Record<string, any> {
  const ctx = accessCtxOfDoc(doc);
  const canEdit = o.canEdit ?? can('edit', o.identity, ctx);
  const canManage = o.canManage ?? can('manage', o.identity, ctx);
  const canReadFiles = o.canReadFiles ?? (o.kind === 'draft' ? can('read_draft', o.identity, ctx) : can('read_files', o.identity, ctx));
  const item: Record<string, any> = structuredClone(doc);

  if (!canEdit && item.versions) Reflect.deleteProperty(item.versions, 'is_latest_draft');
  if (!canManage && item.parent?.access) {
    Reflect.deleteProperty(item.parent.access, 'grants');
    Reflect.deleteProperty(item.parent.access, 'links');
  }
  const fileKeys = Object.keys(item.files?.entries ?? {});
  for (const section of ['files', 'media_files'] as const) {
    const f = item[section];
    if (!f) continue;
    if (!canReadFiles) {
      item[section] = { enabled: f.enabled };
    } else if (o.fileLinks && f.entries) {
      for (const [key, entry] of Object.entries(f.entries as Record<string, any>)) {
        entry.links = fileEntryLinks(item.id, key, o.kind, { baseUrl: o.baseUrl }, section === 'media_files');
      }
    }
  }
  // InvenioRDM's `can_request_deletion`, file-modification and quota-increase requests: the owners only.
  const isOwner = o.identity.sub !== null && !!ctx.ownerId && String(ctx.ownerId) === String(o.identity.sub);
  item.links = itemLinks(
    {
      id: item.id,
      kind: o.kind,
      parentId: item.parent?.id,
      doi: item.pids?.doi?.identifier ?? null,
      parentDoi: item.parent?.pids?.doi?.identifier ?? null,
      fileKeys: canReadFiles ? fileKeys : [],
      defaultPreview: canReadFiles ? (item.files?.default_preview ?? null) : null,
      hasReview: !!item.parent?.review,
      mayRequestDeletion: isOwner,
      mayRequestFileModification: isOwner,
      mayRequestQuota: isOwner,
    },
    { baseUrl: o.baseUrl, doiResolverUrl: o.doiResolverUrl },
  );
  return orderKeys(item);
}

const KEY_ORDER = [
  'id',
  'created',
  'updated',
  'links',
  'revision_id',
  'parent',
  'versions',
  'is_published',
  'is_draft',
  'status',
  'expires_at',
  'pids',
  'metadata',
  'custom_fields',
  'access',
  'files',
  'media_files',
  'deletion_status',
  'stats',
  'errors',
];

/** Put the keys in InvenioRDM's order (cosmetic, stable output). */
function orderKeys(item: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = {};
  for (const k of KEY_ORDER) if (k in item) out[k] = item[k];
  for (const k of Object.keys(item)) if (!(k in out)) out[k] = item[k];
  return out;
}
