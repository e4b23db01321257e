/**
 * The storage port: where file bytes live. Two engines implement it (`local.ts`, `s3.ts`);
 * the domain only ever sees this interface.
 *
 * Object keys are chosen by the service (`uploads/<uuid>`, `objects/ab/cd/<uuid>`), never derived
 * from user file names, so a file key can never escape storage. Engines still refuse keys outside
 * `[a-z0-9/_-]` as a second line of defence.
 */
import type { Readable } from 'node:stream';

/** Result of a stored stream: its length and md5 (hex). */
export interface PutResult {
  size: number;
  md5: string;
}

/** Options of put. */
export interface PutOptions {
  /** Expected size when known (Content-Length); lets engines pick a strategy. */
  size?: number;
  /** Maximum accepted bytes; more makes put reject with SizeLimitExceededError and store nothing. */
  limit?: number;
}

/** A stored part of a multipart upload: its length, md5 (hex) and the engine's tag to name it at completion. */
export interface PartResult extends PutResult {
  etag: string;
}

/** A part named at the completion of a multipart upload. */
export interface CompletedPart {
  /** 1-based part number. */
  part: number;
  /** The `etag` its `putPart` answered. */
  etag: string;
}

/** An inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Metadata of a stored object. */
export interface ObjectStat {
  size: number;
}

/** A place to keep object bytes. */
export interface ObjectStorage {
  /** `local` or `s3`. */
  readonly kind: 'local' | 's3';
  /** Prepare (create the root folder / bucket). Idempotent. */
  init(): Promise<void>;
  /**
   * Stream `stream` into `key` while computing md5 and size. Atomic: the key either holds all the
   * bytes or does not exist; on any failure nothing is left behind.
   */
  put(key: string, stream: Readable, opts?: PutOptions): Promise<PutResult>;
  /** Read an object, optionally an inclusive byte range. Rejects with `ObjectNotFoundError`. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size of an object, or null when it does not exist. */
  stat(key: string): Promise<ObjectStat | null>;
  /** Remove an object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Make `to` hold the same bytes as `from` without streaming them through this process
   * (local: hard link, falling back to a copy; S3: server-side copy). `from` stays.
   */
  copy(from: string, to: string): Promise<void>;
  /** Every key under a prefix (tests and tooling). */
  list(prefix: string): AsyncIterable<string>;
  /**
   * Multipart uploads (parts sent separately, in any order, assembled at the end). Begin one that
   * will become `key` and answer its upload id. Nothing exists under `key` before
   * `completeMultipart`; an upload never completed nor aborted is removed by `sweepStale`.
   */
  createMultipart(key: string): Promise<string>;
  /**
   * Store part `part` (1-based) of an upload, md5 and size computed while it streams; `limit` as
   * in put. Sending a part again replaces it. A failed put leaves the previous version, if any.
   */
  putPart(key: string, uploadId: string, part: number, stream: Readable, opts?: PutOptions): Promise<PartResult>;
  /**
   * Assemble `parts` (in ascending part order) into `key` and answer the whole object's size and
   * md5, computed by streaming it (local: while concatenating; S3: one read of the object S3
   * assembled). The upload is gone afterwards.
   */
  completeMultipart(key: string, uploadId: string, parts: CompletedPart[]): Promise<PutResult>;
  /** Drop an upload and its parts; an unknown (already completed or aborted) upload is not an error. */
  abortMultipart(key: string, uploadId: string): Promise<void>;
  /** Throws when the storage is unreachable (readiness). */
  check(): Promise<void>;
  /**
   * Remove what puts that never finished left behind (a process killed mid-upload, a multipart
   * upload nobody completed): the local engine's partial files and multipart folders, S3's
   * incomplete multipart uploads — those older than `olderThanMs`
   * (started before, for S3; untouched since, for local files). Returns how many were removed.
   * Run it at start and periodically (the files janitor does).
   */
  sweepStale?(olderThanMs: number): Promise<number>;
}

/** The object does not exist. */
export class ObjectNotFoundError extends Error {
  constructor(key: string) {
    super(`Object not found: ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

const KEY_RE = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)*$/;

/** Throw unless `key` is a service-made storage key (lowercase ids and slashes only). */
export function assertStorageKey(key: string): void {
  if (!KEY_RE.test(key) || key.length > 512) throw new Error(`Invalid storage key ${JSON.stringify(key)}`);
}
