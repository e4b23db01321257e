/**
 * Benchmark: deposits end to end and published-record reads, through the gateway.
 *
 *   pnpm exec tsx scripts/bench/records.bench.ts        (or `make bench`)
 *
 * (a) records/s of the whole deposit: create draft, init one small file, PUT its bytes, commit,
 *     publish (the README's curl walk-through). After BENCH_WARMUP (10) unmeasured deposits
 *     (JIT, pools, caches), BENCH_SEQ_RECORDS (50) one after the other, then BENCH_RECORDS (200)
 *     with BENCH_CONCURRENCY (8) depositors. Each phase stops starting deposits after
 *     BENCH_PHASE_SECONDS (90). Prints records/s and p50/p99 of every step; aim ≥ 60 records/s.
 * (a') where the milliseconds of one deposit go: BENCH_TRACED (20) more deposits one at a time,
 *     each step followed by BENCH_SETTLE_MS (300) of quiet so that what it sets off (outbox relay,
 *     consumers and their RPCs) counts to it; per step: client ms, ms inside each process's HTTP
 *     handlers (its /metrics histogram: gateway minus service = the hop), NATS messages (the
 *     private nats-server's /varz, monitor on BENCH_NATS_MONITOR_PORT = BENCH_NATS_PORT + 4000)
 *     SQL statements per process (the platform's db_statements_total) and CPU ms per process, each net of a "null step" (the same probes and quiet without a
 *     request: the probes' own cost, relay polls, pulls).
 * (c) `GET /api/records/<id>` of a published public record (anonymous), autocannon with
 *     BENCH_CONNECTIONS (50) connections for BENCH_SECONDS (10) after a 2 s warm-up: requests/s,
 *     p50, p99; aim p99 ≤ 20 ms.
 *
 * Stack: BENCH_BASE_URL (default http://127.0.0.1:5000, loopback only) when its /readyz answers
 * 200; its rate limits must be off or high (`RATE_LIMIT_ENABLED=false`) and DATABASE_URL must be
 * its database (for the users CLI). Otherwise the bench starts its own with `startStack()` from
 * scripts/up.ts: gateway on BENCH_PORT_BASE (5880), users…communities on +1…+6, a fresh database
 * BENCH_DATABASE_NAME (rdm_bench) on DATABASE_URL's server, a private nats-server on
 * BENCH_NATS_PORT (4225; the shared one otherwise would mix RPCs with a dev stack), local file
 * storage in .data/bench-records-files, rate limiting off, LOG_LEVEL BENCH_LOG_LEVEL (warn), logs
 * in .data/bench-logs/records/; everything is stopped at the end (the database is kept for a look
 * and dropped by the next run).
 *
 * Token: the users CLI, as `make user` does (`pnpm --silent --filter @rdm/users exec tsx src/cli.ts
 * create-user --email BENCH_EMAIL`, last stdout line JSON) with the stack's DATABASE_URL.
 * The 1-minute load average is printed next to every figure (the machine is shared), and so is
 * the CPU time each process spent per record / per request (utime+stime from /proc: gateway,
 * services, the private nats-server, the PostgreSQL backends of the database, this client),
 * which other people's load disturbs far less than throughput: "2 cores: ≤ N/s at best" is 2 s
 * of CPU divided by it. With an external stack, services are found on their default ports.
 * The stack runs the production build (`dist/`, rebuilt when older than its sources; BENCH_RUNTIME=tsx
 * for the sources); BENCH_CPU_PROF=<dir> runs every service with `node --cpu-prof` into <dir>/<svc>
 * (written when the stack stops; summarise with services/gateway/bench/cpu-profile-summary.ts).
 * BENCH_PARTS (a,c) picks the parts. Prints numbers only; nothing is asserted about speed.
 * Exit 1 when a request fails. Ends with a `=== records bench summary ===` block.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { BUILD_SERVICES, buildService, isStale } from '../build.js';
import { DEFAULT_PORTS, GATEWAY, REPO_ROOT, SERVICES, type Stack, startStack, terminate } from '../up.js';
import { type CpuSnapshot, type CpuTargets, cpuDelta, cpuSnapshot, pidOfPort } from './lib/cpu.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const WARMUP = num('BENCH_WARMUP', 10, 0, 1000);
const SEQ_RECORDS = num('BENCH_SEQ_RECORDS', 50, 0, 100_000);
const RECORDS = num('BENCH_RECORDS', 200, 0, 100_000);
const CONCURRENCY = num('BENCH_CONCURRENCY', 8, 1, 256);
const PHASE_SECONDS = num('BENCH_PHASE_SECONDS', 90, 1, 3600);
const SECONDS = num('BENCH_SECONDS', 10, 1, 60);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50, 1, 500);
const PORT_BASE = num('BENCH_PORT_BASE', 5880, 1024, 65000);
const NATS_PORT = num('BENCH_NATS_PORT', 4225, 1024, 65535);
const NATS_MONITOR_PORT = num('BENCH_NATS_MONITOR_PORT', NATS_PORT + 4000, 1024, 65535);
const TRACED = num('BENCH_TRACED', 20, 0, 1000);
const SETTLE_MS = num('BENCH_SETTLE_MS', 300, 0, 10_000);
const DB_NAME = env.BENCH_DATABASE_NAME ?? 'rdm_bench';
const EMAIL = env.BENCH_EMAIL ?? 'bench@example.org';
const LOG_LEVEL = env.BENCH_LOG_LEVEL ?? 'warn';
const ADMIN_URL = env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
const DATA = join(REPO_ROOT, '.data');
const PARTS = (env.BENCH_PARTS ?? 'a,c').split(',').map((s) => s.trim());
const RUNTIME = env.BENCH_RUNTIME === 'tsx' ? 'tsx' : 'dist';
const CPU_PROF = env.BENCH_CPU_PROF;
const RATE_AIM = 60;
const P99_AIM_MS = 20;
const STEPS = ['create', 'init', 'upload', 'commit', 'publish'] as const;
type Step = (typeof STEPS)[number];

const load = () => loadavg()[0].toFixed(2);
const say = (l: string) => console.log(l);

// ─── HTTP client (keep-alive, like any real client) ───────────────────────────────────────────

const agent = new Agent({ keepAlive: true, maxSockets: 512 });

interface Res {
  status: number;
  body: any;
}

function call(base: string, method: string, path: string, o: { token?: string; json?: unknown; raw?: Buffer } = {}): Promise<Res> {
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
      (res) => {
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
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

function expect(step: string, res: Res, status: number): void {
  if (res.status !== status) throw new Error(`${step}: HTTP ${res.status} (expected ${status}) ${JSON.stringify(res.body).slice(0, 400)}`);
}

// ─── one deposit ──────────────────────────────────────────────────────────────────────────────

const FILE = Buffer.from('x,y\n'.repeat(256)); // 1 KiB
const body = (i: number) => ({
  access: { record: 'public', files: 'public' },
  files: { enabled: true },
  metadata: {
    title: `Benchmark record ${i}`,
    publication_date: '2024-01-01',
    resource_type: { id: 'dataset' },
    creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Mark' } }],
  },
});

type Timings = Record<Step, number>;

/** create + init + upload + commit + publish; returns the record id and the time of each step. */
async function deposit(base: string, token: string, i: number): Promise<{ id: string; t: Timings }> {
  const t = {} as Timings;
  let t0 = performance.now();
  const lap = (s: Step) => {
    const now = performance.now();
    t[s] = now - t0;
    t0 = now;
  };
  const created = await call(base, 'POST', '/api/records', { token, json: body(i) });
  expect('create draft', created, 201);
  lap('create');
  const id = created.body.id as string;
  const draft = `/api/records/${id}/draft`;
  expect('init file', await call(base, 'POST', `${draft}/files`, { token, json: [{ key: 'data.csv' }] }), 201);
  lap('init');
  expect('upload', await call(base, 'PUT', `${draft}/files/data.csv/content`, { token, raw: FILE }), 200);
  lap('upload');
  const commit = await call(base, 'POST', `${draft}/files/data.csv/commit`, { token });
  expect('commit', commit, 200);
  if (commit.body?.size !== FILE.length) throw new Error(`commit: size ${commit.body?.size}, sent ${FILE.length}`);
  lap('commit');
  expect('publish', await call(base, 'POST', `${draft}/actions/publish`, { token }), 202);
  lap('publish');
  return { id, t };
}

