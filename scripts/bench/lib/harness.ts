/**
 * Shared harness of the benchmarks: a keep-alive HTTP client, percentiles, the loopback guard,
 * and a private stack (fresh database, private nats-server, every service and the gateway from
 * scripts/up.ts) for benches that find nothing running. Use it from `scripts/bench/*.bench.ts`;
 * it asserts nothing about speed.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { Agent, type IncomingMessage, request } from 'node:http';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { DEFAULT_PORTS, GATEWAY, REPO_ROOT, SERVICES, type Stack, startStack, terminate } from '../../up.js';
import { type CpuTargets, pidOfPort } from './cpu.js';

/** The 1-minute load average, formatted. */
export const load = (): string => loadavg()[0].toFixed(2);

/** Percentile `p` of an ascending array (NaN when empty). */
export const pct = (sorted: number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : Number.NaN;

/** A parsed answer. */
export interface Res {
  status: number;
  body: any;
}

const agent = new Agent({ keepAlive: true, maxSockets: 512 });

/** The whole answer of `res`, its body parsed as JSON when it is JSON (else the text). */
export function readRes(res: IncomingMessage): Promise<Res> {
  return new Promise((resolveP, reject) => {
    const parts: Buffer[] = [];
    res.on('data', (c: Buffer) => parts.push(c));
    res.on('end', () => {
      const text = Buffer.concat(parts).toString();
      let body: any = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON */
      }
      resolveP({ status: res.statusCode ?? 0, body });
    });
    res.on('error', reject);
  });
}

/** One HTTP call over a keep-alive agent (JSON or raw bytes), 30 s bound. */
export function call(base: string, method: string, path: string, o: { token?: string; json?: unknown; raw?: Buffer } = {}): Promise<Res> {
  const url = new URL(`${base}${path}`);
  const payload = o.raw ?? (o.json === undefined ? undefined : Buffer.from(JSON.stringify(o.json)));
  return new Promise((resolveP, reject) => {
    const req = request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: {
          ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
          ...(o.raw ? { 'content-type': 'application/octet-stream' } : o.json !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(payload ? { 'content-length': String(payload.length) } : {}),
        },
      },
      (res) => readRes(res).then(resolveP, reject),
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Throw when `res` has another status than `status`. */
export function expectStatus(step: string, res: Res, status: number): void {
  if (res.status !== status) throw new Error(`${step}: HTTP ${res.status} (expected ${status}) ${JSON.stringify(res.body).slice(0, 400)}`);
}

/** Refuse anything but the loopback interface; returns `protocol//host`. */
export function assertLoopback(url: string): string {
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname))
    throw new Error(`BENCH_BASE_URL must be a loopback address (got ${u.hostname})`);
  return `${u.protocol}//${u.host}`;
}

/** True when `url` answers 200 within 1.5 s. */
export async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(1500) });
    await r.arrayBuffer();
    return r.status === 200;
  } catch {
    return false;
  }
}

/** True when something listens on 127.0.0.1:`port`. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect({ host: '127.0.0.1', port });
    s.setTimeout(1000, () => {
      s.destroy();
      res(false);
    });
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
  });
}

/** autocannon figures of one read run. */
export interface ReadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
  load: string;
}

/** 2 s warm-up, then `seconds` of GETs on `url` with `connections` connections. */
export async function readRun(url: string, connections: number, seconds: number, token?: string): Promise<ReadResult> {
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await autocannon({ url, connections, duration: 2, headers });
  const r = await autocannon({ url, connections, duration: seconds, headers });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    bad: r.non2xx + r.errors + r.timeouts,
    load: load(),
  };
}

/** A user made with the users CLI (as `make user` does) against `databaseUrl`. */
export async function cliUser(
  databaseUrl: string,
  email: string,
  o: { admin?: boolean; name?: string } = {},
): Promise<{ id: string; token: string }> {
  const args = ['--silent', '--filter', '@rdm/users', 'exec', 'tsx', 'src/cli.ts', 'create-user', `--email=${email}`];
  if (o.admin) args.push('--admin');
  if (o.name) args.push(`--name=${o.name}`);
  const { stdout } = await promisify(execFile)('pnpm', args, {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    timeout: 120_000,
    maxBuffer: 4 * 1024 * 1024,
  });
  const last = stdout.trim().split('\n').pop() ?? '';
  const parsed = JSON.parse(last) as { id?: string; token?: string };
  if (!parsed.token || !parsed.id) throw new Error(`users CLI printed no token: ${last}`);
  return { id: parsed.id, token: parsed.token };
}

type PgClient = { connect(): Promise<void>; query(sql: string): Promise<unknown>; end(): Promise<void> };

/** Options of a private bench stack. */
export interface BenchStackOptions {
  /** Bench name: logs in .data/bench-logs/<name>, files in .data/bench-<name>-files. */
  name: string;
  portBase: number;
  natsPort: number;
  databaseName: string;
  logLevel?: string;
  /** Extra environment of every service. */
  env?: Record<string, string>;
  /** `tsx` (sources, default) or `dist` (the production build, `make build`). */
  runtime?: 'tsx' | 'dist';
  /** Never reuse a running stack at BENCH_BASE_URL (a bench that compares ways to start one). */
  privateOnly?: boolean;
}

