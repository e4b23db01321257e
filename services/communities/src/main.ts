/**
 * Entry point of the communities service. `tsx src/main.ts` serves HTTP + RPC, relays the
 * outbox and runs the consumers; `tsx src/main.ts migrate` creates the schema, migrates and exits.
 */
import { fileURLToPath } from 'node:url';
import {
  connectNats,
  createDb,
  createLogger,
  createObjectStorage,
  ensureServiceSchema,
  ensureStream,
  eventSubjects,
  migrate,
  OutboxRelay,
  runService,
  startTelemetry,
} from '@rdm/platform';
import { createApp } from './app.js';
import { loadCommunitiesConfig } from './config.js';
import { startCommunitiesConsumers } from './events/consumers.js';
import { RpcRequestsClient, RpcUsersClient, RpcVocabulariesClient } from './rpc/clients.js';
import { serveCommunitiesRpc } from './rpc/communities.rpc.js';

const SERVICE = 'communities';
const config = loadCommunitiesConfig(process.env);
const logger = createLogger(SERVICE, config.LOG_LEVEL);

if (process.argv[2] === 'migrate') {
  await ensureServiceSchema(config.DATABASE_URL, SERVICE);
  const db = createDb({ url: config.DATABASE_URL, service: SERVICE });
  const ran = await migrate(db, { service: SERVICE, dir: fileURLToPath(new URL('./db/migrations', import.meta.url)) });
  logger.info({ ran }, 'migrations done');
  await db.destroy();
  process.exit(0);
}

const telemetry = startTelemetry(SERVICE, config.OTEL_ENABLED);
const db = createDb({ url: config.DATABASE_URL, service: SERVICE, pool: { max: config.DATABASE_POOL_MAX } });
const storage = await createObjectStorage({
  engine: config.COMMUNITIES_STORAGE === 's3' ? 's3' : 'local',
  path: config.COMMUNITIES_STORAGE_PATH,
  s3: {
    endpoint: config.S3_ENDPOINT,
    accessKey: config.S3_ACCESS_KEY,
    secretKey: config.S3_SECRET_KEY,
    bucket: config.COMMUNITIES_S3_BUCKET,
    region: config.S3_REGION,
    partSize: 5 * 1024 * 1024,
  },
});
await storage.init();
const nats = await connectNats({ url: config.NATS_URL, name: SERVICE, logger });
await ensureStream(nats.jsm, { name: 'COMMUNITIES', subjects: eventSubjects(SERVICE) });

const t = config.RPC_TIMEOUT_MS;
const { app, health, communities, members, extensions } = createApp({
  config,
  logger,
  db,
  storage,
  users: new RpcUsersClient(nats.nc, t),
  vocabularies: new RpcVocabulariesClient(nats.nc, t),
  requests: new RpcRequestsClient(nats.nc, t),
  nc: nats.nc,
});
const rpcs = serveCommunitiesRpc(nats.nc, { communities, members, extensions, logger });
const relay = new OutboxRelay({ db, js: nats.js, logger });
const consumers = startCommunitiesConsumers({ db, nats, members, logger });

await runService({
  name: SERVICE,
  app,
  health,
  logger,
  host: config.HOST,
  port: config.PORT,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  workers: [
    relay,
    ...consumers.map((c) => ({ name: c.name, start: () => undefined, stop: () => c.stop() })),
    { name: 'rpc', start: () => undefined, stop: async () => void (await Promise.all(rpcs.map((r) => r.stop()))) },
  ],
  closers: [() => nats.nc.drain(), () => db.destroy(), () => telemetry.shutdown()],
});