let cpuTargets: CpuTargets = { procs: {}, database: null };

interface PhaseResult {
  name: string;
  records: number;
  seconds: number;
  rate: number;
  steps: Record<Step | 'total', { p50: number; p99: number }>;
  load: string;
  lastId: string;
  /** CPU ms per record, per process. */
  cpuPerRecord: Record<string, number>;
}

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : Number.NaN;

/** `total` deposits with `concurrency` workers; no new deposit starts after PHASE_SECONDS. */
async function phase(name: string, base: string, token: string, total: number, concurrency: number): Promise<PhaseResult> {
  const samples: (Timings & { total: number })[] = [];
  let next = 0;
  let lastId = '';
  const cpu0 = cpuSnapshot(cpuTargets);
  const started = performance.now();
  const stopAt = started + PHASE_SECONDS * 1000;
  const worker = async () => {
    while (next < total && performance.now() < stopAt) {
      const i = next++;
      const s = performance.now();
      const r = await deposit(base, token, i);
      samples.push({ ...r.t, total: performance.now() - s });
      lastId = r.id;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(total, 1)) }, worker));
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuDelta(cpu0, cpuSnapshot(cpuTargets));
  const cpuPerRecord = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, samples.length ? v / samples.length : 0]));
  const steps = {} as PhaseResult['steps'];
  for (const k of [...STEPS, 'total'] as const) {
    const v = samples.map((x) => x[k]).sort((a, b) => a - b);
    steps[k] = { p50: pct(v, 50), p99: pct(v, 99) };
  }
  if (samples.length < total) say(`  (${name}: time limit of ${PHASE_SECONDS} s reached after ${samples.length}/${total} records)`);
  return { name, records: samples.length, seconds, rate: samples.length / seconds, steps, load: load(), lastId, cpuPerRecord };
}

