/**
 * Benchmark: record search (`GET /api/records` with facets) at 10,000 and 100,000 published
 * records, through the records service's own koa app (createApp + the search routes, on an
 * ephemeral loopback port) and, when a stack answers at BENCH_BASE_URL, through its gateway.
 *
 *   pnpm exec tsx scripts/bench/records-search.bench.ts        (or `make bench`)
 *
 * - Data: a dedicated schema `bench_records` (role `rdm_bench_records`) in DATABASE_URL, migrated
 *   with the records migrations, seeded in bulk with documents built by the records service's
 *   own `buildDoc` + `searchDocRow` + `searchVectorSql` (the code path of every write): titles and
 *   descriptions from a Zipf-distributed synthetic word list, 1–4 creators from 1,000 surnames,
 *   30 resource types, publication years 1990–2025, access open / metadata-only / restricted,
 *   0–3 files of 10 types, 10 % of parents with two versions. Then `ANALYZE` + `VACUUM`.
 * - Shapes (anonymous unless noted): no q; one mid-frequency term; two terms; a fielded term
 *   (`metadata.title:` / `metadata.creators.person_or_org.name:`); a resource type filter; a
 *   very common term ranked by bestmatch; page 40; a date filter; authenticated no q.
 *   BENCH_WARMUP (10) then BENCH_ITERATIONS (100) rounds of one sequential request per shape
 *   (round-robin, so load from other processes spreads over all shapes); p50/p99/mean in ms.
 * - Gateway: BENCH_BASE_URL (default http://127.0.0.1:5000, loopback only) is measured with the
 *   same shapes when `GET /api/records` answers 200 there; it serves that stack's own data.
 * - Env: BENCH_SIZES (10000,100000), BENCH_KEEP=1 keeps the schema (and reuses a seeded one on
 *   the next run; BENCH_RESEED=1 rebuilds), BENCH_EXPLAIN=1 prints EXPLAIN ANALYZE of each shape.
 * - Cold: the same shapes once more, sequential, with the write stamp of `search_docs` bumped before
 *   every request (as a write would: pg-indexer.ts caches answers per stamp), so every request
 *   computes its answer: the cost of a search right after a write.
 * - 50 connections (issue 14: match-all with facets at 100,000 records, p99 ≤ 50 ms): autocannon,
 *   BENCH_CONCURRENT_SECONDS (10) per run, against the records app in a CHILD process (its CPU is
 *   measured apart from the client's): anonymous match-all, authenticated match-all, and
 *   anonymous match-all while a writer bumps the stamp every 100 ms (10 writes/s); req/s, p50/p99,
 *   CPU ms per request (app, PostgreSQL, client) and the load.
 * - Deep pages (issue 14, keyset pagination): sequential pages 990–999 (size 10, offsets
 *   9,890–9,990) of several column sorts, searched in this process through two `PostgresIndexer`s
 *   on the same data, alternately: keyset (the default) and OFFSET only (`keysetFrom: -1`); the
 *   stamp is bumped before each walk (nothing cached from the previous one; page 990 has no known
 *   key, so it is read with OFFSET by both). Mean ms per page and CPU ms per page (this process,
 *   PostgreSQL). BENCH_DEEP_ROUNDS (5) walks per sort and engine; BENCH_ONLY_DEEP=1 runs only this.
 * Prints numbers only; the p99 ≤ 100 ms target at 100,000 records is reported, not enforced.
 */
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createDb, dropServiceSchema, ensureServiceSchema, type Knex, migrate } from '../../services/_platform/src/index.js';
import type { SearchPlan } from '../../services/records/src/search/indexer.js';
import { PostgresIndexer } from '../../services/records/src/search/pg-indexer.js';
import { type CpuTargets, cpuDelta, cpuSnapshot, formatPerProcess } from './lib/cpu.js';
import type { Identity } from '../../services/_platform/src/index.js';
import { autocannonSigner } from './lib/identity.js';
import {
  RECORDS_MIGRATIONS,
  measureAll,
  printTable,
  SECRET,
  type Shape,
  shapeHeaders,
  type Stats,
  seedTo,
  shapes,
  startRecordsApp,
} from './lib/records-corpus.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
/** BENCH_SCHEMA: a private schema name, so that two runs on one database never share a corpus. */
const SCHEMA = process.env.BENCH_SCHEMA ?? 'bench_records';
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0)
  .sort((a, b) => a - b);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const KEEP = process.env.BENCH_KEEP === '1';
