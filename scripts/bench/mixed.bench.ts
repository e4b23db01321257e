/**
 * Benchmark: mixed traffic through the gateway — record read, file download, record search and an
 * authenticated read (the owner reading a restricted record) — with autocannon at
 * BENCH_CONNECTIONS (50) connections for BENCH_SECONDS (60; 10 s warm-up first), each connection
 * cycling through the four requests. Prints requests/s, p50/p99, the error count (non-2xx,
 * socket errors, timeouts) and every service's resident memory (RSS) sampled every
 * BENCH_SAMPLE_SECONDS (5): flat RSS over the run means no leak. Aim: 0 errors, RSS within 10 %
 * of its first sample after the warm-up.
 *
 *   pnpm exec tsx scripts/bench/mixed.bench.ts        (or `make bench`)
 *
 * Stack: BENCH_BASE_URL when it answers (rate limits off; DATABASE_URL its database, for the
 * users CLI; services found by their default ports), else a private one on BENCH_PORT_BASE (5880)
 * with database rdm_bench_mixed and a private nats-server on BENCH_NATS_PORT (4228). Processes are
 * found by the port they listen on (`ss -ltnp`). Asserts nothing about speed; exit 1 when a setup
 * request fails. Ends with a `=== mixed bench summary ===` block.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { SERVICES } from '../up.js';
import { benchTarget, call, cliUser, expectStatus, load } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const SECONDS = num('BENCH_SECONDS', 60, 5, 600);
const WARMUP = num('BENCH_WARMUP_SECONDS', 10, 0, 120);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50, 1, 500);
const SAMPLE = num('BENCH_SAMPLE_SECONDS', 5, 1, 60);
const PORT_BASE = num('BENCH_PORT_BASE', 5880, 1024, 65000);
const say = (l: string) => console.log(l);

const FILE = Buffer.from('time,temperature\n'.repeat(256));
const draftBody = (title: string, record: 'public' | 'restricted') => ({
  access: { record, files: record },
  files: { enabled: true },
  metadata: {
    title,
    publication_date: '2024-01-01',
    resource_type: { id: 'dataset' },
    creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Mixed' } }],
  },
});

/** Publish a record with one file; returns its id once it reads as published. */
async function published(base: string, token: string, title: string, record: 'public' | 'restricted'): Promise<string> {
  const d = await call(base, 'POST', '/api/records', { token, json: draftBody(title, record) });
  expectStatus('create', d, 201);
  const id = d.body.id as string;
  expectStatus('files', await call(base, 'POST', `/api/records/${id}/draft/files`, { token, json: [{ key: 'data.csv' }] }), 201);
  expectStatus('upload', await call(base, 'PUT', `/api/records/${id}/draft/files/data.csv/content`, { token, raw: FILE }), 200);
  expectStatus('commit', await call(base, 'POST', `/api/records/${id}/draft/files/data.csv/commit`, { token }), 200);
  expectStatus('publish', await call(base, 'POST', `/api/records/${id}/draft/actions/publish`, { token }), 202);
  for (let i = 0; i < 100; i++) {
    if ((await call(base, 'GET', `/api/records/${id}`, { token })).status === 200) return id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`record ${id} not readable after publish`);
}