function printPhase(r: PhaseResult): void {
  say(
    `\n(a) ${r.name}: ${r.records} records in ${r.seconds.toFixed(1)} s = ${r.rate.toFixed(1)} records/s (aim ≥ ${RATE_AIM}: ${r.rate >= RATE_AIM ? 'met' : 'NOT met'}; load ${r.load})`,
  );
  say(`    ${'step'.padEnd(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
  for (const k of [...STEPS, 'total'] as const) {
    say(`    ${k.padEnd(9)} ${r.steps[k].p50.toFixed(1).padStart(8)} ${r.steps[k].p99.toFixed(1).padStart(8)}`);
  }
  const total = Object.values(r.cpuPerRecord).reduce((a, b) => a + b, 0);
  say(
    `    CPU ms per record: ${Object.entries(r.cpuPerRecord)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ')}; total ${total.toFixed(1)} (2 cores: ≤ ${(2000 / Math.max(total, 1)).toFixed(0)} records/s at best)`,
  );
}

// ─── (a') where the milliseconds of one deposit go ────────────────────────────────────────────

/** Ports whose /metrics are read (gateway and services), and the NATS monitor (null: not counted). */
let metricPorts: Record<string, number> = {};
let natsMonitor: string | null = null;

/** Per process: seconds inside HTTP handlers (routes summed; /metrics and health excluded) and SQL statements, from its /metrics. */
async function serviceCounters(): Promise<{ handler: Record<string, number>; statements: Record<string, number> }> {
  const handler: Record<string, number> = {};
  const statements: Record<string, number> = {};
  await Promise.all(
    Object.entries(metricPorts).map(async ([name, port]) => {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) });
        let sum = 0;
        for (const line of (await r.text()).split('\n')) {
          const value = () => Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
          if (line.startsWith('db_statements_total')) statements[name] = value();
          if (!line.startsWith('http_request_duration_seconds_sum{') || line.includes('route="unmatched"')) continue;
          sum += value();
        }
        handler[name] = sum;
      } catch {
        /* no metrics: not counted */
      }
    }),
  );
  return { handler, statements };
}

/** Messages the NATS server received so far (RPC requests and replies, JetStream publishes, acks, pulls). */
async function natsInMsgs(): Promise<number | null> {
  if (!natsMonitor) return null;
  try {
    const r = await fetch(`${natsMonitor}/varz`, { signal: AbortSignal.timeout(2000) });
    return Number(((await r.json()) as { in_msgs?: number }).in_msgs ?? 0);
  } catch {
    return null;
  }
}

interface Probe {
  at: number;
  cpu: CpuSnapshot;
  handler: Record<string, number>;
  statements: Record<string, number>;
  nats: number | null;
}

async function probe(): Promise<Probe> {
  const [counters, nats] = await Promise.all([serviceCounters(), natsInMsgs()]);
  return { at: performance.now(), cpu: cpuSnapshot(cpuTargets), ...counters, nats };
}

