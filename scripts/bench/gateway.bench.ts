/**
 * Benchmark: what the gateway costs, against a bare koa handler on the same machine, in one run
 * (issue 14, the first two figures).
 *
 *   pnpm exec tsx scripts/bench/gateway.bench.ts        (or `make bench`)
 *
 * (a) the same JSON body (a vocabulary entry, 436 bytes) from a bare koa handler, once straight and
 *     once through the gateway in front of it: ratio gateway / bare, aim ≥ 0.40.
 * (b) `GET /api/records/<id>` of a published public record through the gateway (the real records
 *     service behind it) against the bare koa handler answering the same record body: ratio,
 *     aim ≥ 0.25.
 * Every run: BENCH_CONNECTIONS (50) connections for BENCH_SECONDS (10) after a 2 s warm-up;
 * BENCH_ROUNDS (2) rounds in ABBA order per figure (bare, gateway, gateway, bare, …: the machine
 * is shared, and a drift of its load weighs on both alike); the ratio is taken of the totals.
 * Printed with each run: requests/s, p50/p99, the 1-minute load, and the CPU time per request of
 * each process (gateway, bare koa, records, the private nats-server, the PostgreSQL backends of
 * the bench database, this client), which others' load disturbs far less than throughput.
 *
 * What runs: the production build (`dist/`, rebuilt here when a source is newer, as `make up`
 * does) with plain node: a private stack (`startStack`, runtime `dist`) on BENCH_PORT_BASE (5960)
 * with a fresh database rdm_bench_gateway and a private nats-server on BENCH_NATS_PORT (4241),
 * used to publish the record; the measured gateway is one more `dist/gateway/main.js` on
 * the first port after the stack's (BENCH_PORT_BASE + 1 + the number of services), with VOCABULARIES_URL at the bare handler and RECORDS_URL at the stack's
 * records, configured as in production (rate limits on in the shared NATS store, limits and the
 * per-client cap on requests in flight raised so nothing is refused; LOG_LEVEL BENCH_GATEWAY_LOG_LEVEL, default `warn`: quiet). The bare koa
 * handler is plain node (no tsx) on the port after it. `BENCH_CPU_PROF=<dir>` runs the measured
 * gateway with `--cpu-prof` into that directory (summarise with
 * `services/gateway/bench/cpu-profile-summary.ts`), and the stack's records service too (into
 * `<dir>/records`: the service (b) measures behind the gateway). `BENCH_BASELINE_GATEWAY=<…/gateway/main.js>` (another
 * build, e.g. of an older commit) starts that one too, configured alike on the next port, and
 * measures it in the same rounds (bare, gateway, baseline, baseline, gateway, bare, …): a
 * before/after taken under the same machine load. `BENCH_BASELINE_RECORDS=<…/records/main.js>` (another
 * records build) starts that one too on the port after that, a second replica on the stack's
 * database, NATS and environment, and puts the baseline gateway (BENCH_BASELINE_GATEWAY, else this
 * build's gateway) in front of it: (b)'s before/after of a records change. BENCH_PARTS (`a,b`) picks the figures; `a` alone
 * needs no stack (only the private nats-server). Everything started is stopped at the end.
 * Prints numbers only; exit 1 when more than 1 % of the requests fail.
 * Ends with a `=== gateway bench summary ===` block.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { BUILD_SERVICES, buildService, isStale } from '../build.js';
import { GATEWAY, REPO_ROOT, SERVICES, type Stack, startStack, terminate, waitHttpOk } from '../up.js';
import { call, expectStatus, portOpen } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const SECONDS = num('BENCH_SECONDS', 10, 1, 120);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50, 1, 500);
const ROUNDS = num('BENCH_ROUNDS', 2, 1, 20);
const PORT_BASE = num('BENCH_PORT_BASE', 5960, 1024, 65000);
const NATS_PORT = num('BENCH_NATS_PORT', 4241, 1024, 65535);
const DB_NAME = 'rdm_bench_gateway';
/** The identity secret of the bench stack and of the measured gateways (not the public development one). */
const BENCH_IDENTITY_SECRET = 'bench-identity-secret-0123456789-gateway';
// Why after the stack's ports (gateway, then one per service): a fixed offset collided with them once webhooks was added.
const FIRST_FREE_PORT = PORT_BASE + 1 + SERVICES.length;
const GW_PORT = FIRST_FREE_PORT;
const BARE_PORT = FIRST_FREE_PORT + 1;
const BASE_PORT = FIRST_FREE_PORT + 2;
const BASELINE_RECORDS = env.BENCH_BASELINE_RECORDS;
const BASE_RECORDS_PORT = FIRST_FREE_PORT + 3;
// A baseline records build is measured behind a baseline gateway (this build's when none is given).
const BASELINE = env.BENCH_BASELINE_GATEWAY ?? (BASELINE_RECORDS ? join(REPO_ROOT, 'dist', 'gateway', 'main.js') : undefined);
const GW_LOG_LEVEL = env.BENCH_GATEWAY_LOG_LEVEL ?? 'warn';
const CPU_PROF = env.BENCH_CPU_PROF;
const PARTS = (env.BENCH_PARTS ?? 'a,b').split(',').map((s) => s.trim());
const AIM_A = 0.4;
const AIM_B = 0.25;
const ADMIN_URL = env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
const DATA = join(REPO_ROOT, '.data');
const VOCAB_PATH = '/api/vocabularies/resourcetypes/image-photo';

