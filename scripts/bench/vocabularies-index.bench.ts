/**
 * Large vocabularies on OpenSearch (issue 11): how fast a fixture load of many entries reaches the
 * index, and search latency on both engines.
 *
 * 1. Loads a generated corpus (BENCH_VOCAB_NAMES names, default 20,000, plus affiliations, funders,
 *    awards and subjects in proportion) into a private schema with `loadVocabularies` (the migrate
 *    path): prints entries/s of the PostgreSQL load.
 * 2. Indexes it the production way: outbox → relay → a private nats-server (JetStream) → the durable
 *    indexer (`entries.changed` events of ≤ 500 ids, one bulk request per batch of events): prints
 *    records/s from relay start until every entry is searchable.
 * 3. `reindex` (new versioned index, alias swap): prints records/s.
 * 4. Search p50/p99 (BENCH_SEARCH_ROUNDS rounds, default 100) per query shape through the service's
 *    search, postgres vs OpenSearch.
 *
 *   pnpm exec tsx scripts/bench/vocabularies-index.bench.ts        (or `make bench`)
 *
 * OpenSearch: OPENSEARCH_URL (default http://127.0.0.1:9200; started with scripts/infra/opensearch.sh
 * when down). Asserts nothing about speed; exits 1 when indexing does not complete or a search fails.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  OutboxRelay,
  SYSTEM,
  type SearchEngine,
  createEngine,
  createLogger,
  ensureStream,
  eventSubjects,
} from '../../services/_platform/src/index.js';
import { openSearchAvailable, spawnNatsServer, testDb, testNats, waitFor } from '../../services/_platform/src/testing/index.js';
import { createApp } from '../../services/vocabularies/src/app.js';
import { loadVocabularies } from '../../services/vocabularies/src/domain/loader.service.js';
import { VocabularySearchIndex } from '../../services/vocabularies/src/search/entry-index.js';
import { largeVocabularyCorpus } from '../../services/vocabularies/test/corpus.js';
import { signedHeaders } from './lib/identity.js';

const NAMES = Math.max(1000, Number(process.env.BENCH_VOCAB_NAMES ?? 20_000));
const ROUNDS = Math.max(10, Number(process.env.BENCH_SEARCH_ROUNDS ?? 100));
const OS_URL = process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200';
const SECRET = 'bench-identity-secret-1234';
const SHAPES = [
  '/api/names?q=muller',
  '/api/names?q=muller&sort=name',
  '/api/names?suggest=jos cel',
  '/api/names?suggest=m',
  '/api/names?q=ostergaard OR nguyen&sort=newest&page=3',
  '/api/affiliations?suggest=univ gen',
  '/api/awards?q=oceans&funders=0f00003',
  '/api/subjects?suggest=MeSH:eco',
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

if (!(await openSearchAvailable(OS_URL))) {
  console.log(`OpenSearch not answering at ${OS_URL}: starting it (scripts/infra/opensearch.sh start)`);
  execFileSync('bash', [fileURLToPath(new URL('../infra/opensearch.sh', import.meta.url)), 'start'], { stdio: 'inherit' });
}
const logger = createLogger('vocabularies-bench', process.env.BENCH_LOG_LEVEL ?? 'warn');
const t = await testDb('vocabularies', { pool: { max: 6 } });
const server = spawnNatsServer({ port: await freePort() });
await server.start();
const nats = await testNats(server.url);
const engine = (await createEngine('opensearch', { url: OS_URL, timeoutMs: 30_000 })) as SearchEngine;
const index = new VocabularySearchIndex(engine, t.db, logger, `bench${Date.now().toString(36)}-`);
const relay = new OutboxRelay({ db: t.db, js: nats.js, logger });
let indexer: ReturnType<VocabularySearchIndex['startIndexer']> | undefined;
let failed = false;
const lines: string[] = [];
try {
  const sizes = {
    names: NAMES,
    affiliations: Math.round(NAMES / 5),
    funders: Math.round(NAMES / 50),
    awards: Math.round(NAMES / 4),
    subjects: Math.round(NAMES / 4),
  };
  const corpus = largeVocabularyCorpus(sizes);
  const total = corpus.reduce((n, v) => n + v.entries.length, 0);
  let t0 = performance.now();
  await loadVocabularies(t.db, corpus);
  let s = (performance.now() - t0) / 1000;
  lines.push(`PostgreSQL load (migrate path): ${total} entries in ${s.toFixed(2)} s = ${Math.round(total / s)} entries/s`);

  await ensureStream(nats.jsm, { name: 'VOCABULARIES', subjects: eventSubjects('vocabularies') });
  await index.ensureIndex();
  const count = async () => {
    await engine.refresh(index.def.alias);
    return (await engine.search(index.def.alias, { query: { type: 'all' }, fields: {}, sort: [], from: 0, size: 0 })).total;
  };
  t0 = performance.now();
  relay.start();
  indexer = index.startIndexer(nats, logger);
  await waitFor(async () => (await count()) === total, { timeoutMs: 600_000, intervalMs: 200, message: 'indexer caught up' });
  s = (performance.now() - t0) / 1000;
  lines.push(`outbox → NATS → durable indexer (bulk): ${total} records in ${s.toFixed(2)} s = ${Math.round(total / s)} records/s`);

  t0 = performance.now();
  const re = await index.reindex();
  s = (performance.now() - t0) / 1000;
  lines.push(`reindex (new index + alias swap): ${re.count} records in ${s.toFixed(2)} s = ${Math.round(re.count / s)} records/s`);

  const config = { PUBLIC_BASE_URL: 'http://127.0.0.1:5000', IDENTITY_SECRET: SECRET, ENTRY_CACHE_SIZE: 0, ENTRY_CACHE_TTL_MS: 0 };
  const apps = { postgres: createApp({ config, logger, db: t.db }), opensearch: createApp({ config, logger, db: t.db, search: index }) };

  const { default: request } = await import('supertest');
  for (const path of SHAPES) {
    const row: string[] = [];
    for (const [kind, app] of Object.entries(apps)) {
      const cb = app.app.callback();
      const ms: number[] = [];
      let hits = -1;
      for (let i = 0; i < ROUNDS; i++) {
        const a = performance.now();
        const res = await request(cb)
          .get(path)
          .set(signedHeaders({ ...SYSTEM }, SECRET, 'GET', path));
        ms.push(performance.now() - a);
        if (res.status !== 200) throw new Error(`${kind} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
        hits = res.body.hits.total;
      }
      row.push(`${kind} p50 ${pct(ms, 50).toFixed(1)} ms p99 ${pct(ms, 99).toFixed(1)} ms (total ${hits})`);
    }
    lines.push(`${path}: ${row.join(' | ')}`);
  }
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  await indexer?.stop();
  await relay.stop();
  await engine.dropIndex(index.def.alias).catch(() => undefined);
  await engine.close();
  await nats.close();
  await server.dispose();
  await t.destroy();
}
console.log('\n=== vocabularies-index bench summary ===');
console.log(`  names=${NAMES}, rounds=${ROUNDS}, 1-min load ${loadavg()[0].toFixed(2)}${failed ? ', FAILED' : ''}`);
for (const l of lines) console.log(`  ${l}`);
process.exit(failed ? 1 : 0);
