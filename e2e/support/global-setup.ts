/**
 * vitest globalSetup of the `e2e` project: gives every spec a ready gateway URL
 * (`inject('baseUrl')`, also `process.env.E2E_BASE_URL`).
 *
 * - `E2E_BASE_URL` set: that stack is used as is (its /readyz must answer 200); nothing is started
 *   and services cannot be stopped from tests (`canControlServices()` is false).
 * - Otherwise the whole stack is started here, isolated from a dev stack on the same machine:
 *   - PostgreSQL: `E2E_DATABASE_URL` (default postgres://rdm:rdm@127.0.0.1:5432/rdm, the server
 *     of scripts/infra/postgres.sh); database `E2E_DATABASE_NAME` (rdm_e2e) is dropped and
 *     created fresh on every run.
 *   - NATS: `E2E_NATS_URL` when set; else a private nats-server (JetStream, fresh store under
 *     .data/e2e-nats) on `E2E_NATS_PORT` (4223), because the platform has no stream/subject
 *     prefix and a shared server would mix RPCs, streams and durable consumers with the dev
 *     stack; else the shared nats://127.0.0.1:4222.
 *   - Unreachable infrastructure: testcontainers (postgres:15, nats:2.10 -js); when that fails too
 *     the run fails with a message saying how to start the infrastructure (under CI as well: a
 *     missing service never skips).
 *   - Services on `E2E_PORT_BASE` (5900) = gateway, +1…+8 = users vocabularies records files
 *     requests communities web webhooks; migrations first; output in .data/e2e-logs/<svc>.log
 *     (`E2E_STACK_LOGS=inherit` prints it instead); no automatic restarts.
 *   - The files service stores blobs under .data/e2e-files (emptied per run; `E2E_FILES_STORAGE_PATH`).
 *   - The default bucket quota is 32 MiB (`FILES_MAX_RECORD_BYTES`; `E2E_FILES_MAX_RECORD_BYTES`), so that a spec can pass it.
 *   - Records' development mail sink listens on `E2E_PORT_BASE` + 10 and writes .eml files to
 *     .data/e2e-mail (emptied per run; specs read `E2E_MAIL_SINK_DIR`).
 *   - pids and start commands go to .data/e2e-stack.json for e2e/support/stack.ts.
 *   - Rate limits of the gateway are raised to 100000 per day (`E2E_RATE_LIMIT_ANONYMOUS`,
 *     `E2E_RATE_LIMIT_AUTHENTICATED`, `E2E_RATE_LIMIT_WINDOW_SECONDS` override them): all e2e
 *     traffic comes from 127.0.0.1, so the production defaults (500/1000 per minute) would make
 *     later specs fail with 429. A spec that needs a low limit tests it elsewhere (the gateway's
 *     integration tests) or starts its own gateway. Records' abuse-report limit likewise
 *     (`E2E_ABUSE_REPORTS_PER_WINDOW`, default 100000).
 *   - Concurrent runs are serialized by a lock file (.data/e2e.lock, see lock.ts) taken before
 *     anything under .data is touched: a second run waits up to `E2E_LOCK_WAIT_MINUTES` (15) for
 *     the first to finish, then fails naming the holder. (Not taken with E2E_BASE_URL: such a
 *     run starts nothing and writes nothing under .data.)
 * Teardown stops every child (by the pids in that file), the private NATS and any container,
 * then releases the lock.
 */
import { randomBytes } from 'node:crypto';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { join } from 'node:path';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { GATEWAY, REPO_ROOT, SERVICES, type Stack, isAlive, startStack, terminate, waitHttpOk } from '../../scripts/up.js';
import { type ContainerStack, portOpen, startContainerStack } from './containers.js';
import { acquireE2eLock, cmdlineOf } from './lock.js';
import { STACK_STATE_FILE, type StackState, childEnv, readStackState, writeStackState } from './stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Gateway URL, e.g. http://127.0.0.1:5900 (no trailing slash). */
    baseUrl: string;
  }
}

