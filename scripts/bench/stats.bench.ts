/**
 * Benchmark: the cost of counting — `GET /api/records/<id>` requests/s with usage statistics on
 * vs off, same run, through the gateway (issue 9, §8 (b)).
 *
 *   pnpm exec tsx scripts/bench/stats.bench.ts        (or `make bench`)
 *
 * "On" is the records service as shipped (`STATS_ENABLED=true`): each read by a person publishes
 * `rdm.stats.record.viewed` to JetStream without waiting and gets its live `stats` spliced in;
 * the records consumer counts the events (inbox + COUNTER dedup, one transaction each) on the same
 * machine. "Off" is `STATS_ENABLED=false` (no event, no splice). Readers are BENCH_VISITORS (200)
 * distinct browser user agents (so they are people, not robots, and several visitors), cycled by
 * BENCH_CONNECTIONS (50) autocannon connections for BENCH_SECONDS (10) after a 2 s warm-up.
 * BENCH_ROUNDS (2) pairs of runs in ABBA order (on, off, off, on, …: the machine is shared, and a
 * drift of its load weighs on both alike); between them the records service alone is restarted with the other setting (its command line,
 * environment and working directory read from /proc; the gateway and the rest keep running), and
 * after an "on" run the bench waits until the view counter stops moving (the consumer drained the
 * backlog) so no counting spills into the next "off" run. Checks that "on" counted views and that
 * "off" shows zero `stats`. Prints requests/s, p50/p99 and the load of every run, the views
 * counted and the ratio off-to-on of the totals (on / off). Aim ≥ 90 %.
 *
 * Stack: always a private one (it restarts a service, so never someone else's stack): gateway on
 * BENCH_PORT_BASE (5820), services on +1…+6, fresh database rdm_bench_stats, private nats-server
 * on BENCH_NATS_PORT (4232), logs in .data/bench-logs/stats/ (restarted records: records-<n>.log);
 * everything is stopped at the end. Asserts nothing about speed; exit 1 when a request fails or a
 * check does not hold. Ends with a `=== stats bench summary ===` block.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { connectNats } from '../../services/_platform/src/nats.js';
import { REPO_ROOT, SERVICES, spawnService, terminate, waitHttpOk } from '../up.js';
import { benchTarget, call, cliUser, expectStatus, load, portOpen } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const SECONDS = num('BENCH_SECONDS', 10, 1, 120);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50, 1, 500);
const ROUNDS = num('BENCH_ROUNDS', 2, 1, 10);
const VISITORS = num('BENCH_VISITORS', 200, 1, 100_000);
const PORT_BASE = num('BENCH_PORT_BASE', 5820, 1024, 65000);
const AIM = 0.9;
const BOT_UA = 'rdm-bench-probe curl/8.0'; // a robot: its reads are never counted
const say = (l: string) => console.log(l);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** pid listening on 127.0.0.1:`port` (null when none or not ours to see). */
function pidOn(port: number): number | null {
  try {
    const m = /pid=(\d+)/.exec(execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' }));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Parent pid of `pid` (from /proc). */
function ppidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

const records = { port: PORT_BASE + 1 + SERVICES.indexOf('records'), restarts: 0, child: null as ChildProcess | null };

/**
 * Restart the records service of OUR private stack with `STATS_ENABLED=<on>`: same command line,
 * environment and working directory as the running one (read from /proc), which must be our child.
 */
async function restartRecords(on: boolean): Promise<void> {
  const pid = pidOn(records.port);
  if (!pid) throw new Error(`no records service on port ${records.port}`);
  if (ppidOf(pid) !== process.pid) throw new Error(`pid ${pid} on port ${records.port} is not a child of this bench; not touching it`);
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const environ = Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter((kv) => kv.includes('='))
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const cwd = readlinkSync(`/proc/${pid}/cwd`);
  await terminate(pid, 10_000);
  records.restarts += 1;
  const readyUrl = `http://127.0.0.1:${records.port}/readyz`;
  const child = spawnService(
    {
      name: 'records',
      cwd,
      command: argv[0]!,
      args: argv.slice(1),
      env: { ...environ, STATS_ENABLED: String(on) },
      port: records.port,
      readyUrl,
      logFile: join(REPO_ROOT, '.data', 'bench-logs', 'stats', `records-${records.restarts}.log`),
    },
    [],
    {},
  );
  records.child = child;
  await waitHttpOk(readyUrl, 120_000, () => child.exitCode === null);
}

/** The record as a robot reads it (never counted). */
async function probe(base: string, id: string): Promise<any> {
  const res = await fetch(`${base}/api/records/${id}`, { headers: { 'user-agent': BOT_UA } });
  const body = await res.json().catch(() => undefined);
  return { status: res.status, body };
}

/** Wait until the gateway reaches the (restarted) records service again. */
async function untilServed(base: string, id: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await probe(base, id)).status === 200) return;
    await sleep(250);
  }
  throw new Error(`GET /api/records/${id} not served after the records restart`);
}

/** NATS_URL of the running records service (its environment, from /proc). */
function recordsNatsUrl(): string {
  const pid = pidOn(records.port);
  if (!pid) throw new Error(`no records service on port ${records.port}`);
  const kv = readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find((e) => e.startsWith('NATS_URL='));
  return kv ? kv.slice('NATS_URL='.length) : 'nats://127.0.0.1:4222';
}

/**
 * Wait until the views consumer (`records-stats-views`) has nothing pending nor unacknowledged,
 * so no counting of an "on" run spills into the next run; returns the views then counted.
 */
