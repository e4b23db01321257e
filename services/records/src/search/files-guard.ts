/**
 * Who may see the file data of a record in a search (issue 10, defect 2).
 *
 * Design choice: file data (`files.entries.key`, `files.count`, `files.types`/`file_type` in `q`,
 * the `file_type` facet and filter) is indexed as it is, and every use of it is guarded at query
 * time by the caller's "may read the files" condition — the same generators as the records
 * policy's `read_files` (public files of a public record; else owner, grants, secret links,
 * members of the record's communities; administrators and the system always). For a document the
 * caller may not read the files of, the file fields are absent (NULL): `files.count:1` and
 * `files.entries.key:x*` do not match, `NOT files.count:1` matches as for a record without files,
 * and its file types are neither counted nor filtered on. `files.enabled` stays public (the read
 * form shows it to everyone).
 *
 * How: `q`'s guarded fields read the column `rdm_files_readable` (fields.ts), which
 * `search.repo.searchMatches` adds to `search_docs` from `Scope.files` (a derived table the
 * planner flattens); the facet filter ANDs `Scope.files` (facet-sql.ts); the facet counts of the
 * part shared between callers (cached) count only publicly readable files (`Scope.sharedFiles`)
 * and the caller's own readable rest is counted live (`filesExtra`, pg-indexer.ts).
 * When to use: whenever a new search field or facet reads file data, guard it here.
 */
import { type Identity, isAdmin, isSystem } from '@rdm/platform';
import { andAll, frag, orAll, type Sql } from './sql.js';

/** The column a guarded `q` field reads (true when the caller may read the document's files). */
export const FILES_READABLE_COLUMN = 'rdm_files_readable';

/** Files readable by everyone: public files of a public record (the `read_files` policy). */
export const PUBLIC_FILES = frag("(access_record = 'public' AND access_files = 'public')");

/** The file-data conditions of a scope. */
export interface FilesGuard {
  /** Documents whose file data the caller may read (TRUE: all of the scope). */
  files: Sql;
  /**
   * Of the scope's shared part (public records), the documents whose file data EVERY caller
   * sharing its cached facet counts may read (TRUE: all).
   */
  sharedFiles: Sql;
  /** The caller's own readable files beyond `sharedFiles` inside the shared part, if any. */
  filesExtra: Sql | null;
}

/** Every document's files are readable (administrators, the caller's own records). */
export const ALL_FILES: FilesGuard = { files: frag('TRUE'), sharedFiles: frag('TRUE'), filesExtra: null };

/**
 * The guard of a published scope: `personal` is the OR of the caller's `view` generators (owner,
 * grants, links, community memberships; null when it has none), `everything` when the caller may
 * read every file of the scope (administrators, the system, members of the listed community).
 */
export function publishedFilesGuard(identity: Identity, personal: Sql | null, everything = false): FilesGuard {
  if (everything || isAdmin(identity) || isSystem(identity)) return ALL_FILES;
  return {
    files: orAll([PUBLIC_FILES, personal]),
    // The shared part is `access_record = 'public'`: public files are the rest of PUBLIC_FILES.
    sharedFiles: frag("access_files = 'public'"),
    filesExtra: personal,
  };
}

/** A `q` field expression that is NULL unless the caller may read the document's files. */
export const guardedExpr = (expr: string): string => `(CASE WHEN ${FILES_READABLE_COLUMN} THEN ${expr} END)`;

/** The documents' file types as the caller may count them (NULL where files are not readable). */
export function fileTypesExpr(readable: Sql): Sql {
  if (readable.sql === 'TRUE') return frag('file_types');
  return { sql: `(CASE WHEN ${readable.sql} THEN file_types END)`, bindings: readable.bindings };
}

/** `where` AND the caller may read the files (for file-type filters). */
export const withReadableFiles = (clause: Sql, readable: Sql): Sql => andAll([clause, readable]);