const RESEED = process.env.BENCH_RESEED === '1';
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const P99_TARGET_MS = 100;
const CONCURRENT_P99_TARGET_MS = 50;
const CONCURRENT_SECONDS = Number(process.env.BENCH_CONCURRENT_SECONDS ?? 10);
const DEEP_ROUNDS = Number(process.env.BENCH_DEEP_ROUNDS ?? 5);
const ONLY_DEEP = process.env.BENCH_ONLY_DEEP === '1';

// Child mode: serve the records app on the bench schema and report its base URL to the parent.
if (process.env.BENCH_CHILD_SCHEMA) {
  const childDb = createDb({ url: DATABASE_URL, service: process.env.BENCH_CHILD_SCHEMA, pool: { max: 10 } });
  const served = await startRecordsApp(childDb);
  process.send?.({ base: served.base });
  process.on('disconnect', () => process.exit(0));
  await new Promise(() => undefined);
}

/** Bump the write stamp of `search_docs` as a write does (nothing else changes). */
const bumpStamp = (db: Knex) => db.raw("SELECT nextval('search_docs_index_version_seq')");

/** Every shape once per round, sequential, the stamp bumped before each request: every answer computed. */
async function measureCold(db: Knex, base: string, list: Shape[], rounds: number): Promise<[string, Stats][]> {
  const times = list.map(() => [] as number[]);
  const errors = list.map(() => 0);
  for (let i = 0; i < rounds; i++) {
    for (const [k, shape] of list.entries()) {
      await bumpStamp(db);
      const t0 = performance.now();
      const target = shape.path(i);
      const res = await fetch(`${base}${target}`, { headers: shapeHeaders(shape, target) });
      await res.text();
      times[k].push(performance.now() - t0);
      if (res.status !== 200) errors[k]++;
    }
  }
  const pct = (t: number[], p: number) => t[Math.min(t.length - 1, Math.ceil((p / 100) * t.length) - 1)];
  return list.map((shape, k) => {
    const t = times[k].sort((a, b) => a - b);
    return [shape.name, { p50: pct(t, 50), p99: pct(t, 99), mean: t.reduce((a, b) => a + b, 0) / t.length, total: 0, errors: errors[k] }];
  });
}

/**
 * Sequential pages 990–999 (size 10) of column sorts, keyset vs OFFSET in one run (see the header):
 * mean ms and CPU ms (this process, PostgreSQL) per page, and the ratio.
 */