async function drained(base: string, id: string): Promise<number> {
  const nats = await connectNats({ url: recordsNatsUrl(), name: 'stats-bench' });
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const info = await nats.jsm.consumers.info('STATS', 'records-stats-views');
      if (info.num_pending + info.num_ack_pending === 0) break;
      if (Date.now() > deadline) throw new Error(`the views consumer still has ${info.num_pending} events pending after 10 minutes`);
      await sleep(1000);
    }
  } finally {
    await nats.nc.close();
  }
  await sleep(2500); // the `stats` block is cached 2 s
  return Number((await probe(base, id)).body?.stats?.this_version?.views ?? 0);
}

/** Figures of one run. */
interface Run {
  rps: number;
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  bad: number;
  load: string;
}

async function measure(base: string, id: string): Promise<Run> {
  const requests = Array.from({ length: VISITORS }, (_, i) => ({
    method: 'GET' as const,
    path: `/api/records/${id}`,
    headers: { 'user-agent': `Mozilla/5.0 (X11; Linux x86_64; visitor ${i}) rdm-bench/1.0` },
  }));
  await autocannon({ url: base, connections: CONNECTIONS, duration: 2, requests });
  const started = Date.now();
  const r = await autocannon({ url: base, connections: CONNECTIONS, duration: SECONDS, requests });
  const seconds = (Date.now() - started) / 1000;
  return {
    rps: Math.round(r['2xx'] / seconds),
    requests: r['2xx'],
    seconds,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors + r.timeouts,
    load: load(),
  };
}

const line = (name: string, r: Run) =>
  `${name.padEnd(4)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.bad}  (load ${r.load})`;

if (await portOpen(PORT_BASE)) throw new Error(`port ${PORT_BASE} is in use: this bench needs its own stack; set BENCH_PORT_BASE`);
// Why: benchTarget uses BENCH_BASE_URL's stack when it answers; pointing it at our own (not yet
// started) port makes it start a private one, the only kind whose records service we may restart.
env.BENCH_BASE_URL = `http://127.0.0.1:${PORT_BASE}`;
const target = await benchTarget(
  {
    name: 'stats',
    portBase: PORT_BASE,
    natsPort: num('BENCH_NATS_PORT', 4232, 1024, 65000),
    databaseName: 'rdm_bench_stats',
    env: { STATS_ENABLED: 'true' },
  },
  say,
);
let code = 0;
try {
  const { base } = target;
  const owner = await cliUser(target.databaseUrl, `stats-${Date.now().toString(36)}@bench.test`, { name: 'Stats Bench' });
  const d = await call(base, 'POST', '/api/records', {
    token: owner.token,
    json: {
      access: { record: 'public', files: 'public' },
      files: { enabled: false },
      metadata: {
        title: 'Statistics bench record',
        publication_date: '2024-01-01',
        resource_type: { id: 'dataset' },
        creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Stats' } }],
      },
    },
  });
  expectStatus('create', d, 201);
  const id = d.body.id as string;
  expectStatus('publish', await call(base, 'POST', `/api/records/${id}/draft/actions/publish`, { token: owner.token }), 202);
  await untilServed(base, id);
  say(
    `stats bench: record ${id}, ${CONNECTIONS} connections cycling ${VISITORS} visitors, ${ROUNDS} × (on, off) runs of ${SECONDS} s (2 s warm-up each)`,
  );
  const on: Run[] = [];
  const off: Run[] = [];
  let views = 0;
  let current = true;
  // ABBA order (on, off, off, on, …): a drift of the machine's load weighs on both alike.
  for (let i = 0; i < 2 * ROUNDS; i++) {
    const want = i % 4 === 0 || i % 4 === 3;
    if (want !== current) {
      if (current) {
        const t = Date.now();
        views = await drained(base, id);
        say(`     views counted so far: ${views} (views consumer drained in ${((Date.now() - t) / 1000).toFixed(1)} s, load ${load()})`);
      }
      await restartRecords(want);
      await untilServed(base, id);
      current = want;
    }
    const r = await measure(base, id);
    (want ? on : off).push(r);
    say(line(want ? 'on' : 'off', r));
    if (!want) {
      const zero = (await probe(base, id)).body?.stats?.all_versions?.views;
      if (zero !== 0) throw new Error(`with STATS_ENABLED=false the record shows views ${zero}, expected 0`);
    }
  }
  if (current) views = await drained(base, id);
  if (views <= 0) throw new Error('no view was counted with statistics on');
  const total = (runs: Run[]) => runs.reduce((s, r) => s + r.requests, 0) / runs.reduce((s, r) => s + r.seconds, 0);
  const bad = [...on, ...off].reduce((s, r) => s + r.bad, 0);
  const ratio = total(on) / total(off);
  const rounds = on.map((r, i) => `${((r.rps / off[i]!.rps) * 100).toFixed(1)} %`).join(', ');
  say('\n=== stats bench summary ===');
  say(
    `  (b) GET /api/records/<id>, ${CONNECTIONS} connections, ${VISITORS} visitors: statistics on ${Math.round(total(on))} req/s, off ${Math.round(total(off))} req/s; ${views} views counted`,
  );
  say(
    `      on / off = ${(ratio * 100).toFixed(1)} % (per round: ${rounds}) — aim ≥ ${AIM * 100} %: ${ratio >= AIM ? 'met' : 'NOT met'}; errors ${bad} (load ${load()})`,
  );
  say(JSON.stringify({ bench: 'stats', connections: CONNECTIONS, visitors: VISITORS, on, off, ratio, views }));
  if (bad > 0) code = 1;
} catch (err) {
  console.error(`stats bench failed: ${(err as Error).stack ?? err}`);
  code = 1;
} finally {
  if (records.child?.pid) await terminate(records.child.pid, 10_000).catch(() => undefined);
  await target.stop();
}
process.exit(code);
