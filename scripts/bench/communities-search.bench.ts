/**
 * Communities search, postgres vs OpenSearch, side by side (issue 11; records come later).
 *
 * Seeds BENCH_COMMUNITY_DOCS (20,000) communities straight into a private schema (the repo's own
 * insert, so the postgres tsvector is real), bulk-indexes them into OpenSearch through the platform
 * port (prints documents/s), then runs each query shape BENCH_SEARCH_ROUNDS (200) times per engine
 * through the service's two search paths (`repo.searchCommunities` with the SQL compiler, and
 * `searchCommunitiesOnEngine` with the DSL builder): hits + total + both facets, as an anonymous
 * caller. Prints p50/p99 per shape and engine. OpenSearch: OPENSEARCH_URL (default
 * http://127.0.0.1:9200; started with scripts/infra/opensearch.sh when down). Asserts nothing
 * about speed; exits 1 when a search fails or the engines disagree on a total.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type SearchEngine, createEngine, parseQuery } from '../../services/_platform/src/index.js';
import { openSearchAvailable, testDb, testLogger } from '../../services/_platform/src/testing/index.js';
import { compileQ } from '../../services/communities/src/domain/communities.service.js';
import * as repo from '../../services/communities/src/repo/communities.repo.js';
import { CommunitySearchIndex, searchCommunitiesOnEngine } from '../../services/communities/src/search/community-index.js';

const N = Math.max(100, Number(process.env.BENCH_COMMUNITY_DOCS ?? 20_000));
const ROUNDS = Math.max(10, Number(process.env.BENCH_SEARCH_ROUNDS ?? 200));
const OS_URL = process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200';
const WORDS = ['ocean', 'glacier', 'plankton', 'river', 'climate', 'Römäns', 'café', 'genome', 'arctic', 'forest', 'data', 'survey'];
const SHAPES = ['', 'ocean', 'ocean OR glacier', 'data', '"ocean data"', 'ocea*', 'type:event', 'title:glacier AND NOT forest'];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

if (!(await openSearchAvailable(OS_URL))) {
  console.log(`OpenSearch not answering at ${OS_URL}: starting it (scripts/infra/opensearch.sh start)`);
  execFileSync('bash', [fileURLToPath(new URL('../infra/opensearch.sh', import.meta.url)), 'start'], { stdio: 'inherit' });
}
const t = await testDb('communities');
const engine = (await createEngine('opensearch', { url: OS_URL, timeoutMs: 30_000 })) as SearchEngine;
const index = new CommunitySearchIndex(engine, t.db, testLogger(), `bench${Date.now().toString(36)}-`);
const lines: string[] = [];
let failed = false;
try {
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const words = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
  const t0 = Date.now();
  for (let i = 0; i < N; i += 500) {
    await t.db.transaction(async (trx) => {
      for (let j = i; j < Math.min(N, i + 500); j++) {
        await repo.insertCommunity(trx, {
          id: randomUUID(),
          slug: `bench-${j}`,
          metadata: { title: words(3), description: words(12), type: { id: rnd() < 0.3 ? 'event' : 'project', title: { en: 'T' } } },
          access: { visibility: rnd() < 0.9 ? 'public' : 'restricted' } as never,
        });
      }
    });
  }
  lines.push(`seeded ${N} communities in PostgreSQL in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const t1 = Date.now();
  const res = await index.reindex(1000);
  const secs = (Date.now() - t1) / 1000;
  lines.push(
    `opensearch: reindex (bulk, external versions, alias swap) ${res.count} docs in ${secs.toFixed(1)} s = ${Math.round(res.count / secs)} docs/s`,
  );
  const base = { userId: null, admin: false, filters: { type: [], visibility: [] }, sort: 'newest', from: 0, size: 10 };
  for (const q of SHAPES) {
    const times: Record<string, number[]> = { postgres: [], opensearch: [] };
    let totals: Record<string, number> = {};
    for (let r = 0; r < ROUNDS; r++) {
      let s = performance.now();
      const { where, rank } = compileQ(q, repo.COMMUNITY_FIELDS);
      const pg = await repo.searchCommunities(t.db, { ...base, q: where, rank });
      times.postgres.push(performance.now() - s);
      s = performance.now();
      const os = await searchCommunitiesOnEngine(engine, index.def.alias, t.db, {
        ...base,
        ast: q ? parseQuery(q, { defaultOperator: 'OR' }) : undefined,
      });
      times.opensearch.push(performance.now() - s);
      totals = { postgres: pg.total, opensearch: os.total };
    }
    if (totals.postgres !== totals.opensearch) {
      failed = true;
      lines.push(`MISMATCH q=${JSON.stringify(q)}: ${JSON.stringify(totals)}`);
    }
    for (const e of ['postgres', 'opensearch']) {
      lines.push(
        `${e.padEnd(10)} q=${JSON.stringify(q).padEnd(32)} hits=${String(totals[e]).padStart(6)}  p50 ${pct(times[e], 50).toFixed(1)} ms  p99 ${pct(times[e], 99).toFixed(1)} ms`,
      );
    }
  }
} catch (err) {
  failed = true;
  lines.push(`FAILED: ${(err as Error).stack ?? err}`);
} finally {
  await engine.dropIndex(index.def.alias).catch(() => undefined);
  await engine.close();
  await t.destroy();
}
console.log('\n=== communities-search bench summary ===');
console.log(`documents ${N}, rounds ${ROUNDS} per shape (sequential; hits + total + 2 facets), load ${loadavg()[0].toFixed(2)}`);
for (const l of lines) console.log(l);
process.exit(failed ? 1 : 0);
