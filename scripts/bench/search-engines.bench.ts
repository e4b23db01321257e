/**
 * Benchmark (issue 11 §4): record search on both engines in ONE run — PostgreSQL (`search_docs`,
 * pg-indexer.ts) and OpenSearch (engine-index.ts) — at 100,000 and 1,000,000 records, and bulk
 * indexing records/s.
 *
 *   pnpm exec tsx scripts/bench/search-engines.bench.ts          (or `make bench`)
 *   BENCH_SIZES=100000 pnpm exec tsx scripts/bench/search-engines.bench.ts   (quick run)
 *
 * For each size (ascending):
 * 1. seeds `search_docs` of schema `bench_records` with the corpus of lib/records-corpus.ts (the one
 *    records-search.bench.ts uses; BENCH_KEEP=1 keeps it and a later run reuses it);
 * 2. bulk-indexes every document into OpenSearch with `EngineIndexer.reindex` (versioned index,
 *    external versions, alias swap): records/s (aim ≥ 2,000) and CPU ms per 1,000 records;
 * 3. runs the query shapes of `GET /api/records` (facets included) BENCH_ITERATIONS (100) times each
 *    after BENCH_WARMUP (10), sequential and round-robin, through the records koa app built with the
 *    postgres indexer and with the engine indexer (`createApp` deps `engineIndex`); p50/p99 per
 *    shape per engine against its aim (PostgreSQL p99 ≤ 100 ms at 100,000; OpenSearch p99 ≤ 50 ms
 *    at 1,000,000), average hits (both engines must agree), load, CPU ms per request by process.
 * The engine indexer reads hits' documents from `search_docs`, so its CPU includes PostgreSQL's.
 * OpenSearch: OPENSEARCH_URL (default http://127.0.0.1:9200; started with scripts/infra/opensearch.sh
 * when nothing answers); the index lives under a unique prefix and is dropped at the end.
 * Env: BENCH_ENGINES (postgres,opensearch; `postgres` alone: no OpenSearch started, no indexing, no
 * agreement check), BENCH_SCHEMA (bench_records), BENCH_SIZES (100000,1000000), BENCH_ITERATIONS, BENCH_WARMUP, BENCH_KEEP, BENCH_RESEED,
 * BENCH_INDEX_BATCH (reindex page size, default that of `EngineIndexer.reindex`),
 * BENCH_MAX_MINUTES (120: the run stops the next size when it would not fit).
 * Prints numbers only; exits 1 when a request fails or the engines disagree on a total.
 * @bench-timeout-seconds 7200
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  createDb,
  createEngine,
  dropServiceSchema,
  ensureServiceSchema,
  type Knex,
  migrate,
  type SearchEngine,
} from '../../services/_platform/src/index.js';
import { openSearchAvailable, testLogger } from '../../services/_platform/src/testing/index.js';
import { EngineIndexer } from '../../services/records/src/search/engine-index.js';
import { type CpuTargets, cpuDelta, cpuSnapshot, formatPerProcess, pidOfPort } from './lib/cpu.js';
import { type Measured, measureAll, printTable, RECORDS_MIGRATIONS, seedTo, shapes, startRecordsApp } from './lib/records-corpus.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
const OS_URL = process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200';
const SCHEMA = process.env.BENCH_SCHEMA ?? 'bench_records';
const ENGINES = (process.env.BENCH_ENGINES ?? 'postgres,opensearch').split(',').map((e) => e.trim());
const WITH_OPENSEARCH = ENGINES.includes('opensearch');
const SIZES = (process.env.BENCH_SIZES ?? '100000,1000000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0)
  .sort((a, b) => a - b);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const KEEP = process.env.BENCH_KEEP === '1';
const RESEED = process.env.BENCH_RESEED === '1';
const INDEX_BATCH = process.env.BENCH_INDEX_BATCH ? Number(process.env.BENCH_INDEX_BATCH) : undefined;
const MAX_MINUTES = Number(process.env.BENCH_MAX_MINUTES ?? 120);
/** Unique per run: the bench's indices never meet anyone else's on the shared cluster. */
const PREFIX = `bench${Date.now().toString(36)}-`;
const AIM = { postgres: { at: 100_000, p99: 100 }, opensearch: { at: 1_000_000, p99: 50 }, indexRate: 2000 };
type EngineName = 'postgres' | 'opensearch';