const load = () => loadavg()[0].toFixed(2);
const say = (l: string) => console.log(l);

// ─── CPU time per process ─────────────────────────────────────────────────────────────────────

/** utime + stime of a process in ms (null when it is gone). */
function cpuMsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** PostgreSQL backends serving database `db` (their title is `postgres: <user> <db> …`). */
function pgBackends(db: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres: ') && cmd.split('\0')[0].split(' ').slice(1).includes(db)) out.push(Number(pid));
    } catch {
      /* gone */
    }
  }
  return out;
}

type CpuSnapshot = Map<string, Map<number, number>>;
let cpuProcs: Record<string, number> = {};

function cpuSnapshot(): CpuSnapshot {
  const snap: CpuSnapshot = new Map();
  for (const [name, pid] of Object.entries(cpuProcs)) {
    const ms = cpuMsOf(pid);
    if (ms !== null) snap.set(name, new Map([[pid, ms]]));
  }
  const m = new Map<number, number>();
  for (const pid of pgBackends(DB_NAME)) {
    const ms = cpuMsOf(pid);
    if (ms !== null) m.set(pid, ms);
  }
  snap.set('postgres', m);
  const self = process.cpuUsage();
  snap.set('client', new Map([[process.pid, (self.user + self.system) / 1000]]));
  return snap;
}

function cpuDelta(a: CpuSnapshot, b: CpuSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, after] of b) {
    const before = a.get(name) ?? new Map<number, number>();
    let sum = 0;
    for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
    if (sum > 0) out[name] = sum;
  }
  return out;
}

// ─── runs ─────────────────────────────────────────────────────────────────────────────────────

interface Run {
  rps: number;
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  bad: number;
  load: string;
  /** CPU µs per request, per process. */
  cpu: Record<string, number>;
}

async function measure(url: string): Promise<Run> {
  await autocannon({ url, connections: CONNECTIONS, duration: 2 });
  const c0 = cpuSnapshot();
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  const cpu = cpuDelta(c0, cpuSnapshot());
  const n = r.requests.total || 1;
  return {
    rps: Math.round(r.requests.average),
    requests: r.requests.total,
    seconds: SECONDS,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors + r.timeouts,
    load: load(),
    cpu: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, (v * 1000) / n])),
  };
}

const cpuLine = (cpu: Record<string, number>) => {
  const total = Object.values(cpu).reduce((a, b) => a + b, 0);
  return `CPU µs/request: ${Object.entries(cpu)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(', ')}; total ${total.toFixed(0)}`;
};
const runLine = (name: string, r: Run) =>
  `    ${name.padEnd(8)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  bad ${r.bad}  (load ${r.load})  ${cpuLine(r.cpu)}`;

interface Figure {
  label: string;
  aim: number;
  bare: Run[];
  gateway: Run[];
  ratio: number;
  /** The baseline gateway (BENCH_BASELINE_GATEWAY), when measured. */
  baseline: Run[];
  baselineRatio?: number;
}

