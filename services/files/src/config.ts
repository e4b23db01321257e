/**
 * Configuration of the files service: the platform's base variables plus storage and limits.
 * `loadFilesConfig(process.env)` runs once in main.ts; the frozen result is passed down.
 */
import { fileURLToPath } from 'node:url';
import { ConfigError, type ConfigOf, type EnvProperty, baseConfigProperties, loadConfig } from '@rdm/platform';

/** `<repo>/.data/files`, the default local storage root. */
export const DEFAULT_STORAGE_PATH = fileURLToPath(new URL('../../../.data/files', import.meta.url));

/** Environment variables of the files service. */
export const configProperties = {
  ...baseConfigProperties,
  PORT: { type: 'integer', default: 5104, minimum: 0, maximum: 65535 },
  FILES_STORAGE: { type: 'string', default: 'local', enum: ['local', 's3'], description: 'Storage engine.' },
  FILES_STORAGE_PATH: { type: 'string', default: DEFAULT_STORAGE_PATH, minLength: 1, description: 'Root folder of the local engine.' },
  FILES_MAX_COUNT: { type: 'integer', default: 100, minimum: 1, description: 'Maximum number of files per record.' },
  FILES_MAX_RECORD_BYTES: {
    type: 'integer',
    default: 50_000_000_000,
    minimum: 0,
    description: 'Maximum total bytes of all files of one record (50 GB).',
  },
  FILES_MAX_FILE_BYTES: { type: 'integer', minimum: 0, description: 'Maximum bytes of one file (default: FILES_MAX_RECORD_BYTES).' },
  FILES_UPLOAD_STALE_MS: {
    type: 'integer',
    default: 24 * 3600 * 1000,
    minimum: 1000,
    description: 'Age after which the janitor removes the temporary object of an upload that never finished (process crash).',
  },
  FILES_MULTIPART_MAX_PART_BYTES: {
    type: 'integer',
    default: 64 * 1024 * 1024,
    minimum: 1,
    maximum: 5 * 1024 * 1024 * 1024,
    description: 'Largest part of a multipart transfer (the S3 engine holds one part in memory while sending it).',
  },
  FILES_LOCAL_AUTHZ: {
    type: 'string',
    default: 'fallback',
    enum: ['fallback', 'first', 'off'],
    description:
      "Public downloads of published files from the local, event-fed copy of records' access: `fallback` only while records does not answer, `first` before asking records (no call per public download; a deletion or restriction applies when its event arrives), `off` never.",
  },
  FILES_GRANT_CACHE_MS: {
    type: 'integer',
    default: 5000,
    minimum: 0,
    maximum: 60_000,
    description:
      "How long records' grant to edit a draft's files is reused for uploads and commits to entries that grant registered (no records call per write; a withdrawn permission stops such writes after at most this long); 0 asks records every time.",
  },
  STATS_ENABLED: {
    type: 'boolean',
    default: true,
    description: 'Usage statistics: publish `rdm.stats.file.downloaded` for each counted download; false: downloads are not counted.',
  },
  FILES_IIIF_MAX_WIDTH: {
    type: 'integer',
    default: 10_000,
    minimum: 1,
    description: 'IIIF: widest image rendered (info.json `maxWidth`).',
  },
  FILES_IIIF_MAX_HEIGHT: {
    type: 'integer',
    default: 10_000,
    minimum: 1,
    description: 'IIIF: tallest image rendered (info.json `maxHeight`).',
  },
  FILES_IIIF_MAX_AREA: {
    type: 'integer',
    default: 25_000_000,
    minimum: 1,
    description: 'IIIF: most pixels of one rendered image (info.json `maxArea`); `full`/`max` are scaled down to it.',
  },
  FILES_IIIF_MAX_PIXELS: {
    type: 'integer',
    default: 50_000_000,
    minimum: 1,
    description: 'IIIF: largest source image (width × height from its header) rendered; larger ones answer 422 without being decoded.',
  },
  FILES_IIIF_MAX_INPUT_BYTES: {
    type: 'integer',
    default: 64 * 1024 * 1024,
    minimum: 1,
    description: 'IIIF: largest source file rendered (it is read into memory to decode); larger ones answer 422.',
  },
  FILES_IIIF_CONCURRENCY: {
    type: 'integer',
    default: 2,
    minimum: 1,
    maximum: 64,
    description: 'IIIF: renders running at once (others wait).',
  },
  FILES_IIIF_THREADS: {
    type: 'integer',
    default: 1,
    minimum: 1,
    maximum: 64,
    description: 'IIIF: libvips threads per render (sharp.concurrency).',
  },
  FILES_IIIF_CACHE_BYTES: {
    type: 'integer',
    default: 1024 * 1024 * 1024,
    minimum: 0,
    description: 'IIIF: bound of the derivative cache in the object store (least recently served evicted first); 0 = no cache.',
  },
  FILES_JANITOR_INTERVAL_MS: { type: 'integer', default: 60_000, minimum: 100, description: 'How often the storage janitor runs.' },
  S3_ENDPOINT: { type: 'string', default: 'http://127.0.0.1:9000', pattern: '^https?://', description: 'S3 endpoint (FILES_STORAGE=s3).' },
  S3_ACCESS_KEY: { type: 'string', description: 'S3 access key (required with FILES_STORAGE=s3).' },
  S3_SECRET_KEY: { type: 'string', description: 'S3 secret key (required with FILES_STORAGE=s3).' },
  S3_BUCKET: { type: 'string', default: 'rdm-files', minLength: 3, description: 'S3 bucket holding every object.' },
  S3_REGION: { type: 'string', default: 'us-east-1', minLength: 1 },
  S3_PART_SIZE: {
    type: 'integer',
    default: 5 * 1024 * 1024,
    minimum: 5 * 1024 * 1024,
    maximum: 512 * 1024 * 1024,
    description:
      'Multipart part size (raised automatically so the largest allowed file fits in 10 000 parts); memory per upload is about two parts.',
  },
} as const satisfies Record<string, EnvProperty>;

/** The loaded configuration. */
export type FilesConfig = ConfigOf<typeof configProperties>;

/** Load and cross-check the configuration (S3 credentials are required only for the s3 engine). */
export function loadFilesConfig(env: NodeJS.ProcessEnv | Record<string, string | undefined>): FilesConfig {
  const config = loadConfig(configProperties, env);
  if (config.FILES_STORAGE === 's3') {
    const missing = (['S3_ACCESS_KEY', 'S3_SECRET_KEY'] as const).filter((k) => !config[k]);
    if (missing.length > 0) throw new ConfigError(missing.map((k) => `${k}: must be set when FILES_STORAGE=s3`));
  }
  return config;
}

/** The effective per-file byte limit. */
export function maxFileBytes(config: Pick<FilesConfig, 'FILES_MAX_FILE_BYTES' | 'FILES_MAX_RECORD_BYTES'>): number {
  const v = config.FILES_MAX_FILE_BYTES as number | undefined;
  return v === undefined ? config.FILES_MAX_RECORD_BYTES : v;
}
