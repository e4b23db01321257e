/**
 * Entry point of the requests service. `tsx src/main.ts` serves HTTP + RPC, relays the outbox,
 * consumes effect events and runs the expiry job; `tsx src/main.ts migrate` creates the schema,
 * migrates and exits.
 */
import {
  connectNats,
  createDb,
  createLogger,
  ensureStream,
  loadConfig,
  OutboxRelay,
  runService,
  startTelemetry,
  type Worker,
} from '@rdm/platform';
import { createApp } from './app.js';
import { configProperties } from './config.js';
import { migrateRequestsOnce } from './db/migrate.js';
import { ExpiryJob } from './domain/expiry.js';
import { startEffectConsumers } from './events/consumers.js';
import { REQUESTS_STREAM, REQUESTS_STREAM_SUBJECTS } from './events/streams.js';
import { NatsCommunitiesClient } from './rpc/communities.client.js';
import { serveRequestsRpc } from './rpc/requests.rpc.js';

const SERVICE = 'requests';
const config = loadConfig(configProperties, process.env);
const logger = createLogger(SERVICE, config.LOG_LEVEL);

if (process.argv[2] === 'migrate') {
  const ran = await migrateRequestsOnce(config.DATABASE_URL);
  logger.info({ ran }, 'requests migrated');
  process.exit(0);
}

const telemetry = startTelemetry(SERVICE, config.OTEL_ENABLED);
const db = createDb({ url: config.DATABASE_URL, service: SERVICE, pool: { max: config.DATABASE_POOL_MAX } });
const nats = await connectNats({ url: config.NATS_URL, name: SERVICE, logger, waitOnFirstConnect: true });
await ensureStream(nats.jsm, { name: REQUESTS_STREAM, subjects: REQUESTS_STREAM_SUBJECTS });

const communities = new NatsCommunitiesClient(nats.nc, {
  ttlMs: config.COMMUNITIES_CACHE_TTL_MS,
  timeoutMs: config.RPC_TIMEOUT_MS,
  logger,
});
await communities.start();
const { app, health, requests, actions, comments, waiter } = createApp({ config, logger, db, communities, nc: nats.nc });
await waiter.start();

const relay = new OutboxRelay({ db, js: nats.js, logger });
const expiry = new ExpiryJob({ actions, intervalMs: config.REQUESTS_EXPIRY_INTERVAL_MS, logger });
let rpcs: { stop(): Promise<void> }[] = [];
const rpcWorker: Worker = {
  name: 'requests-rpc',
  start: () => {
    rpcs = serveRequestsRpc(nats.nc, { requests, actions, comments, logger });
  },
  stop: async () => {
    await Promise.all(rpcs.map((r) => r.stop()));
  },
};
const consumers = startEffectConsumers({ db, nats, logger });

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
    rpcWorker,
    expiry,
    ...consumers.map((c) => ({ name: c.name, start: () => undefined, stop: () => c.stop() })),
    { name: 'effect-waiter', start: () => undefined, stop: () => waiter.stop() },
  ],
  closers: [() => communities.stop(), () => nats.nc.drain(), () => db.destroy(), () => telemetry.shutdown()],
});
