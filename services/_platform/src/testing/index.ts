/**
 * Helpers for integration tests against the real PostgreSQL and NATS (never mocks).
 *
 * When to use: in `services/<svc>/test/integration/*.test.ts`, imported from
 * `@rdm/platform/testing`. `testDb(svc)` gives a fresh, migrated schema per call (unique name,
 * own role) so test files run in parallel without seeing each other's rows; `destroy()` drops
 * it. `testNats()` connects to `NATS_URL`. `spawnNatsServer()` runs a private nats-server child
 * process that a test may stop and restart (outage tests). Start the shared servers with
 * `scripts/infra/postgres.sh start` and `scripts/infra/nats.sh start`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import pg from 'pg';
import { pino } from 'pino';
import { createDb, dropServiceSchema, ensureServiceSchema, migrate } from '../db.js';
import { IDENTITY_HEADER, type Identity, signIdentity } from '../identity.js';
import { connectNats, type NatsHandle } from '../nats.js';

export { registerEventSchema } from '../events.js';

/** Database URL of the tests (`DATABASE_URL`, default the local `rdm` superuser). */
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
/** NATS URL of the tests (`NATS_URL`, default local). */
export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** Short random lowercase id for unique schema/stream/subject names. */
export function uniqueId(bytes = 4): string {
  return randomBytes(bytes).toString('hex');
}