async function deepPages(db: Knex, size: number): Promise<void> {
  const keyset = new PostgresIndexer(db);
  const offset = new PostgresIndexer(db, { keysetFrom: -1 });
  const noFilters = { accessStatus: [], fileType: [], resourceTypes: [], publicationDate: [], isPublished: [], dateWindows: [] };
  const anonymous = { sub: null, roles: [] };
  const signedIn = { sub: 'u17', roles: [] };
  const cases: [string, SearchPlan['scope'], string][] = [
    ['anonymous, mostrecent', { kind: 'published', identity: anonymous, allVersions: false }, 'mostrecent'],
    ['signed-in, mostrecent', { kind: 'published', identity: signedIn, allVersions: false }, 'mostrecent'],
    ['anonymous, updated-desc', { kind: 'published', identity: anonymous, allVersions: false }, 'updated-desc'],
    ['anonymous, oldest, all versions', { kind: 'published', identity: anonymous, allVersions: true }, 'oldest'],
    ['anonymous, mostviewed', { kind: 'published', identity: anonymous, allVersions: false }, 'mostviewed'],
  ];
  const cpu: CpuTargets = { procs: {}, database: dbName };
  const PAGES = Array.from({ length: 10 }, (_, i) => 990 + i);
  console.log(
    `\ndeep pages 990–999 (size 10), ${size.toLocaleString('en')} documents, ${DEEP_ROUNDS} walks per sort and engine, alternately (load ${loadavg()[0].toFixed(2)}):`,
  );
  for (const [name, scope, sort] of cases) {
    const acc = { keyset: { ms: 0, cpu: {} as Record<string, number> }, offset: { ms: 0, cpu: {} as Record<string, number> } };
    let mismatch = 0;
    for (let round = 0; round < DEEP_ROUNDS + 1; round++) {
      const got: Record<string, string[]> = {};
      for (const [engine, idx] of [
        ['keyset', keyset],
        ['offset', offset],
      ] as const) {
        await bumpStamp(db);
        const c0 = cpuSnapshot(cpu);
        const t0 = performance.now();
        got[engine] = [];
        for (const page of PAGES) {
          const r = await idx.search({ scope, q: '', filters: noFilters, sort, limit: 10, offset: (page - 1) * 10 });
          got[engine].push(...r.hits.map((h) => `${h.kind}:${h.doc.id}`));
        }
        const ms = performance.now() - t0;
        const used = cpuDelta(c0, cpuSnapshot(cpu));
        if (round === 0) continue; // warm-up walk
        acc[engine].ms += ms;
        for (const [k, v] of Object.entries(used)) acc[engine].cpu[k] = (acc[engine].cpu[k] ?? 0) + v;
      }
      if (got.keyset.join() !== got.offset.join()) mismatch++;
    }
    const per = (x: { ms: number; cpu: Record<string, number> }) => ({
      ms: x.ms / (DEEP_ROUNDS * PAGES.length),
      cpu: Object.fromEntries(Object.entries(x.cpu).map(([k, v]) => [k, v / (DEEP_ROUNDS * PAGES.length)])),
    });
    const k = per(acc.keyset);
    const o = per(acc.offset);
    const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
    console.log(
      `  ${name.padEnd(32)} OFFSET ${o.ms.toFixed(2)} ms/page (CPU ${formatPerProcess(o.cpu, 2)})  keyset ${k.ms.toFixed(2)} ms/page (CPU ${formatPerProcess(k.cpu, 2)})  time ×${(o.ms / k.ms).toFixed(1)}, CPU ×${(total(o.cpu) / total(k.cpu)).toFixed(1)}${mismatch ? `  MISMATCH in ${mismatch} walks` : '  (same hits)'}`,
    );
    deep[`${name}@${size}`] = {
      offsetMs: +o.ms.toFixed(2),
      keysetMs: +k.ms.toFixed(2),
      offsetCpuMs: +total(o.cpu).toFixed(2),
      keysetCpuMs: +total(k.cpu).toFixed(2),
    };
    if (mismatch) exitCode = 1;
  }
}

/** The records app in a child process (so that its CPU and the client's are apart). */
async function startChildApp(): Promise<{ base: string; pid: number; close: () => void }> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: process.execArgv,
    env: { ...process.env, BENCH_CHILD_SCHEMA: SCHEMA },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const base = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { base: string }).base));
    child.once('exit', (code) => reject(new Error(`bench app child exited (${code})`)));
  });
  return { base, pid: child.pid as number, close: () => child.kill('SIGTERM') };
}

/** One autocannon run of `path` at `connections` connections; CPU per request of app, PostgreSQL and client. */
async function concurrentRun(
  base: string,
  path: string,
  as: Identity | undefined,
  cpu: CpuTargets,
): Promise<{ rps: number; p50: number; p99: number; bad: number; cpu: Record<string, number>; load: string }> {
  const requests = autocannonSigner(as, SECRET, path);
  await autocannon({ url: `${base}${path}`, connections: 50, duration: 2, requests });
  const c0 = cpuSnapshot(cpu);
  const r = await autocannon({ url: `${base}${path}`, connections: 50, duration: CONCURRENT_SECONDS, requests });
  const used = cpuDelta(c0, cpuSnapshot(cpu));
  const n = Math.max(1, r.requests.total);
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors + r.timeouts,
    cpu: Object.fromEntries(Object.entries(used).map(([k, v]) => [k, v / n])),
    load: loadavg()[0].toFixed(2),
  };
}

