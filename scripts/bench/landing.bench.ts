/**
 * Benchmark: the landing page of a published record against its API read, in one run (issue 23).
 *
 *   pnpm exec tsx scripts/bench/landing.bench.ts        (or `make bench`)
 *
 * Publishes one public record with a file (a DOI-like landing page: versions, files, communities,
 * JSON-LD, the citation box), then reads, anonymously through the gateway, `GET /records/<id>`
 * (the web service's page; for an anonymous visitor served from its page cache while the record's
 * ETag is unchanged, the record itself read from records on every view) and `GET /api/records/<id>`
 * (records' JSON), each with BENCH_CONNECTIONS (50) connections for BENCH_SECONDS (10) after a
 * 2 s warm-up, BENCH_ROUNDS (2) rounds in ABBA order (api, page, page, api, …: the machine is
 * shared, a drift of its load weighs on both alike). Prints requests/s, p50/p99 and the 1-minute
 * load of each run, the page's worst p99 (aim ≤ 30 ms) and the throughput ratio page / API of the
 * totals (aim ≥ 0.5), and the CPU time per request of each process.
 *
 * Stack: BENCH_BASE_URL (default http://127.0.0.1:5000, loopback only) when its /readyz answers,
 * else a private one (lib/harness.ts) on BENCH_PORT_BASE (5880) with database rdm_bench_landing
 * and a private nats-server on BENCH_NATS_PORT (4237), stopped at the end. Asserts nothing about
 * speed; exit 1 when more than 1 % of the requests fail. Ends with a `=== landing bench summary ===` block.
 */
import { type CpuTargets, cpuDelta, cpuSnapshot, formatPerProcess } from './lib/cpu.js';
import { benchTarget, call, cliUser, expectStatus, load, type ReadResult, readRun } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const SECONDS = num('BENCH_SECONDS', 10, 1, 120);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50, 1, 500);
const ROUNDS = num('BENCH_ROUNDS', 2, 1, 20);
const P99_AIM_MS = 30;
const RATIO_AIM = 0.5;
const say = (l: string) => console.log(l);

async function main(): Promise<number> {
  const target = await benchTarget(
    {
      name: 'landing',
      portBase: num('BENCH_PORT_BASE', 5880, 1024, 65000),
      natsPort: num('BENCH_NATS_PORT', 4237, 1024, 65535),
      databaseName: 'rdm_bench_landing',
    },
    say,
  );
  const { base } = target;
  try {
    const user = await cliUser(target.databaseUrl, `landing-bench-${Date.now()}@example.org`, { name: 'Landing Bench' });
    const created = await call(base, 'POST', '/api/records', {
      token: user.token,
      json: {
        access: { record: 'public', files: 'public' },
        files: { enabled: true },
        metadata: {
          title: 'Landing page bench record',
          publication_date: '2024-01-01',
          resource_type: { id: 'dataset' },
          publisher: 'InvenioRDM',
          version: 'v1',
          description: '<p>A record whose landing page is read under load.</p>',
          creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Mark' } }],
        },
      },
    });
    expectStatus('create draft', created, 201);
    const id = created.body.id as string;
    const files = `/api/records/${id}/draft/files`;
    expectStatus('files init', await call(base, 'POST', files, { token: user.token, json: [{ key: 'data.csv' }] }), 201);
    expectStatus(
      'upload',
      await call(base, 'PUT', `${files}/data.csv/content`, { token: user.token, raw: Buffer.from('x,y\n1,2\n') }),
      200,
    );
    expectStatus('commit', await call(base, 'POST', `${files}/data.csv/commit`, { token: user.token }), 200);
    expectStatus('publish', await call(base, 'POST', `/api/records/${id}/draft/actions/publish`, { token: user.token }), 202);
    expectStatus('landing page', await call(base, 'GET', `/records/${id}`), 200);
    expectStatus('api read', await call(base, 'GET', `/api/records/${id}`), 200);

    const urls = { api: `${base}/api/records/${id}`, page: `${base}/records/${id}` } as const;
    const runs: Record<'api' | 'page', ReadResult[]> = { api: [], page: [] };
    const cpu: Record<'api' | 'page', Record<string, number>[]> = { api: [], page: [] };
    const order: ('api' | 'page')[] = [];
    for (let r = 0; r < ROUNDS; r++) order.push(...(r % 2 === 0 ? (['api', 'page'] as const) : (['page', 'api'] as const)));
    const targets = (): CpuTargets => target.cpuTargets();
    for (const which of order) {
      const before = cpuSnapshot(targets());
      const res = await readRun(urls[which], CONNECTIONS, SECONDS);
      const spent = cpuDelta(before, cpuSnapshot(targets()));
      cpu[which].push(Object.fromEntries(Object.entries(spent).map(([k, v]) => [k, v / Math.max(1, res.requests)])));
      runs[which].push(res);
      say(
        `${which.padEnd(4)} ${String(res.rps).padStart(6)} req/s  p50 ${res.p50} ms  p99 ${res.p99} ms  (${res.requests} requests, ${res.bad} failed, load ${res.load})  cpu ms/req ${formatPerProcess(cpu[which].at(-1) ?? {}, 2)}`,
      );
    }
    const total = (w: 'api' | 'page') => runs[w].reduce((s, r) => s + r.requests, 0);
    const bad = (w: 'api' | 'page') => runs[w].reduce((s, r) => s + r.bad, 0);
    const ratio = total('page') / Math.max(1, total('api'));
    const pageP99 = Math.max(...runs.page.map((r) => r.p99));
    const apiP99 = Math.max(...runs.api.map((r) => r.p99));
    const failed = (bad('page') + bad('api')) / Math.max(1, total('page') + total('api'));
    say('');
    say('=== landing bench summary ===');
    say(
      `landing page GET /records/<id>: ${Math.round(total('page') / (ROUNDS * SECONDS))} req/s, worst p99 ${pageP99} ms (aim ≤ ${P99_AIM_MS} ms)`,
    );
    say(`API GET /api/records/<id>:      ${Math.round(total('api') / (ROUNDS * SECONDS))} req/s, worst p99 ${apiP99} ms`);
    say(
      `throughput ratio page / API: ${ratio.toFixed(2)} (aim ≥ ${RATIO_AIM}); ${CONNECTIONS} connections, ${ROUNDS}×${SECONDS} s each; load ${load()}`,
    );
    say(`failed requests: ${(failed * 100).toFixed(2)} %`);
    return failed > 0.01 ? 1 : 0;
  } finally {
    await target.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
