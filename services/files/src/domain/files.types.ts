/**
 * The shapes the files domain's parts share (limits, dependencies, results): `files.service.ts`,
 * `files.access.ts`, `transfers.ts` and `buckets.ts` import them from here, so that no part
 * imports the service that composes it.
 */
import type { Knex, Logger } from '@rdm/platform';
import type { FileRow } from '../repo/files.repo.js';
import type { ObjectStorage } from '../storage/index.js';
import type { BucketGrant, FilesAuthorizer } from './authorizer.js';
import type { StorageGc } from './storage-gc.js';

/** Limits of the files service. */
export interface FilesLimits {
  maxCount: number;
  maxRecordBytes: number;
  maxFileBytes: number;
  /** Delay before an unfinished upload's temporary object counts as abandoned (also a multipart upload's lifetime). */
  uploadStaleMs: number;
  /** Largest part of a multipart transfer (S3 reads a part into memory before sending it). */
  maxPartBytes: number;
}

/** Dependencies of FilesService. */
export interface FilesServiceDeps {
  db: Knex;
  storage: ObjectStorage;
  authorizer: FilesAuthorizer;
  gc: StorageGc;
  limits: FilesLimits;
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
}

/** Files of a draft or record with the grant they were read under. */
export interface FilesResult {
  grant: BucketGrant;
  files: FileRow[];
}

/** One file with its grant. */
export interface FileResult {
  grant: BucketGrant;
  file: FileRow;
}

/** A manifest (RPC shape is built by the rpc layer). */
export interface Manifest {
  bucket_id: string;
  locked: boolean;
  files: FileRow[];
}
