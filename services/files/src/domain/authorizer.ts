/**
 * The question the files service asks the records service on every HTTP request: may this
 * identity read/update the files of that draft/record, and which bucket holds them?
 * Records owns records, permissions, `files.enabled`, `order` and `default_preview`; files owns
 * the bytes. Implemented over NATS in `rpc/records.client.ts` (`rdm.records.rpc.authorize-files`).
 */
import type { Identity } from '@rdm/platform';
import type { BucketGrant, RecordsAuthorizeFilesRequest } from '@rdm/contracts';

export type { BucketGrant };

/** Which side of a record: its draft (`/draft/files`) or the published record (`/files`). */
export type FilesScope = 'draft' | 'record';
/** Which bucket of a draft/record: its files, or its media files (`…/media-files`, InvenioRDM's second bucket). */
export type FilesKind = 'files' | 'media';
/** What the caller wants to do with the files. */
export type FilesAction = 'read' | 'update';

/** Request of authorize-files (proto/rpc/records/authorize-files.json). */
export type AuthorizeFilesRequest = RecordsAuthorizeFilesRequest;

/** What the grant is for, beyond the request records sees. */
export interface AuthorizeOptions {
  /** A file listing: needs records' `order` and `default_preview` (never from the local copy). */
  listing?: boolean;
  /** A write to an entry that exists: a grant remembered for this identity may answer (domain/grant-cache.ts). */
  reuse?: boolean;
  /** Ask records for the record's descriptive metadata too (`with_metadata`: IIIF manifests; never from the local copy). */
  metadata?: boolean;
}

/** Asks the records service (or its local copy, domain/record-access.ts); rejects with its 404/403/410 `AppError`s. */
export interface FilesAuthorizer {
  authorize(req: AuthorizeFilesRequest, opts?: AuthorizeOptions): Promise<BucketGrant>;
  /** Forget what is remembered about record/draft `recordId` (its publication or deletion), when anything is. */
  forget?(recordId: string): void;
}

/** Who asks for what: the target of one HTTP request. */
export interface FilesTarget {
  identity: Identity;
  recordId: string;
  scope: FilesScope;
  /** Files or media files (default files). */
  kind?: FilesKind;
  /** Secret-link token from the query string, passed to records as `access_token`. */
  token?: string;
}
