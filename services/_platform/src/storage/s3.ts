/**
 * S3 engine of the storage port, through the `minio` client (MinIO in production, any S3).
 *
 * Uploads do their own multipart streaming instead of `putObject(stream)`: minio-js would size
 * parts for a 5 TiB object when the length is unknown (chunked uploads) and buffer one such part
 * in memory. Here a part is `partSize` bytes (two buffers: one filling while the previous one is
 * sent), so an upload costs about 2 × partSize of memory whatever the file size. Any failure
 * aborts the multipart upload, so a failed put leaves nothing behind. Objects smaller than one
 * part go up in a single PUT.
 *
 * `copy` is server-side (CopyObject, or a multipart UploadPartCopy via composeObject above the
 * 5 GiB CopyObject limit): bytes never pass through this process.
 *
 * Client multipart uploads (`createMultipart`/`putPart`/`completeMultipart`) map one to one to an
 * S3 multipart upload: each part is read once into memory (S3 over plain HTTP signs the payload's
 * sha256, so its bytes must be known before the request starts) and sent as that S3 part; S3
 * assembles the object, which is then read once to compute its md5 (S3 has none for multipart
 * objects).
 */
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client, CopyDestinationOptions, CopySourceOptions } from 'minio';
import { HashingLimiter } from './hashing.js';
import {
  type ByteRange,
  type CompletedPart,
  ObjectNotFoundError,
  type PartResult,
  type ObjectStat,
  type ObjectStorage,
  type PutOptions,
  type PutResult,
  assertStorageKey,
} from './port.js';

/** Options of the S3 engine. */
export interface S3StorageOptions {
  /** `http(s)://host:port`. */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
  /** Multipart part size in bytes (>= 5 MiB). */
  partSize: number;
}

const COPY_OBJECT_LIMIT = 5 * 1024 * 1024 * 1024;

const isNotFound = (err: unknown) => {
  const code = (err as { code?: string })?.code;
  return code === 'NoSuchKey' || code === 'NotFound' || code === 'NoSuchObject';
};

const isNoSuchUpload = (err: unknown) => (err as { code?: string })?.code === 'NoSuchUpload';

/** S3 storage in one bucket. */
export class S3Storage implements ObjectStorage {
  readonly kind = 's3' as const;
  /** The minio client (tests use it to inspect the bucket). */
  readonly client: Client;
  private readonly bucket: string;
  private readonly region: string;
  private readonly partSize: number;

