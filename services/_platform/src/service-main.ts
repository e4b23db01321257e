/**
 * `serviceMain(description)`: the whole entry point of a service from one declarative
 * description, so every `main.ts` is a few lines.
 *
 * It loads the configuration once, makes the logger (a serving start then warns about unknown
 * settings in the environment, unknown-settings.ts), and then either runs a command
 * (`tsx src/main.ts migrate` — schema + role, forward-only migrations, the service's
 * `afterMigrate` such as fixture loading — or one of the service's own `commands`) and exits, or
 * serves: telemetry, the database pool, NATS (waiting for the server at start), the service's
 * JetStream stream (its event subjects only, never its RPC subjects), the outbox relay, then the
 * service's own `start()` (app, RPC servers, consumers, workers), and `runService` (readiness only
 * once workers started and RPC subscriptions reached NATS; graceful drain on SIGTERM in order:
 * HTTP, workers, consumers, RPC, then the service's closers, NATS, the pool, telemetry).
 *
 * When not to use: the gateway (no database, no stream) keeps its own short main.
 */
import { fileURLToPath } from 'node:url';
import type Koa from 'koa';
import { createDb, ensureServiceSchema, type Knex, migrate } from './db.js';
import { SERVICE_REGISTRY, STREAMS, type StreamName } from '@rdm/contracts';
import { eventSubjects } from './events.js';
import type { Health } from './health.js';
import { type HttpBoundsKey, httpServerBounds } from './http-bounds.js';
import { createLogger, type Logger } from './logger.js';
import { connectNats, type NatsHandle } from './nats.js';
import { ensureStream, OutboxRelay } from './outbox.js';
import { setSearchStatementTimeout } from './search/pg-read.js';
import { runService, type Worker } from './service.js';
import { startTelemetry } from './telemetry.js';
import { reportUnknownSettings } from './unknown-settings.js';

/** The configuration keys serviceMain reads (every service's config has them). */
export interface ServiceMainConfig {
  LOG_LEVEL: string;
  HOST: string;
  PORT: number;
  DATABASE_URL: string;
  DATABASE_POOL_MAX: number;
  NATS_URL: string;
  OTEL_ENABLED: boolean;
  SHUTDOWN_TIMEOUT_MS: number;
  SHUTDOWN_DRAIN_DELAY_MS: number;
  /** Search statements' timeout (search/pg-read.ts); absent: its default. */
  SEARCH_STATEMENT_TIMEOUT_MS?: number;
}

/** The HTTP server bounds keys (http-bounds.ts); absent ones take their defaults. */
type HttpBoundsConfig = Partial<Record<HttpBoundsKey, number>>;

/** Something with a `stop()` (RPC servers, consumers). */
export interface Stoppable {
  stop(): Promise<unknown> | unknown;
}

/** What a service's `start()` hands back. */
export interface StartedService {
  app: Koa<any>;
  health: Health;
  /** RPC servers (stopped on shutdown). */
  rpc?: Stoppable[];
  /** Durable consumers (stopped on shutdown). */
  consumers?: (Stoppable & { name: string })[];
  /** More background workers (jobs, listeners), started after listen. */
  workers?: Worker[];
  /** Closed before NATS and the pool (caches, storage clients). */
  closers?: (() => Promise<unknown> | unknown)[];
  /** More things readiness waits for. */
  ready?: Promise<unknown>[];
}

/** What `start()` and commands receive. */
export interface ServiceContext<C> {
  config: C;
  logger: Logger;
  db: Knex;
  nats: NatsHandle;
}

/** One service, declared. */
export interface ServiceDescription<C extends ServiceMainConfig> {
  /** Service name: schema, role, stream owner, logger name. */
  name: string;
  /** Load and validate the configuration (called once). */
  loadConfig(): C;
  /** URL of the migrations folder (`new URL('./db/migrations', import.meta.url)`). */
  migrations: URL;
  /** Run after the migrations of `migrate` (fixtures…), with a small pool. */
  afterMigrate?(db: Knex, config: C, logger: Logger): Promise<void>;
  /** JetStream stream: name and subjects (default: the service's stream of proto/services.json, `STREAMS`). */
  stream?: { name: string; subjects?: readonly string[] } | false;
  /** Extra commands (`tsx src/main.ts <command>`), run with a pool and NATS, then exit. */
  commands?: Record<string, (ctx: ServiceContext<C>) => Promise<void>>;
  /** Build the app and everything that runs beside it. */
  start(ctx: ServiceContext<C>): Promise<StartedService> | StartedService;
}

