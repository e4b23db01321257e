/**
 * Benchmark: the production build (`make build`: esbuild bundles in dist/, run by plain
 * `node dist/<svc>/main.js`, what `make up` and the image run) against the
 * sources through tsx (`node --import tsx src/main.ts`, `DEV=1 make up`), on the same database,
 * same NATS, same machine, one after the other:
 *
 * (s) start time: each backend service started alone (spawn → /readyz 200, sequentially, so no
 *     two compete for the cores), and the whole stack (backends side by side, then the gateway,
 *     as `make up` starts it);
 * (m) memory: RSS of every process once the stack is ready (idle) and after the read load;
 * (t) throughput: `GET /api/records/<id>` of a published record through the gateway, autocannon
 *     BENCH_CONNECTIONS (50) connections × BENCH_SECONDS (10) after 2 s of warm-up: req/s, p99,
 *     and CPU µs per request per process.
 *
 * BENCH_ROUNDS (2) rounds, each tsx then dist, so a change of the machine's load hits both; the
 * summary prints the mean of the rounds and the ratio dist/tsx. The build is refreshed first
 * (`scripts/build.ts --if-stale`, its time printed). Always a private stack: fresh database
 * rdm_bench_runtime, private nats-server on BENCH_NATS_PORT (4234), gateway on BENCH_PORT_BASE
 * (5780), services on +1…+6, logs in .data/bench-logs/runtime/. Asserts nothing about speed;
 * exit 1 when something fails. Ends with a `=== runtime bench summary ===` block.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  GATEWAY,
  planStack,
  REPO_ROOT,
  runMigrations,
  SERVICES,
  type Stack,
  spawnService,
  startStack,
  terminate,
  waitHttpOk,
} from '../up.js';
import { type CpuTargets, cpuDelta, cpuSnapshot, rssMiBOf } from './lib/cpu.js';
import { call, cliUser, expectStatus, freshDatabase, load, portOpen, privateNats, readRun } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const ROUNDS = num('BENCH_ROUNDS', 2, 1, 20);
const SECONDS = num('BENCH_SECONDS', 10, 1, 120);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50, 1, 500);
const PORT_BASE = num('BENCH_PORT_BASE', 5780, 1024, 65000);
const NATS_PORT = num('BENCH_NATS_PORT', 4234, 1024, 65535);
const DB_NAME = 'rdm_bench_runtime';
const RUNTIMES = ['tsx', 'dist'] as const;
type Runtime = (typeof RUNTIMES)[number];
const LOG_DIR = join(REPO_ROOT, '.data', 'bench-logs', 'runtime');
const FILES_DIR = join(REPO_ROOT, '.data', 'bench-runtime-files');

const say = (l: string) => console.log(l);
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

interface Round {
  runtime: Runtime;
  /** ms from spawn to /readyz of each backend started alone. */
  startAlone: Record<string, number>;
  /** ms from the first spawn to the gateway's /readyz. */
  startStack: number;
  rssIdle: Record<string, number>;
  rssLoaded: Record<string, number>;
  rps: number;
  p50: number;
  p99: number;
  bad: number;
  cpuUsPerRequest: Record<string, number>;
  load: string;
}

const ports: Record<string, number> = { [GATEWAY]: PORT_BASE };
SERVICES.forEach((n, i) => {
  ports[n] = PORT_BASE + 1 + i;
});

let natsChild: ChildProcess | null = null;
let stack: Stack | null = null;
const alone = new Set<ChildProcess>();

async function cleanup(): Promise<void> {
  for (const c of alone) if (c.pid) await terminate(c.pid, 5000).catch(() => undefined);
  if (stack) await stack.stop().catch(() => undefined);
  stack = null;
  if (natsChild?.pid) await terminate(natsChild.pid, 5000).catch(() => undefined);
  natsChild = null;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void cleanup().finally(() => process.exit(130)));

/** `scripts/build.ts --if-stale`: ms it took (0 when nothing was stale). */
async function build(): Promise<number> {
  const t = performance.now();
  const code = await new Promise<number>((res) => {
    const c = spawn(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/build.ts', '--if-stale'], {
      cwd: REPO_ROOT,
      stdio: 'inherit',
    });
    c.on('exit', (n) => res(n ?? 1));
    c.on('error', () => res(1));
  });
  if (code !== 0) throw new Error(`scripts/build.ts failed (exit ${code})`);
  return performance.now() - t;
}

