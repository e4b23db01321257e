/**
 * Benchmark: webhooks fan-out (issue 27) through the real stack — BENCH_SUBSCRIPTIONS (1,000)
 * `user` subscriptions to `record.published` (BENCH_DEPOSITORS (10) of them, one per depositor,
 * made through `POST /api/webhooks`; the others, of users who publish nothing, inserted into the
 * webhooks schema so the matching query runs against the full table) plus BENCH_ALL (10)
 * administrator subscriptions to everything (also through the API), then BENCH_PUBLICATIONS (100)
 * publications through the gateway (create draft + publish, metadata only, BENCH_CONCURRENCY (4)
 * depositors at a time). Every delivery must arrive (BENCH_PUBLICATIONS × (1 + BENCH_ALL)).
 * Prints p50/p95/p99/max from the event's commit (the body's `timestamp`, the `occurred_at` written
 * with records' outbox row in the publishing transaction) to the arrival at the receiver,
 * deliveries/s, the publish latency and the load average.
 *
 *   pnpm exec tsx scripts/bench/webhooks.bench.ts        (or `make bench`)
 *
 * What runs: a private stack from lib/harness.ts `benchTarget` (every service and the gateway,
 * a fresh database BENCH_DATABASE_NAME (rdm_bench_webhooks), a private nats-server on
 * BENCH_NATS_PORT (4238), ports from BENCH_PORT_BASE (5960)), so the webhooks service consumes
 * records' real events, re-checks owners through users' get-users and reads every record through
 * records' own `GET /api/records/<id>` as the subscriber. Loopback targets are allowed with
 * WEBHOOKS_ALLOWED_CIDRS=127.0.0.0/8. Receiver: one loopback HTTP server answering 204.
 * Also prints the split: commit → the consumer's insert, insert → first attempt (the worker).
 * WEBHOOKS_CONSUMER_CONCURRENCY, when set, is passed to the stack (default: the service's).
 * Aim: p99 ≤ 1 s on a quiet machine. Exit 1 when a delivery is missing.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createDb } from '../../services/_platform/src/db.js';
import { DEVELOPMENT_SECRET_KEY } from '../../services/webhooks/src/config.js';
import { newSecret, SecretBox } from '../../services/webhooks/src/domain/secrets.js';
import { benchTarget, call, cliUser, expectStatus, load, pct } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number) => Number(env[name] ?? dflt);
const SUBS = num('BENCH_SUBSCRIPTIONS', 1000);
const DEPOSITORS = Math.min(num('BENCH_DEPOSITORS', 10), SUBS);
const ALL = num('BENCH_ALL', 10);
const PUBS = num('BENCH_PUBLICATIONS', 100);
const CONCURRENCY = num('BENCH_CONCURRENCY', 4);
const say = (l: string) => console.log(l);

const arrivals: number[] = [];
const expected = new Set<string>(); // record ids published here
let got = 0;
let firstArrival = 0;
let lastArrival = 0;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (body.type === 'record.published' && expected.has(body.data?.id)) {
        arrivals.push(now - new Date(body.timestamp).getTime());
        got++;
        firstArrival ||= now;
        lastArrival = now;
      }
    } catch {
      /* not ours */
    }
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

