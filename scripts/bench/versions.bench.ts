/**
 * Benchmark: versions that stay cheap. Publishes BENCH_VERSIONS (1,000) versions of one record
 * through the gateway, each as a client does it: `POST /api/records/<latest>/versions`,
 * `POST …/draft/actions/files-import` (the previous version's small file linked), `POST
 * …/draft/actions/publish`; then prints the cost of the last block of BENCH_BLOCK (50) versions
 * against the first (versions 2–51): ratio of the medians and of the means, aim ≤ 1.2×. Before
 * version 2, BENCH_WARMUP (20) versions of a throwaway record warm the JIT, pools and caches up.
 *
 *   pnpm exec tsx scripts/bench/versions.bench.ts        (or `make bench`)
 *
 * The first and the last block are minutes apart and the machine is shared, so a load change
 * alone moves their ratio. The bench therefore also publishes, interleaved with the last block
 * (one version each in turn), the versions 2–51 of a second, fresh record: "last block vs a
 * fresh record's first block at the same moment" is the ratio the load cannot bend.
 * Every 100 versions a progress line (block mean and median, CPU per version) is printed, so a
 * slope shows where it starts. CPU ms per version per process (gateway, services, the private
 * nats-server, the PostgreSQL backends, this client) is printed for the first and last block.
 *
 * Stack: BENCH_BASE_URL (default http://127.0.0.1:5000, loopback only) when its /readyz answers
 * (rate limits off, DATABASE_URL its database), else a private one (lib/harness.ts) on
 * BENCH_PORT_BASE (5800) with database rdm_bench_versions and a private nats-server on
 * BENCH_NATS_PORT (4233), stopped at the end. Prints numbers; asserts nothing about speed.
 * Exit 1 when a request fails. Ends with a `=== versions bench summary ===` block.
 */
import { type BenchTarget, benchTarget, call, cliUser, expectStatus, load, pct } from './lib/harness.js';
import { type CpuSnapshot, type CpuTargets, cpuDelta, cpuSnapshot, formatPerProcess } from './lib/cpu.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const VERSIONS = num('BENCH_VERSIONS', 1000, 3, 100_000);
const WARMUP = num('BENCH_WARMUP', 20, 0, 10_000);
const BLOCK = Math.min(num('BENCH_BLOCK', 50, 1, 10_000), Math.floor((VERSIONS - 1) / 2));
const RATIO_AIM = 1.2;
const STEPS = ['new version', 'files-import', 'publish'] as const;
type Step = (typeof STEPS)[number];
type Sample = Record<Step, number> & { total: number };

const say = (l: string) => console.log(l);
const FILE = Buffer.from('x,y\n'.repeat(256)); // 1 KiB

/** A published first version with one small file; returns its id. */
async function firstVersion(base: string, token: string, title: string): Promise<string> {
  const created = await call(base, 'POST', '/api/records', {
    token,
    json: {
      access: { record: 'public', files: 'public' },
      files: { enabled: true },
      metadata: {
        title,
        publication_date: '2024-01-01',
        resource_type: { id: 'dataset' },
        creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Mark' } }],
      },
    },
  });
  expectStatus('create draft', created, 201);
  const draft = `/api/records/${created.body.id}/draft`;
  expectStatus('init file', await call(base, 'POST', `${draft}/files`, { token, json: [{ key: 'data.csv' }] }), 201);
  expectStatus('upload', await call(base, 'PUT', `${draft}/files/data.csv/content`, { token, raw: FILE }), 200);
  expectStatus('commit', await call(base, 'POST', `${draft}/files/data.csv/commit`, { token }), 200);
  expectStatus('publish', await call(base, 'POST', `${draft}/actions/publish`, { token }), 202);
  return created.body.id as string;
}

/** New version of `latest` + files-import + publish; returns the new version's id and timings. */
async function nextVersion(base: string, token: string, latest: string, index: number): Promise<{ id: string; t: Sample }> {
  const t = {} as Sample;
  const t0 = performance.now();
  let last = t0;
  const lap = (s: Step) => {
    const now = performance.now();
    t[s] = now - last;
    last = now;
  };
  const nv = await call(base, 'POST', `/api/records/${latest}/versions`, { token });
  expectStatus('new version', nv, 201);
  lap('new version');
  const id = nv.body.id as string;
  const imported = await call(base, 'POST', `/api/records/${id}/draft/actions/files-import`, { token });
  expectStatus('files-import', imported, 201);
  lap('files-import');
  const pub = await call(base, 'POST', `/api/records/${id}/draft/actions/publish`, { token });
  expectStatus('publish', pub, 202);
  if (pub.body?.versions?.index !== index) throw new Error(`publish: version index ${pub.body?.versions?.index}, expected ${index}`);
  lap('publish');
  t.total = last - t0;
  return { id, t };
}