/** ROUNDS rounds in ABBA order (ABCCBA with a baseline); the ratios of the totals. */
async function figure(label: string, aim: number, bareUrl: string, gwUrl: string, baseUrl?: string): Promise<Figure> {
  say(`\n${label}`);
  const runs: Record<'bare' | 'gateway' | 'baseline', Run[]> = { bare: [], gateway: [], baseline: [] };
  const order: ('bare' | 'gateway' | 'baseline')[] = baseUrl ? ['bare', 'gateway', 'baseline'] : ['bare', 'gateway'];
  const url = { bare: bareUrl, gateway: gwUrl, baseline: baseUrl ?? '' };
  for (let i = 0; i < ROUNDS; i++) {
    for (const which of i % 2 === 0 ? order : [...order].reverse()) {
      const r = await measure(url[which]);
      runs[which].push(r);
      say(runLine(which === 'bare' ? 'bare koa' : which, r));
    }
  }
  const total = (rs: Run[]) => rs.reduce((s, r) => s + r.requests, 0) / rs.reduce((s, r) => s + r.seconds, 0);
  return {
    label,
    aim,
    bare: runs.bare,
    gateway: runs.gateway,
    ratio: total(runs.gateway) / total(runs.bare),
    baseline: runs.baseline,
    baselineRatio: baseUrl ? total(runs.baseline) / total(runs.bare) : undefined,
  };
}

/** Mean CPU µs per request of each process over runs. */
function meanCpu(runs: Run[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.cpu)) out[k] = (out[k] ?? 0) + v / runs.length;
  return out;
}

// ─── processes ────────────────────────────────────────────────────────────────────────────────

/** The bare koa handler: plain node, the vocabulary entry and (once known) the record body. */
const BARE_SOURCE = `
import Koa from 'koa';
import { readFileSync } from 'node:fs';
const entry = ${JSON.stringify({
  id: 'image-photo',
  type: 'resourcetypes',
  title: { en: 'Photo', de: 'Foto' },
  props: { csl: 'graphic', datacite_general: 'Image', datacite_type: 'Photo', type: 'image', subtype: 'image-photo' },
  tags: ['depositable', 'linkable'],
  created: '2023-11-14T19:33:09.837080+00:00',
  updated: '2023-11-14T19:33:09.837080+00:00',
  revision_id: 1,
  links: { self: 'http://127.0.0.1:5000/api/vocabularies/resourcetypes/image-photo' },
})};
const record = process.env.BARE_RECORD_FILE ? JSON.parse(readFileSync(process.env.BARE_RECORD_FILE, 'utf8')) : null;
const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path.startsWith('/api/vocabularies/resourcetypes/')) ctx.body = entry;
  else if (record && ctx.path.startsWith('/api/records/')) ctx.body = record;
  else ctx.status = 404;
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
for (const sig of ['SIGTERM', 'SIGINT']) process.once(sig, () => process.exit(0));
`;

const children: ChildProcess[] = [];
let stack: Stack | null = null;
let nats: ChildProcess | null = null;

