/**
 * Entry point of the files service. `tsx src/main.ts` serves; `tsx src/main.ts migrate`
 * creates the schema, runs the migrations and exits.
 */
import { fileURLToPath } from 'node:url';
import {
  OutboxRelay,
  connectNats,
  createDb,
  createLogger,
  ensureServiceSchema,
  ensureStream,
  migrate,
  runService,
  startTelemetry,
} from '@rdm/platform';
import { createApp } from './app.js';
import { loadFilesConfig } from './config.js';
import { startFilesConsumers } from './events/consumers.js';
import { serveFilesRpc } from './rpc/files.rpc.js';
import { RpcFilesAuthorizer } from './rpc/records.client.js';
import { createStorage } from './storage/index.js';

const SERVICE = 'files';
const config = loadFilesConfig(process.env);
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
const storage = await createStorage(config);
await storage.init();
const nats = await connectNats({ url: config.NATS_URL, name: SERVICE, logger });
// Why: only event subjects; `rdm.files.>` would also capture the rdm.files.rpc.* requests.
await ensureStream(nats.jsm, { name: 'FILES', subjects: ['rdm.files.file.>'] });

const { app, health, service, gc } = createApp({
  config,
  logger,
  db,
  storage,
  authorizer: new RpcFilesAuthorizer(nats.nc, config.RPC_TIMEOUT_MS),
  nc: nats.nc,
});
const rpcs = serveFilesRpc(nats.nc, service, logger);
const relay = new OutboxRelay({ db, js: nats.js, logger });
const consumers = startFilesConsumers({ db, nats, service, logger });

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
    gc,
    ...consumers.map((c) => ({ name: c.name, start: () => undefined, stop: () => c.stop() })),
    { name: 'rpc', start: () => undefined, stop: async () => void (await Promise.all(rpcs.map((r) => r.stop()))) },
  ],
  closers: [() => nats.nc.drain(), () => db.destroy(), () => telemetry.shutdown()],
});
