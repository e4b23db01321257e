/**
 * Benchmark of the collaborative half: communities, requests and the review saga, through the
 * gateway.
 *
 *   pnpm exec tsx scripts/bench/collaboration.bench.ts        (or `make bench`)
 *
 * (a) `GET /api/communities/<slug>`, (b) `GET /api/requests/<id>/timeline` of a request with
 *     100 comments, side by side in the same run with (r) `GET /api/records/<id>`: autocannon,
 *     BENCH_CONNECTIONS (50) connections for BENCH_SECONDS (10) each. Aim: (a) and (b) within
 *     80 % of (r)'s requests/s.
 * (c) community search with BENCH_COMMUNITIES (10,000) communities (made through the API with
 *     16 concurrent admins' calls): match-all, a keyword, a `type` facet filter; p50/p99 at
 *     BENCH_SEARCH_CONNECTIONS (10). Aim p99 ≤ 50 ms.
 * (d) deposits through review: create draft + file + attach review + submit (8 depositors) and
 *     a curator accept (2 curators) until the record reads as published, BENCH_REVIEWS (100);
 *     side by side with direct publish of the same number. Prints records/s of both and the p99
 *     of the accept call. Aim: ≥ 60 % of direct publish's throughput; accept p99 ≤ 100 ms.
 *
 * Stack: BENCH_BASE_URL when it answers (rate limits off; DATABASE_URL its database, for the
 * users CLI), else a private one on BENCH_PORT_BASE (5860) with database rdm_bench_collab and a
 * private nats-server on BENCH_NATS_PORT (4226), stopped at the end. COMMUNITY_CREATORS=admins.
 * BENCH_PARTS (a,b,c,d) picks the parts. Prints numbers; asserts nothing about speed. Exit 1 when
 * a request fails. Ends with a `=== collaboration bench summary ===` block.
 */
import { type BenchTarget, type ReadResult, benchTarget, call, cliUser, expectStatus, load, pct, readRun } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const SECONDS = num('BENCH_SECONDS', 10, 1, 60);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50, 1, 500);
const SEARCH_CONNECTIONS = num('BENCH_SEARCH_CONNECTIONS', 10, 1, 500);
const COMMUNITIES = num('BENCH_COMMUNITIES', 10_000, 10, 1_000_000);
const REVIEWS = num('BENCH_REVIEWS', 100, 1, 100_000);
const PARTS = (env.BENCH_PARTS ?? 'a,b,c,d').split(',').map((s) => s.trim());
const say = (l: string) => console.log(l);
const run = `${Date.now().toString(36)}`;

const FILE = Buffer.from('x,y\n'.repeat(256));
const draftBody = (i: number) => ({
  access: { record: 'public', files: 'public' },
  files: { enabled: true },
  metadata: {
    title: `Review bench record ${i}`,
    publication_date: '2024-01-01',
    resource_type: { id: 'dataset' },
    creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Mark' } }],
  },
});
const communityBody = (slug: string, title: string, review: 'open' | 'closed' = 'closed') => ({
  slug,
  access: { visibility: 'public', member_policy: 'open', record_policy: 'open', review_policy: review },
  metadata: { title, description: `${title} (bench)`, type: { id: ['project', 'event', 'topic', 'organization'][slug.length % 4] } },
});

/** Draft with one committed file; returns its id. */
async function draftWithFile(base: string, token: string, i: number): Promise<string> {
  const created = await call(base, 'POST', '/api/records', { token, json: draftBody(i) });
  expectStatus('create draft', created, 201);
  const id = created.body.id as string;
  const d = `/api/records/${id}/draft`;
  expectStatus('init file', await call(base, 'POST', `${d}/files`, { token, json: [{ key: 'data.csv' }] }), 201);
  expectStatus('upload', await call(base, 'PUT', `${d}/files/data.csv/content`, { token, raw: FILE }), 200);
  expectStatus('commit', await call(base, 'POST', `${d}/files/data.csv/commit`, { token }), 200);
  return id;
}

