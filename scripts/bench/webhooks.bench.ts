/**
 * Benchmark: webhooks fan-out (issue 27) — BENCH_SUBSCRIPTIONS (1,000) subscriptions of as many
 * owners (scope `user`, events `record.published`) plus BENCH_ALL (10) administrator subscriptions
 * to everything, then BENCH_PUBLICATIONS (100) publications of records of distinct owners: every
 * delivery must arrive (100 × (1 + BENCH_ALL)); prints p50/p95/p99/max from the event's commit (its
 * `occurred_at`, written with the outbox row) to its arrival at the receiver, and the load.
 *
 *   pnpm exec tsx scripts/bench/webhooks.bench.ts        (or `make bench`)
 *
 * What runs: the webhooks service's own code as main.ts wires it (stream consumers, delivery worker,
 * HTTP sender through the SSRF guard, signing), in this process, on a fresh schema of the shared
 * PostgreSQL (`DATABASE_URL`) and a private nats-server on BENCH_NATS_PORT (4238). The domain
 * events are published to the RECORDS stream here as records' outbox relay would (`draft.created`
 * then `record.published`, envelope validated like theirs); records' read-as-the-subscriber call
 * goes to a loopback stand-in answering a small record (records itself does not run: the bench
 * measures the webhooks side of the pipeline, not publication). Receiver: one loopback HTTP server
 * answering 204. Aim: p99 ≤ 1 s on a quiet machine. Exit 1 when a delivery is missing.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { STREAMS } from '../../proto/gen/registry.js';
import { connectNats } from '../../services/_platform/src/nats.js';
import { ensureStream } from '../../services/_platform/src/outbox.js';
import { createDb, dropServiceSchema, ensureServiceSchema, migrate } from '../../services/_platform/src/db.js';
import { loadConfig } from '../../services/_platform/src/config.js';
import { createLogger } from '../../services/_platform/src/logger.js';
import { wire } from '../../services/webhooks/src/bootstrap.js';
import { configProperties } from '../../services/webhooks/src/config.js';
import { startWebhookConsumers } from '../../services/webhooks/src/delivery/consumer.js';
import { SecretBox, newSecret } from '../../services/webhooks/src/domain/secrets.js';
import { load, pct, privateNats } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number) => Number(env[name] ?? dflt);
const SUBS = num('BENCH_SUBSCRIPTIONS', 1000);
const ALL = num('BENCH_ALL', 10);
const PUBS = num('BENCH_PUBLICATIONS', 100);
const NATS_PORT = num('BENCH_NATS_PORT', 4238);
const DATABASE_URL = env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
const say = (l: string) => console.log(l);

const schema = `bench_webhooks_${randomUUID().slice(0, 8)}`;
const nats = await privateNats(NATS_PORT, 'webhooks');
if (!nats) throw new Error('nats-server not found');
await ensureServiceSchema(DATABASE_URL, schema);
const db = createDb({ url: DATABASE_URL, service: schema, pool: { max: 10 } });
const arrivals: number[] = [];
const expected = new Map<string, number>(); // record id → occurred_at (ms)
let got = 0;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const at = expected.get(body.data?.id);
    if (at !== undefined) {
      arrivals.push(Date.now() - at);
      got++;
    }
    res.writeHead(204).end();
  });
});
const records = createServer((req, res) => {
  const id = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, metadata: { title: `Record ${id}` } }));
});
await Promise.all([receiver, records].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
const port = (s: typeof receiver) => (s.address() as { port: number }).port;
const hc = await connectNats({ url: nats.url, name: 'webhooks-bench' });
try {
  await migrate(db, { service: schema, dir: new URL('../../services/webhooks/src/db/migrations', import.meta.url).pathname });
  for (const s of ['RECORDS', 'REQUESTS', 'COMMUNITIES', 'FILES', 'WEBHOOKS'] as const) await ensureStream(hc.jsm, STREAMS[s]);
  const config = loadConfig(configProperties, {
    ...env,
    DATABASE_URL,
    WEBHOOKS_ALLOW_HTTP: 'true',
    WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
    RECORDS_URL: `http://127.0.0.1:${port(records)}`,
    LOG_LEVEL: 'warn',
  });
  const logger = createLogger('webhooks-bench', 'warn');
  const box = new SecretBox(config.WEBHOOKS_SECRET_KEY);
  const url = `http://127.0.0.1:${port(receiver)}/hook`;
  const rows = [
    ...Array.from({ length: SUBS }, (_, i) => ({ owner_id: String(100_000 + i), owner_roles: [], scope: 'user' })),
    ...Array.from({ length: ALL }, (_, i) => ({ owner_id: String(900_000 + i), owner_roles: ['admin'], scope: 'all' })),
  ].map((r) => ({ ...r, id: randomUUID(), url, events: ['record.published'], secret_enc: box.seal(newSecret()) }));
  for (let i = 0; i < rows.length; i += 500) await db('subscriptions').insert(rows.slice(i, i + 500));
  say(`webhooks bench: ${SUBS} user + ${ALL} all subscriptions, ${PUBS} publications, load ${load()}`);

  const w = wire(config, { db, logger, nc: hc.nc });
  const consumers = startWebhookConsumers({ db, nats: hc, logger, baseUrl: config.PUBLIC_BASE_URL, onDeliveries: () => w.worker.kick() });
  w.worker.start();
  await Promise.all(consumers.map((c) => c.ready));

  const publishEvent = async (subject: string, data: Record<string, unknown>) => {
    const id = randomUUID();
    const occurred = new Date();
    const envelope = {
      id,
      type: subject,
      version: 1,
      occurred_at: occurred.toISOString(),
      aggregate: { type: 'record', id: String(data.id), revision: 1 },
      data,
    };
    await hc.js.publish(subject, JSON.stringify(envelope), { msgID: id });
    return occurred.getTime();
  };
  const started = Date.now();
  for (let i = 0; i < PUBS; i++) {
    const recId = `r${i}-${randomUUID().slice(0, 5)}`;
    const parent = `p${i}-${randomUUID().slice(0, 5)}`;
    await publishEvent('rdm.records.draft.created', { id: recId, parent_id: parent, owner: String(100_000 + (i % SUBS)) });
    const at = await publishEvent('rdm.records.record.published', {
      id: recId,
      parent_id: parent,
      index: 1,
      is_latest: true,
      access_status: 'open',
      bucket_id: randomUUID(),
    });
    expected.set(recId, at);
  }
  const want = PUBS * (1 + ALL);
  const deadline = Date.now() + 120_000;
  while (got < want && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const sorted = [...arrivals].sort((a, b) => a - b);
  say('=== webhooks bench summary ===');
  say(`deliveries: ${got}/${want} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  say(
    `commit → delivery ms: p50 ${pct(sorted, 50)} p95 ${pct(sorted, 95)} p99 ${pct(sorted, 99)} max ${sorted.at(-1)} (aim p99 ≤ 1000 on a quiet machine)`,
  );
  say(`load average: ${load()}`);
  await w.worker.stop();
  await Promise.all(consumers.map((c) => c.stop()));
  await w.sender.close();
  if (got < want) process.exitCode = 1;
} finally {
  await hc.nc.drain();
  receiver.close();
  records.close();
  await db.destroy();
  await dropServiceSchema(DATABASE_URL, schema);
  nats.child.kill('SIGTERM');
}