async function explainShapes(db: Knex, base: string): Promise<void> {
  const seen: { sql: string; bindings: unknown[] }[] = [];
  const listener = (q: { sql: string; bindings?: unknown[] }) => {
    if (/search_docs/.test(q.sql)) seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  };
  db.on('query', listener);
  for (const s of shapes()) {
    seen.length = 0;
    await fetch(`${base}${s.path(1)}`, { headers: shapeHeaders(s, s.path(1)) }).then((r) => r.text());
    console.log(`\n===== EXPLAIN ${s.name}: ${s.path(1)}`);
    for (const q of [...seen]) {
      const plan = await db.raw(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql.replace(/\$\d+/g, '?')}`, q.bindings as Knex.RawBinding[]);
      console.log(plan.rows.map((r: any) => r['QUERY PLAN']).join('\n'));
    }
  }
  db.off('query', listener);
}

async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(1500) });
    await r.text();
    return r.status === 200;
  } catch {
    return false;
  }
}

function loopback(url: string): string {
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname))
    throw new Error(`BENCH_BASE_URL must be a loopback address (got ${u.hostname})`);
  return `${u.protocol}//${u.host}`;
}

// ---------------------------------------------------------------------------------------------

const deadline = setTimeout(() => {
  console.error('bench: global time limit (15 min) reached; stopping');
  process.exit(1);
}, 15 * 60_000);
deadline.unref();

let exitCode = 0;
let db: Knex | undefined;
let app: Awaited<ReturnType<typeof startRecordsApp>> | undefined;
const summary: Record<string, Record<string, { p50: number; p99: number }>> = {};
/** Deep-page walks: ms and CPU ms per page, OFFSET vs keyset. */
const deep: Record<string, Record<string, number>> = {};
const dbName = new URL(DATABASE_URL).pathname.slice(1);
const opts = { warmup: WARMUP, iterations: ITERATIONS, cpu: { procs: {}, database: dbName } };
try {
  await ensureServiceSchema(DATABASE_URL, SCHEMA);
  db = createDb({ url: DATABASE_URL, service: SCHEMA, pool: { max: 10 } });
  await migrate(db, { service: SCHEMA, dir: RECORDS_MIGRATIONS });
  app = await startRecordsApp(db);
  const appBase = app.base;

  for (const size of SIZES) {
    await seedTo(db, size, { schema: SCHEMA, reseed: RESEED });
    await deepPages(db, size);
    if (ONLY_DEEP) continue;
    const { results, cpuPerRequest } = await measureAll(appBase, shapes(), opts);
    printTable(
      `records app directly, ${size.toLocaleString('en')} documents (${ITERATIONS} sequential requests per shape, round-robin)`,
      results,
    );
    console.log(
      `  CPU ms per request: ${formatPerProcess(cpuPerRequest, 2)} (the app runs in the bench client; load ${loadavg()[0].toFixed(2)})`,
    );
    summary[`app@${size}`] = Object.fromEntries(results.map(([n, s]) => [n, { p50: +s.p50.toFixed(1), p99: +s.p99.toFixed(1) }]));
    const cold = await measureCold(db, appBase, shapes(), Math.max(10, Math.round(ITERATIONS / 2)));
    printTable(
      `records app, ${size.toLocaleString('en')} documents, COLD: write stamp bumped before every request (${Math.max(10, Math.round(ITERATIONS / 2))} per shape; load ${loadavg()[0].toFixed(2)})`,
      cold,
    );
    summary[`cold@${size}`] = Object.fromEntries(cold.map(([n, s]) => [n, { p50: +s.p50.toFixed(1), p99: +s.p99.toFixed(1) }]));
    if (size >= 100_000) {
      const child = await startChildApp();
      try {
        const cpu: CpuTargets = { procs: { 'records app': child.pid }, database: dbName };
        const auth = shapes().find((x) => x.as)?.as;
        console.log(`\n50 connections, ${CONCURRENT_SECONDS} s each, records app in a child process (pid ${child.pid}):`);
        const runs: [string, () => Promise<Awaited<ReturnType<typeof concurrentRun>>>][] = [
          ['anonymous match-all', () => concurrentRun(child.base, '/api/records', undefined, cpu)],
          ['authenticated match-all', () => concurrentRun(child.base, '/api/records', auth, cpu)],
          [
            'anonymous match-all, 10 writes/s',
            async () => {
              const writer = setInterval(() => void bumpStamp(db as Knex).catch(() => undefined), 100);
              try {
                return await concurrentRun(child.base, '/api/records', undefined, cpu);
              } finally {
                clearInterval(writer);
              }
            },
          ],
        ];
        for (const [name, run] of runs) {
          const r = await run();
          const met = r.p99 <= CONCURRENT_P99_TARGET_MS ? 'met' : 'NOT met';
          console.log(
            `  ${name.padEnd(34)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms (aim ≤ ${CONCURRENT_P99_TARGET_MS}: ${met})  non-2xx ${r.bad}  CPU ms/request: ${formatPerProcess(r.cpu, 2)}  load ${r.load}`,
          );
          summary[`50conn@${size}`] = { ...summary[`50conn@${size}`], [name]: { p50: r.p50, p99: r.p99 } };
          if (r.bad > 0) exitCode = 1;
        }
      } finally {
        child.close();
      }
    }
    if (EXPLAIN) await explainShapes(db, appBase);
    const worst = Math.max(...results.map(([, s]) => s.p99));
    if (size >= 100_000)
      console.log(
        `\nworst p99 at ${size}: ${worst.toFixed(1)} ms vs target ${P99_TARGET_MS} ms: ${worst <= P99_TARGET_MS ? 'met' : 'NOT met'}`,
      );
    if (results.some(([, s]) => s.errors > 0)) exitCode = 1;
  }

  const gw = ONLY_DEEP ? null : loopback(process.env.BENCH_BASE_URL ?? 'http://127.0.0.1:5000');
  if (gw && (await answers(`${gw}/api/records?size=1`))) {
    const total = ((await (await fetch(`${gw}/api/records?size=1`)).json()) as any).hits.total;
    const { results } = await measureAll(
      gw,
      shapes().filter((x) => !x.as),
      { warmup: WARMUP, iterations: ITERATIONS },
    );
    printTable(`gateway ${gw} (that stack's own data: ${total} visible records)`, results);
    summary[`gateway@${total}`] = Object.fromEntries(results.map(([n, s]) => [n, { p50: +s.p50.toFixed(1), p99: +s.p99.toFixed(1) }]));
  } else if (gw) {
    console.log(`\nbench: no stack answers ${gw}/api/records; gateway run skipped (set BENCH_BASE_URL)`);
  }
  console.log('\n=== records-search bench summary ===');
  for (const [run, shapesOf] of Object.entries(summary)) {
    const v = Object.values(shapesOf);
    const worst = Math.max(...v.map((x) => x.p99));
    const p50s = v.map((x) => x.p50).sort((a, b) => a - b);
    console.log(
      `  ${run.padEnd(16)} worst p99 ${worst.toFixed(1)} ms${run === 'app@100000' ? ` (aim ≤ ${P99_TARGET_MS}: ${worst <= P99_TARGET_MS ? 'met' : 'NOT met'})` : ''}, median p50 ${p50s[Math.floor(p50s.length / 2)].toFixed(1)} ms over ${v.length} shapes (load ${loadavg()[0].toFixed(2)})`,
    );
  }
  console.log(JSON.stringify({ bench: 'records-search', iterations: ITERATIONS, summary, deep }));
} catch (err) {
  console.error(`bench failed: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  app?.close();
  await db?.destroy();
  if (!KEEP) await dropServiceSchema(DATABASE_URL, SCHEMA).catch((e) => console.error(`bench: could not drop ${SCHEMA}: ${e.message}`));
}
process.exit(exitCode);