/** A running bench target. */
export interface BenchTarget {
  base: string;
  databaseUrl: string;
  /** The gateway's and services' processes and the database whose backends count (lib/cpu.ts). */
  cpuTargets(): CpuTargets;
  /** Stop what this harness started (nothing for an external stack). */
  stop(): Promise<void>;
}

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
const DATA = join(REPO_ROOT, '.data');

/** Drop and create database `name` on DATABASE_URL's server; returns its URL. */
export async function freshDatabase(name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name '${name}' must be a plain identifier`);
  const req = createRequire(join(REPO_ROOT, 'services', '_platform', 'package.json'));
  const pg = req('pg') as { Client: new (o: object) => PgClient };
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A private JetStream nats-server on `port` with an empty store (null without a nats-server binary). */
export async function privateNats(port: number, name: string): Promise<{ url: string; child: ChildProcess } | null> {
  const bin = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p));
  if (!bin) return null;
  if (await portOpen(port)) throw new Error(`nats port ${port} is in use; pick another`);
  const store = join(DATA, `bench-nats-${name}`);
  rmSync(store, { recursive: true, force: true });
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], { stdio: 'ignore', detached: true });
  const deadline = Date.now() + 15_000;
  while (!(await portOpen(port))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('private nats-server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `nats://127.0.0.1:${port}`, child };
}

/**
 * The stack at BENCH_BASE_URL (default http://127.0.0.1:5000) when its /readyz answers (its
 * DATABASE_URL must then be the env's), else a private one started here and stopped by `stop()`.
 */
export async function benchTarget(o: BenchStackOptions, say: (l: string) => void): Promise<BenchTarget> {
  const wanted = assertLoopback(process.env.BENCH_BASE_URL ?? 'http://127.0.0.1:5000');
  if (!o.privateOnly && (await answers(`${wanted}/readyz`))) {
    say(`${o.name} bench: using the stack at ${wanted}`);
    const cpuTargets = (): CpuTargets => {
      const procs: Record<string, number> = {};
      const gw = pidOfPort(Number(new URL(wanted).port || 80));
      if (gw) procs[GATEWAY] = gw;
      for (const n of SERVICES) {
        const pid = pidOfPort(Number(process.env[`${n.toUpperCase()}_PORT`] ?? DEFAULT_PORTS[n]));
        if (pid) procs[n] = pid;
      }
      return { procs, database: new URL(ADMIN_URL).pathname.slice(1) || null };
    };
    return { base: wanted, databaseUrl: ADMIN_URL, cpuTargets, stop: async () => undefined };
  }
  const ports: Record<string, number> = { [GATEWAY]: o.portBase };
  SERVICES.forEach((n, i) => {
    ports[n] = o.portBase + 1 + i;
  });
  const busy: string[] = [];
  for (const [n, p] of Object.entries(ports)) if (await portOpen(p)) busy.push(`${n}:${p}`);
  if (busy.length) throw new Error(`bench ports in use (${busy.join(', ')}); set BENCH_PORT_BASE`);
  const base = `http://127.0.0.1:${o.portBase}`;
  const t = Date.now();
  const databaseUrl = await freshDatabase(o.databaseName);
  const nats = await privateNats(o.natsPort, o.name);
  const filesDir = join(DATA, `bench-${o.name}-files`);
  rmSync(filesDir, { recursive: true, force: true });
  const logDir = join(DATA, 'bench-logs', o.name);
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  say(`${o.name} bench: starting a stack on ${base} (database ${o.databaseName}, nats ${nats?.url ?? 'shared'}, logs ${logDir})…`);
  let stack: Stack | null = null;
  try {
    stack = await startStack({
      ports,
      env: {
        DATABASE_URL: databaseUrl,
        ...(nats ? { NATS_URL: nats.url } : {}),
        PUBLIC_BASE_URL: base,
        LOG_LEVEL: o.logLevel ?? 'warn',
        RATE_LIMIT_ENABLED: 'false',
        FILES_STORAGE_PATH: filesDir,
        ...(o.env ?? {}),
      },
      restart: false,
      strict: true,
      runtime: o.runtime ?? 'tsx',
      logDir,
      readyTimeoutMs: 180_000,
      say: (l) => console.error(`[stack] ${l}`),
    });
  } catch (err) {
    if (nats?.child.pid) await terminate(nats.child.pid, 5000).catch(() => undefined);
    throw err;
  }
  say(`${o.name} bench: stack ready in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  return {
    base,
    databaseUrl,
    cpuTargets: () => {
      const procs: Record<string, number> = {};
      for (const [n, pid] of Object.entries(stack?.pids() ?? {})) if (pid) procs[n] = pid;
      if (nats?.child.pid) procs.nats = nats.child.pid;
      return { procs, database: o.databaseName };
    },
    stop: async () => {
      agent.destroy();
      await stack?.stop().catch(() => undefined);
      if (nats?.child.pid) await terminate(nats.child.pid, 5000).catch(() => undefined);
    },
  };
}