/** Each backend alone: spawn, wait for /readyz, stop; ms per service. */
async function startAlone(runtime: Runtime, stackEnv: Record<string, string>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const { specs } = planStack({ runtime, ports, env: stackEnv, logDir: LOG_DIR, only: [...SERVICES] });
  for (const spec of specs) {
    const t = performance.now();
    const child = spawnService(spec);
    alone.add(child);
    try {
      await waitHttpOk(spec.readyUrl, 120_000, () => child.exitCode === null);
      out[spec.name] = performance.now() - t;
    } finally {
      if (child.pid) await terminate(child.pid, 5000);
      alone.delete(child);
    }
  }
  return out;
}

function rssOf(pids: Record<string, number | null>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [n, pid] of Object.entries(pids)) {
    const r = pid ? rssMiBOf(pid) : null;
    if (r !== null) out[n] = r;
  }
  return out;
}

async function round(runtime: Runtime, stackEnv: Record<string, string>, recordPath: () => Promise<string>): Promise<Round> {
  const startAloneMs = await startAlone(runtime, stackEnv);
  const t = performance.now();
  stack = await startStack({
    runtime,
    ports,
    env: stackEnv,
    migrate: false,
    restart: false,
    strict: true,
    logDir: LOG_DIR,
    say: () => undefined,
  });
  const startStackMs = performance.now() - t;
  try {
    await new Promise((r) => setTimeout(r, 1000)); // settle: the idle RSS, not the start's peak
    const pids = stack.pids();
    const rssIdle = rssOf(pids);
    const path = await recordPath();
    const procs: Record<string, number> = {};
    for (const [n, pid] of Object.entries(pids)) if (pid) procs[n] = pid;
    if (natsChild?.pid) procs.nats = natsChild.pid;
    const targets: CpuTargets = { procs, database: DB_NAME };
    const url = `http://127.0.0.1:${PORT_BASE}${path}`;
    const cpu0 = cpuSnapshot(targets);
    const r = await readRun(url, CONNECTIONS, SECONDS);
    const cpu = cpuDelta(cpu0, cpuSnapshot(targets));
    // The warm-up's requests are not in r.requests: count them out by the same per-second rate.
    const requests = r.requests * ((SECONDS + 2) / SECONDS);
    const cpuUsPerRequest = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, requests ? (v * 1000) / requests : 0]));
    return {
      runtime,
      startAlone: startAloneMs,
      startStack: startStackMs,
      rssIdle,
      rssLoaded: rssOf(pids),
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      bad: r.bad,
      cpuUsPerRequest,
      load: r.load,
    };
  } finally {
    await stack.stop();
    stack = null;
  }
}

function printRound(r: Round, i: number): void {
  const fmt = (o: Record<string, number>, d = 0) =>
    Object.entries(o)
      .map(([k, v]) => `${k} ${v.toFixed(d)}`)
      .join(', ');
  say(`\n  round ${i + 1}, ${r.runtime} (load ${r.load})`);
  say(`    (s) start alone ms: ${fmt(r.startAlone)}; sum ${sum(r.startAlone).toFixed(0)}; whole stack ${r.startStack.toFixed(0)} ms`);
  say(`    (m) RSS MiB idle: ${fmt(r.rssIdle)}; total ${sum(r.rssIdle).toFixed(0)}`);
  say(`        RSS MiB after the load: ${fmt(r.rssLoaded)}; total ${sum(r.rssLoaded).toFixed(0)}`);
  say(`    (t) GET record: ${r.rps} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.bad} bad`);
  say(`        CPU µs per request: ${fmt(r.cpuUsPerRequest)}; total ${sum(r.cpuUsPerRequest).toFixed(0)}`);
}

