/**
 * Storage factory: picks the engine named by `FILES_STORAGE` (`local` default, `s3`).
 * Everything outside `src/storage/` depends on the `ObjectStorage` port only.
 */
import { type FilesConfig, maxFileBytes } from '../config.js';
import { LocalStorage } from './local.js';
import type { ObjectStorage } from './port.js';

export * from './hashing.js';
export * from './port.js';
export { LocalStorage } from './local.js';
// Why: S3Storage is not re-exported: it pulls in the minio client (~20 MB of RSS) that the local engine never needs.

/** Part size for S3 multipart uploads: the configured size, raised so that the largest allowed file fits in 10 000 parts. */
export function s3PartSize(configured: number, maxFileBytes: number): number {
  const MiB = 1024 * 1024;
  const needed = Math.ceil(maxFileBytes / 10_000 / MiB) * MiB;
  return Math.max(configured, needed);
}

/** Build the configured engine (not yet initialised: call `init()`). */
export async function createStorage(
  config: Pick<
    FilesConfig,
    | 'FILES_STORAGE'
    | 'FILES_STORAGE_PATH'
    | 'S3_ENDPOINT'
    | 'S3_ACCESS_KEY'
    | 'S3_SECRET_KEY'
    | 'S3_BUCKET'
    | 'S3_REGION'
    | 'S3_PART_SIZE'
    | 'FILES_MAX_FILE_BYTES'
    | 'FILES_MAX_RECORD_BYTES'
  >,
): Promise<ObjectStorage> {
  if (config.FILES_STORAGE === 's3') {
    const { S3Storage } = await import('./s3.js');
    return new S3Storage({
      endpoint: config.S3_ENDPOINT,
      accessKey: config.S3_ACCESS_KEY,
      secretKey: config.S3_SECRET_KEY,
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      partSize: s3PartSize(config.S3_PART_SIZE, maxFileBytes(config)),
    });
  }
  return new LocalStorage(config.FILES_STORAGE_PATH);
}
