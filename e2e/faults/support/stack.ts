/**
 * A private stack for fault trials: its own PostgreSQL cluster (initdb into .data/faults-pg, port
 * `FAULTS_PG_PORT` 5959, through `scripts/infra/postgres.sh private-start`; the trials stop and
 * start it — the shared cluster on 5432 is never touched; `FAULTS_DATABASE_URL` runs on another
 * server instead, and then nothing restarts it) with its own database (`FAULTS_DATABASE_NAME`,
 * default rdm_faults, dropped and created fresh), its own nats-server (JetStream, store under .data/faults-nats, port
 * `FAULTS_NATS_PORT` 4228, monitoring `FAULTS_NATS_MONITOR_PORT` 8228) and every service plus the
 * gateway as real processes from scripts/up.ts on `FAULTS_PORT_BASE` (5940: gateway, +1…+8 users
 * vocabularies records files requests communities web webhooks), logs in .data/faults-logs/<svc>.log. Nothing
 * is shared with the e2e stack (5900, 4223), the benches or a dev stack (5000, 4222).
 *
 * Use it from `e2e/faults/*.test.ts` when a test must kill -9 a service, restart it, or stop and
 * restart NATS on the same store. `probeInfra()` says what is missing (PostgreSQL, nats-server,
 * free ports); the caller fails under CI and skips loudly elsewhere.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  GATEWAY,
  REPO_ROOT,
  SERVICES,
  type ServiceSpec,
  type Stack,
  isAlive,
  sleep,
  spawnService,
  startStack,
  terminate,
  waitHttpOk,
} from '../../../scripts/up.js';

const env = process.env;
/** True under CI: a missing piece of infrastructure fails instead of skipping. */
export const CI = !!env.CI && env.CI !== 'false' && env.CI !== '0';
const DATA = join(REPO_ROOT, '.data');
/** Where the services' logs go. */
export const LOG_DIR = join(DATA, 'faults-logs');
const PG_PORT = Number(env.FAULTS_PG_PORT ?? 5959);
const ADMIN_URL = env.FAULTS_DATABASE_URL ?? `postgres://rdm:rdm@127.0.0.1:${PG_PORT}/rdm`;
const DB_NAME = env.FAULTS_DATABASE_NAME ?? 'rdm_faults';
const PORT_BASE = Number(env.FAULTS_PORT_BASE ?? 5940);
const NATS_PORT = Number(env.FAULTS_NATS_PORT ?? 4228);
const NATS_MONITOR_PORT = Number(env.FAULTS_NATS_MONITOR_PORT ?? 8228);
const NATS_BINS = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

/** The `pg` client type (borrowed from the platform package: infrastructure, not service code). */
export interface PgPool {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  end(): Promise<void>;
}

function pgModule(): {
  Pool: new (o: object) => PgPool & { on(event: 'error', fn: (err: Error) => void): unknown };
  Client: new (o: object) => PgPool & { connect(): Promise<void> };
} {
  return createRequire(join(REPO_ROOT, 'services', '_platform', 'package.json'))('pg');
}

/** True when something accepts TCP on 127.0.0.1:`port`. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * The private PostgreSQL cluster of the trials (null with `FAULTS_DATABASE_URL`): started,
 * stopped (`fast`, or `immediate` = a crash) and started again on the same data directory.
 */
export class PrivatePostgres {
  readonly dir = join(DATA, 'faults-pg');
  readonly port = PG_PORT;
  private readonly script = join(REPO_ROOT, 'scripts', 'infra', 'postgres.sh');

  /** Start it (initdb the first time); resolves once it accepts connections. */
  async start(): Promise<void> {
    await promisify(execFile)('bash', [this.script, 'private-start', this.dir, String(this.port)], { timeout: 120_000 });
  }

  /** Stop it: `fast` (clients disconnected, clean shutdown) or `immediate` (a crash). */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await promisify(execFile)('bash', [this.script, 'private-stop', this.dir, mode], { timeout: 120_000 });
  }
}

/** The private cluster, unless the trials run on `FAULTS_DATABASE_URL`. */
export const privatePostgres = env.FAULTS_DATABASE_URL ? null : new PrivatePostgres();

