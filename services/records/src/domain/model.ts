/** Stored shapes of parents, drafts and records, and the files summary they carry. */
import type { Access } from './access.js';

/** A persistent identifier as stored in `pids` (`{identifier, provider, client?}`). */
export interface PidValue {
  identifier: string;
  provider: string;
  client?: string;
}

/** Parent access (owner, settings; grants and secret links come with the access issue). */
export interface ParentAccess {
  owned_by: { user: string } | null;
  settings: {
    allow_user_requests: boolean;
    allow_guest_requests: boolean;
    accept_conditions_text: string | null;
    secret_link_expiration: number;
  };
  grants: unknown[];
  links: unknown[];
}

/** A parent (concept) row with the versions state. */
export interface ParentRow {
  id: string;
  owner_id: string | null;
  created: Date;
  updated: Date;
  revision_id: number;
  access: ParentAccess;
  communities: Record<string, unknown>;
  pids: Record<string, PidValue>;
  latest_id: string | null;
  latest_index: number;
  next_draft_id: string | null;
  /** Snapshot of the draft's review request (first versions), null when none is linked. */
  review?: ReviewSnapshot | null;
}

/** Statuses of a review request as records tracks them. */
export type ReviewStatus = 'created' | 'submitted' | 'accepted' | 'declined' | 'cancelled' | 'expired';

/**
 * What records keeps of a draft's community-submission request (the request lives in the
 * requests service): updated from RPC replies and from `rdm.requests.request.*` events.
 */
export interface ReviewSnapshot {
  id: string;
  type: string;
  receiver: { community: string };
  status: ReviewStatus;
}

/** `parent.communities` as stored: ids, the default one and the community summaries. */
export interface ParentCommunities {
  ids?: string[];
  default?: string | null;
  entries?: Record<string, unknown>[];
}

/** One file entry of a files summary (`files.entries.<key>`). */
export interface FileSummaryEntry {
  id?: string;
  key: string;
  checksum?: string;
  ext?: string | null;
  size?: number;
  mimetype?: string;
  storage_class?: string;
  metadata?: unknown;
  access?: { hidden: boolean };
}

/** Stored files options (drafts) or frozen files (records). */
export interface StoredFiles {
  enabled: boolean;
  default_preview?: string | null;
  order: string[];
  /** Records only: the frozen manifest summary. */
  count?: number;
  total_bytes?: number;
  entries?: Record<string, FileSummaryEntry>;
}

/** Columns shared by drafts and records. */
export interface VersionRow {
  id: string;
  parent_id: string;
  index: number;
  created: Date;
  updated: Date;
  revision_id: number;
  metadata: Record<string, any>;
  custom_fields: Record<string, any>;
  access: Access;
  files: StoredFiles;
  media_files: StoredFiles;
  pids: Record<string, PidValue>;
  bucket_id: string;
  resource_type_type: string | null;
  resource_type_subtype: string | null;
}

/** A draft row. */
export interface DraftRow extends VersionRow {
  expires_at: Date | null;
}

/** A published record row. */
export interface RecordRow extends VersionRow {
  deletion_status: string;
  draft_revision_id: number;
}

/** A file entry of a files-service manifest (proto/README.md). */
export interface ManifestEntry {
  id?: string;
  key: string;
  checksum?: string | null;
  ext?: string | null;
  size?: number | null;
  mimetype?: string | null;
  storage_class?: string | null;
  metadata?: unknown;
  access?: { hidden?: boolean } | null;
  status?: string;
  created?: string;
  updated?: string;
  file_id?: string | null;
  version_id?: string | null;
  bucket_id?: string;
  transfer?: unknown;
}

/** A files-service manifest. */
export interface Manifest {
  bucket_id: string;
  locked: boolean;
  entries: ManifestEntry[];
  count: number;
  total_bytes: number;
  pending: number;
}

/** The files summary of the read form. */
export interface FilesSummary {
  enabled: boolean;
  order: string[];
  count: number;
  total_bytes: number;
  default_preview?: string;
  entries: Record<string, FileSummaryEntry>;
}

/** Summarize a manifest into `files.entries` form (keyed by file key). */
export function summarizeManifest(m: Manifest | undefined): {
  count: number;
  total_bytes: number;
  entries: Record<string, FileSummaryEntry>;
} {
  const entries: Record<string, FileSummaryEntry> = {};
  for (const e of m?.entries ?? []) {
    const s: FileSummaryEntry = { key: e.key };
    if (e.file_id ?? e.id) s.id = String(e.file_id ?? e.id);
    if (e.checksum) s.checksum = e.checksum;
    if (e.ext !== undefined) s.ext = e.ext;
    if (typeof e.size === 'number') s.size = e.size;
    if (e.mimetype) s.mimetype = e.mimetype;
    if (e.storage_class) s.storage_class = e.storage_class;
    s.metadata = e.metadata ?? {};
    s.access = { hidden: e.access?.hidden === true };
    entries[e.key] = s;
  }
  return { count: m?.count ?? Object.keys(entries).length, total_bytes: m?.total_bytes ?? 0, entries };
}

/** An empty manifest of a bucket. */
export function emptyManifest(bucketId: string): Manifest {
  return { bucket_id: bucketId, locked: false, entries: [], count: 0, total_bytes: 0, pending: 0 };
}
