/**
 * Entry point. `tsx src/main.ts` serves HTTP, the authorize-files RPC and the outbox relay;
 * `tsx src/main.ts migrate` migrates the schema and exits.
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
import { filesCommittedWorker } from './events/files-committed.consumer.js';
import { requestConsumerWorkers } from './events/requests-accepted.consumer.js';
import { RpcCommunitiesClient } from './rpc/communities.client.js';
import { RpcRequestsClient } from './rpc/requests.client.js';
import { serveAuthorizeFilesRpc } from './rpc/authorize-files.rpc.js';
import { RpcFilesClient } from './rpc/files.client.js';
import { RpcVocabulariesClient } from './rpc/vocabularies.client.js';

const SERVICE = 'records';
const config = loadConfig(configProperties, process.env);
const logger = createLogger(SERVICE, config.LOG_LEVEL);

if (process.argv[2] === 'migrate') {
  await ensureServiceSchema(config.DATABASE_URL, SERVICE);
  const db = createDb({ url: config.DATABASE_URL, service: SERVICE, pool: { max: 2 } });
  try {
    const ran = await migrate(db, { service: SERVICE, dir: fileURLToPath(new URL('./db/migrations', import.meta.url)) });
    logger.info({ ran }, 'migrations done');
  } finally {
    await db.destroy();
  }
  process.exit(0);
}

const telemetry = startTelemetry(SERVICE, config.OTEL_ENABLED);
const db = createDb({ url: config.DATABASE_URL, service: SERVICE, pool: { max: config.DATABASE_POOL_MAX } });
const { nc, js, jsm } = await connectNats({ url: config.NATS_URL, name: SERVICE, logger });
// Why: event subjects only; 'rdm.records.>' would also capture the rdm.records.rpc.* requests.
await ensureStream(jsm, { name: 'RECORDS', subjects: eventSubjects(SERVICE) });

const communities = new RpcCommunitiesClient(nc, config.RPC_TIMEOUT_MS, config.COMMUNITIES_ROLES_TTL_MS);
const { app, health, service, review, saga } = createApp({
  config,
  logger,
  db,
  nc,
  files: new RpcFilesClient(nc, config.FILES_RPC_TIMEOUT_MS),
  vocabularies: new RpcVocabulariesClient(nc, config.RPC_TIMEOUT_MS),
  requests: new RpcRequestsClient(nc, config.REQUESTS_RPC_TIMEOUT_MS, config.REQUESTS_ACTION_TIMEOUT_MS),
  communities,
});
// Why: the consumers need the REQUESTS stream; whoever starts first creates it, with exactly the
// requests service's subjects (services/requests/src/events/streams.ts) so neither rewrites it.
await ensureStream(jsm, { name: 'REQUESTS', subjects: ['rdm.requests.request.>'] });
let stopMemberWatch: (() => Promise<void>) | undefined;
const memberWatch = {
  name: 'communities-member-watch',
  start() {
    stopMemberWatch = communities.watchMemberships(logger);
  },
  async stop() {
    await stopMemberWatch?.();
  },
};
const relay = new OutboxRelay({ db, js, logger });
let rpc: ReturnType<typeof serveAuthorizeFilesRpc> | undefined;
const rpcWorker = {
  name: 'authorize-files-rpc',
  start() {
    rpc = serveAuthorizeFilesRpc(nc, service, logger);
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
  workers: [
    relay,
    rpcWorker,
    memberWatch,
    filesCommittedWorker({ db, nats: { nc, js, jsm }, service, logger }),
    ...requestConsumerWorkers({ db, nats: { nc, js, jsm }, saga: saga!, review: review!, logger }),
  ],
  closers: [() => nc.drain(), () => db.destroy(), telemetry.shutdown],
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
