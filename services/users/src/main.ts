/**
 * Entry point of the users service. `tsx src/main.ts` serves HTTP + RPC and relays the outbox;
 * `tsx src/main.ts migrate` creates the schema, migrates and exits.
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
import { migrateUsersOnce } from './db/migrate.js';
import { USERS_STREAM, USERS_STREAM_SUBJECTS } from './events/streams.js';
import { TokensService } from './domain/tokens.service.js';
import { UsersService } from './domain/users.service.js';
import { serveUsersRpc } from './rpc/users.rpc.js';

const config = loadConfig(configProperties, process.env);
const logger = createLogger('users', config.LOG_LEVEL);

if (process.argv[2] === 'migrate') {
  const ran = await migrateUsersOnce(config.DATABASE_URL);
  logger.info({ ran }, 'users migrated');
  process.exit(0);
}

const telemetry = startTelemetry('users', config.OTEL_ENABLED);
const db = createDb({ url: config.DATABASE_URL, service: 'users', pool: { max: config.DATABASE_POOL_MAX } });
const { nc, js, jsm } = await connectNats({ url: config.NATS_URL, name: 'users', logger, waitOnFirstConnect: true });
await ensureStream(jsm, { name: USERS_STREAM, subjects: USERS_STREAM_SUBJECTS });

const users = new UsersService(db);
const tokens = new TokensService(db, { lastUsedIntervalS: config.TOKEN_LAST_USED_INTERVAL_S, logger });
const { app, health } = createApp({ config, logger, db, nc, users });
const relay = new OutboxRelay({ db, js, logger });
const rpcServers: { stop(): Promise<void> }[] = [];
const rpcWorker: Worker = {
  name: 'users-rpc',
  start: () => {
    rpcServers.push(...serveUsersRpc(nc, { users, tokens, logger }));
  },
  stop: async () => {
    await Promise.all(rpcServers.map((s) => s.stop()));
  },
};

await runService({
  name: 'users',
  app,
  health,
  logger,
  host: config.HOST,
  port: config.PORT,
  workers: [relay, rpcWorker],
  closers: [() => nc.drain(), () => db.destroy(), telemetry.shutdown],
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