/** Statements sent per process between two probes. */
const statementsBetween = (a: Probe, b: Probe): Record<string, number> =>
  Object.fromEntries(Object.entries(b.statements).map(([k, v]) => [k, v - (a.statements[k] ?? v)]));

/** What one step cost, background (the idle rate over the same time) subtracted. */
interface StepCost {
  clientMs: number;
  handlerMs: Record<string, number>;
  /** SQL statements per process (BEGIN/COMMIT included; the platform's db_statements_total). */
  statements: Record<string, number>;
  natsMsgs: number;
  cpuMs: Record<string, number>;
}

interface Breakdown {
  deposits: number;
  steps: Record<Step, StepCost>;
  /** CPU ms (all processes) and wall ms of one null step. */
  nullStepCpuMs: number;
  nullStepMs: number;
}

/**
 * BENCH_TRACED deposits one at a time, each step followed by BENCH_SETTLE_MS of quiet so that
 * the work it set off (outbox relay, event consumers, their RPCs) is charged to it; the idle
 * rate of each figure (relay polls, pull requests), measured first over 2 s, is subtracted.
 */
async function breakdown(base: string, token: string, n: number): Promise<Breakdown> {
  // Null steps: the same probes and the same quiet without a request; their mean cost per
  // process (the probes' own /metrics renderings, relay polls, pulls) is what a step's is net of.
  const NULL_STEPS = 10;
  const idleCpu: Record<string, number> = {};
  const idleStatements: Record<string, number> = {};
  let idleNats = 0;
  let idleMs = 0;
  for (let i = 0; i < NULL_STEPS; i++) {
    const a = await probe();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const b = await probe();
    idleMs += b.at - a.at;
    if (a.nats !== null && b.nats !== null) idleNats += (b.nats - a.nats) / NULL_STEPS;
    for (const [k, v] of Object.entries(cpuDelta(a.cpu, b.cpu))) idleCpu[k] = (idleCpu[k] ?? 0) + v / NULL_STEPS;
    for (const [k, v] of Object.entries(statementsBetween(a, b))) idleStatements[k] = (idleStatements[k] ?? 0) + v / NULL_STEPS;
  }
  const acc = Object.fromEntries(
    STEPS.map((s) => [s, { clientMs: 0, handlerMs: {}, statements: {}, natsMsgs: 0, cpuMs: {} } as StepCost]),
  ) as Record<Step, StepCost>;
  const add = (into: Record<string, number>, k: string, v: number) => {
    into[k] = (into[k] ?? 0) + v;
  };
  for (let i = 0; i < n; i++) {
    let before = await probe();
    const settle = async (step: Step, clientMs: number) => {
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const after = await probe();
      const c = acc[step];
      c.clientMs += clientMs;
      for (const [k, v] of Object.entries(after.handler)) add(c.handlerMs, k, (v - (before.handler[k] ?? v)) * 1000);
      for (const [k, v] of Object.entries(statementsBetween(before, after))) add(c.statements, k, v - (idleStatements[k] ?? 0));
      if (after.nats !== null && before.nats !== null) c.natsMsgs += after.nats - before.nats - idleNats;
      for (const [k, v] of Object.entries(cpuDelta(before.cpu, after.cpu))) {
        // The bench client's own probing is not the deposit's cost.
        if (k !== 'bench client') add(c.cpuMs, k, v - (idleCpu[k] ?? 0));
      }
      before = await probe();
    };
    const timed = async <T>(step: Step, f: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      const out = await f();
      await settle(step, performance.now() - t0);
      return out;
    };
    const created = await timed('create', () => call(base, 'POST', '/api/records', { token, json: body(1_000_000 + i) }));
    expect('create draft', created, 201);
    const draft = `/api/records/${created.body.id}/draft`;
    expect('init file', await timed('init', () => call(base, 'POST', `${draft}/files`, { token, json: [{ key: 'data.csv' }] })), 201);
    expect('upload', await timed('upload', () => call(base, 'PUT', `${draft}/files/data.csv/content`, { token, raw: FILE })), 200);
    expect('commit', await timed('commit', () => call(base, 'POST', `${draft}/files/data.csv/commit`, { token })), 200);
    expect('publish', await timed('publish', () => call(base, 'POST', `${draft}/actions/publish`, { token })), 202);
  }
  const per = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.max(0, v / n)]));
  const steps = Object.fromEntries(
    STEPS.map((s) => [
      s,
      {
        clientMs: acc[s].clientMs / n,
        handlerMs: per(acc[s].handlerMs),
        statements: per(acc[s].statements),
        natsMsgs: Math.max(0, acc[s].natsMsgs / n),
        cpuMs: per(acc[s].cpuMs),
      },
    ]),
  ) as Record<Step, StepCost>;
  const idleTotal = Object.entries(idleCpu)
    .filter(([k]) => k !== 'bench client')
    .reduce((a, [, v]) => a + v, 0);
  return { deposits: n, steps, nullStepCpuMs: idleTotal, nullStepMs: idleMs / NULL_STEPS };
}

