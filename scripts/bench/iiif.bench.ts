/**
 * Benchmark: IIIF thumbnails (issue 24) through the gateway — a 256×256 thumbnail
 * (`full/!256,256/0/default.jpg`) of a 4000×3000 JPEG, cold (rendered) and cached (the derivative
 * read back from the object store), against a plain file download of a file of the thumbnail's
 * size, in the same run.
 *
 *   pnpm exec tsx scripts/bench/iiif.bench.ts        (or `make bench`)
 *
 * One published public record holds `photo.jpg` (4000×3000, made with sharp) and `thumb.bin` (the
 * bytes of the thumbnail, so both downloads move the same number of bytes). Cold: BENCH_CONNECTIONS
 * (50) requests at once, each for a size never asked before (`!256,256`, `!255,255`, …: every one
 * is a render), timed as a whole (renders per second, p50/p99 of those requests); also the first
 * request alone. Cached: BENCH_ROUNDS (2) pairs of autocannon runs, ABBA order, BENCH_SECONDS (10)
 * each with BENCH_CONNECTIONS connections after a 2 s warm-up, of the cached thumbnail and of the
 * plain download. Prints req/s, p50/p99 and the load of every run, and the ratio cached / plain.
 * Aim (issue 24): cached ≥ 0.5 of the plain download.
 *
 * Stack: BENCH_BASE_URL when it answers (rate limits off), else a private one on BENCH_PORT_BASE
 * (6060) with database rdm_bench_iiif and a private nats-server on BENCH_NATS_PORT (4262), stopped
 * at the end. Asserts nothing about speed; exit 1 when a request fails. Ends with a
 * `=== iiif bench summary ===` block.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { benchTarget, call, cliUser, expectStatus, load } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const SECONDS = num('BENCH_SECONDS', 10, 1, 120);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50, 1, 500);
const ROUNDS = num('BENCH_ROUNDS', 2, 1, 20);
const PORT_BASE = num('BENCH_PORT_BASE', 6060, 1024, 65000);
const AIM = 0.5;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) rdm-bench/1.0';
const say = (l: string) => console.log(l);

// Why through the files service's package: sharp is its dependency, not the repository root's.
type SharpFn = (o: { create: { width: number; height: number; channels: 3; background: string } }) => {
  composite(
    layers: { input: { create: { width: number; height: number; channels: 3; background: string } }; left: number; top: number }[],
  ): ReturnType<SharpFn>;
  jpeg(o: { quality: number }): { toBuffer(): Promise<Buffer> };
};
const sharp = createRequire(join(import.meta.dirname, '..', '..', 'services', 'files', 'package.json'))('sharp') as SharpFn;

/** A 4000×3000 JPEG with some structure (blocks of colour), not a flat field. */
async function photo(): Promise<Buffer> {
  const layers = Array.from({ length: 48 }, (_, i) => ({
    input: {
      create: {
        width: 500,
        height: 500,
        channels: 3 as const,
        background: `#${((i * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(0, 6)}`,
      },
    },
    left: (i % 8) * 500,
    top: Math.floor(i / 8) * 500,
  }));
  return sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#808080' } })
    .composite(layers)
    .jpeg({ quality: 90 })
    .toBuffer();
}

async function fetchBytes(url: string, status = 200, token?: string): Promise<Buffer> {
  const res = await fetch(url, { headers: { 'user-agent': UA, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== status) throw new Error(`GET ${url}: HTTP ${res.status} (expected ${status}) ${body.subarray(0, 300)}`);
  return body;
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
  seconds: number;
  ok: number;
  load: string;
}

async function measure(url: string): Promise<Run> {
  const headers = { 'user-agent': UA };
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers });
  const started = Date.now();
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  const seconds = (Date.now() - started) / 1000;
  return {
    rps: Math.round(r['2xx'] / seconds),
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors + r.timeouts,
    seconds,
    ok: r['2xx'],
    load: load(),
  };
}

const line = (name: string, r: Run) =>
  `${name.padEnd(7)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.bad}  (load ${r.load})`;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

