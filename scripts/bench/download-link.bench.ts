/**
 * Benchmark: file download throughput with a secret link (`?token=`) vs without, same run,
 * through the gateway (issue 9, §8 (a)).
 *
 *   pnpm exec tsx scripts/bench/download-link.bench.ts        (or `make bench`)
 *
 * Two published records hold the same file of BENCH_FILE_BYTES (1 MiB): a public one, read
 * anonymously (plain), and a restricted one (record and files restricted) read anonymously with a
 * view link's token (`…/files/data.bin/content?token=<token>`: every request makes files ask
 * records, which resolves the token). Both are checked first (the restricted file is 403 without
 * the token, the same bytes with it). Then BENCH_ROUNDS (3) pairs of autocannon runs in ABBA order
 * (plain, link, link, plain, …: the machine is shared, and a drift of its load weighs on both
 * alike), each BENCH_SECONDS (10) with BENCH_CONNECTIONS (10) connections after a 2 s warm-up. Prints MiB/s, requests/s,
 * p50/p99 and the load of every run, and the ratio link / plain of the totals. Aim ≥ 95 %.
 *
 * Stack: BENCH_BASE_URL when it answers (rate limits off; DATABASE_URL its database, for the
 * users CLI), else a private one on BENCH_PORT_BASE (5840) with database rdm_bench_download and a
 * private nats-server on BENCH_NATS_PORT (4231), stopped at the end. Asserts nothing about speed;
 * exit 1 when a request fails. Ends with a `=== download-link bench summary ===` block.
 */
import autocannon from 'autocannon';
import { benchTarget, call, cliUser, expectStatus, load } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const SECONDS = num('BENCH_SECONDS', 10, 1, 120);
const CONNECTIONS = num('BENCH_CONNECTIONS', 10, 1, 500);
const ROUNDS = num('BENCH_ROUNDS', 3, 1, 20);
const FILE_BYTES = num('BENCH_FILE_BYTES', 1024 * 1024, 1, 256 * 1024 * 1024);
const PORT_BASE = num('BENCH_PORT_BASE', 5840, 1024, 65000);
const AIM = 0.95;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) rdm-bench/1.0';
const say = (l: string) => console.log(l);
const MiB = 1024 * 1024;

const FILE = Buffer.alloc(FILE_BYTES, 'download bench bytes\n');
const draftBody = (title: string, restricted: boolean) => ({
  access: { record: restricted ? 'restricted' : 'public', files: restricted ? 'restricted' : 'public' },
  files: { enabled: true },
  metadata: {
    title,
    publication_date: '2024-01-01',
    resource_type: { id: 'dataset' },
    creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Download' } }],
  },
});

/** Publish a record holding `data.bin`; returns its id. */
async function published(base: string, token: string, title: string, restricted: boolean): Promise<string> {
  const d = await call(base, 'POST', '/api/records', { token, json: draftBody(title, restricted) });
  expectStatus('create', d, 201);
  const id = d.body.id as string;
  const files = `/api/records/${id}/draft/files`;
  expectStatus('init', await call(base, 'POST', files, { token, json: [{ key: 'data.bin' }] }), 201);
  expectStatus('upload', await call(base, 'PUT', `${files}/data.bin/content`, { token, raw: FILE }), 200);
  expectStatus('commit', await call(base, 'POST', `${files}/data.bin/commit`, { token }), 200);
  expectStatus('publish', await call(base, 'POST', `/api/records/${id}/draft/actions/publish`, { token }), 202);
  return id;
}

/** Bytes of an anonymous GET (status checked). */
async function fetchBytes(url: string, status: number): Promise<Buffer> {
  const res = await fetch(url, { headers: { 'user-agent': UA } });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== status) throw new Error(`GET ${url}: HTTP ${res.status} (expected ${status}) ${body.subarray(0, 300)}`);
  return body;
}

/** Figures of one autocannon run. */
interface Run {
  rps: number;
  mibps: number;
  bytes: number;
  seconds: number;
  p50: number;
  p99: number;
  bad: number;
  load: string;
}