  constructor(opts: S3StorageOptions) {
    const url = new URL(opts.endpoint);
    const useSSL = url.protocol === 'https:';
    this.client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: opts.accessKey,
      secretKey: opts.secretKey,
      region: opts.region,
      pathStyle: true,
    });
    this.bucket = opts.bucket;
    this.region = opts.region;
    this.partSize = opts.partSize;
  }

  async init(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) {
      try {
        await this.client.makeBucket(this.bucket, this.region);
      } catch (err) {
        // Why: two replicas starting together both see "missing" and race to create it.
        const code = (err as { code?: string }).code;
        if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
      }
    }
  }

  async put(key: string, stream: Readable, opts: PutOptions = {}): Promise<PutResult> {
    assertStorageKey(key);
    const { client, bucket } = this;
    const partSize = this.partSize;
    const hasher = new HashingLimiter(opts.limit);
    let uploadId: string | undefined;
    let initiating: Promise<string> | undefined;
    let inflight: Promise<void> | undefined;
    const parts: { part: number; etag: string }[] = [];

    const sendPart = async (data: Buffer, partNumber: number) => {
      initiating ??= client.initiateNewMultipartUpload(bucket, key, {}).then((id) => {
        uploadId = id;
        return id;
      });
      const id = await initiating;
      const res = await client.uploadPart({ bucketName: bucket, objectName: key, uploadID: id, partNumber, headers: {} }, data);
      parts.push({ part: partNumber, etag: res.etag });
    };

    const sink = async (source: AsyncIterable<Buffer>) => {
      // Two buffers: one fills while the other is being sent (the second only once a first part exists).
      const buffers = [Buffer.allocUnsafe(partSize)];
      let current = 0;
      let fill = 0;
      let partNumber = 0;
      for await (const chunk of source) {
        let offset = 0;
        while (offset < chunk.length) {
          const n = Math.min(partSize - fill, chunk.length - offset);
          chunk.copy(buffers[current], fill, offset, offset + n);
          fill += n;
          offset += n;
          if (fill === partSize) {
            if (inflight) await inflight;
            partNumber += 1;
            inflight = sendPart(buffers[current], partNumber);
            // Why: the rejection is observed at the next await; avoid an unhandled-rejection crash meanwhile.
            inflight.catch(() => undefined);
            current = 1 - current;
            buffers[current] ??= Buffer.allocUnsafe(partSize);
            fill = 0;
          }
        }
      }
      if (inflight) await inflight;
      if (partNumber === 0) {
        await client.putObject(bucket, key, buffers[current].subarray(0, fill), fill);
        return;
      }
      if (fill > 0) await sendPart(buffers[current].subarray(0, fill), partNumber + 1);
      parts.sort((a, b) => a.part - b.part);
      await client.completeMultipartUpload(bucket, key, uploadId!, parts);
      uploadId = undefined;
    };

    try {
      await pipeline(stream, hasher, sink);
      return { size: hasher.size, md5: hasher.md5 };
    } catch (err) {
      // Why: a part may still be in flight (or the upload being initiated); abort only after it settled.
      await inflight?.catch(() => undefined);
      await initiating?.catch(() => undefined);
      if (uploadId) await client.abortMultipartUpload(bucket, key, uploadId).catch(() => undefined);
      if (!stream.destroyed) stream.destroy();
      throw err;
    }
  }

  async createMultipart(key: string): Promise<string> {
    assertStorageKey(key);
    return this.client.initiateNewMultipartUpload(this.bucket, key, {});
  }

  async putPart(key: string, uploadId: string, part: number, stream: Readable, opts: PutOptions = {}): Promise<PartResult> {
    assertStorageKey(key);
    if (!Number.isSafeInteger(part) || part < 1 || part > 10_000) throw new Error(`Invalid part number ${part}`);
    const hasher = new HashingLimiter(opts.limit);
    const chunks: Buffer[] = [];
    const collect = new Writable({
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk);
        cb();
      },
    });
    try {
      await pipeline(stream, hasher, collect);
    } catch (err) {
      if (!stream.destroyed) stream.destroy();
      throw err;
    }
    const data = Buffer.concat(chunks, hasher.size);
    chunks.length = 0;
    try {
      const res = await this.client.uploadPart(
        { bucketName: this.bucket, objectName: key, uploadID: uploadId, partNumber: part, headers: {} },
        data,
      );
      return { size: hasher.size, md5: hasher.md5, etag: res.etag };
    } catch (err) {
      if (isNoSuchUpload(err)) throw new ObjectNotFoundError(`${key} (multipart upload)`);
      throw err;
    }
  }

  async completeMultipart(key: string, uploadId: string, parts: CompletedPart[]): Promise<PutResult> {
    assertStorageKey(key);
    const ordered = [...parts].sort((a, b) => a.part - b.part);
    try {
      await this.client.completeMultipartUpload(this.bucket, key, uploadId, ordered);
    } catch (err) {
      if (isNoSuchUpload(err)) throw new ObjectNotFoundError(`${key} (multipart upload)`);
      throw err;
    }
    const hasher = new HashingLimiter();
    const discard = new Writable({
      write(_c, _e, cb) {
        cb();
      },
    });
    await pipeline(await this.get(key), hasher, discard);
    return { size: hasher.size, md5: hasher.md5 };
  }

  async abortMultipart(key: string, uploadId: string): Promise<void> {
    assertStorageKey(key);
    try {
      await this.client.abortMultipartUpload(this.bucket, key, uploadId);
    } catch (err) {
      if (!isNoSuchUpload(err) && !isNotFound(err)) throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    assertStorageKey(key);
    try {
      if (range) return await this.client.getPartialObject(this.bucket, key, range.start, range.end - range.start + 1);
      return await this.client.getObject(this.bucket, key);
    } catch (err) {
      if (isNotFound(err)) throw new ObjectNotFoundError(key);
      throw err;
    }
  }

  async stat(key: string): Promise<ObjectStat | null> {
    assertStorageKey(key);
    try {
      const s = await this.client.statObject(this.bucket, key);
      return { size: s.size };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    try {
      await this.client.removeObject(this.bucket, key);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async copy(from: string, to: string): Promise<void> {
    assertStorageKey(from);
    assertStorageKey(to);
    const st = await this.stat(from);
    if (!st) throw new ObjectNotFoundError(from);
    const src = new CopySourceOptions({ Bucket: this.bucket, Object: from });
    const dst = new CopyDestinationOptions({ Bucket: this.bucket, Object: to });
    if (st.size <= COPY_OBJECT_LIMIT) await this.client.copyObject(src, dst);
    else await this.client.composeObject(dst, [src]);
  }

  async *list(prefix: string): AsyncIterable<string> {
    const stream = this.client.listObjectsV2(this.bucket, prefix, true);
    for await (const item of stream as AsyncIterable<{ name?: string }>) {
      if (item.name) yield item.name;
    }
  }

  async sweepStale(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    const stale: { key: string; uploadId: string }[] = [];
    const stream = this.client.listIncompleteUploads(this.bucket, '', true);
    for await (const item of stream as AsyncIterable<{ key: string; uploadId: string; initiated?: Date }>) {
      if (item.uploadId && item.initiated && item.initiated.getTime() < cutoff) stale.push(item);
    }
    let removed = 0;
    for (const u of stale) {
      // Why by upload id: another, live upload of the same key (if any) is left alone.
      await this.client.abortMultipartUpload(this.bucket, u.key, u.uploadId).then(
        () => removed++,
        () => undefined,
      );
    }
    return removed;
  }

  /** Keys of multipart uploads that were started and never completed nor aborted. */
  async incompleteUploads(prefix = ''): Promise<string[]> {
    const out: string[] = [];
    const stream = this.client.listIncompleteUploads(this.bucket, prefix, true);
    for await (const item of stream as AsyncIterable<{ key: string }>) out.push(item.key);
    return out;
  }

  async check(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) throw new Error(`S3 bucket ${this.bucket} does not exist`);
  }
}