const stopAll = (name: string, items: Stoppable[]): Worker => ({
  name,
  start: () => undefined,
  stop: async () => void (await Promise.all(items.map((i) => i.stop()))),
});

/** The stream of `service` in proto/services.json with its subjects; undefined when it has none. */
export function registryStream(service: string): { name: string; subjects: readonly string[] } | undefined {
  const name = SERVICE_REGISTRY.find((s) => s.name === service)?.stream;
  return name ? STREAMS[name as StreamName] : undefined;
}

/** Migrate the service's schema (creating schema and role first), then `afterMigrate`. */
export async function migrateService<C extends ServiceMainConfig>(
  desc: ServiceDescription<C>,
  config: C,
  logger: Logger,
): Promise<string[]> {
  await ensureServiceSchema(config.DATABASE_URL, desc.name);
  const db = createDb({ url: config.DATABASE_URL, service: desc.name, pool: { max: 2 } });
  try {
    const ran = await migrate(db, { service: desc.name, dir: fileURLToPath(desc.migrations) });
    logger.info({ ran }, 'migrations done');
    await desc.afterMigrate?.(db, config, logger);
    return ran;
  } finally {
    await db.destroy();
  }
}

/** Run the service described (or its command from `process.argv[2]`). */
export async function serviceMain<C extends ServiceMainConfig>(desc: ServiceDescription<C>): Promise<void> {
  const config = desc.loadConfig();
  const logger = createLogger(desc.name, config.LOG_LEVEL);
  if (config.SEARCH_STATEMENT_TIMEOUT_MS !== undefined) setSearchStatementTimeout(config.SEARCH_STATEMENT_TIMEOUT_MS);
  const command = process.argv[2];
  // Why only when serving: `make up` runs `migrate` first, and one report per start is enough.
  if (!command || command === 'serve') reportUnknownSettings(desc.name, process.env, logger);
  if (command === 'migrate') {
    await migrateService(desc, config, logger);
    process.exit(0);
  }
  const telemetry = startTelemetry(desc.name, config.OTEL_ENABLED);
  const db = createDb({ url: config.DATABASE_URL, service: desc.name, pool: { max: config.DATABASE_POOL_MAX } });
  const nats = await connectNats({ url: config.NATS_URL, name: desc.name, logger, waitOnFirstConnect: true });
  if (desc.stream !== false) {
    const stream = desc.stream ?? registryStream(desc.name);
    // Why event subjects only: `rdm.<svc>.>` would also capture the service's RPC requests.
    if (stream) await ensureStream(nats.jsm, { name: stream.name, subjects: stream.subjects ?? eventSubjects(desc.name) });
  }
  const ctx: ServiceContext<C> = { config, logger, db, nats };
  if (command && command !== 'serve') {
    const run = desc.commands?.[command];
    if (!run) {
      logger.error({ command, known: ['migrate', 'serve', ...Object.keys(desc.commands ?? {})] }, 'unknown command');
      process.exit(2);
    }
    try {
      await run(ctx);
    } finally {
      await nats.nc.drain().catch(() => undefined);
      await db.destroy();
    }
    process.exit(0);
  }
  const s = await desc.start(ctx);
  const relay = new OutboxRelay({ db, js: nats.js, logger });
  await runService({
    name: desc.name,
    app: s.app,
    health: s.health,
    logger,
    host: config.HOST,
    port: config.PORT,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    drainDelayMs: config.SHUTDOWN_DRAIN_DELAY_MS,
    bounds: httpServerBounds(config as HttpBoundsConfig),
    ready: s.ready,
    workers: [relay, ...(s.workers ?? []), stopAll('consumers', s.consumers ?? []), stopAll('rpc', s.rpc ?? [])],
    closers: [...(s.closers ?? []), () => nats.nc.drain(), () => db.destroy(), () => telemetry.shutdown()],
  });
}
