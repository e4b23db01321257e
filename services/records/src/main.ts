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
import { configProperties, mailAddresses } from './config.js';
import { EmbargoLifter } from './domain/embargo.job.js';
import { filesCommittedWorker } from './events/files-committed.consumer.js';
import { mailerWorker } from './events/mailer.consumer.js';
import { statsWorkers } from './events/stats.consumer.js';
import { STATS_STREAM, StatsPublisher } from './stats/publisher.js';
import { startDevMailSink } from './mail/dev-sink.js';
import { smtpSender } from './mail/mailer.js';
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

// Usage events (views here, downloads from files): not outboxed, see stats/publisher.ts.
await ensureStream(jsm, STATS_STREAM);
const statsPublisher = new StatsPublisher(js);
const communities = new RpcCommunitiesClient(nc, config.RPC_TIMEOUT_MS, config.COMMUNITIES_ROLES_TTL_MS);
const { app, health, service, review, saga, index, stats } = createApp({
  statsPublisher,
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
// Mail: SMTP_URL, else the development sink (.eml files under MAIL_SINK_DIR). A second replica
// finds the port taken and sends to the first one's sink.
let smtpUrl = config.SMTP_URL;
if (!smtpUrl) {
  const dir = config.MAIL_SINK_DIR || fileURLToPath(new URL('../../../.data/mail', import.meta.url));
  const sink = await startDevMailSink(dir, config.MAIL_SINK_PORT).catch((e: Error) => {
    logger.warn({ err: e.message }, 'development mail sink not started (port in use?)');
    return undefined;
  });
  if (sink) logger.info({ dir, port: sink.port }, 'development mail sink: e-mails are written as .eml files');
  smtpUrl = `smtp://127.0.0.1:${config.MAIL_SINK_PORT}`;
}
const mailer = mailerWorker({ db, nats: { nc, js, jsm }, sender: smtpSender(smtpUrl), logger, baseUrl: config.PUBLIC_BASE_URL, ...mailAddresses(config) });
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
    new EmbargoLifter({ db, index, logger }).worker(config.EMBARGO_LIFT_INTERVAL_MS),
    mailer,
    ...statsWorkers({ db, nats: { nc, js, jsm }, stats, logger }),
    ...requestConsumerWorkers({ db, nats: { nc, js, jsm }, saga: saga!, review: review!, logger }),
  ],
  closers: [() => nc.drain(), () => db.destroy(), telemetry.shutdown],
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
