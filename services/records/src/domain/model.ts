/**
 * The files summary of drafts and records, and the row types of the schema (declared in
 * `model/rows.ts`, shared with `repo/` and `search/`; re-exported here for the domain).
 */
import type { FileSummaryEntry } from '../model/rows.js';
import type { Manifest } from './ports.js';

export type {
  Access,
  DraftRow,
  FileSummaryEntry,
  ItemDoc,
  ParentAccess,
  ParentCommunities,
  ParentRow,
  PidValue,
  RecordRow,
  ReviewSnapshot,
  ReviewStatus,
  StoredFiles,
  VersionRow,
} from '../model/rows.js';

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

/**
 * Files summary frozen into a record at publication; `media`: the media files frozen with it
 * (publish checks only: carried to the record's `media_files`, never stored inside `files`).
 */
export type FrozenFiles = Pick<FilesSummary, 'count' | 'total_bytes' | 'entries'> & {
  media?: Pick<FilesSummary, 'count' | 'total_bytes' | 'entries'>;
};
