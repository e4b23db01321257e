/**
 * Entry point. `tsx src/main.ts` serves HTTP and the resolve RPC; `tsx src/main.ts migrate`
 * migrates the schema, loads the vocabulary fixtures (idempotently) and exits.
 */
import { fileURLToPath } from 'node:url';
import {
  connectNats,
  createDb,
  createLogger,
  ensureServiceSchema,
  ensureStream,
  eventSubjects,
  loadConfig,
  migrate,
  OutboxRelay,
  runService,
  startTelemetry,
} from '@rdm/platform';
import { createApp } from './app.js';
import { configProperties } from './config.js';
import { readFixtures } from './domain/fixtures.js';
import { loadVocabularies } from './domain/loader.service.js';
import { reloadListener } from './events/reload-listener.js';
import { serveResolveRpc } from './rpc/resolve.rpc.js';

const SERVICE = 'vocabularies';
const config = loadConfig(configProperties, process.env);
const logger = createLogger(SERVICE, config.LOG_LEVEL);

if (process.argv[2] === 'migrate') {
  await ensureServiceSchema(config.DATABASE_URL, SERVICE);
  const db = createDb({ url: config.DATABASE_URL, service: SERVICE, pool: { max: 2 } });
  try {
    const ran = await migrate(db, { service: SERVICE, dir: fileURLToPath(new URL('./db/migrations', import.meta.url)) });
    logger.info({ ran }, 'migrations done');
    if (config.LOAD_FIXTURES) {
      const { vocabularies, problems } = readFixtures();
      for (const p of problems) logger.warn(p, 'fixture row skipped');
      const results = await loadVocabularies(db, vocabularies);
      for (const r of results) logger.info(r, 'vocabulary loaded');
    }
  } finally {
    await db.destroy();
  }
  process.exit(0);
}

const telemetry = startTelemetry(SERVICE, config.OTEL_ENABLED);
const db = createDb({ url: config.DATABASE_URL, service: SERVICE, pool: { max: config.DATABASE_POOL_MAX } });
const { nc, js, jsm } = await connectNats({ url: config.NATS_URL, name: SERVICE, logger });
await ensureStream(jsm, { name: 'VOCABULARIES', subjects: eventSubjects(SERVICE) });
const { app, health, service } = createApp({ config, logger, db, nc });
const relay = new OutboxRelay({ db, js, logger });
const listener = reloadListener(nc, () => service.invalidate(), logger);
let rpc: ReturnType<typeof serveResolveRpc> | undefined;
const rpcWorker = {
  name: 'resolve-rpc',
  start() {
    rpc = serveResolveRpc(nc, service, logger);
  },
  async stop() {
    await rpc?.stop();
  },
};
await runService({
  name: SERVICE,
  app,
  health,
  logger,
  host: config.HOST,
  port: config.PORT,
  workers: [relay, listener, rpcWorker],
  closers: [() => nc.drain(), () => db.destroy(), telemetry.shutdown],
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
