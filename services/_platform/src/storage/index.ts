/**
 * Object storage port (infrastructure shared by every service that keeps bytes: files' objects,
 * communities' logos). `createObjectStorage` picks the engine (`local` default, `s3`);
 * everything outside this folder depends on the `ObjectStorage` port only.
 */
import { LocalStorage } from './local.js';
import type { ObjectStorage } from './port.js';

export * from './hashing.js';
export * from './port.js';
export { LocalStorage } from './local.js';
// Why: S3Storage is not re-exported: it pulls in the minio client (~20 MB of RSS) that the local
// engine never needs. Import it from `@rdm/platform/storage/s3` (tests) or go through the factory.

/** Part size for S3 multipart uploads: the configured size, raised so that the largest allowed object fits in 10 000 parts. */
export function s3PartSize(configured: number, maxObjectBytes: number): number {
  const MiB = 1024 * 1024;
  const needed = Math.ceil(maxObjectBytes / 10_000 / MiB) * MiB;
  return Math.max(configured, needed);
}

/** Settings of the engine to build. */
export interface ObjectStorageOptions {
  engine: 'local' | 's3';
  /** Root folder of the local engine. */
  path: string;
  /** S3 settings (engine `s3`). */
  s3?: {
    endpoint: string;
    accessKey?: string;
    secretKey?: string;
    bucket: string;
    region: string;
    /** Multipart part size in bytes (>= 5 MiB). */
    partSize: number;
  };
}

/** Build the configured engine (not yet initialised: call `init()`). */
export async function createObjectStorage(opts: ObjectStorageOptions): Promise<ObjectStorage> {
  if (opts.engine === 's3') {
    if (!opts.s3) throw new Error('createObjectStorage: s3 settings missing');
    const { S3Storage } = await import('./s3.js');
    return new S3Storage({
      endpoint: opts.s3.endpoint,
      accessKey: opts.s3.accessKey as string,
      secretKey: opts.s3.secretKey as string,
      bucket: opts.s3.bucket,
      region: opts.s3.region,
      partSize: opts.s3.partSize,
    });
  }
  return new LocalStorage(opts.path);
}