const load = () => loadavg()[0].toFixed(2);
const startedAt = Date.now();

let exitCode = 0;
let db: Knex | undefined;
let engine: SearchEngine | undefined;
let indexer: EngineIndexer | undefined;
const apps: { close: () => void }[] = [];

/** Every index under this run's prefix, by name (a reindex stopped midway leaves one outside the alias). */
async function dropPrefixed(): Promise<void> {
  const res = await fetch(`${OS_URL}/_cat/indices/${PREFIX}*?format=json&h=index`, { signal: AbortSignal.timeout(10_000) });
  for (const { index } of (await res.json()) as { index: string }[]) {
    if (index.startsWith(PREFIX))
      await fetch(`${OS_URL}/${encodeURIComponent(index)}`, { method: 'DELETE', signal: AbortSignal.timeout(30_000) });
  }
}

/** Stop the apps, drop the bench index (always) and schema (unless BENCH_KEEP); once. */
let cleaned: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    for (const a of apps) a.close();
    if (engine && indexer)
      await engine.dropIndex(indexer.alias).catch((e) => console.error(`bench: could not drop ${indexer?.alias}: ${e.message}`));
    if (WITH_OPENSEARCH) await dropPrefixed().catch((e) => console.error(`bench: could not drop the ${PREFIX}* indices: ${e.message}`));
    await engine?.close().catch(() => undefined);
    await db?.destroy().catch(() => undefined);
    if (!KEEP) await dropServiceSchema(DATABASE_URL, SCHEMA).catch((e) => console.error(`bench: could not drop ${SCHEMA}: ${e.message}`));
  })();
  return cleaned;
}
const stop = (why: string) => {
  console.error(`bench: ${why}; stopping`);
  void cleanup().finally(() => process.exit(1));
};
setTimeout(() => stop(`global time limit (${MAX_MINUTES} min) reached`), MAX_MINUTES * 60_000).unref();
process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));
const summary: string[] = [];
const json: Record<string, unknown> = {};
let cpu: CpuTargets = { procs: {}, database: new URL(DATABASE_URL).pathname.slice(1) };

