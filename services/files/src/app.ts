/**
 * The files service's koa app (no listen, so tests drive it with supertest): platform base app
 * plus the files routes. Health: database, storage and (when given) the NATS connection.
 */
import {
  AppError,
  createHttpApp,
  type Knex,
  type Logger,
  mountRouter,
  openapiRouter,
  type NatsHandle,
  natsHealthCheck,
  UNSTORABLE_MESSAGE,
  type ServiceHttp,
} from '@rdm/platform';
import { configProperties, type FilesConfig, maxFileBytes } from './config.js';
import type { FilesAuthorizer } from './domain/authorizer.js';
import { FilesService } from './domain/files.service.js';
import { FileLinks } from './domain/links.js';
import { StorageGc } from './domain/storage-gc.js';
import { downloadStatsMiddleware } from './http/download-stats.js';
import { filesRouter } from './http/files.routes.js';
import { iiifRouter } from './http/iiif.routes.js';
import { IiifService } from './iiif/iiif.service.js';
import { API } from './http/routes.decl.js';
import type { ObjectStorage } from './storage/index.js';

/** The IIIF settings (defaults from config.ts when absent). */
type IiifSetting =
  | 'FILES_IIIF_MAX_WIDTH'
  | 'FILES_IIIF_MAX_HEIGHT'
  | 'FILES_IIIF_MAX_AREA'
  | 'FILES_IIIF_MAX_PIXELS'
  | 'FILES_IIIF_MAX_INPUT_BYTES'
  | 'FILES_IIIF_CONCURRENCY'
  | 'FILES_IIIF_CACHE_BYTES'
  | 'FILES_IIIF_THREADS';

/** Dependencies of createApp. */
export interface AppDeps {
  config: Pick<
    FilesConfig,
    | 'IDENTITY_SECRET'
    | 'PUBLIC_BASE_URL'
    | 'FILES_MAX_COUNT'
    | 'FILES_MAX_RECORD_BYTES'
    | 'FILES_MAX_FILE_BYTES'
    | 'FILES_UPLOAD_STALE_MS'
    | 'FILES_JANITOR_INTERVAL_MS'
  > &
    Partial<Pick<FilesConfig, 'FILES_MULTIPART_MAX_PART_BYTES' | IiifSetting>>;
  logger: Logger;
  db: Knex;
  storage: ObjectStorage;
  authorizer: FilesAuthorizer;
  /** NATS connection, for readiness. */
  nc?: NatsHandle['nc'];
  /** JetStream client: when given, downloads publish `rdm.stats.file.downloaded` (http/download-stats.ts). */
  js?: NatsHandle['js'];
}

/** The composed app and what main.ts needs besides it. */
export interface FilesApp extends ServiceHttp {
  service: FilesService;
  gc: StorageGc;
  iiif: IiifService;
}

/** Build the app and the domain service. */
export function createApp(deps: AppDeps): FilesApp {
  const { config, logger, db, storage, authorizer } = deps;
  const { app, health } = createHttpApp({
    name: 'files',
    logger,
    identitySecret: config.IDENTITY_SECRET,
    // A NUL in a file key or record id is a malformed request here, like any other bad key.
    unstorablePathError: () =>
      new AppError('invalid_key', 400, 'Invalid file key.', { fieldErrors: [{ field: 'key', messages: [UNSTORABLE_MESSAGE] }] }),
  });
  const gc = new StorageGc({
    db,
    storage,
    logger,
    intervalMs: config.FILES_JANITOR_INTERVAL_MS,
    staleMs: config.FILES_UPLOAD_STALE_MS,
  });
  const service = new FilesService({
    db,
    storage,
    authorizer,
    gc,
    logger,
    limits: {
      maxCount: config.FILES_MAX_COUNT,
      maxRecordBytes: config.FILES_MAX_RECORD_BYTES,
      maxFileBytes: maxFileBytes(config),
      uploadStaleMs: config.FILES_UPLOAD_STALE_MS,
      maxPartBytes: config.FILES_MULTIPART_MAX_PART_BYTES ?? 64 * 1024 * 1024,
    },
  });
  health.add('db', () => db.raw('select 1'));
  health.add('storage', () => storage.check());
  if (deps.nc) {
    const nc = deps.nc;
    health.add('nats', natsHealthCheck(nc));
  }
  if (deps.js) app.use(downloadStatsMiddleware({ js: deps.js, secret: config.IDENTITY_SECRET }));
  mountRouter(app, openapiRouter(API));
  mountRouter(app, filesRouter({ service, links: new FileLinks(config.PUBLIC_BASE_URL, config.FILES_UPLOAD_STALE_MS) }));
  const setting = (k: IiifSetting) => (config[k] as number | undefined) ?? (configProperties[k].default as number);
  const iiif = new IiifService({
    files: service,
    storage,
    db,
    logger,
    options: {
      maxWidth: setting('FILES_IIIF_MAX_WIDTH'),
      maxHeight: setting('FILES_IIIF_MAX_HEIGHT'),
      maxArea: setting('FILES_IIIF_MAX_AREA'),
      maxInputPixels: setting('FILES_IIIF_MAX_PIXELS'),
      maxInputBytes: setting('FILES_IIIF_MAX_INPUT_BYTES'),
      concurrency: setting('FILES_IIIF_CONCURRENCY'),
      cacheBytes: setting('FILES_IIIF_CACHE_BYTES'),
      threads: setting('FILES_IIIF_THREADS'),
    },
  });
  mountRouter(app, iiifRouter({ iiif, baseUrl: config.PUBLIC_BASE_URL }));
  return { app, health, service, gc, iiif };
}