async function measure(url: string): Promise<Run> {
  const headers = { 'user-agent': UA };
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers });
  const started = Date.now();
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  const seconds = (Date.now() - started) / 1000;
  const ok = r['2xx'];
  return {
    rps: Math.round(ok / seconds),
    mibps: (ok * FILE_BYTES) / MiB / seconds,
    bytes: ok * FILE_BYTES,
    seconds,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors + r.timeouts,
    load: load(),
  };
}

const line = (name: string, r: Run) =>
  `${name.padEnd(6)} ${r.mibps.toFixed(1).padStart(8)} MiB/s ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.bad}  (load ${r.load})`;

const target = await benchTarget(
  { name: 'download', portBase: PORT_BASE, natsPort: num('BENCH_NATS_PORT', 4231, 1024, 65000), databaseName: 'rdm_bench_download' },
  say,
);
let code = 0;
try {
  const { base } = target;
  const owner = await cliUser(target.databaseUrl, `download-${Date.now().toString(36)}@bench.test`, { name: 'Download Bench' });
  const open = await published(base, owner.token, 'Download bench public record', false);
  const closed = await published(base, owner.token, 'Download bench restricted record', true);
  const future = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const link = await call(base, 'POST', `/api/records/${closed}/access/links`, {
    token: owner.token,
    json: { permission: 'view', expires_at: future, description: 'download bench' },
  });
  expectStatus('create link', link, 201);
  const plainUrl = `${base}/api/records/${open}/files/data.bin/content`;
  const linkUrl = `${base}/api/records/${closed}/files/data.bin/content?token=${encodeURIComponent(link.body.token)}`;
  await fetchBytes(`${base}/api/records/${closed}/files/data.bin/content`, 403);
  for (const url of [plainUrl, linkUrl]) {
    if (!(await fetchBytes(url, 200)).equals(FILE)) throw new Error(`GET ${url}: not the uploaded bytes`);
  }
  say(
    `download-link bench: ${(FILE_BYTES / MiB).toFixed(2)} MiB file, ${CONNECTIONS} connections, ${ROUNDS} × (plain, link) runs of ${SECONDS} s (2 s warm-up each)`,
  );
  const plain: Run[] = [];
  const linked: Run[] = [];
  // ABBA order (plain, link, link, plain, …): a drift of the machine's load weighs on both alike.
  for (let i = 0; i < 2 * ROUNDS; i++) {
    const withLink = i % 4 === 1 || i % 4 === 2;
    const r = await measure(withLink ? linkUrl : plainUrl);
    (withLink ? linked : plain).push(r);
    say(line(withLink ? 'link' : 'plain', r));
  }
  const total = (runs: Run[]) => runs.reduce((s, r) => s + r.bytes, 0) / MiB / runs.reduce((s, r) => s + r.seconds, 0);
  const bad = [...plain, ...linked].reduce((s, r) => s + r.bad, 0);
  const ratio = total(linked) / total(plain);
  const rounds = plain.map((p, i) => `${((linked[i]!.mibps / p.mibps) * 100).toFixed(1)} %`).join(', ');
  say('\n=== download-link bench summary ===');
  say(
    `  (a) downloads of a ${(FILE_BYTES / MiB).toFixed(2)} MiB file, ${CONNECTIONS} connections: plain ${total(plain).toFixed(1)} MiB/s, with ?token= ${total(linked).toFixed(1)} MiB/s`,
  );
  say(
    `      link / plain = ${(ratio * 100).toFixed(1)} % (per round: ${rounds}) — aim ≥ ${AIM * 100} %: ${ratio >= AIM ? 'met' : 'NOT met'}; errors ${bad} (load ${load()})`,
  );
  say(JSON.stringify({ bench: 'download-link', file_bytes: FILE_BYTES, connections: CONNECTIONS, plain, link: linked, ratio }));
  if (bad > 0) code = 1;
} catch (err) {
  console.error(`download-link bench failed: ${(err as Error).stack ?? err}`);
  code = 1;
} finally {
  await target.stop();
}
process.exit(code);