/** The query shapes on one engine's app: table, CPU per request, summary and JSON lines. */
async function measureEngine(name: EngineName, app: { base: string }, size: number): Promise<Measured> {
  const run = await measureAll(app.base, shapes(), { warmup: WARMUP, iterations: ITERATIONS, cpu });
  const aim = AIM[name];
  printTable(
    `${name}, ${size.toLocaleString('en')} documents (${ITERATIONS} sequential requests per shape, round-robin; aim p99 ≤ ${aim.p99} ms at ${aim.at.toLocaleString('en')}; load ${load()})`,
    run.results,
  );
  console.log(`  CPU ms per request: ${formatPerProcess(run.cpuPerRequest, 2)} (both apps run in the bench client)`);
  const worst = Math.max(...run.results.map(([, s]) => s.p99));
  const p50s = run.results.map(([, s]) => s.p50).sort((a, b) => a - b);
  const verdict = size === aim.at ? ` (aim ≤ ${aim.p99}: ${worst <= aim.p99 ? 'met' : 'NOT met'})` : '';
  const cpuTotal = Object.values(run.cpuPerRequest).reduce((a, b) => a + b, 0);
  summary.push(
    `${`${name}@${size}`.padEnd(19)} worst p99 ${worst.toFixed(1)} ms${verdict}, p50 ${p50s[0].toFixed(1)}–${p50s[p50s.length - 1].toFixed(1)} ms over ${p50s.length} shapes, CPU ${cpuTotal.toFixed(1)} ms/request (load ${load()})`,
  );
  json[`${name}@${size}`] = Object.fromEntries(run.results.map(([n, s]) => [n, { p50: +s.p50.toFixed(1), p99: +s.p99.toFixed(1) }]));
  if (run.results.some(([, s]) => s.errors > 0)) exitCode = 1;
  return run;
}
try {
  if (WITH_OPENSEARCH && !(await openSearchAvailable(OS_URL))) {
    console.log(`bench: OpenSearch not answering at ${OS_URL}: starting it (scripts/infra/opensearch.sh start)`);
    execFileSync('bash', [fileURLToPath(new URL('../infra/opensearch.sh', import.meta.url)), 'start'], { stdio: 'inherit' });
  }
  await ensureServiceSchema(DATABASE_URL, SCHEMA);
  db = createDb({ url: DATABASE_URL, service: SCHEMA, pool: { max: 10 } });
  await migrate(db, { service: SCHEMA, dir: RECORDS_MIGRATIONS });
  if (WITH_OPENSEARCH) {
    engine = (await createEngine('opensearch', { url: OS_URL, timeoutMs: 30_000 })) as SearchEngine;
    indexer = new EngineIndexer({ db, engine, logger: testLogger('search-engines-bench'), prefix: PREFIX });
  }
  const pg = await startRecordsApp(db);
  apps.push(pg);
  const os = indexer ? await startRecordsApp(db, indexer) : undefined;
  if (os) apps.push(os);
  const osPid = WITH_OPENSEARCH ? pidOfPort(new URL(OS_URL).port ? Number(new URL(OS_URL).port) : 9200) : null;
  cpu = { procs: osPid ? { opensearch: osPid } : {}, database: new URL(DATABASE_URL).pathname.slice(1) };
  if (WITH_OPENSEARCH)
    console.log(
      `bench: OpenSearch pid ${osPid ?? 'unknown'}; PostgreSQL CPU counts every backend of database ${cpu.database} (other users of the machine included)`,
    );

  for (const [k, size] of SIZES.entries()) {
    const elapsedMin = (Date.now() - startedAt) / 60_000;
    // Why: a size ten times the last one takes about ten times as long to seed and index.
    if (k > 0 && elapsedMin * (size / SIZES[k - 1]) > MAX_MINUTES - elapsedMin) {
      const line = `${size}: NOT run — about ${Math.round(elapsedMin * (size / SIZES[k - 1]))} min needed, ${Math.round(MAX_MINUTES - elapsedMin)} left of BENCH_MAX_MINUTES`;
      console.log(`\nbench: ${line}`);
      summary.push(line);
      continue;
    }
    console.log(`\n--- ${size.toLocaleString('en')} documents (load ${load()}) ---`);
    await seedTo(db, size, { schema: SCHEMA, reseed: RESEED });

    const runs: Partial<Record<EngineName, Measured>> = {};
    if (!indexer || !os) {
      runs.postgres = await measureEngine('postgres', pg, size);
      continue;
    }
    const c0 = cpuSnapshot(cpu);
    const t0 = performance.now();
    const res = await indexer.reindex(INDEX_BATCH);
    const secs = (performance.now() - t0) / 1000;
    const used = cpuDelta(c0, cpuSnapshot(cpu));
    const rate = res.count / secs;
    const perK = Object.fromEntries(Object.entries(used).map(([p, ms]) => [p, (ms * 1000) / Math.max(1, res.count)]));
    const indexLine = `opensearch bulk index @${size}: ${res.count} records in ${secs.toFixed(1)} s = ${Math.round(rate)} records/s (aim ≥ ${AIM.indexRate}: ${rate >= AIM.indexRate ? 'met' : 'NOT met'}; load ${load()})`;
    console.log(`\n${indexLine}`);
    console.log(`  CPU ms per 1,000 records: ${formatPerProcess(perK, 0)}`);
    summary.push(indexLine);
    if (res.count !== size) {
      console.log(`bench: the index holds ${res.count} documents, ${size} expected`);
      exitCode = 1;
    }

    runs.postgres = await measureEngine('postgres', pg, size);
    runs.opensearch = await measureEngine('opensearch', os, size);
    json[`index@${size}`] = { records: res.count, seconds: +secs.toFixed(1), perSecond: Math.round(rate) };
    // Same corpus, same scopes: the totals must agree (the differential suite checks whole answers).
    for (const [i, [shape, s]] of (runs.postgres as Measured).results.entries()) {
      const o = (runs.opensearch as Measured).results[i][1];
      if (s.total !== o.total) {
        const line = `MISMATCH @${size} ${shape}: average hits postgres ${s.total}, opensearch ${o.total}`;
        console.log(line);
        summary.push(line);
        exitCode = 1;
      }
    }
  }
} catch (err) {
  console.error(`bench failed: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  await cleanup();
}
console.log('\n=== search-engines bench summary ===');
for (const line of summary) console.log(`  ${line}`);
console.log(JSON.stringify({ bench: 'search-engines', iterations: ITERATIONS, results: json }));
process.exit(exitCode);