async function invite(base: string, owner: string, cid: string, user: { id: string; token: string }, role: string): Promise<string> {
  expectStatus(
    'invite',
    await call(base, 'POST', `/api/communities/${cid}/invitations`, {
      token: owner,
      json: { members: [{ id: user.id, type: 'user' }], role },
    }),
    204,
  );
  const mine = await call(base, 'GET', '/api/user/requests?size=100', { token: user.token });
  const req = (mine.body?.hits?.hits ?? []).find((h: any) => h.topic?.community === cid && h.status === 'submitted');
  if (!req) throw new Error(`invitation for ${user.id} not found`);
  return req.id as string;
}

async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

const fmt = (r: ReadResult) =>
  `${String(r.rps).padStart(6)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.bad} bad (load ${r.load})`;

let target: BenchTarget | null = null;
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => void (target?.stop() ?? Promise.resolve()).finally(() => process.exit(130)));

let exitCode = 0;
const summary: string[] = [];
try {
  target = await benchTarget(
    {
      name: 'collab',
      portBase: num('BENCH_PORT_BASE', 5860, 1024, 65000),
      natsPort: num('BENCH_NATS_PORT', 4226, 1024, 65535),
      databaseName: env.BENCH_DATABASE_NAME ?? 'rdm_bench_collab',
      logLevel: env.BENCH_LOG_LEVEL ?? 'warn',
      env: { COMMUNITY_CREATORS: 'admins' },
    },
    say,
  );
  const { base, databaseUrl } = target;
  const admin = await cliUser(databaseUrl, `bench-admin-${run}@example.org`, { admin: true, name: 'Bench Admin' });
  const depositors = await pool(8, 4, (i) => cliUser(databaseUrl, `bench-dep${i}-${run}@example.org`, { name: `Depositor ${i}` }));
  const curators = await pool(2, 2, (i) => cliUser(databaseUrl, `bench-cur${i}-${run}@example.org`, { name: `Curator ${i}` }));

  const slug = `bench-${run}`;
  const community = await call(base, 'POST', '/api/communities', {
    token: admin.token,
    json: communityBody(slug, 'Bench Review Community'),
  });
  expectStatus('create community', community, 201);
  const cid = community.body.id as string;
  for (const c of curators) {
    const rid = await invite(base, admin.token, cid, c, 'curator');
    expectStatus('accept invitation', await call(base, 'POST', `/api/requests/${rid}/actions/accept`, { token: c.token }), 200);
  }

  if (PARTS.includes('a') || PARTS.includes('b')) {
    const recId = await draftWithFile(base, admin.token, 0);
    expectStatus('publish', await call(base, 'POST', `/api/records/${recId}/draft/actions/publish`, { token: admin.token }), 202);
    const commenter = depositors[0];
    const rid = await invite(base, admin.token, cid, commenter, 'reader');
    await pool(100, 8, (i) =>
      call(base, 'POST', `/api/requests/${rid}/comments`, {
        token: commenter.token,
        json: { payload: { content: `<p>Comment ${i}</p>`, format: 'html' } },
      }).then((r) => expectStatus('comment', r, 201)),
    );
    const r = await readRun(`${base}/api/records/${recId}`, CONNECTIONS, SECONDS);
    say(`(r) GET /api/records/<id>:             ${fmt(r)}`);
    summary.push(`  (r) GET record                ${fmt(r)}`);
    if (PARTS.includes('a')) {
      const a = await readRun(`${base}/api/communities/${slug}`, CONNECTIONS, SECONDS);
      say(`(a) GET /api/communities/<slug>:       ${fmt(a)}; ${((a.rps / r.rps) * 100).toFixed(0)} % of (r) (aim ≥ 80 %)`);
      summary.push(`  (a) GET community by slug     ${fmt(a)}; ${((a.rps / r.rps) * 100).toFixed(0)} % of (r) (aim ≥ 80 %)`);
    }
    if (PARTS.includes('b')) {
      const b = await readRun(`${base}/api/requests/${rid}/timeline`, CONNECTIONS, SECONDS, commenter.token);
      say(`(b) GET /api/requests/<id>/timeline:   ${fmt(b)}; ${((b.rps / r.rps) * 100).toFixed(0)} % of (r) (aim ≥ 80 %)`);
      summary.push(`  (b) GET timeline (100 comm.)  ${fmt(b)}; ${((b.rps / r.rps) * 100).toFixed(0)} % of (r) (aim ≥ 80 %)`);
    }
  }

  if (PARTS.includes('c')) {
    const t0 = performance.now();
    await pool(COMMUNITIES, 16, async (i) => {
      const s = `bench-${run}-${i}`;
      expectStatus(
        'create community',
        await call(base, 'POST', '/api/communities', {
          token: admin.token,
          json: communityBody(s, `Community number ${i} ${i % 7 === 0 ? 'oceanography' : 'astronomy'}`),
        }),
        201,
      );
    });
    const secs = (performance.now() - t0) / 1000;
    say(`(c) ${COMMUNITIES} communities created in ${secs.toFixed(1)} s (${(COMMUNITIES / secs).toFixed(0)}/s; load ${load()})`);
    for (const [name, path] of [
      ['match-all', '/api/communities'],
      ['keyword', '/api/communities?q=oceanography'],
      ['type facet', '/api/communities?type=event'],
      ['sorted oldest, page 5', '/api/communities?sort=oldest&page=5&size=25'],
    ] as const) {
      const c = await readRun(`${base}${path}`, SEARCH_CONNECTIONS, SECONDS);
      const line = `  (c) search ${name.padEnd(22)} ${fmt(c)} (aim p99 ≤ 50 ms: ${c.p99 <= 50 ? 'met' : 'NOT met'})`;
      say(line);
      summary.push(line);
    }
  }

  if (PARTS.includes('d')) {
    // Direct publish, 8 depositors.
    const direct0 = performance.now();
    await pool(REVIEWS, 8, async (i) => {
      const who = depositors[i % depositors.length];
      const id = await draftWithFile(base, who.token, i);
      expectStatus('publish', await call(base, 'POST', `/api/records/${id}/draft/actions/publish`, { token: who.token }), 202);
    });
    const directRate = REVIEWS / ((performance.now() - direct0) / 1000);

    // Through review: 8 depositors submit, 2 curators accept from a queue until every record reads published.
    const queue: { rid: string; id: string }[] = [];
    const acceptMs: number[] = [];
    let submitted = 0;
    let accepted = 0;
    const review0 = performance.now();
    const depositing = pool(REVIEWS, 8, async (i) => {
      const who = depositors[i % depositors.length];
      const id = await draftWithFile(base, who.token, i);
      const put = await call(base, 'PUT', `/api/records/${id}/draft/review`, {
        token: who.token,
        json: { type: 'community-submission', receiver: { community: cid } },
      });
      expectStatus('attach review', put, 200);
      expectStatus(
        'submit review',
        await call(base, 'POST', `/api/records/${id}/draft/actions/submit-review`, {
          token: who.token,
          json: { payload: { content: 'please', format: 'html' } },
        }),
        202,
      );
      queue.push({ rid: put.body.id, id });
      submitted++;
    });
    const curating = Promise.all(
      curators.map(async (c) => {
        while (accepted < REVIEWS) {
          const job = queue.shift();
          if (!job) {
            if (submitted >= REVIEWS && queue.length === 0 && accepted >= REVIEWS) break;
            await new Promise((r) => setTimeout(r, 2));
            continue;
          }
          const t = performance.now();
          const acc = await call(base, 'POST', `/api/requests/${job.rid}/actions/accept`, { token: c.token });
          acceptMs.push(performance.now() - t);
          expectStatus('accept', acc, 200);
          expectStatus('read published', await call(base, 'GET', `/api/records/${job.id}`), 200);
          accepted++;
        }
      }),
    );
    await Promise.all([depositing, curating]);
    const reviewRate = REVIEWS / ((performance.now() - review0) / 1000);
    acceptMs.sort((a, b) => a - b);
    const line1 = `  (d) direct publish            ${directRate.toFixed(1).padStart(6)} records/s (8 depositors, ${REVIEWS} records)`;
    const line2 = `  (d) through review            ${reviewRate.toFixed(1).padStart(6)} records/s = ${((reviewRate / directRate) * 100).toFixed(0)} % of direct (aim ≥ 60 %); accept p50 ${pct(acceptMs, 50).toFixed(1)} ms, p99 ${pct(acceptMs, 99).toFixed(1)} ms (aim ≤ 100 ms) (load ${load()})`;
    say(line1);
    say(line2);
    summary.push(line1, line2);
  }
  say('\n=== collaboration bench summary ===');
  for (const l of summary) say(l);
} catch (err) {
  console.error(`collaboration bench failed: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  await target?.stop();
}
process.exit(exitCode);