function startBare(recordFile: string): ChildProcess {
  // cwd services/gateway: koa resolves from there.
  const c = spawn(process.execPath, ['--input-type=module', '-e', BARE_SOURCE], {
    cwd: join(REPO_ROOT, 'services', 'gateway'),
    env: { ...env, PORT: String(BARE_PORT), BARE_RECORD_FILE: recordFile },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(c);
  return c;
}

function startGateway(main: string, port: number, natsUrl: string, recordsUrl: string | undefined, logFile: string): ChildProcess {
  const args: string[] = [];
  if (CPU_PROF) {
    const dir = join(CPU_PROF, port === GW_PORT ? 'gateway' : 'baseline');
    mkdirSync(dir, { recursive: true });
    args.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  args.push(main);
  const out = openSync(logFile, 'a');
  const c = spawn(process.execPath, args, {
    cwd: join(REPO_ROOT, 'services', 'gateway'),
    env: {
      ...env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      NATS_URL: natsUrl,
      IDENTITY_SECRET: BENCH_IDENTITY_SECRET,
      LOG_LEVEL: GW_LOG_LEVEL,
      VOCABULARIES_URL: `http://127.0.0.1:${BARE_PORT}`,
      ...(recordsUrl ? { RECORDS_URL: recordsUrl } : {}),
      RATE_LIMIT_ANONYMOUS: '1000000000',
      RATE_LIMIT_AUTHENTICATED: '1000000000',
      // Every bench connection is the same client: its cap on requests in flight is raised too.
      CLIENT_MAX_CONCURRENT: String(Math.max(64, 2 * CONNECTIONS)),
      OPENAPI_FETCH_ATTEMPTS: '1',
      READY_UPSTREAMS: recordsUrl ? 'records' : 'none',
    },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  children.push(c);
  return c;
}

/** Another records build (BENCH_BASELINE_RECORDS): a second replica with the stack's records environment. */
function startBaselineRecords(main: string, s: Stack, logFile: string): ChildProcess {
  const spec = s.specs.find((x) => x.name === 'records');
  if (!spec) throw new Error('the stack has no records service');
  const out = openSync(logFile, 'a');
  const c = spawn(process.execPath, [main], {
    cwd: spec.cwd,
    env: { ...env, ...spec.env, PORT: String(BASE_RECORDS_PORT) },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  children.push(c);
  return c;
}

type PgClient = { connect(): Promise<void>; query(sql: string): Promise<unknown>; end(): Promise<void> };

async function freshDatabase(): Promise<string> {
  const req = createRequire(join(REPO_ROOT, 'services', '_platform', 'package.json'));
  const pg = req('pg') as { Client: new (o: object) => PgClient };
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
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

/** Start the private nats-server (kept in `nats` for the cleanup); its URL and pid. */
async function privateNats(): Promise<{ url: string; pid: number | undefined }> {
  const bin = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p));
  if (!bin) throw new Error('nats-server not found (make infra installs it)');
  if (await portOpen(NATS_PORT)) throw new Error(`BENCH_NATS_PORT ${NATS_PORT} is in use; set another`);
  const store = join(DATA, 'bench-nats-gateway');
  rmSync(store, { recursive: true, force: true });
  nats = spawn(bin, ['-a', '127.0.0.1', '-p', String(NATS_PORT), '-js', '-sd', store], { stdio: 'ignore', detached: true });
  const child = nats;
  const deadline = Date.now() + 15_000;
  while (!(await portOpen(NATS_PORT))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('private nats-server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `nats://127.0.0.1:${NATS_PORT}`, pid: child.pid };
}

async function userToken(databaseUrl: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    'pnpm',
    ['--silent', '--filter', '@rdm/users', 'exec', 'tsx', 'src/cli.ts', 'create-user', '--email', 'gateway-bench@bench.test'],
    { cwd: REPO_ROOT, env: { ...env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, timeout: 120_000, maxBuffer: 4 * 1024 * 1024 },
  );
  const parsed = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { token?: string };
  if (!parsed.token) throw new Error('users CLI printed no token');
  return parsed.token;
}

async function publishedRecord(base: string, token: string): Promise<string> {
  const d = await call(base, 'POST', '/api/records', {
    token,
    json: {
      access: { record: 'public', files: 'public' },
      files: { enabled: false },
      metadata: {
        title: 'Gateway bench record',
        publication_date: '2024-01-01',
        resource_type: { id: 'dataset' },
        creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Gateway' } }],
      },
    },
  });
  expectStatus('create', d, 201);
  const id = d.body.id as string;
  expectStatus('publish', await call(base, 'POST', `/api/records/${id}/draft/actions/publish`, { token }), 202);
  for (let i = 0; i < 100; i++) {
    if ((await call(base, 'GET', `/api/records/${id}`)).status === 200) return id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`record ${id} never became readable`);
}

async function cleanup(): Promise<void> {
  for (const c of children) if (c.pid && c.exitCode === null) await terminate(c.pid, 5000).catch(() => undefined);
  children.length = 0;
  await stack?.stop().catch(() => undefined);
  stack = null;
  if (nats?.pid) await terminate(nats.pid, 5000).catch(() => undefined);
  nats = null;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void cleanup().finally(() => process.exit(130)));

// ─── main ─────────────────────────────────────────────────────────────────────────────────────

let code = 0;
try {
  const ports: Record<string, number> = { [GATEWAY]: PORT_BASE };
  SERVICES.forEach((n, i) => {
    ports[n] = PORT_BASE + 1 + i;
  });
  const busy: string[] = [];
  for (const [n, p] of Object.entries({
    ...ports,
    'bench gateway': GW_PORT,
    'bare koa': BARE_PORT,
    ...(BASELINE ? { baseline: BASE_PORT } : {}),
    ...(BASELINE_RECORDS ? { 'baseline records': BASE_RECORDS_PORT } : {}),
  }))
    if (await portOpen(p)) busy.push(`${n}:${p}`);
  if (busy.length) throw new Error(`bench ports in use (${busy.join(', ')}); set BENCH_PORT_BASE`);

  for (const svc of BUILD_SERVICES) {
    if (!isStale(svc)) continue;
    const t = Date.now();
    await buildService(svc, join(REPO_ROOT, 'dist'));
    say(`gateway bench: built dist/${svc} (${Date.now() - t} ms)`);
  }

  const { url: natsUrl, pid: natsPid } = await privateNats();
  const logDir = join(DATA, 'bench-logs', 'gateway');
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  const recordFile = join(logDir, 'record.json');
  let recordUrl = '';
  let recordBytes = 0;
  if (PARTS.includes('b')) {
    const t0 = Date.now();
    const databaseUrl = await freshDatabase();
    const filesDir = join(DATA, 'bench-gateway-files');
    rmSync(filesDir, { recursive: true, force: true });
    const base = `http://127.0.0.1:${PORT_BASE}`;
    say(`gateway bench: starting a stack (dist) on ${base} (database ${DB_NAME}, nats ${natsUrl}, logs ${logDir})…`);
    stack = await startStack({
      ports,
      runtime: 'dist',
      env: {
        DATABASE_URL: databaseUrl,
        NATS_URL: natsUrl,
        // The measured gateways sign with it: the stack's records must verify with the same one.
        IDENTITY_SECRET: BENCH_IDENTITY_SECRET,
        PUBLIC_BASE_URL: base,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_ENABLED: 'false',
        FILES_STORAGE_PATH: filesDir,
        // NODE_ENV=production refuses the development key: the stack's webhooks service needs its own.
        WEBHOOKS_SECRET_KEY: randomBytes(32).toString('hex'),
      },
      restart: false,
      strict: true,
      ...(CPU_PROF
        ? { nodeArgs: (svc: string) => (svc === 'records' ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, 'records')}`] : []) }
        : {}),
      logDir,
      readyTimeoutMs: 180_000,
      say: (l) => console.error(`[stack] ${l}`),
    });
    say(`gateway bench: stack ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const token = await userToken(databaseUrl);
    recordUrl = `/api/records/${await publishedRecord(base, token)}`;
    const rec = await call(base, 'GET', recordUrl);
    expectStatus('GET record', rec, 200);
    writeFileSync(recordFile, JSON.stringify(rec.body));
    recordBytes = Buffer.byteLength(JSON.stringify(rec.body));
  }

  const bare = startBare(recordUrl ? recordFile : '');
  const recordsUrl = stack ? `http://127.0.0.1:${ports.records}` : undefined;
  const gw = startGateway(join(REPO_ROOT, 'dist', 'gateway', 'main.js'), GW_PORT, natsUrl, recordsUrl, join(logDir, 'bench-gateway.log'));
  const baseRecords =
    BASELINE_RECORDS && stack ? startBaselineRecords(BASELINE_RECORDS, stack, join(logDir, 'baseline-records.log')) : undefined;
  const baseRecordsUrl = baseRecords ? `http://127.0.0.1:${BASE_RECORDS_PORT}` : recordsUrl;
  const base = BASELINE ? startGateway(BASELINE, BASE_PORT, natsUrl, baseRecordsUrl, join(logDir, 'baseline-gateway.log')) : undefined;
  if (baseRecords) await waitHttpOk(`${baseRecordsUrl}/readyz`, 60_000);
  await waitHttpOk(`http://127.0.0.1:${BARE_PORT}${VOCAB_PATH}`, 30_000);
  await waitHttpOk(`http://127.0.0.1:${GW_PORT}/readyz`, 60_000);
  if (base) await waitHttpOk(`http://127.0.0.1:${BASE_PORT}/readyz`, 60_000);
  cpuProcs = { gateway: gw.pid as number, 'bare koa': bare.pid as number };
  if (base) cpuProcs.baseline = base.pid as number;
  if (baseRecords) cpuProcs['baseline records'] = baseRecords.pid as number;
  const pids = stack?.pids() ?? {};
  if (pids.records) cpuProcs.records = pids.records;
  if (natsPid) cpuProcs.nats = natsPid;

  if (recordUrl) {
    // The measured gateway answers what the stack's gateway answers.
    expectStatus('GET record through the measured gateway', await call(`http://127.0.0.1:${GW_PORT}`, 'GET', recordUrl), 200);
  }
  say(
    `gateway bench: ${CONNECTIONS} connections, ${ROUNDS} × (bare, gateway) runs of ${SECONDS} s (2 s warm-up each), gateway LOG_LEVEL ${GW_LOG_LEVEL}, rate limits on (${env.RATE_LIMIT_STORE ?? 'nats'} store)${CPU_PROF ? `, --cpu-prof into ${CPU_PROF}` : ''}; load ${load()}`,
  );

  const figures: (readonly [string, Figure, string])[] = [];
  if (PARTS.includes('a')) {
    const a = await figure(
      `(a) GET ${VOCAB_PATH} (436 bytes): bare koa vs the gateway in front of it`,
      AIM_A,
      `http://127.0.0.1:${BARE_PORT}${VOCAB_PATH}`,
      `http://127.0.0.1:${GW_PORT}${VOCAB_PATH}`,
      base ? `http://127.0.0.1:${BASE_PORT}${VOCAB_PATH}` : undefined,
    );
    figures.push(['(a)', a, 'gateway vs bare koa, same body']);
  }
  if (recordUrl) {
    const b = await figure(
      `(b) GET /api/records/<id> (${recordBytes} bytes): bare koa with the same body vs the gateway + records service`,
      AIM_B,
      `http://127.0.0.1:${BARE_PORT}${recordUrl}`,
      `http://127.0.0.1:${GW_PORT}${recordUrl}`,
      base ? `http://127.0.0.1:${BASE_PORT}${recordUrl}` : undefined,
    );
    figures.push(['(b)', b, 'GET /api/records/<id> vs bare koa']);
  }

  const bad = figures
    .flatMap(([, f]) => [f])
    .flatMap((f) => [...f.bare, ...f.gateway])
    .reduce((s, r) => s + r.bad, 0);
  const all = figures
    .flatMap(([, f]) => [f])
    .flatMap((f) => [...f.bare, ...f.gateway])
    .reduce((s, r) => s + r.requests, 0);
  if (bad > all * 0.01) {
    console.error(`gateway bench: ${bad} of ${all} requests failed`);
    code = 1;
  }
  const rps = (runs: Run[]) => Math.round(runs.reduce((s, r) => s + r.requests, 0) / runs.reduce((s, r) => s + r.seconds, 0));
  const p99 = (runs: Run[]) => Math.max(...runs.map((r) => r.p99));
  say('\n=== gateway bench summary ===');
  for (const [tag, f, what] of figures) {
    say(
      `  ${tag} ${what}, ${CONNECTIONS} connections: ${rps(f.gateway)} vs ${rps(f.bare)} req/s = ${f.ratio.toFixed(2)} (aim ≥ ${f.aim}: ${f.ratio >= f.aim ? 'met' : 'NOT met'}); p99 ${p99(f.gateway)} vs ${p99(f.bare)} ms (load ${f.gateway.at(-1)?.load})`,
    );
    say(`      through the gateway: ${cpuLine(meanCpu(f.gateway))}`);
    say(`      bare koa:            ${cpuLine(meanCpu(f.bare))}`);
    if (f.baselineRatio !== undefined)
      say(
        `      baseline gateway (${BASELINE}${BASELINE_RECORDS ? `, records ${BASELINE_RECORDS}` : ''}): ${rps(f.baseline)} req/s = ${f.baselineRatio.toFixed(2)}, p99 ${p99(f.baseline)} ms; ${cpuLine(meanCpu(f.baseline))}`,
      );
  }
  say(
    JSON.stringify({
      bench: 'gateway',
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      figures: figures.map(([tag, f]) => ({
        figure: tag,
        ratio: +f.ratio.toFixed(3),
        aim: f.aim,
        bare: f.bare,
        gateway: f.gateway,
        ...(f.baselineRatio !== undefined ? { baselineRatio: +f.baselineRatio.toFixed(3), baseline: f.baseline } : {}),
      })),
    }),
  );
} catch (err) {
  console.error(`gateway bench failed: ${(err as Error).stack ?? err}`);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