/** What the trials need and is missing (empty = everything is there); starts the private cluster. */
export async function probeInfra(): Promise<string[]> {
  const missing: string[] = [];
  try {
    await privatePostgres?.start();
  } catch (err) {
    missing.push(
      `a private PostgreSQL cluster on ${PG_PORT} (${(err as Error).message.trim().split('\n').pop()}; \`make deps\` installs PostgreSQL)`,
    );
  }
  const client = new (pgModule().Client)({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    missing.push(`PostgreSQL at ${ADMIN_URL.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')} (${(err as Error).message})`);
  } finally {
    await client.end().catch(() => undefined);
  }
  if (!natsBin()) missing.push(`a nats-server binary (${NATS_BINS.join(', ')}; \`make deps\` installs it)`);
  const ports = [PORT_BASE, ...SERVICES.map((_, i) => PORT_BASE + 1 + i), NATS_PORT, NATS_MONITOR_PORT];
  const busy = (await Promise.all(ports.map(async (p) => ((await portOpen(p)) ? p : null)))).filter((p) => p !== null);
  if (busy.length) missing.push(`free ports (in use: ${busy.join(', ')}; another fault run? set FAULTS_PORT_BASE / FAULTS_NATS_PORT)`);
  if (privatePostgres && ports.includes(PG_PORT)) missing.push(`FAULTS_PG_PORT ${PG_PORT} outside the stack's ports (${ports.join(', ')})`);
  // Why last: whatever is missing, the trials will not run, and the cluster started above must not outlive them.
  if (missing.length > 0) await privatePostgres?.stop('fast').catch(() => undefined);
  return missing;
}

function natsBin(): string | undefined {
  return NATS_BINS.find((p) => existsSync(p));
}

/** The private nats-server: stop and start it again on the same store directory. */
export class PrivateNats {
  readonly url = `nats://127.0.0.1:${NATS_PORT}`;
  readonly store = join(DATA, 'faults-nats');
  private child: ChildProcess | null = null;

  /** Start it (a fresh store with `fresh`); resolves once JetStream answers /healthz. */
  async start(fresh = false): Promise<void> {
    if (fresh) rmSync(this.store, { recursive: true, force: true });
    const bin = natsBin();
    if (!bin) throw new Error('nats-server not found');
    const args = ['-a', '127.0.0.1', '-p', String(NATS_PORT), '-m', String(NATS_MONITOR_PORT), '-js', '-sd', this.store];
    const child = spawn(bin, args, { stdio: 'ignore', detached: true });
    this.child = child;
    await waitHttpOk(`http://127.0.0.1:${NATS_MONITOR_PORT}/healthz?js-enabled-only=true`, 20_000, () => child.exitCode === null);
  }

  /** Stop it with `signal` (SIGTERM: graceful; SIGKILL: kill -9) and wait until it is gone. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const pid = this.child?.pid;
    this.child = null;
    if (!pid) return;
    if (signal === 'SIGKILL') process.kill(pid, 'SIGKILL');
    await terminate(pid, 10_000);
  }

  /** Messages held by a stream (0 when the stream does not exist), from the monitoring endpoint. */
  async streamMessages(name: string): Promise<number> {
    const res = await fetch(`http://127.0.0.1:${NATS_MONITOR_PORT}/jsz?streams=true`, { signal: AbortSignal.timeout(5000) });
    const jsz = (await res.json()) as { account_details?: { stream_detail?: { name: string; state: { messages: number } }[] }[] };
    for (const acc of jsz.account_details ?? []) for (const s of acc.stream_detail ?? []) if (s.name === name) return s.state.messages;
    return 0;
  }
}

/** The running fault stack. */
export interface FaultStack {
  base: string;
  databaseUrl: string;
  nats: PrivateNats;
  /** The private PostgreSQL cluster (null when running on `FAULTS_DATABASE_URL`). */
  postgres: PrivatePostgres | null;
  /** Admin pool on the stack's database (every schema readable). */
  pg: PgPool;
  /** Current pid of a service. */
  pid(name: string): number | null;
  /** The `/readyz` URL of a service or the gateway. */
  readyUrl(name: string): string;
  /** kill -9 the service's process group and wait until it is gone. */
  kill9(name: string): Promise<void>;
  /** Start the service again (same command and environment) and wait for its /readyz. */
  restart(name: string): Promise<void>;
  /** Wait until every service and the gateway answer /readyz. */
  waitAllReady(timeoutMs?: number): Promise<void>;
  /** Stop everything started here. */
  stop(): Promise<void>;
}

async function freshDatabase(): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(DB_NAME)) throw new Error(`FAULTS_DATABASE_NAME '${DB_NAME}' must be a plain identifier`);
  const client = new (pgModule().Client)({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${DB_NAME}"`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const u = new URL(ADMIN_URL);
  u.pathname = `/${DB_NAME}`;
  return u.toString();
}

/** Start the private stack; `env` is added to every service's environment. */
export async function startFaultStack(extraEnv: Record<string, string>, say: (l: string) => void): Promise<FaultStack> {
  const ports: Record<string, number> = { [GATEWAY]: PORT_BASE };
  SERVICES.forEach((n, i) => {
    ports[n] = PORT_BASE + 1 + i;
  });
  const base = `http://127.0.0.1:${PORT_BASE}`;
  const databaseUrl = await freshDatabase();
  const nats = new PrivateNats();
  await nats.start(true);
  const filesDir = join(DATA, 'faults-files');
  rmSync(filesDir, { recursive: true, force: true });
  rmSync(LOG_DIR, { recursive: true, force: true });
  mkdirSync(LOG_DIR, { recursive: true });
  let stack: Stack;
  try {
    stack = await startStack({
      ports,
      env: {
        DATABASE_URL: databaseUrl,
        NATS_URL: nats.url,
        PUBLIC_BASE_URL: base,
        LOG_LEVEL: env.FAULTS_LOG_LEVEL ?? 'warn',
        RATE_LIMIT_ENABLED: 'false',
        FILES_STORAGE_PATH: filesDir,
        ...extraEnv,
      },
      restart: false,
      strict: true,
      logDir: LOG_DIR,
      readyTimeoutMs: 180_000,
      // The supervisor reports every kill as an unexpected exit; only our own lines go out.
      say: (l) => {
        if (!/exited \(SIGKILL\)/.test(l)) say(l);
      },
    });
  } catch (err) {
    await nats.stop();
    await privatePostgres?.stop('fast').catch(() => undefined);
    throw err;
  }
  const specs = new Map<string, ServiceSpec>(stack.specs.map((s) => [s.name, s]));
  const restarted = new Map<string, ChildProcess>();
  const pg = new (pgModule().Pool)({ connectionString: databaseUrl, max: 4 });
  // An idle client dropped by a PostgreSQL restart is expected here; the next query reconnects.
  pg.on('error', () => undefined);
  const pid = (name: string): number | null => {
    const c = restarted.get(name);
    if (c) return c.exitCode === null && c.pid ? c.pid : null;
    return stack.pids()[name] ?? null;
  };
  const self: FaultStack = {
    base,
    databaseUrl,
    nats,
    postgres: privatePostgres,
    pg,
    pid,
    readyUrl(name) {
      const spec = specs.get(name);
      if (!spec) throw new Error(`unknown service ${name}`);
      return spec.readyUrl;
    },
    async kill9(name) {
      const p = pid(name);
      if (!p) throw new Error(`${name} is not running`);
      try {
        process.kill(-p, 'SIGKILL');
      } catch {
        process.kill(p, 'SIGKILL');
      }
      while (isAlive(p)) await sleep(5);
    },
    async restart(name) {
      const spec = specs.get(name);
      if (!spec) throw new Error(`unknown service ${name}`);
      const child = spawnService(spec);
      restarted.set(name, child);
      await waitHttpOk(spec.readyUrl, 120_000, () => child.exitCode === null);
    },
    async waitAllReady(timeoutMs = 60_000) {
      await Promise.all([...specs.values()].map((s) => waitHttpOk(s.readyUrl, timeoutMs)));
    },
    async stop() {
      await pg.end().catch(() => undefined);
      await stack.stop().catch(() => undefined);
      await Promise.all([...restarted.values()].map((c) => (c.pid ? terminate(c.pid, 5000) : undefined)));
      await nats.stop();
      await privatePostgres?.stop('fast').catch(() => undefined);
    },
  };
  return self;
}