const target = await benchTarget(
  {
    name: 'webhooks',
    portBase: num('BENCH_PORT_BASE', 5960),
    natsPort: num('BENCH_NATS_PORT', 4238),
    databaseName: env.BENCH_DATABASE_NAME ?? 'rdm_bench_webhooks',
    logLevel: env.BENCH_LOG_LEVEL ?? 'warn',
    privateOnly: true,
    env: {
      WEBHOOKS_ALLOW_HTTP: 'true',
      WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
      WEBHOOKS_SECRET_KEY: DEVELOPMENT_SECRET_KEY,
      ...(env.WEBHOOKS_CONSUMER_CONCURRENCY ? { WEBHOOKS_CONSUMER_CONCURRENCY: env.WEBHOOKS_CONSUMER_CONCURRENCY } : {}),
    },
  },
  say,
);
const db = createDb({ url: target.databaseUrl, service: 'webhooks', pool: { max: 2 } });
try {
  const base = target.base;
  const tag = randomUUID().slice(0, 6);
  const admin = await cliUser(target.databaseUrl, `bench-hooks-admin-${tag}@example.org`, { admin: true });
  const depositors: { id: string; token: string }[] = [];
  for (let i = 0; i < DEPOSITORS; i++) depositors.push(await cliUser(target.databaseUrl, `bench-hooks-${i}-${tag}@example.org`));
  for (const d of depositors) {
    const r = await call(base, 'POST', '/api/webhooks', { token: d.token, json: { url, events: ['record.published'] } });
    expectStatus('subscribe (user)', r, 201);
  }
  for (let i = 0; i < ALL; i++) {
    const r = await call(base, 'POST', '/api/webhooks', {
      token: admin.token,
      json: { url, events: ['record.published'], scope: { type: 'all' } },
    });
    expectStatus('subscribe (all)', r, 201);
  }
  const box = new SecretBox(DEVELOPMENT_SECRET_KEY);
  const filler = Array.from({ length: SUBS - DEPOSITORS }, (_, i) => ({
    id: randomUUID(),
    owner_id: String(10_000_000 + i),
    scope: 'user',
    url,
    events: ['record.published'],
    secret_enc: box.seal(newSecret()),
  }));
  for (let i = 0; i < filler.length; i += 500) await db('subscriptions').insert(filler.slice(i, i + 500));
  say(`webhooks bench: ${SUBS} user (${DEPOSITORS} publishing) + ${ALL} all subscriptions, ${PUBS} publications, load ${load()}`);

  const publishMs: number[] = [];
  let next = 0;
  const started = Date.now();
  const depositor = async (w: number) => {
    for (let i = next++; i < PUBS; i = next++) {
      const d = depositors[(i + w) % depositors.length];
      const created = await call(base, 'POST', '/api/records', {
        token: d.token,
        json: {
          access: { record: 'public', files: 'public' },
          files: { enabled: false },
          metadata: {
            title: `Webhooks bench ${i}`,
            publication_date: '2024-01-01',
            resource_type: { id: 'dataset' },
            creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Hooks' } }],
          },
        },
      });
      expectStatus('create draft', created, 201);
      expected.add(created.body.id);
      const t = performance.now();
      expectStatus('publish', await call(base, 'POST', `/api/records/${created.body.id}/draft/actions/publish`, { token: d.token }), 202);
      publishMs.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => depositor(w)));
  const published = Date.now();
  const want = PUBS * (1 + ALL);
  const deadline = Date.now() + 180_000;
  while (got < want && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const sorted = [...arrivals].sort((a, b) => a - b);
  const pubs = [...publishMs].sort((a, b) => a - b);
  const span = Math.max(1, lastArrival - firstArrival) / 1000;
  say('=== webhooks bench summary ===');
  say(
    `publications: ${PUBS} in ${((published - started) / 1000).toFixed(1)} s, publish p50 ${pct(pubs, 50).toFixed(0)} ms p99 ${pct(pubs, 99).toFixed(0)} ms`,
  );
  say(`deliveries: ${got}/${want}, ${(got / span).toFixed(1)} deliveries/s (first to last arrival ${span.toFixed(1)} s)`);
  say(
    `commit → delivery ms: p50 ${pct(sorted, 50)} p95 ${pct(sorted, 95)} p99 ${pct(sorted, 99)} max ${sorted.at(-1)} (aim p99 ≤ 1000 on a quiet machine)`,
  );
  // Where the time went: commit → the consumer's insert (relay + stream + consumer), insert → first attempt (worker).
  const split = await db.raw(
    `SELECT percentile_disc(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM created - occurred_at) * 1000) AS consumer,
            percentile_disc(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM first_attempt_at - created) * 1000) AS worker
       FROM deliveries WHERE event_type = 'record.published' AND first_attempt_at IS NOT NULL`,
  );
  const ms = (xs: number[] | null) => (xs ?? []).map((x) => Math.round(Number(x))).join(' / ');
  say(`commit → consumer insert ms p50/p95/p99: ${ms(split.rows[0]?.consumer)}; insert → first attempt: ${ms(split.rows[0]?.worker)}`);
  say(`load average: ${load()}`);
  if (got < want) process.exitCode = 1;
} finally {
  receiver.close();
  await db.destroy();
  await target.stop();
}