const DATA_DIR = join(REPO_ROOT, '.data');
const LOG_DIR = join(DATA_DIR, 'e2e-logs');
const DEFAULT_PG = 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

type Container = { stop(): Promise<unknown> };
type PgClient = { connect(): Promise<void>; query(sql: string): Promise<unknown>; end(): Promise<void> };

const say = (line: string): void => {
  process.stderr.write(`[e2e setup] ${line}\n`);
};

/** vitest globalSetup entry point; returns the teardown. */
/**
 * Webhooks settings of both runtimes: specs receive deliveries over plain http on a receiver of
 * their own (the SSRF guard refuses loopback and private ranges unless allowed; the containers
 * runtime adds the run network's gateway); short retries and timeouts keep specs quick; a key of
 * the run's own (the development default is refused with NODE_ENV=production, as in the images).
 */
function webhooksEnv(): Record<string, string> {
  return {
    WEBHOOKS_ALLOW_HTTP: 'true',
    WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOKS_BACKOFF_BASE_MS: '200',
    WEBHOOKS_TIMEOUT_MS: '2000',
    WEBHOOKS_SECRET_KEY: process.env.WEBHOOKS_SECRET_KEY ?? randomBytes(32).toString('base64url'),
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.E2E_BASE_URL?.replace(/\/+$/, '');
  if (external) {
    await waitHttpOk(`${external}/readyz`, 60_000).catch((err: Error) => {
      throw new Error(`E2E_BASE_URL=${external} is not ready: ${err.message}`);
    });
    project.provide('baseUrl', external);
    return async () => {};
  }

  // First of all: nothing under .data may be touched while another run owns it.
  const lock = await acquireE2eLock({ say, blockedBy: unlockedOwner });
  const runtime = process.env.E2E_RUNTIME ?? 'processes';
  if (runtime === 'containers') return setupContainers(project, lock);
  if (runtime !== 'processes') {
    lock.release();
    throw new Error(`E2E_RUNTIME=${runtime}: expected containers or processes`);
  }
  const containers: Container[] = [];
  let natsChild: ChildProcess | null = null;
  let stack: Stack | null = null;
  const teardown = async (): Promise<void> => {
    try {
      if (stack) await stack.stop(); // first: marks the stop as expected, gateway before services
      await stopRecordedServices(); // then whatever a test (re)started
      if (natsChild?.pid) await terminate(natsChild.pid, 5000);
      await Promise.all(containers.map((c) => c.stop().catch(() => undefined)));
      rmSync(STACK_STATE_FILE, { force: true });
    } finally {
      lock.release();
    }
  };

  try {
    await cleanStaleStack();
    const adminUrl = await resolvePostgres(containers);
    const nats = await resolveNats(containers);
    natsChild = nats.child;
    const databaseUrl = await freshDatabase(adminUrl, process.env.E2E_DATABASE_NAME ?? 'rdm_e2e');

    const portBase = Number(process.env.E2E_PORT_BASE ?? 5900);
    const ports: Record<string, number> = { [GATEWAY]: portBase };
    SERVICES.forEach((name, i) => {
      ports[name] = portBase + 1 + i;
    });
    const busy = (await Promise.all(Object.entries(ports).map(async ([n, p]) => ((await portOpen(p)) ? `${n}:${p}` : null)))).filter(
      Boolean,
    );
    if (busy.length) throw new Error(`e2e ports already in use (${busy.join(', ')}); set E2E_PORT_BASE to another range`);

    const baseUrl = `http://127.0.0.1:${portBase}`;
    // The files service's local storage defaults to .data/files, shared with a dev stack.
    const filesDir = join(DATA_DIR, 'e2e-files');
    rmSync(filesDir, { recursive: true, force: true });
    // Records' development mail sink (no SMTP_URL here): its own port and folder, so a dev stack's
    // sink on 2525 never receives this run's mail. Specs read E2E_MAIL_SINK_DIR.
    const mailDir = join(DATA_DIR, 'e2e-mail');
    rmSync(mailDir, { recursive: true, force: true });
    const mailPort = portBase + 10;
    if (await portOpen(mailPort)) throw new Error(`e2e mail sink port ${mailPort} already in use; set E2E_PORT_BASE to another range`);
    process.env.E2E_MAIL_SINK_DIR = mailDir;
    const inherit = process.env.E2E_STACK_LOGS === 'inherit';
    if (!inherit) {
      rmSync(LOG_DIR, { recursive: true, force: true });
      mkdirSync(LOG_DIR, { recursive: true });
    }
    say(
      `starting the stack on ${baseUrl} (db ${redact(databaseUrl)}, nats ${nats.url}, search ${process.env.SEARCH_ENGINE ?? 'postgres'}${inherit ? '' : `, logs ${LOG_DIR}`})`,
    );
    const started = Date.now();
    stack = await startStack({
      ports,
      baseEnv: childEnv(),
      env: {
        DATABASE_URL: databaseUrl,
        NATS_URL: nats.url,
        PUBLIC_BASE_URL: baseUrl,
        // A random secret per run: production builds refuse the public development default.
        IDENTITY_SECRET: process.env.IDENTITY_SECRET ?? randomBytes(32).toString('base64url'),
        LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'info',
        FILES_STORAGE_PATH: process.env.E2E_FILES_STORAGE_PATH ?? filesDir,
        // The default bucket quota: small enough for requests/quota-increase.test.ts to pass it (32 MiB).
        FILES_MAX_RECORD_BYTES: process.env.E2E_FILES_MAX_RECORD_BYTES ?? String(32 * 1024 * 1024),
        MAIL_SINK_DIR: mailDir,
        MAIL_SINK_PORT: String(mailPort),
        // Gateway (services/gateway/src/config.ts): every spec's traffic comes from 127.0.0.1.
        RATE_LIMIT_ANONYMOUS: process.env.E2E_RATE_LIMIT_ANONYMOUS ?? '100000',
        RATE_LIMIT_AUTHENTICATED: process.env.E2E_RATE_LIMIT_AUTHENTICATED ?? '100000',
        // Why a day: 100000 per minute refills one request every 0.6 ms, so X-RateLimit-Remaining
        // would not go down by exactly one between two requests (and sub-millisecond intervals
        // lose precision against epoch-millisecond clocks); per day it is one every 864 ms.
        RATE_LIMIT_WINDOW_SECONDS: process.env.E2E_RATE_LIMIT_WINDOW_SECONDS ?? '86400',
        // Records' per-address abuse-report limit (5 per 10 min): the authz matrix and the fuzzer
        // report abuse from 127.0.0.1 too; its 429 is tested in records' integration tests.
        ABUSE_REPORTS_PER_WINDOW: process.env.E2E_ABUSE_REPORTS_PER_WINDOW ?? '100000',
        ...webhooksEnv(),
        // SEARCH_ENGINE=opensearch|elasticsearch (the e2e-opensearch phase of `make test`): indices
        // of their own, so runs never read each other's documents.
        ...(process.env.SEARCH_ENGINE && process.env.SEARCH_ENGINE !== 'postgres'
          ? { SEARCH_INDEX_PREFIX: process.env.SEARCH_INDEX_PREFIX ?? `e2e${Date.now().toString(36)}-` }
          : {}),
      },
      restart: false,
      strict: true,
      logDir: inherit ? undefined : LOG_DIR,
      readyTimeoutMs: Number(process.env.E2E_READY_TIMEOUT_MS ?? 120_000),
      say: (l) => say(l),
    }).catch((err: Error) => {
      throw new Error(`${err.message}${inherit ? '' : logTails()}`);
    });
    if (!stack.baseUrl) {
      throw new Error('services/gateway/src/main.ts does not exist: e2e needs the gateway');
    }
    const pids = stack.pids();
    const state: StackState = {
      version: 1,
      owner: process.pid,
      baseUrl,
      databaseUrl,
      natsUrl: nats.url,
      natsPid: natsChild?.pid ?? null,
      services: Object.fromEntries(stack.specs.map((spec) => [spec.name, { spec, pid: pids[spec.name] ?? null }])),
    };
    writeStackState(state);
    say(
      `stack ready: ${baseUrl} in ${((Date.now() - started) / 1000).toFixed(1)} s${stack.skipped.length ? ` (not built yet: ${stack.skipped.join(', ')})` : ''}`,
    );
    process.env.E2E_BASE_URL = baseUrl;
    project.provide('baseUrl', baseUrl);
    return teardown;
  } catch (err) {
    await teardown();
    throw err;
  }
}

/**
 * E2E_RUNTIME=containers: the whole stack from the images built here, through testcontainers
 * (e2e/support/containers.ts); the state file records container ids so that stack.ts can stop and
 * start a service (`docker stop` / `docker start`).
 */
async function setupContainers(project: TestProject, lock: { release(): void }): Promise<() => Promise<void>> {
  let stack: ContainerStack | null = null;
  const teardown = async (): Promise<void> => {
    try {
      if (stack) {
        const t0 = Date.now();
        await stack.stop();
        say(`containers of run ${stack.runId} removed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
      rmSync(STACK_STATE_FILE, { force: true });
    } finally {
      lock.release();
    }
  };
  try {
    if (!process.env.DOCKER_HOST) {
      // The engine scripts/infra/docker.sh starts (make docker-up), or a system one.
      process.env.DOCKER_HOST = execFileSync('bash', [join(REPO_ROOT, 'scripts', 'infra', 'docker.sh'), 'host'], {
        encoding: 'utf8',
      }).trim();
    }
    // docker-proxy binds 127.0.0.1 only; testcontainers' "localhost" could resolve to ::1.
    process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
    const portBase = Number(process.env.E2E_PORT_BASE ?? 5900);
    const mailDir = join(DATA_DIR, 'e2e-mail');
    rmSync(mailDir, { recursive: true, force: true });
    const filesDir = join(DATA_DIR, 'e2e-files');
    rmSync(filesDir, { recursive: true, force: true });
    rmSync(LOG_DIR, { recursive: true, force: true });
    mkdirSync(LOG_DIR, { recursive: true });
    process.env.E2E_MAIL_SINK_DIR = mailDir;
    const engine = process.env.SEARCH_ENGINE ?? 'postgres';
    say(
      `starting the stack in containers (engine ${process.env.DOCKER_HOST}, gateway 127.0.0.1:${portBase}, search ${engine}, logs ${LOG_DIR})`,
    );
    const started = Date.now();
    stack = await startContainerStack({
      portBase,
      databaseName: process.env.E2E_DATABASE_NAME ?? 'rdm_e2e',
      searchEngine: engine,
      mailDir,
      dataDir: filesDir,
      filesStorage: process.env.E2E_FILES_STORAGE === 's3' ? 's3' : 'local',
      logDir: LOG_DIR,
      say,
      readyTimeoutMs: Number(process.env.E2E_READY_TIMEOUT_MS ?? 120_000),
      env: {
        IDENTITY_SECRET: process.env.IDENTITY_SECRET ?? randomBytes(32).toString('base64url'),
        LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'info',
        RATE_LIMIT_ANONYMOUS: process.env.E2E_RATE_LIMIT_ANONYMOUS ?? '100000',
        RATE_LIMIT_AUTHENTICATED: process.env.E2E_RATE_LIMIT_AUTHENTICATED ?? '100000',
        RATE_LIMIT_WINDOW_SECONDS: process.env.E2E_RATE_LIMIT_WINDOW_SECONDS ?? '86400',
        ABUSE_REPORTS_PER_WINDOW: process.env.E2E_ABUSE_REPORTS_PER_WINDOW ?? '100000',
        ...webhooksEnv(),
        FILES_MAX_RECORD_BYTES: process.env.E2E_FILES_MAX_RECORD_BYTES ?? String(32 * 1024 * 1024),
        ...(engine !== 'postgres' ? { SEARCH_INDEX_PREFIX: process.env.SEARCH_INDEX_PREFIX ?? `e2e${Date.now().toString(36)}-` } : {}),
      },
    });
    const state: StackState = {
      version: 1,
      owner: process.pid,
      runtime: 'containers',
      baseUrl: stack.baseUrl,
      databaseUrl: stack.databaseUrl,
      natsUrl: stack.natsUrl,
      natsPid: null,
      services: stack.services,
    };
    writeStackState(state);
    say(`stack ready in containers: ${stack.baseUrl} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    process.env.E2E_BASE_URL = stack.baseUrl;
    // Specs that watch the database (query-limits: pg_stat_activity) reach the container's
    // PostgreSQL through its mapped port, not the machine's server.
    process.env.E2E_DATABASE_URL = stack.databaseUrl;
    // Servers of the specs that services call (webhook receivers) listen where containers reach them.
    process.env.E2E_RECEIVER_HOST = stack.hostAddress;
    project.provide('baseUrl', stack.baseUrl);
    return teardown;
  } catch (err) {
    await teardown();
    throw err;
  }
}

/** Stop services whose pids are in the state file (a test may have restarted some). */
async function stopRecordedServices(): Promise<void> {
  let state: StackState;
  try {
    state = readStackState();
  } catch {
    return;
  }
  const order = Object.keys(state.services).sort((a, b) => (a === GATEWAY ? -1 : b === GATEWAY ? 1 : 0));
  await Promise.all(order.map((n) => (state.services[n]?.pid ? terminate(state.services[n].pid as number) : undefined)));
}

/**
 * A live e2e run that owns the state file without holding the lock (started before the lock
 * existed): what to wait for, or null.
 */
function unlockedOwner(): string | null {
  if (!existsSync(STACK_STATE_FILE)) return null;
  try {
    const { owner } = readStackState();
    if (owner !== process.pid && isAlive(owner) && cmdlineOf(owner).includes('vitest')) {
      return `an e2e run (vitest pid ${owner}) that owns ${STACK_STATE_FILE}`;
    }
  } catch {
    /* unreadable: cleanStaleStack removes it */
  }
  return null;
}

/** A previous run that died without teardown leaves children behind; stop them (never a live run's). */
async function cleanStaleStack(): Promise<void> {
  if (!existsSync(STACK_STATE_FILE)) return;
  let state: StackState;
  try {
    state = readStackState();
  } catch {
    rmSync(STACK_STATE_FILE, { force: true });
    return;
  }
  if (state.owner !== process.pid && isAlive(state.owner) && cmdlineOf(state.owner).includes('vitest')) {
    throw new Error(`another e2e run (vitest pid ${state.owner}) owns the e2e stack (${STACK_STATE_FILE}); wait for it or stop it`);
  }
  const victims = [...Object.values(state.services).map((s) => s.pid), state.natsPid].filter(
    (pid): pid is number => pid !== null && isAlive(pid) && /main\.ts|nats-server/.test(cmdlineOf(pid)),
  );
  if (victims.length) say(`stopping leftovers of a previous run: pids ${victims.join(' ')}`);
  await Promise.all(victims.map((pid) => terminate(pid, 5000)));
  rmSync(STACK_STATE_FILE, { force: true });
}

/** An admin URL for a reachable PostgreSQL: the configured one, else a testcontainer. */
async function resolvePostgres(containers: Container[]): Promise<string> {
  const url = process.env.E2E_DATABASE_URL ?? DEFAULT_PG;
  const first = await pgProbe(url);
  if (first === null) return url;
  say(`PostgreSQL at ${redact(url)} unreachable (${first}); trying testcontainers postgres:15`);
  try {
    const { GenericContainer, Wait } = await import('testcontainers');
    const c = await new GenericContainer('postgres:15')
      .withEnvironment({ POSTGRES_USER: 'rdm', POSTGRES_PASSWORD: 'rdm', POSTGRES_DB: 'rdm' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    containers.push(c);
    return `postgres://rdm:rdm@${c.getHost()}:${c.getMappedPort(5432)}/rdm`;
  } catch (err) {
    throw infraError('PostgreSQL', `${redact(url)}: ${first}`, err as Error);
  }
}

/** A NATS URL: E2E_NATS_URL, else a private nats-server, else the shared one, else a testcontainer. */
async function resolveNats(containers: Container[]): Promise<{ url: string; child: ChildProcess | null }> {
  const configured = process.env.E2E_NATS_URL;
  if (configured) {
    if (await natsReachable(configured)) return { url: configured, child: null };
    say(`NATS at ${configured} unreachable; trying testcontainers nats:2.10`);
  } else {
    const bin = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p));
    if (bin) return startPrivateNats(bin);
    const shared = 'nats://127.0.0.1:4222';
    if (await natsReachable(shared)) {
      say(`no nats-server binary; sharing ${shared} with the dev stack`);
      return { url: shared, child: null };
    }
    say('no NATS reachable; trying testcontainers nats:2.10');
  }
  try {
    const { GenericContainer, Wait } = await import('testcontainers');
    const c = await new GenericContainer('nats:2.10')
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    containers.push(c);
    return { url: `nats://${c.getHost()}:${c.getMappedPort(4222)}`, child: null };
  } catch (err) {
    throw infraError('NATS', configured ?? 'nats://127.0.0.1:4222', err as Error);
  }
}

/** Start a JetStream nats-server for this run only, with an empty store. */
async function startPrivateNats(bin: string): Promise<{ url: string; child: ChildProcess }> {
  const port = Number(process.env.E2E_NATS_PORT ?? 4223);
  if (await portOpen(port)) throw new Error(`E2E_NATS_PORT ${port} is already in use; set E2E_NATS_PORT to a free port`);
  const store = join(DATA_DIR, 'e2e-nats');
  rmSync(store, { recursive: true, force: true });
  mkdirSync(LOG_DIR, { recursive: true });
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], { stdio: 'ignore', detached: true });
  const url = `nats://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  while (!(await natsReachable(url))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      if (child.pid) await terminate(child.pid, 1000);
      throw new Error(`private nats-server (${bin}) did not start on ${url}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child };
}

/** null when a query succeeds, else the error message. */
async function pgProbe(url: string): Promise<string | null> {
  const client = pgClient(url);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Drop and create the e2e database; returns its URL. */
async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`E2E_DATABASE_NAME '${name}' must be a plain identifier`);
  const client = pgClient(adminUrl);
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * `pg` is not a dependency of the black-box e2e package; the setup borrows the platform's copy
 * (infrastructure only: no service code is imported).
 */
function pgClient(url: string): PgClient {
  const req = createRequire(join(REPO_ROOT, 'services', '_platform', 'package.json'));
  const pg = req('pg') as { Client: new (o: object) => PgClient };
  return new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
}

/** True when a NATS server answers INFO on that URL. */
function natsReachable(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const sock = connect({ host: u.hostname, port: Number(u.port || 4222) });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(2000, () => done(false));
    sock.once('data', (d) => done(d.toString().startsWith('INFO')));
    sock.once('error', () => done(false));
  });
}

function infraError(what: string, where: string, containerErr: Error): Error {
  const how =
    'start it with `make infra` (bash scripts/infra/postgres.sh start && bash scripts/infra/nats.sh start) or point E2E_DATABASE_URL / E2E_NATS_URL at one';
  const ci = CI ? ' [CI: failing the run instead of skipping]' : '';
  return new Error(
    `e2e cannot run without ${what}: ${where} is unreachable and testcontainers failed (${containerErr.message}); ${how}${ci}`,
  );
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

/** Last lines of each service log, for a failing start. */
function logTails(): string {
  if (!existsSync(LOG_DIR)) return '';
  let out = '';
  for (const name of [...SERVICES, GATEWAY]) {
    const f = join(LOG_DIR, `${name}.log`);
    if (!existsSync(f)) continue;
    const lines = readFileSync(f, 'utf8').trimEnd().split('\n').slice(-15);
    out += `\n--- ${f} (last ${lines.length} lines) ---\n${lines.join('\n')}`;
  }
  return out;
}