function printBreakdown(b: Breakdown): void {
  const procs = [...new Set(STEPS.flatMap((s) => Object.keys(b.steps[s].cpuMs)))];
  const handlers = [...new Set(STEPS.flatMap((s) => Object.keys(b.steps[s].handlerMs)))].filter((h) =>
    STEPS.some((s) => (b.steps[s].handlerMs[h] ?? 0) > 0.05),
  );
  say(
    `\n(a') where one deposit goes: ${b.deposits} deposits one at a time, ${SETTLE_MS} ms of quiet after each step (what a step sets off counts to it), net of a null step (probes and quiet alone: ${b.nullStepCpuMs.toFixed(1)} CPU ms in ${b.nullStepMs.toFixed(0)} ms); means per deposit`,
  );
  say(
    `    ${'step'.padEnd(8)} ${'client ms'.padStart(9)} │ handler ms: ${handlers.map((h) => h.padStart(8)).join(' ')} │ ${'NATS msgs'.padStart(9)} │ CPU ms: ${procs.map((p) => p.padStart(8)).join(' ')} ${'total'.padStart(7)}`,
  );
  const tot = { client: 0, nats: 0, cpu: {} as Record<string, number>, handler: {} as Record<string, number> };
  for (const s of STEPS) {
    const c = b.steps[s];
    const cpuTotal = Object.values(c.cpuMs).reduce((a, v) => a + v, 0);
    tot.client += c.clientMs;
    tot.nats += c.natsMsgs;
    for (const p of procs) tot.cpu[p] = (tot.cpu[p] ?? 0) + (c.cpuMs[p] ?? 0);
    for (const h of handlers) tot.handler[h] = (tot.handler[h] ?? 0) + (c.handlerMs[h] ?? 0);
    say(
      `    ${s.padEnd(8)} ${c.clientMs.toFixed(1).padStart(9)} │             ${handlers.map((h) => (c.handlerMs[h] ?? 0).toFixed(1).padStart(8)).join(' ')} │ ${c.natsMsgs.toFixed(1).padStart(9)} │         ${procs.map((p) => (c.cpuMs[p] ?? 0).toFixed(1).padStart(8)).join(' ')} ${cpuTotal.toFixed(1).padStart(7)}`,
    );
  }
  const cpuAll = Object.values(tot.cpu).reduce((a, v) => a + v, 0);
  say(
    `    ${'deposit'.padEnd(8)} ${tot.client.toFixed(1).padStart(9)} │             ${handlers.map((h) => tot.handler[h].toFixed(1).padStart(8)).join(' ')} │ ${tot.nats.toFixed(1).padStart(9)} │         ${procs.map((p) => tot.cpu[p].toFixed(1).padStart(8)).join(' ')} ${cpuAll.toFixed(1).padStart(7)}`,
  );
  const dbProcs = [...new Set(STEPS.flatMap((s) => Object.keys(b.steps[s].statements)))].filter((p) =>
    STEPS.some((s) => (b.steps[s].statements[p] ?? 0) >= 0.05),
  );
  say(
    `    SQL statements (BEGIN/COMMIT included): ${'step'.padEnd(8)} ${dbProcs.map((p) => p.padStart(11)).join(' ')} ${'total'.padStart(7)}`,
  );
  const dbTot: Record<string, number> = {};
  for (const s of [...STEPS, 'deposit'] as const) {
    const row = s === 'deposit' ? dbTot : b.steps[s].statements;
    if (s !== 'deposit') for (const p of dbProcs) dbTot[p] = (dbTot[p] ?? 0) + (row[p] ?? 0);
    const total = dbProcs.reduce((a, p) => a + (row[p] ?? 0), 0);
    say(
      `                                            ${s.padEnd(8)} ${dbProcs.map((p) => (row[p] ?? 0).toFixed(1).padStart(11)).join(' ')} ${total.toFixed(1).padStart(7)}`,
    );
  }
  say(
    "    (handler ms: time inside each process's HTTP handlers, its /metrics histogram; gateway minus the service = the hop. CPU at 10 ms ticks: means over many deposits.)",
  );
}