/** A logger for tests: silent unless `TEST_LOG_LEVEL` is set. */
export function testLogger(name = 'test') {
  return pino({ name, level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}

/** Root of the monorepo (the directory holding pnpm-workspace.yaml). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('pnpm-workspace.yaml not found');
    dir = parent;
  }
  return dir;
}

/** A migrated throw-away schema. */
export interface TestDb {
  /** Pool bound to the schema and its role. */
  db: Knex;
  /** Schema name (also the `service` to pass to platform helpers). */
  schema: string;
  /** Connection URL used. */
  url: string;
  /** Close the pool and drop schema and role. */
  destroy(): Promise<void>;
}

/** Options of testDb. */
export interface TestDbOptions {
  /** Migrations to run (default `services/<service>/src/db/migrations` when it exists; `false` for none). */
  migrationsDir?: string | false;
  /** Extra query parameters on the connection URL (e.g. `{application_name: 'x'}`). */
  params?: Record<string, string>;
  pool?: { min?: number; max?: number };
}

/** Create a fresh schema `t_<service>_<random>` with its role, run the migrations, return a pool. */
export async function testDb(service: string, opts: TestDbOptions = {}): Promise<TestDb> {
  const schema = `t_${service.replace(/[^a-z0-9_]/g, '_')}_${uniqueId()}`;
  const url = withParams(TEST_DATABASE_URL, opts.params);
  await ensureServiceSchema(TEST_DATABASE_URL, schema);
  const db = createDb({ url, service: schema, pool: opts.pool });
  const dir = opts.migrationsDir === undefined ? join(repoRoot(), 'services', service, 'src', 'db', 'migrations') : opts.migrationsDir;
  try {
    if (dir && existsSync(dir)) await migrate(db, { service: schema, dir });
  } catch (err) {
    await db.destroy();
    await dropServiceSchema(TEST_DATABASE_URL, schema);
    throw err;
  }
  return {
    db,
    schema,
    url,
    async destroy() {
      await db.destroy();
      await dropServiceSchema(TEST_DATABASE_URL, schema);
    },
  };
}

/** Append query parameters to a connection URL. */
export function withParams(url: string, params?: Record<string, string>): string {
  if (!params || Object.keys(params).length === 0) return url;
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/**
 * A session of the login user that counts the statements running in PostgreSQL whose text matches
 * every `LIKE` pattern given (a service's role cannot read other sessions' statements). For tests
 * that a statement was cancelled.
 */
export async function statementWatch(
  url = TEST_DATABASE_URL,
): Promise<{ running(...likes: string[]): Promise<number>; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async running(...likes: string[]) {
      const conds = likes.map((_l, i) => `AND query LIKE $${i + 1}`).join(' ');
      const r = await client.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() ${conds}`,
        likes,
      );
      return (r.rows[0] as { n: number }).n;
    },
    close: () => client.end(),
  };
}

/** Connect to the test NATS (`NATS_URL` or `url`), with a `close()` that drains. */
export async function testNats(url = TEST_NATS_URL, name = 'test'): Promise<NatsHandle & { close(): Promise<void> }> {
  const h = await connectNats({ url, name, reconnectTimeWaitMs: 250 });
  return {
    ...h,
    async close() {
      if (!h.nc.isClosed()) await h.nc.close();
    },
  };
}

/** Poll `check` until it returns a truthy value (returned) or `timeoutMs` passes (throws with the last value). */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  opts: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let last: T | undefined;
  let lastErr: unknown;
  for (;;) {
    try {
      last = await check();
      if (last) return last;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${opts.message ?? 'waitFor timed out'} (last value: ${JSON.stringify(last)}${lastErr ? `, last error: ${String(lastErr)}` : ''})`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

/** A private nats-server child process with JetStream and its own store directory. */
export interface NatsServerProcess {
  url: string;
  port: number;
  storeDir: string;
  /** Start (or restart, with the same store) and wait until it accepts connections. */
  start(): Promise<void>;
  /** Stop it (SIGTERM, graceful by default; `SIGKILL` to simulate a crash) and wait for exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Stop it and remove the store directory. */
  dispose(): Promise<void>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Run `nats-server -js` on `port` (default 4333) with a temporary store; call `start()` first. */
export function spawnNatsServer(opts: { port?: number; storeDir?: string; bin?: string } = {}): NatsServerProcess {
  const port = opts.port ?? 4333;
  const storeDir = opts.storeDir ?? mkdtempSync(join(tmpdir(), 'rdm-nats-'));
  let child: ChildProcess | undefined;
  let exited: Promise<void> | undefined;
  const self: NatsServerProcess = {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async start() {
      if (child) return;
      if (await portOpen(port)) throw new Error(`port ${port} is already in use`);
      const c = spawn(opts.bin ?? 'nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      c.stderr?.on('data', (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-4000);
      });
      child = c;
      exited = new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.once('error', (err) => {
          stderr += String(err);
          resolve();
        });
      });
      const deadline = Date.now() + 10_000;
      while (!(await portOpen(port))) {
        if (c.exitCode !== null || c.pid === undefined) {
          child = undefined;
          throw new Error(`nats-server exited: ${stderr}`);
        }
        if (Date.now() > deadline) throw new Error(`nats-server did not start: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // Why: the port opens before JetStream has recovered its store; give it a moment.
      await waitFor(() => stderr.includes('Server is ready'), { timeoutMs: 10_000, intervalMs: 25 }).catch(() => undefined);
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      if (!c) return;
      c.kill(signal);
      const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      child = undefined;
    },
    async dispose() {
      await self.stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
  return self;
}

/** Test helper: a service OpenAPI fragment plus stand-ins for the components the gateway's base document provides (services/gateway/src/openapi.ts), so the fragment validates alone. */
export function withGatewayComponents(fragment: Record<string, unknown>): Record<string, unknown> {
  const doc = structuredClone(fragment) as { components: Record<string, Record<string, unknown>> };
  const stub = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  const c = doc.components;
  c.schemas = { Error: { type: 'object' }, ...c.schemas };
  c.responses = {
    ...Object.fromEntries(
      ['BadRequest', 'PermissionDenied', 'NotFound', 'MethodNotAllowed', 'PayloadTooLarge', 'TooManyRequests', 'ServiceUnavailable'].map(
        (n) => [n, stub(n)],
      ),
    ),
    ...c.responses,
  };
  c.parameters = {
    ...Object.fromEntries(['q', 'page', 'size', 'sort'].map((n) => [n, { name: n, in: 'query', schema: {} }])),
    ...c.parameters,
  };
  c.headers = {
    ...Object.fromEntries(
      ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'].map((n) => [n, { schema: {} }]),
    ),
    ...c.headers,
  };
  c.securitySchemes = {
    bearerAuth: { type: 'http', scheme: 'bearer' },
    accessToken: { type: 'apiKey', in: 'query', name: 'access_token' },
  };
  return doc;
}
export {
  type BothEngines,
  TEST_OPENSEARCH_URL,
  openSearchAvailable,
  requireOpenSearch,
  startBothEngines,
  startEsCompatProxy,
} from './search-engines.js';
export {
  bodyParts,
  drained,
  MB,
  parseResponses,
  type RawExchange,
  type RawResponse,
  rawExchange,
  requestHead,
  writeAll,
} from './raw-http.js';

// ---------------------------------------------------------------- identities in tests

const TEST_IDENTITY_PREFIX = 'test.';

/**
 * A test's request header naming who calls (`x-rdm-identity: test.<payload>.<mac>`). Services
 * refuse it as it is (it is not bound to a request); `gatewayFront` turns it into the header the
 * gateway would send. Why not sign it here: a signed identity is bound to the method, target and
 * request id of one request and used once, which a header built before the request cannot be.
 */
export function testIdentityHeader(identity: Identity, secret: string): Record<string, string> {
  const payload = Buffer.from(JSON.stringify({ sub: identity.sub, roles: identity.roles, ip: identity.clientIp })).toString('base64url');
  const mac = createHmac('sha256', secret).update(`${TEST_IDENTITY_PREFIX}${payload}`).digest('base64url');
  return { [IDENTITY_HEADER]: `${TEST_IDENTITY_PREFIX}${payload}.${mac}` };
}

/**
 * The gateway's part in front of a service under test: a request carrying a `testIdentityHeader`
 * gets an `x-request-id` (when it has none) and the identity signed for exactly this request, as
 * the gateway signs it; every other header, forged or replayed ones included, reaches the service
 * untouched, so its refusals stay tested.
 */
export function gatewayFront(handler: RequestListener, secret: string): RequestListener {
  return (req, res) => {
    const h = req.headers[IDENTITY_HEADER];
    if (typeof h === 'string' && h.startsWith(TEST_IDENTITY_PREFIX)) {
      const dot = h.lastIndexOf('.');
      const payload = h.slice(TEST_IDENTITY_PREFIX.length, dot);
      const mac = createHmac('sha256', secret).update(h.slice(0, dot)).digest('base64url');
      if (mac === h.slice(dot + 1)) {
        const o = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub: string | null; roles: string[]; ip?: string };
        let rid = req.headers['x-request-id'];
        if (typeof rid !== 'string' || rid === '') {
          rid = randomUUID();
          req.headers['x-request-id'] = rid;
        }
        const identity: Identity = { sub: o.sub, roles: o.roles };
        if (o.ip !== undefined) identity.clientIp = o.ip;
        req.headers[IDENTITY_HEADER] = signIdentity(identity, secret, { method: req.method ?? '', target: req.url ?? '', requestId: rid });
      }
    }
    return handler(req, res);
  };
}

/** A koa app (or any request listener) listening on 127.0.0.1 behind `gatewayFront`. */
export function listenBehindFront(handler: RequestListener, secret: string, port = 0): Server {
  return createServer(gatewayFront(handler, secret)).listen(port, '127.0.0.1');
}

/** `a` ⊆ `b`: every key of `a` is in `b` with a value `a`'s is a subset of; arrays of the same length, each element of `a` a subset of one of `b`. */
function subsetOf(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x) => b.some((y) => subsetOf(x, y)));
  if (typeof a === 'object' && a !== null) {
    if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
    return Object.entries(a).every(([k, v]) => k in b && subsetOf(v, (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

type OpenApiDoc = { paths?: Record<string, Record<string, any>>; components?: Record<string, Record<string, unknown>> };
const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const paramKey = (p: Record<string, unknown>) => (typeof p.$ref === 'string' ? p.$ref : `${String(p.in)}:${String(p.name)}`);

/**
 * Test helper: what of `before` (an OpenAPI document) `after` lacks or says less precisely —
 * every path (path parameters matched by position: a renamed one is no loss), method,
 * parameter (path-level ones applied to each operation), request body,
 * response, header, schema and component of `before` must be in `after`, as a subset. Empty when
 * `after` is at least as precise. Use it to prove a generated fragment replaces a hand-written one.
 */
export function openapiLosses(before: OpenApiDoc, after: OpenApiDoc): string[] {
  const losses: string[] = [];
  const shape = (p: string) => p.replace(/\{[^}]*\}/g, '{}');
  const names = (p: string) => [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  for (const [path, item] of Object.entries(before.paths ?? {})) {
    const otherPath = Object.keys(after.paths ?? {}).find((p) => shape(p) === shape(path));
    const other = otherPath ? after.paths?.[otherPath] : undefined;
    if (!other || !otherPath) {
      losses.push(`path ${path}`);
      continue;
    }
    // A path parameter renamed (same position) is no loss: compare it under its new name.
    const renamed = new Map(names(path).map((n, i) => [n, names(otherPath)[i]]));
    const rename = (p: Record<string, unknown>) =>
      p.in === 'path' && renamed.has(String(p.name)) ? { ...p, name: renamed.get(String(p.name)) } : p;
    for (const m of OPERATION_METHODS.filter((k) => item[k])) {
      const op = item[m];
      const otherOp = other[m];
      if (!otherOp) {
        losses.push(`${m} ${path}`);
        continue;
      }
      const params = (i: Record<string, any>, o: Record<string, any>, map: (p: Record<string, unknown>) => Record<string, unknown>) => {
        const byKey = new Map<string, unknown>();
        for (const p of [...(i.parameters ?? []), ...(o.parameters ?? [])].map(map)) byKey.set(paramKey(p), p);
        return byKey;
      };
      const otherParams = params(other, otherOp, (p) => p);
      for (const [key, p] of params(item, op, rename)) {
        if (!subsetOf(p, otherParams.get(key))) losses.push(`${m} ${path} parameter ${key}`);
      }
      for (const [field, value] of Object.entries(op)) {
        if (field === 'parameters') continue;
        if (field === 'responses') {
          for (const [status, r] of Object.entries(value as Record<string, unknown>)) {
            if (!subsetOf(r, otherOp.responses?.[status])) losses.push(`${m} ${path} response ${status}`);
          }
        } else if (!subsetOf(value, otherOp[field])) losses.push(`${m} ${path} ${field}`);
      }
    }
  }
  for (const [section, entries] of Object.entries(before.components ?? {})) {
    for (const [name, value] of Object.entries(entries)) {
      if (!subsetOf(value, after.components?.[section]?.[name])) losses.push(`components.${section}.${name}`);
    }
  }
  return losses;
}