const target = await benchTarget(
  { name: 'iiif', portBase: PORT_BASE, natsPort: num('BENCH_NATS_PORT', 4262, 1024, 65000), databaseName: 'rdm_bench_iiif' },
  say,
);
let code = 0;
try {
  const { base } = target;
  const owner = await cliUser(target.databaseUrl, `iiif-${Date.now().toString(36)}@bench.test`, { name: 'IIIF Bench' });
  const jpeg = await photo();
  const d = await call(base, 'POST', '/api/records', {
    token: owner.token,
    json: {
      access: { record: 'public', files: 'public' },
      files: { enabled: true },
      metadata: {
        title: 'IIIF bench record',
        publication_date: '2024-01-01',
        resource_type: { id: 'image-photo' },
        creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'IIIF' } }],
      },
    },
  });
  expectStatus('create', d, 201);
  const id = d.body.id as string;
  const files = `/api/records/${id}/draft/files`;
  const upload = async (key: string, bytes: Buffer) => {
    expectStatus(`init ${key}`, await call(base, 'POST', files, { token: owner.token, json: [{ key }] }), 201);
    expectStatus(`upload ${key}`, await call(base, 'PUT', `${files}/${key}/content`, { token: owner.token, raw: bytes }), 200);
    expectStatus(`commit ${key}`, await call(base, 'POST', `${files}/${key}/commit`, { token: owner.token }), 200);
  };
  await upload('photo.jpg', jpeg);
  // The thumbnail's bytes, as a plain file of the same size (rendered once by a draft request, not cached for the record).
  const plainBytes = await fetchBytes(`${base}/api/iiif/draft:${id}:photo.jpg/full/!256,256/0/default.jpg`, 200, owner.token);
  await upload('thumb.bin', plainBytes);
  expectStatus('publish', await call(base, 'POST', `/api/records/${id}/draft/actions/publish`, { token: owner.token }), 202);

  const iiif = `${base}/api/iiif/record:${id}:photo.jpg`;
  const thumbUrl = `${iiif}/full/!256,256/0/default.jpg`;
  const plainUrl = `${base}/api/records/${id}/files/thumb.bin/content`;
  say(`iiif bench: ${(jpeg.length / 1024).toFixed(0)} KiB 4000x3000 JPEG, thumbnail !256,256, ${CONNECTIONS} connections`);

  // Cold: the first request alone (it also warms sharp), then CONNECTIONS distinct renders at once.
  let t = Date.now();
  const first = await fetchBytes(`${iiif}/full/!250,250/0/default.jpg`);
  const firstMs = Date.now() - t;
  say(`cold    first request ${firstMs} ms (${first.length} bytes, load ${load()})`);
  const latencies: number[] = [];
  t = Date.now();
  const results = await Promise.allSettled(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      const s = Date.now();
      await fetchBytes(`${iiif}/full/!${256 - i},${256 - i}/0/default.jpg`);
      latencies.push(Date.now() - s);
    }),
  );
  const coldSeconds = (Date.now() - t) / 1000;
  const coldBad = results.filter((r) => r.status === 'rejected').length;
  const coldRps = (CONNECTIONS - coldBad) / coldSeconds;
  say(
    `cold    ${CONNECTIONS} distinct renders at once in ${coldSeconds.toFixed(2)} s: ${coldRps.toFixed(1)} renders/s  p50 ${pct(latencies, 50)} ms  p99 ${pct(latencies, 99)} ms  errors ${coldBad}  (load ${load()})`,
  );

  const thumb = await fetchBytes(thumbUrl);
  if (!(await fetchBytes(plainUrl)).equals(plainBytes)) throw new Error('plain download: not the uploaded bytes');
  const cached: Run[] = [];
  const plain: Run[] = [];
  for (let i = 0; i < 2 * ROUNDS; i++) {
    const isCached = i % 4 === 1 || i % 4 === 2;
    const r = await measure(isCached ? thumbUrl : plainUrl);
    (isCached ? cached : plain).push(r);
    say(line(isCached ? 'cached' : 'plain', r));
  }
  const total = (runs: Run[]) => runs.reduce((s, r) => s + r.ok, 0) / runs.reduce((s, r) => s + r.seconds, 0);
  const ratio = total(cached) / total(plain);
  const bad = [...cached, ...plain].reduce((s, r) => s + r.bad, 0) + coldBad;
  say('\n=== iiif bench summary ===');
  say(
    `  256x256 thumbnail of a 4000x3000 JPEG (${thumb.length} bytes), ${CONNECTIONS} connections: cold first ${firstMs} ms, cold ${coldRps.toFixed(1)} renders/s (p50 ${pct(latencies, 50)} ms)`,
  );
  say(
    `  cached ${total(cached).toFixed(0)} req/s vs plain download of ${plainBytes.length} bytes ${total(plain).toFixed(0)} req/s: cached / plain = ${(ratio * 100).toFixed(1)} % — aim ≥ ${AIM * 100} %: ${ratio >= AIM ? 'met' : 'NOT met'}; errors ${bad} (load ${load()})`,
  );
  say(JSON.stringify({ bench: 'iiif', connections: CONNECTIONS, first_ms: firstMs, cold_rps: coldRps, cached, plain, ratio }));
  if (bad > 0) code = 1;
} catch (err) {
  console.error(`iiif bench failed: ${(err as Error).stack ?? err}`);
  code = 1;
} finally {
  await target.stop();
}
process.exit(code);