// ─── (c) reads ────────────────────────────────────────────────────────────────────────────────

interface ReadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
  load: string;
  /** CPU µs per request, per process. */
  cpuPerRequestUs: Record<string, number>;
}

async function reads(url: string): Promise<ReadResult> {
  await autocannon({ url, connections: CONNECTIONS, duration: 2 }); // warm-up
  const cpu0 = cpuSnapshot(cpuTargets);
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  const cpu = cpuDelta(cpu0, cpuSnapshot(cpuTargets));
  return {
    cpuPerRequestUs: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, r.requests.total ? (v * 1000) / r.requests.total : 0])),
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    bad: r.non2xx + r.errors + r.timeouts,
    load: load(),
  };
}

// ─── stack ────────────────────────────────────────────────────────────────────────────────────

async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(1500) });
    await r.arrayBuffer();
    return r.status === 200;
  } catch {
    return false;
  }
}

function assertLoopback(url: string): string {
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname))
    throw new Error(`BENCH_BASE_URL must be a loopback address (got ${u.hostname})`);
  return `${u.protocol}//${u.host}`;
}

function portOpen(port: number): Promise<boolean> {
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

type PgClient = { connect(): Promise<void>; query(sql: string): Promise<unknown>; end(): Promise<void> };

/** Drop and create the bench database (pg borrowed from the platform package); returns its URL. */
async function freshDatabase(name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`BENCH_DATABASE_NAME '${name}' must be a plain identifier`);
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

/** A private JetStream nats-server with an empty store, or null (then the shared one is used). */
async function privateNats(): Promise<{ url: string; monitor: string; child: ChildProcess } | null> {
  const bin = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p));
  if (!bin) return null;
  if (await portOpen(NATS_PORT)) throw new Error(`BENCH_NATS_PORT ${NATS_PORT} is in use; set BENCH_NATS_PORT to a free port`);
  const store = join(DATA, 'bench-nats');
  rmSync(store, { recursive: true, force: true });
  // -m: the monitoring port, whose /varz message counts the breakdown reads.
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(NATS_PORT), '-m', String(NATS_MONITOR_PORT), '-js', '-sd', store], {
    stdio: 'ignore',
    detached: true,
  });
  const deadline = Date.now() + 15_000;
  while (!(await portOpen(NATS_PORT))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('private nats-server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `nats://127.0.0.1:${NATS_PORT}`, monitor: `http://127.0.0.1:${NATS_MONITOR_PORT}`, child };
}

async function userToken(databaseUrl: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    'pnpm',
    ['--silent', '--filter', '@rdm/users', 'exec', 'tsx', 'src/cli.ts', 'create-user', '--email', EMAIL],
    { cwd: REPO_ROOT, env: { ...env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, timeout: 120_000, maxBuffer: 4 * 1024 * 1024 },
  );
  const last = stdout.trim().split('\n').pop() ?? '';
  const parsed = JSON.parse(last) as { token?: string };
  if (!parsed.token) throw new Error(`users CLI printed no token: ${last}`);
  return parsed.token;
}

// ─── main ─────────────────────────────────────────────────────────────────────────────────────

let stack: Stack | null = null;
let nats: ChildProcess | null = null;
async function cleanup(): Promise<void> {
  agent.destroy();
  if (stack) await stack.stop().catch(() => undefined);
  stack = null;
  if (nats?.pid) await terminate(nats.pid, 5000).catch(() => undefined);
  nats = null;
}
// SIGTERM too: `make bench` (run-all.ts) stops a bench that runs too long with it.
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void cleanup().finally(() => process.exit(130)));
const deadline = setTimeout(
  () => {
    console.error('records bench: global time limit reached; stopping');
    void cleanup().finally(() => process.exit(1));
  },
  (PHASE_SECONDS * 2 + SECONDS + 360) * 1000,
);
deadline.unref();

