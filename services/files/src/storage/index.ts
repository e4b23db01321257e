/**
 * Storage of the files service: the engine named by `FILES_STORAGE` (`local` default, `s3`),
 * built by the platform's storage port (`@rdm/platform`). Everything in files depends on the
 * `ObjectStorage` port only.
 */
import { createObjectStorage, type ObjectStorage, s3PartSize } from '@rdm/platform';
import { type FilesConfig, maxFileBytes } from '../config.js';

export {
  type ByteRange,
  HashingLimiter,
  LocalStorage,
  ObjectNotFoundError,
  type ObjectStat,
  type ObjectStorage,
  type PutOptions,
  type PutResult,
  SizeLimitExceededError,
  assertStorageKey,
  s3PartSize,
} from '@rdm/platform';

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
  return createObjectStorage({
    engine: config.FILES_STORAGE === 's3' ? 's3' : 'local',
    path: config.FILES_STORAGE_PATH,
    s3: {
      endpoint: config.S3_ENDPOINT,
      accessKey: config.S3_ACCESS_KEY,
      secretKey: config.S3_SECRET_KEY,
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      partSize: s3PartSize(config.S3_PART_SIZE, maxFileBytes(config)),
    },
  });
}
