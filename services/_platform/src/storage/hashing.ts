/**
 * The Transform every upload flows through: it computes the md5 and counts bytes while the
 * bytes stream by, and fails the pipeline as soon as the byte limit is passed, so an oversized
 * upload is cut off early instead of being stored and measured afterwards.
 *
 * When to use: in every `ObjectStorage.put` pipeline (the engines do it for you). Never hash a
 * file by reading it into memory.
 */
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** Thrown (as the pipeline error) when more bytes arrive than the limit allows. */
export class SizeLimitExceededError extends Error {
  /** The limit in bytes. */
  readonly limit: number;
  constructor(limit: number) {
    super(`Stream exceeded the limit of ${limit} bytes`);
    this.name = 'SizeLimitExceededError';
    this.limit = limit;
  }
}

/** md5 + byte counter + optional byte limit, as a pass-through Transform. */
export class HashingLimiter extends Transform {
  private readonly hash: Hash = createHash('md5');
  private count = 0;
  private digest?: string;

  /** `limit`: maximum number of bytes (default unlimited). */
  constructor(private readonly limit: number = Number.POSITIVE_INFINITY) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.count += chunk.length;
    if (this.count > this.limit) {
      cb(new SizeLimitExceededError(this.limit));
      return;
    }
    this.hash.update(chunk);
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    this.digest = this.hash.digest('hex');
    cb();
  }

  /** Bytes seen so far. */
  get size(): number {
    return this.count;
  }

  /** Hex md5 of everything seen; only after the stream ended. */
  get md5(): string {
    if (this.digest === undefined) throw new Error('HashingLimiter: md5 read before the stream ended');
    return this.digest;
  }
}