/** pid listening on 127.0.0.1:`port` (null when none or not ours to see). */
function pidOf(port: number): number | null {
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    const m = /pid=(\d+)/.exec(out);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Resident memory of `pid` in MiB (NaN when it is gone). */
function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

const target = await benchTarget(
  { name: 'mixed', portBase: PORT_BASE, natsPort: num('BENCH_NATS_PORT', 4228, 1024, 65000), databaseName: 'rdm_bench_mixed' },
  say,
);
let code = 0;
try {
  const { base } = target;
  const gwPort = Number(new URL(base).port);
  const external = gwPort !== PORT_BASE;
  const ports: Record<string, number> = { gateway: gwPort };
  SERVICES.forEach((s, i) => {
    ports[s] = external ? 5101 + i : PORT_BASE + 1 + i;
  });
  const pids = Object.fromEntries(Object.entries(ports).map(([n, p]) => [n, pidOf(p)]));

  const owner = await cliUser(target.databaseUrl, `mixed-${Date.now().toString(36)}@bench.test`, { name: 'Mixed Bench' });
  const open = await published(base, owner.token, 'Mixed bench ocean temperatures', 'public');
  const closed = await published(base, owner.token, 'Mixed bench restricted sample', 'restricted');
  for (let i = 0; i < 8; i++) await published(base, owner.token, `Mixed bench ocean series ${i}`, 'public');
  const auth = { authorization: `Bearer ${owner.token}` };
  const requests = [
    { method: 'GET' as const, path: `/api/records/${open}` },
    { method: 'GET' as const, path: `/api/records/${open}/files/data.csv/content` },
    { method: 'GET' as const, path: '/api/records?q=ocean&size=10' },
    { method: 'GET' as const, path: `/api/records/${closed}`, headers: auth },
  ];
  say(
    `mixed bench: ${CONNECTIONS} connections, ${WARMUP} s warm-up then ${SECONDS} s; each connection cycles ${requests.map((r) => r.path.split('?')[0].replace(/[a-z0-9]{5}-[a-z0-9]{5}/, '<id>')).join(', ')}`,
  );
  say(
    `mixed bench: processes ${Object.entries(pids)
      .map(([n, p]) => `${n}=${p ?? '?'}`)
      .join(' ')}`,
  );
  if (WARMUP > 0) await autocannon({ url: base, connections: CONNECTIONS, duration: WARMUP, requests });

  const samples: { t: number; rss: Record<string, number> }[] = [];
  const sample = () => {
    const rss: Record<string, number> = {};
    for (const [n, p] of Object.entries(pids)) rss[n] = p ? rssMiB(p) : Number.NaN;
    samples.push({ t: samples.length * SAMPLE, rss });
  };
  sample();
  const timer = setInterval(sample, SAMPLE * 1000);
  const started = Date.now();
  const r = await autocannon({ url: base, connections: CONNECTIONS, duration: SECONDS, requests });
  clearInterval(timer);
  sample();
  const seconds = (Date.now() - started) / 1000;
  const errors = r.non2xx + r.errors + r.timeouts;

  const names = Object.keys(pids);
  say(`\nRSS (MiB) every ${SAMPLE} s:`);
  say(`${'t s'.padStart(5)} ${names.map((n) => n.slice(0, 12).padStart(12)).join(' ')}`);
  for (const s of samples) say(`${String(s.t).padStart(5)} ${names.map((n) => s.rss[n].toFixed(1).padStart(12)).join(' ')}`);
  const growth = Object.fromEntries(
    names.map((n) => {
      const first = samples[0].rss[n];
      const last = samples[samples.length - 1].rss[n];
      const max = Math.max(...samples.map((s) => s.rss[n]));
      return [n, { first, last, max, pct: ((last - first) / first) * 100, maxPct: ((max - first) / first) * 100 }];
    }),
  );
  const flat = Object.values(growth).every((g) => Number.isNaN(g.first) || g.maxPct <= 10);

  say('\n=== mixed bench summary ===');
  say(
    `  ${Math.round(r.requests.total / seconds)} req/s over ${seconds.toFixed(0)} s (${r.requests.total} requests), p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, errors ${errors} (non-2xx ${r.non2xx}, socket ${r.errors}, timeouts ${r.timeouts}) — aim 0: ${errors === 0 ? 'met' : 'NOT met'} (load ${load()})`,
  );
  for (const [n, g] of Object.entries(growth)) {
    say(
      `  ${n.padEnd(13)} RSS ${g.first.toFixed(1)} → ${g.last.toFixed(1)} MiB (max ${g.max.toFixed(1)}; ${g.pct >= 0 ? '+' : ''}${g.pct.toFixed(1)} %, peak +${g.maxPct.toFixed(1)} %)`,
    );
  }
  say(`  memory flat within 10 % of the first sample: ${flat ? 'met' : 'NOT met'}`);
  say(
    JSON.stringify({
      bench: 'mixed',
      connections: CONNECTIONS,
      seconds,
      rps: Math.round(r.requests.total / seconds),
      p50: r.latency.p50,
      p99: r.latency.p99,
      errors,
      rss: growth,
    }),
  );
} catch (err) {
  console.error(`mixed bench failed: ${(err as Error).stack ?? err}`);
  code = 1;
} finally {
  await target.stop();
}
process.exit(code);
