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
  /** Throws when the storage is unreachable (readiness). */
  check(): Promise<void>;
  /**
   * Remove what puts that never finished left behind (a process killed mid-upload): the local
   * engine's partial files, S3's incomplete multipart uploads — those older than `olderThanMs`
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