/** Mean, median and p99 of one step over samples. */
function stats(samples: Sample[], k: Step | 'total'): { mean: number; p50: number; p99: number } {
  const v = samples.map((s) => s[k]).sort((a, b) => a - b);
  return { mean: v.reduce((a, b) => a + b, 0) / Math.max(v.length, 1), p50: pct(v, 50), p99: pct(v, 99) };
}

interface Block {
  name: string;
  samples: Sample[];
  cpu: Record<string, number>;
  load: string;
}

function perVersion(cpu: Record<string, number>, n: number): Record<string, number> {
  return Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, n ? v / n : 0]));
}

function printBlock(b: Block): void {
  say(`\n  ${b.name} (${b.samples.length} versions, load ${b.load})`);
  say(`    ${'step'.padEnd(13)} ${'mean ms'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
  for (const k of [...STEPS, 'total'] as const) {
    const s = stats(b.samples, k);
    say(`    ${k.padEnd(13)} ${s.mean.toFixed(1).padStart(8)} ${s.p50.toFixed(1).padStart(8)} ${s.p99.toFixed(1).padStart(8)}`);
  }
  if (Object.keys(b.cpu).length) say(`    CPU ms per version: ${formatPerProcess(perVersion(b.cpu, b.samples.length))}`);
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);
const verdict = (r: number) => (r <= RATIO_AIM ? 'met' : 'NOT met');

let target: BenchTarget | null = null;
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => void (target?.stop() ?? Promise.resolve()).finally(() => process.exit(130)));

let exitCode = 0;
try {
  target = await benchTarget(
    {
      name: 'versions',
      portBase: num('BENCH_PORT_BASE', 5800, 1024, 65000),
      natsPort: num('BENCH_NATS_PORT', 4233, 1024, 65535),
      databaseName: env.BENCH_DATABASE_NAME ?? 'rdm_bench_versions',
      logLevel: env.BENCH_LOG_LEVEL ?? 'warn',
    },
    say,
  );
  const { base } = target;
  const cpuTargets: CpuTargets = target.cpuTargets();
  const { token } = await cliUser(target.databaseUrl, env.BENCH_EMAIL ?? 'versions-bench@example.org');
  say(
    `versions bench: ${VERSIONS} versions of one record, blocks of ${BLOCK}, after ${WARMUP} warm-up versions of another; load ${load()}`,
  );
  // Warm-up (JIT, pools, caches) on a record of its own, so version 2 is not charged for it.
  let warm = await firstVersion(base, token, 'Versions benchmark warm-up record');
  for (let i = 2; i <= WARMUP + 1; i++) warm = (await nextVersion(base, token, warm, i)).id;

  let latest = await firstVersion(base, token, 'Versions benchmark record');
  const all: Sample[] = [];
  const lastStart = VERSIONS - BLOCK + 1;
  let firstBlock: Block | null = null;
  const cpuMark: CpuSnapshot = cpuSnapshot(cpuTargets);
  let progress: Sample[] = [];
  let progressCpu: CpuSnapshot = cpuMark;
  const started = performance.now();
  for (let i = 2; i < lastStart; i++) {
    const r = await nextVersion(base, token, latest, i);
    latest = r.id;
    all.push(r.t);
    progress.push(r.t);
    if (i === BLOCK + 1) {
      const now = cpuSnapshot(cpuTargets);
      firstBlock = { name: `first block: versions 2–${i}`, samples: all.slice(), cpu: cpuDelta(cpuMark, now), load: load() };
    }
    if (i % 100 === 0) {
      const now = cpuSnapshot(cpuTargets);
      const s = stats(progress, 'total');
      const cpu = Object.values(perVersion(cpuDelta(progressCpu, now), progress.length)).reduce((a, b) => a + b, 0);
      say(
        `  versions ${String(i - progress.length + 1).padStart(5)}–${String(i).padEnd(5)} mean ${s.mean.toFixed(1)} ms, p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, CPU ${cpu.toFixed(1)} ms/version (load ${load()})`,
      );
      progress = [];
      progressCpu = now;
    }
  }
  // The last block, interleaved with a fresh record's versions 2…BLOCK+1 (same moment, same load).
  let control = await firstVersion(base, token, 'Versions benchmark control record');
  const last: Sample[] = [];
  const fresh: Sample[] = [];
  const lastCpu: Record<string, number> = {};
  const add = (into: Record<string, number>, d: Record<string, number>) => {
    for (const [k, v] of Object.entries(d)) into[k] = (into[k] ?? 0) + v;
  };
  for (let j = 0; j < BLOCK; j++) {
    const before = cpuSnapshot(cpuTargets);
    const r = await nextVersion(base, token, latest, lastStart + j);
    add(lastCpu, cpuDelta(before, cpuSnapshot(cpuTargets)));
    latest = r.id;
    last.push(r.t);
    all.push(r.t);
    const c = await nextVersion(base, token, control, 2 + j);
    control = c.id;
    fresh.push(c.t);
  }
  const seconds = (performance.now() - started) / 1000;
  const lastBlock: Block = { name: `last block: versions ${lastStart}–${VERSIONS}`, samples: last, cpu: lastCpu, load: load() };
  const freshBlock: Block = {
    name: `fresh record, versions 2–${BLOCK + 1}, interleaved with the last block`,
    samples: fresh,
    cpu: {},
    load: load(),
  };
  if (!firstBlock) throw new Error('no first block measured');

  say(`\nversions bench: ${VERSIONS - 1} new versions in ${seconds.toFixed(1)} s (plus ${BLOCK} of the control record)`);
  printBlock(firstBlock);
  printBlock(lastBlock);
  printBlock(freshBlock);

  const f = stats(firstBlock.samples, 'total');
  const l = stats(last, 'total');
  const c = stats(fresh, 'total');
  const rP50 = ratio(l.p50, f.p50);
  const rMean = ratio(l.mean, f.mean);
  const rFresh = ratio(l.p50, c.p50);
  const cpuF = Object.values(perVersion(firstBlock.cpu, firstBlock.samples.length)).reduce((a, b) => a + b, 0);
  const cpuL = Object.values(perVersion(lastCpu, last.length)).reduce((a, b) => a + b, 0);
  say('\n=== versions bench summary ===');
  say(
    `  version ${VERSIONS} vs 2 (blocks of ${BLOCK}): p50 ${l.p50.toFixed(1)} vs ${f.p50.toFixed(1)} ms = ${rP50.toFixed(2)}× (aim ≤ ${RATIO_AIM}: ${verdict(rP50)}), mean ${l.mean.toFixed(1)} vs ${f.mean.toFixed(1)} ms = ${rMean.toFixed(2)}× (load ${firstBlock.load} → ${lastBlock.load})`,
  );
  say(
    `  same moment: last block vs a fresh record's versions 2–${BLOCK + 1}: p50 ${l.p50.toFixed(1)} vs ${c.p50.toFixed(1)} ms = ${rFresh.toFixed(2)}× (aim ≤ ${RATIO_AIM}: ${verdict(rFresh)})`,
  );
  say(
    `  CPU per version (all processes): ${cpuL.toFixed(1)} vs ${cpuF.toFixed(1)} ms = ${ratio(cpuL, cpuF).toFixed(2)}×; steps p50 last/first: ${STEPS.map((s) => `${s} ${stats(last, s).p50.toFixed(1)}/${stats(firstBlock!.samples, s).p50.toFixed(1)}`).join(', ')}`,
  );
  say(
    JSON.stringify({
      bench: 'versions',
      versions: VERSIONS,
      block: BLOCK,
      first: { ...f, cpuMs: +cpuF.toFixed(2), load1: +firstBlock.load },
      last: { ...l, cpuMs: +cpuL.toFixed(2), load1: +lastBlock.load },
      freshInterleaved: c,
      ratios: { p50: +rP50.toFixed(3), mean: +rMean.toFixed(3), sameMomentP50: +rFresh.toFixed(3), cpu: +ratio(cpuL, cpuF).toFixed(3) },
      aim: RATIO_AIM,
    }),
  );
} catch (err) {
  console.error(`versions bench failed: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  await target?.stop();
}
process.exit(exitCode);
