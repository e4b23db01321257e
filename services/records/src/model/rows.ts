/**
 * Stored shapes of the records schema: parents, drafts, records and the item document kept in
 * the search index. Shared by `domain/` (which builds them), `repo/` (which reads and writes
 * them) and `search/` (which stores the document), so that none of those imports another's
 * internals. Types only: no code, no imports beyond other types.
 */

/** Stored access of a draft or record (`access.record`, `access.files`, `access.embargo`). */
export interface Access {
  record: 'public' | 'restricted';
  files: 'public' | 'restricted';
  embargo: { active: boolean; until?: string; reason: string | null };
}

/** A persistent identifier as stored in `pids` (`{identifier, provider, client?}`). */
export interface PidValue {
  identifier: string;
  provider: string;
  client?: string;
  /** Managed DOIs with the DataCite provider: `new` (reserved on a draft), `reserved` (published, registration pending), `registered`. */
  status?: 'new' | 'reserved' | 'registered';
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
  /** `media_files` only: the media bucket in the files service (absent: none was ever needed). */
  bucket_id?: string;
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

/** A stored item document (the read form without `links`; `search_docs.doc`). */
export type ItemDoc = Record<string, any> & {
  id: string;
  is_draft: boolean;
  parent: {
    id: string;
    access: Record<string, any>;
    communities: Record<string, unknown>;
    pids: Record<string, any>;
    review?: { id: string; type: string; receiver: Record<string, string> };
  };
};