let exitCode = 0;
try {
  let base = assertLoopback(env.BENCH_BASE_URL ?? 'http://127.0.0.1:5000');
  let databaseUrl = ADMIN_URL;
  if (await answers(`${base}/readyz`)) {
    say(`records bench: using the stack at ${base} (DATABASE_URL for the users CLI: its database)`);
  } else {
    const ports: Record<string, number> = { [GATEWAY]: PORT_BASE };
    SERVICES.forEach((n, i) => {
      ports[n] = PORT_BASE + 1 + i;
    });
    const busy = [];
    for (const [n, p] of Object.entries(ports)) if (await portOpen(p)) busy.push(`${n}:${p}`);
    if (busy.length) throw new Error(`bench ports in use (${busy.join(', ')}); set BENCH_PORT_BASE`);
    base = `http://127.0.0.1:${PORT_BASE}`;
    const t = Date.now();
    databaseUrl = await freshDatabase(DB_NAME);
    const n = await privateNats();
    nats = n?.child ?? null;
    natsMonitor = n?.monitor ?? null;
    metricPorts = { ...ports };
    const filesDir = join(DATA, 'bench-records-files');
    rmSync(filesDir, { recursive: true, force: true });
    const logDir = join(DATA, 'bench-logs', 'records');
    rmSync(logDir, { recursive: true, force: true });
    mkdirSync(logDir, { recursive: true });
    say(
      `records bench: nothing answers ${env.BENCH_BASE_URL ?? 'http://127.0.0.1:5000'}; starting a stack on ${base} (database ${DB_NAME}, nats ${n?.url ?? 'shared'}, logs ${logDir})…`,
    );
    if (RUNTIME === 'dist') {
      // The production build is what runs (as `make up` does): rebuild what is older than its sources.
      for (const svc of BUILD_SERVICES) if (isStale(svc)) await buildService(svc, join(REPO_ROOT, 'dist'));
    }
    stack = await startStack({
      ports,
      runtime: RUNTIME,
      ...(CPU_PROF ? { nodeArgs: (svc: string) => ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, svc)}`] } : {}),
      env: {
        DATABASE_URL: databaseUrl,
        ...(n ? { NATS_URL: n.url } : {}),
        PUBLIC_BASE_URL: base,
        LOG_LEVEL,
        RATE_LIMIT_ENABLED: 'false',
        FILES_STORAGE_PATH: filesDir,
      },
      restart: false,
      strict: true,
      logDir,
      readyTimeoutMs: 180_000,
      say: (l) => console.error(`[stack] ${l}`),
    });
    say(`records bench: stack ready in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  if (stack) {
    const procs: Record<string, number> = {};
    for (const [n, pid] of Object.entries(stack.pids())) if (pid) procs[n] = pid;
    if (nats?.pid) procs.nats = nats.pid;
    cpuTargets = { procs, database: DB_NAME };
  } else {
    const procs: Record<string, number> = {};
    const gw = pidOfPort(Number(new URL(base).port || 80));
    if (gw) procs.gateway = gw;
    for (const n of SERVICES) {
      const pid = pidOfPort(Number(env[`${n.toUpperCase()}_PORT`] ?? DEFAULT_PORTS[n]));
      if (pid) procs[n] = pid;
    }
    cpuTargets = { procs, database: new URL(databaseUrl).pathname.slice(1) || null };
    metricPorts = { [GATEWAY]: Number(new URL(base).port || 80) };
    for (const n of SERVICES) metricPorts[n] = Number(env[`${n.toUpperCase()}_PORT`] ?? DEFAULT_PORTS[n]);
  }
  const token = await userToken(databaseUrl);
  say(
    `records bench: warm-up ${WARMUP}, sequential ${SEQ_RECORDS}, concurrent ${RECORDS} × ${CONCURRENCY} depositors (≤ ${PHASE_SECONDS} s each); GET ${CONNECTIONS} connections × ${SECONDS} s; load ${load()}`,
  );
  const doA = PARTS.includes('a');
  if (WARMUP > 0) await phase('warm-up', base, token, WARMUP, Math.min(CONCURRENCY, 4));
  const results: PhaseResult[] = [];
  if (doA && SEQ_RECORDS > 0) results.push(await phase('sequential', base, token, SEQ_RECORDS, 1));
  if (doA && RECORDS > 0) results.push(await phase(`${CONCURRENCY} concurrent depositors`, base, token, RECORDS, CONCURRENCY));
  for (const r of results) printPhase(r);
  const bd = doA && TRACED > 0 ? await breakdown(base, token, TRACED) : undefined;
  if (bd) printBreakdown(bd);

  let rd: ReadResult | undefined;
  if (PARTS.includes('c')) {
    const target = results.at(-1)?.lastId || (await deposit(base, token, 0)).id;
    const rec = await call(base, 'GET', `/api/records/${target}`);
    expect('GET record', rec, 200);
    const readUrl = `${base}/api/records/${target}`;
    rd = await reads(readUrl);
    say(
      `\n(c) GET /api/records/<id> (anonymous, ${Buffer.byteLength(JSON.stringify(rec.body))} bytes), ${CONNECTIONS} connections, ${SECONDS} s:`,
    );
    say(
      `    ${rd.rps} req/s, p50 ${rd.p50.toFixed(1)} ms, p99 ${rd.p99.toFixed(1)} ms (aim ≤ ${P99_AIM_MS}: ${rd.p99 <= P99_AIM_MS ? 'met' : 'NOT met'}), ${rd.requests} requests, ${rd.bad} bad; load ${rd.load}`,
    );
    const cpuTotal = Object.values(rd.cpuPerRequestUs).reduce((a, b) => a + b, 0);
    say(
      `    CPU µs per request: ${Object.entries(rd.cpuPerRequestUs)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(', ')}; total ${cpuTotal.toFixed(0)} (2 cores: ≤ ${(2e6 / Math.max(cpuTotal, 1)).toFixed(0)} req/s at best)`,
    );
    if (rd.bad > rd.requests * 0.01) {
      console.error('records bench: more than 1 % of the reads failed (rate limiting on?)');
      exitCode = 1;
    }
  }

  const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
  say('\n=== records bench summary ===');
  for (const r of results) {
    say(
      `  (a) ${r.name.padEnd(22)} ${r.rate.toFixed(1).padStart(6)} records/s (aim ≥ ${RATE_AIM}: ${r.rate >= RATE_AIM ? 'met' : 'NOT met'}), CPU ${sum(r.cpuPerRecord).toFixed(1)} ms/record; p50/p99 ms: ${STEPS.map((s) => `${s} ${r.steps[s].p50.toFixed(0)}/${r.steps[s].p99.toFixed(0)}`).join(', ')} (load ${r.load})`,
    );
  }
  if (bd) {
    const cpuOf = (c: { cpuMs: Record<string, number> }) => Object.values(c.cpuMs).reduce((a, v) => a + v, 0);
    say(
      `  (a') one deposit, step by step (ms / CPU ms / SQL statements / NATS msgs): ${STEPS.map((s) => `${s} ${bd.steps[s].clientMs.toFixed(1)}/${cpuOf(bd.steps[s]).toFixed(1)}/${sum(bd.steps[s].statements).toFixed(0)}/${bd.steps[s].natsMsgs.toFixed(0)}`).join(', ')}; CPU by process: ${Object.entries(
        STEPS.reduce<Record<string, number>>((o, s) => {
          for (const [k, v] of Object.entries(bd.steps[s].cpuMs)) o[k] = (o[k] ?? 0) + v;
          return o;
        }, {}),
      )
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')}`,
    );
  }
  if (rd)
    say(
      `  (c) GET record, ${CONNECTIONS} conns  ${String(rd.rps).padStart(6)} req/s, p50 ${rd.p50.toFixed(1)} ms, p99 ${rd.p99.toFixed(1)} ms (aim ≤ ${P99_AIM_MS}: ${rd.p99 <= P99_AIM_MS ? 'met' : 'NOT met'}), CPU ${sum(rd.cpuPerRequestUs).toFixed(0)} µs/request (load ${rd.load})`,
    );
  say(
    JSON.stringify({
      bench: 'records',
      deposits: results.map((r) => ({
        phase: r.name,
        records: r.records,
        recordsPerSecond: +r.rate.toFixed(1),
        steps: Object.fromEntries(Object.entries(r.steps).map(([k, v]) => [k, { p50: +v.p50.toFixed(1), p99: +v.p99.toFixed(1) }])),
        load1: +r.load,
        cpuMsPerRecord: Object.fromEntries(Object.entries(r.cpuPerRecord).map(([k, v]) => [k, +v.toFixed(2)])),
      })),
      breakdown: bd ?? null,
      read: rd ? { connections: CONNECTIONS, seconds: SECONDS, ...rd, load1: +rd.load } : null,
      aims: { recordsPerSecond: RATE_AIM, readP99Ms: P99_AIM_MS },
    }),
  );
} catch (err) {
  console.error(`records bench failed: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