let exitCode = 0;
try {
  const buildMs = await build();
  say(`runtime bench: build ${buildMs > 0 ? `refreshed in ${(buildMs / 1000).toFixed(1)} s` : 'up to date'}; load ${load()}`);
  const busy: string[] = [];
  for (const [n, p] of Object.entries(ports)) if (await portOpen(p)) busy.push(`${n}:${p}`);
  if (busy.length) throw new Error(`bench ports in use (${busy.join(', ')}); set BENCH_PORT_BASE`);
  const databaseUrl = await freshDatabase(DB_NAME);
  const nats = await privateNats(NATS_PORT, 'runtime');
  natsChild = nats?.child ?? null;
  rmSync(FILES_DIR, { recursive: true, force: true });
  rmSync(LOG_DIR, { recursive: true, force: true });
  mkdirSync(LOG_DIR, { recursive: true });
  const stackEnv: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    ...(nats ? { NATS_URL: nats.url } : {}),
    PUBLIC_BASE_URL: `http://127.0.0.1:${PORT_BASE}`,
    LOG_LEVEL: env.BENCH_LOG_LEVEL ?? 'warn',
    RATE_LIMIT_ENABLED: 'false',
    FILES_STORAGE_PATH: FILES_DIR,
  };
  const t = performance.now();
  await runMigrations(planStack({ runtime: 'dist', ports, env: stackEnv, logDir: LOG_DIR }).specs, () => undefined);
  say(`runtime bench: database ${DB_NAME} migrated in ${((performance.now() - t) / 1000).toFixed(1)} s; ${ROUNDS} rounds of tsx then dist`);

  let path: string | null = null;
  /** A published record, deposited through the first stack that runs (the database outlives the stacks). */
  const recordPath = async (): Promise<string> => {
    if (path) return path;
    const { token } = await cliUser(databaseUrl, 'runtime-bench@example.org');
    const base = `http://127.0.0.1:${PORT_BASE}`;
    const created = await call(base, 'POST', '/api/records', {
      token,
      json: {
        access: { record: 'public', files: 'public' },
        files: { enabled: false },
        metadata: {
          title: 'Runtime benchmark record',
          publication_date: '2024-01-01',
          resource_type: { id: 'dataset' },
          creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Mark' } }],
        },
      },
    });
    expectStatus('create draft', created, 201);
    expectStatus('publish', await call(base, 'POST', `/api/records/${created.body.id}/draft/actions/publish`, { token }), 202);
    path = `/api/records/${created.body.id}`;
    expectStatus('GET record', await call(base, 'GET', path), 200);
    return path;
  };

  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const rt of RUNTIMES) {
      const r = await round(rt, stackEnv, recordPath);
      printRound(r, i);
      rounds.push(r);
      if (r.bad > 0) {
        console.error(`runtime bench: ${r.bad} failed reads with ${rt}`);
        exitCode = 1;
      }
    }
  }

  const of = (rt: Runtime) => rounds.filter((r) => r.runtime === rt);
  const m = (rt: Runtime, f: (r: Round) => number) => mean(of(rt).map(f));
  const figures: [string, (r: Round) => number, string, number][] = [
    ['start, services one by one (sum)', (r) => sum(r.startAlone), 'ms', 0],
    ['start, whole stack', (r) => r.startStack, 'ms', 0],
    ['RSS idle, all processes', (r) => sum(r.rssIdle), 'MiB', 0],
    ['RSS after the load', (r) => sum(r.rssLoaded), 'MiB', 0],
    ['GET record throughput', (r) => r.rps, 'req/s', 0],
    ['GET record p99', (r) => r.p99, 'ms', 1],
    ['CPU per GET, all processes', (r) => sum(r.cpuUsPerRequest), 'µs', 0],
  ];
  say('\n=== runtime bench summary ===');
  say(`  compiled build (dist) vs tsx, mean of ${ROUNDS} round(s), load ${rounds.map((r) => r.load).join(' → ')}:`);
  for (const [name, f, unit, d] of figures) {
    const a = m('tsx', f);
    const b = m('dist', f);
    say(
      `  ${name.padEnd(34)} tsx ${a.toFixed(d).padStart(7)} ${unit.padEnd(5)} dist ${b.toFixed(d).padStart(7)} ${unit.padEnd(5)} dist/tsx ${(b / a).toFixed(2)}`,
    );
  }
  say(
    JSON.stringify({
      bench: 'runtime',
      rounds: rounds.map((r) => ({
        ...r,
        startAlone: Object.fromEntries(Object.entries(r.startAlone).map(([k, v]) => [k, Math.round(v)])),
        startStack: Math.round(r.startStack),
      })),
    }),
  );
} catch (err) {
  console.error(`runtime bench failed: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
