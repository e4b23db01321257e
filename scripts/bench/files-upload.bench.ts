/**
 * Benchmark: one 1 GiB upload at disk speed (issue 14, item 4).
 *
 *   pnpm exec tsx scripts/bench/files-upload.bench.ts        (or `make bench`)
 *
 * In one run, on the same disk (the stack's files folder under `.data/`):
 * 1. plain copies of BENCH_UPLOAD_BYTES (1 GiB): write the source (fsync), `cp` it (into the page
 *    cache, no fsync: the issue's reference), `cp` + `sync` of the copy, stream-copy it with fsync
 *    (the durability the service gives each upload: one fsync at the end);
 * 2. the upload straight to the files service (its port, the gateway's signed identity header made
 *    here with IDENTITY_SECRET): init, PUT content (with its Content-Length, as `curl
 *    --data-binary @file` sends it; BENCH_CHUNKED=1: chunked transfer encoding), commit;
 * 3. the same upload through the gateway (Bearer token).
 * For each upload: MB/s of the PUT, ms of the commit, the md5 and size the service reports must be
 * those of the bytes sent (exit 1 otherwise), CPU ms per process during the PUT (utime+stime from
 * /proc: gateway, files, the PostgreSQL backends, the bench client) and the peak RSS of each
 * process (VmRSS every 50 ms, printed in decimal MB = 10^6 bytes, the issue's unit): gateway and
 * files must stay under 200 MB = 200,000,000 bytes (exit 1 otherwise). Ratios:
 * upload / cp, upload / copy+fsync, gateway / direct (what the gateway hop costs for bodies).
 * The bytes are 16 distinct pseudo-random 1 MiB blocks sent over and over (no allocation per
 * chunk) and their md5 is computed before the clock starts, so the client spends little CPU
 * while the servers work. Aim: upload through the gateway ≥ 0.6 × cp, RSS ≤ 200 MB. The summary
 * gives the verdict against both baselines, named: `cp` (the issue's reference: it returns once
 * the bytes are in the page cache, so it measures memory, 161–4,075 MB/s between runs here) and
 * the stream copy + fsync (as durable as an upload: the service answers after its fsync).
 *
 * Stack: BENCH_BASE_URL when set and answering (DATABASE_URL its database for the users CLI, the
 * files service on BENCH_FILES_PORT (5104), its IDENTITY_SECRET in the env); otherwise a private
 * one (`benchTarget` of lib/harness.ts, `startStack()` of scripts/up.ts): gateway on
 * BENCH_PORT_BASE (6040), services on +1…+6, database rdm_bench_upload, a private nats-server on
 * BENCH_NATS_PORT (4261), local file storage in .data/bench-upload-files; stopped at the end. It
 * runs the production build (`dist/`, rebuilt here when a source is newer, as `make up` runs it);
 * BENCH_RUNTIME=tsx runs the sources under tsx instead.
 * BENCH_STORAGE=s3 (private stack only) runs files on the dev MinIO (`make minio`, bucket
 * rdm-bench-upload) instead of local storage; the copies still measure the local disk.
 * BENCH_GATEWAY_PROF=1 (private stack only) CPU-profiles every process of the stack
 * (lib/cpu-profile.cjs) into .data/bench-upload-prof/<pid>.cpuprofile, written when the
 * stack stops; the pids of gateway and files are printed.
 * Asserts nothing about speed. Ends with a `=== files-upload bench summary ===` block.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { signedHeaders } from './lib/identity.js';
import { BUILD_SERVICES, buildService, isStale } from '../build.js';
import { DEFAULT_PORTS, REPO_ROOT, SERVICES, stackIdentitySecret } from '../up.js';
import { type CpuTargets, cpuDelta, cpuSnapshot, formatPerProcess, pgBackends, pidOfPort, rssMiBOf } from './lib/cpu.js';
import { type BenchTarget, benchTarget, call, cliUser, expectStatus, load, readRes } from './lib/harness.js';

const env = process.env;
const num = (name: string, dflt: number, min: number, max: number) => {
  const v = Number(env[name] ?? dflt);
  return Math.min(Math.max(Number.isFinite(v) ? v : dflt, min), max);
};
const TOTAL = num('BENCH_UPLOAD_BYTES', 1024 ** 3, 1024 * 1024, 16 * 1024 ** 3);
const PORT_BASE = num('BENCH_PORT_BASE', 6040, 1024, 65000);
const NATS_PORT = num('BENCH_NATS_PORT', 4261, 1024, 65535);
const EMAIL = env.BENCH_EMAIL ?? 'upload-bench@example.org';
const PROF = env.BENCH_GATEWAY_PROF === '1';
const S3 = env.BENCH_STORAGE === 's3';
/** Send the body with chunked transfer encoding instead of a Content-Length (as `curl --data-binary @file`). */
const CHUNKED = env.BENCH_CHUNKED === '1';
/** What the private stack runs: the production build (as `make up`, default) or the sources under tsx. */
const RUNTIME: 'dist' | 'tsx' = env.BENCH_RUNTIME === 'tsx' ? 'tsx' : 'dist';
/** The files service on the dev MinIO (`make minio`), a bucket of its own. */
const S3_ENV = {
  FILES_STORAGE: 's3',
  S3_ENDPOINT: env.S3_ENDPOINT ?? 'http://127.0.0.1:9000',
  S3_ACCESS_KEY: env.S3_ACCESS_KEY ?? 'rdmminio',
  S3_SECRET_KEY: env.S3_SECRET_KEY ?? 'rdmminiosecret',
  S3_BUCKET: 'rdm-bench-upload',
};
/** The issue's RSS aim: 200 MB in decimal bytes (= 190.7 MiB); every RSS here is printed in MB. */
const RSS_LIMIT_BYTES = 200_000_000;
const AIM = 0.6;
const MB = 1_000_000;
const say = (l: string) => console.log(l);
const mbps = (bytes: number, ms: number) => bytes / MB / (ms / 1000);
/** RSS of `pid` in decimal MB (VmRSS is in KiB). */
const rssMBOf = (pid: number): number | null => {
  const mib = rssMiBOf(pid);
  return mib === null ? null : (mib * 2 ** 20) / MB;
};

// ─── data ──────────────────────────────────────────────────────────────────────────────────────

const BLOCK_BYTES = 1024 * 1024;
const DISTINCT = 16;
/**
 * DISTINCT pseudo-random 1 MiB blocks, each stamped with its index; chunk i is block i % DISTINCT.
 * Made once: the client sends the same immutable buffers again (no allocation nor copy per chunk),
 * so its CPU is the socket's, not the generator's.
 */
const BLOCKS = (() => {
  const out: Buffer[] = [];
  let s = 7;
  for (let k = 0; k < DISTINCT; k++) {
    const b = Buffer.allocUnsafe(BLOCK_BYTES);
    for (let i = 0; i < b.length; i++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      b[i] = s >>> 16;
    }
    b.writeUInt32LE(k, 0);
    out.push(b);
  }
  return out;
})();

function* chunks(total: number): Generator<Buffer> {
  let sent = 0;
  for (let i = 0; sent < total; i++) {
    const n = Math.min(BLOCK_BYTES, total - sent);
    const block = BLOCKS[i % DISTINCT];
    sent += n;
    yield n === BLOCK_BYTES ? block : block.subarray(0, n);
  }
}

function md5Of(total: number): string {
  const h = createHash('md5');
  for (const c of chunks(total)) h.update(c);
  return h.digest('hex');
}

// ─── processes ─────────────────────────────────────────────────────────────────────────────────

/** Peak RSS (decimal MB) of every target process and of this client, sampled every 50 ms until stopped. */
function rssSampler(t: CpuTargets) {
  const max: Record<string, number> = {};
  const tick = () => {
    for (const [name, pid] of Object.entries(t.procs)) {
      const r = rssMBOf(pid);
      if (r !== null) max[name] = Math.max(max[name] ?? 0, r);
    }
    if (t.database) for (const pid of pgBackends(t.database)) max.postgres = Math.max(max.postgres ?? 0, rssMBOf(pid) ?? 0);
    max['bench client'] = Math.max(max['bench client'] ?? 0, process.memoryUsage().rss / MB);
  };
  tick();
  const timer = setInterval(tick, 50);
  return {
    stop(): Record<string, number> {
      clearInterval(timer);
      tick();
      return max;
    },
  };
}

// ─── HTTP ──────────────────────────────────────────────────────────────────────────────────────

/** PUT the generated bytes (Content-Length, or chunked with BENCH_CHUNKED=1); resolves with the status and the parsed body. */
function putStream(base: string, path: string, total: number, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const url = new URL(`${base}${path}`);
  const gen = chunks(total);
  return new Promise((resolveP, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream', ...(CHUNKED ? {} : { 'content-length': String(total) }), ...headers },
      },
      (res) => readRes(res).then(resolveP, reject),
    );
    req.on('error', reject);
    const pump = () => {
      for (;;) {
        const n = gen.next();
        if (n.done) {
          req.end();
          return;
        }
        if (!req.write(n.value)) {
          req.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

/** One measured upload: figures of the PUT (time, CPU per process, peak RSS) and the commit. */
interface Upload {
  putMs: number;
  commitMs: number;
  cpu: Record<string, number>;
  rss: Record<string, number>;
  load: string;
}

/** Init, PUT, commit of `key` on `base` with `headers`; checks the md5 and size the service reports. */
async function uploadOne(
  base: string,
  recordId: string,
  key: string,
  headers: (method: string, path: string) => Record<string, string>,
  md5: string,
  targets: CpuTargets,
): Promise<Upload> {
  const files = `/api/records/${recordId}/draft/files`;
  const init = await rawCall(base, 'POST', files, headers('POST', files), JSON.stringify([{ key }]));
  expectStatus('init', init, 201);
  const rss = rssSampler(targets);
  const c0 = cpuSnapshot(targets);
  let t = performance.now();
  const put = await putStream(base, `${files}/${key}/content`, TOTAL, headers('PUT', `${files}/${key}/content`));
  const putMs = performance.now() - t;
  const cpu = cpuDelta(c0, cpuSnapshot(targets));
  const peak = rss.stop();
  expectStatus('upload', put, 200);
  t = performance.now();
  const commit = await rawCall(base, 'POST', `${files}/${key}/commit`, headers('POST', `${files}/${key}/commit`));
  const commitMs = performance.now() - t;
  expectStatus('commit', commit, 200);
  if (commit.body.checksum !== `md5:${md5}` || commit.body.size !== TOTAL) {
    throw new Error(`checksum/size mismatch: sent md5:${md5} ${TOTAL} B, service says ${commit.body.checksum} ${commit.body.size} B`);
  }
  return { putMs, commitMs, cpu, rss: peak, load: load() };
}

/** A small request with arbitrary headers (identity header for the direct path). */
function rawCall(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  json?: string,
): Promise<{ status: number; body: any }> {
  const url = new URL(`${base}${path}`);
  return new Promise((resolveP, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: {
          ...headers,
          ...(json !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) } : {}),
        },
      },
      (res) => readRes(res).then(resolveP, reject),
    );
    req.setTimeout(120_000, () => req.destroy(new Error(`${method} ${path}: no answer in 120 s`)));
    req.on('error', reject);
    req.end(json);
  });
}

// ─── the plain copies ──────────────────────────────────────────────────────────────────────────

async function plainCopies(dir: string): Promise<{ writeMs: number; cpMs: number; cpSyncMs: number; syncCopyMs: number }> {
  mkdirSync(dir, { recursive: true });
  const src = join(dir, 'source.bin');
  const dst = join(dir, 'copy.bin');
  const dst2 = join(dir, 'copy-fsync.bin');
  const flushed = { highWaterMark: 1024 * 1024, flush: true } as Parameters<typeof createWriteStream>[1];
  try {
    let t = performance.now();
    await pipeline(chunks(TOTAL), createWriteStream(src, flushed));
    const writeMs = performance.now() - t;
    t = performance.now();
    const cp = spawnSync('cp', [src, dst]);
    if (cp.status !== 0) throw new Error(`cp failed: ${cp.stderr}`);
    const cpMs = performance.now() - t;
    rmSync(dst, { force: true });
    t = performance.now();
    const cps = spawnSync('sh', ['-c', 'cp "$1" "$2" && sync "$2"', 'sh', src, dst]);
    if (cps.status !== 0) throw new Error(`cp + sync failed: ${cps.stderr}`);
    const cpSyncMs = performance.now() - t;
    rmSync(dst, { force: true });
    t = performance.now();
    await pipeline(createReadStream(src, { highWaterMark: 1024 * 1024 }), createWriteStream(dst2, flushed));
    const syncCopyMs = performance.now() - t;
    if (statSync(dst2).size !== TOTAL) throw new Error('stream copy size mismatch');
    return { writeMs, cpMs, cpSyncMs, syncCopyMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ─── main ──────────────────────────────────────────────────────────────────────────────────────

const profDir = join(REPO_ROOT, '.data', 'bench-upload-prof');
let target: BenchTarget | null = null;
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => void (target?.stop() ?? Promise.resolve()).finally(() => process.exit(130)));

let exitCode = 0;
try {
  const external = Boolean(env.BENCH_BASE_URL);
  if (!external && RUNTIME === 'dist') {
    for (const svc of BUILD_SERVICES) {
      if (!isStale(svc)) continue;
      const t = Date.now();
      await buildService(svc, join(REPO_ROOT, 'dist'));
      say(`files-upload bench: built dist/${svc} (${Date.now() - t} ms)`);
    }
  }
  target = await benchTarget(
    {
      name: 'upload',
      portBase: PORT_BASE,
      natsPort: NATS_PORT,
      databaseName: 'rdm_bench_upload',
      privateOnly: !external,
      runtime: RUNTIME,
      ...(PROF && !external
        ? { env: { NODE_OPTIONS: `--require ${join(REPO_ROOT, 'scripts', 'bench', 'lib', 'cpu-profile.cjs')}`, RDM_CPU_PROF_DIR: profDir } }
        : {}),
    },
    say,
  );
  const base = target.base;
  const filesPort = external ? num('BENCH_FILES_PORT', DEFAULT_PORTS.files, 1, 65535) : PORT_BASE + 1 + SERVICES.indexOf('files');
  const filesBase = `http://127.0.0.1:${filesPort}`;
  // The stack's secret: the one given to it, else the random one scripts/up.ts keeps under .data.
  const secret = env.IDENTITY_SECRET ?? stackIdentitySecret(REPO_ROOT);
  const storageDir = external
    ? join(REPO_ROOT, '.data', 'bench-upload-copy')
    : join(REPO_ROOT, '.data', 'bench-upload-files', 'bench-copy');
  const user = await cliUser(target.databaseUrl, EMAIL);
  const bearer = { authorization: `Bearer ${user.token}` };
  const identity = (method: string, path: string) => signedHeaders({ sub: user.id, roles: [] }, secret, method, path);
  const d = await call(base, 'POST', '/api/records', {
    token: user.token,
    json: {
      access: { record: 'public', files: 'public' },
      files: { enabled: true },
      metadata: {
        title: 'Upload benchmark',
        publication_date: '2024-01-01',
        resource_type: { id: 'dataset' },
        creators: [{ person_or_org: { type: 'personal', given_name: 'Bench', family_name: 'Upload' } }],
      },
    },
  });
  expectStatus('create draft', d, 201);
  const id = d.body.id as string;

  say(
    `files-upload bench: ${(TOTAL / 2 ** 30).toFixed(2)} GiB, ${S3 ? 'S3 storage (MinIO)' : 'local storage'}, ${CHUNKED ? 'chunked' : 'Content-Length'}, ${external ? 'external stack' : RUNTIME === 'dist' ? 'production build' : 'tsx'}; gateway ${base}, files ${filesBase}; load ${load()}`,
  );
  const t = performance.now();
  const md5 = md5Of(TOTAL);
  say(`  md5 of the bytes (before the clock): ${md5} in ${(performance.now() - t).toFixed(0)} ms`);

  const copy = await plainCopies(storageDir);
  const cpMBps = mbps(TOTAL, copy.cpMs);
  const syncMBps = mbps(TOTAL, copy.syncCopyMs);
  say(`  plain write + fsync        ${mbps(TOTAL, copy.writeMs).toFixed(1)} MB/s`);
  say(`  cp                         ${cpMBps.toFixed(1)} MB/s   (into the page cache: no fsync)`);
  say(`  cp + sync of the copy      ${mbps(TOTAL, copy.cpSyncMs).toFixed(1)} MB/s`);
  say(`  stream copy + fsync        ${syncMBps.toFixed(1)} MB/s   (load ${load()})`);

  const targets = target.cpuTargets();
  const minioPid = S3 ? pidOfPort(Number(new URL(S3_ENV.S3_ENDPOINT).port || 80)) : null;
  if (minioPid) targets.procs.minio = minioPid;
  if (PROF) say(`  profiling into ${profDir}: gateway pid ${targets.procs.gateway}, files pid ${targets.procs.files}`);
  const show = (name: string, u: Upload) => {
    const keep = (o: Record<string, number>) =>
      Object.fromEntries(Object.entries(o).filter(([k]) => ['gateway', 'files', 'minio', 'postgres', 'bench client', 'nats'].includes(k)));
    say(
      `  ${name.padEnd(26)} ${mbps(TOTAL, u.putMs).toFixed(1)} MB/s (${(u.putMs / 1000).toFixed(2)} s), commit ${u.commitMs.toFixed(0)} ms (load ${u.load})`,
    );
    say(
      `    CPU ms during the PUT:   ${formatPerProcess(keep(u.cpu), 0)}  (per GiB: files ${((u.cpu.files ?? 0) / (TOTAL / 2 ** 30)).toFixed(0)}, gateway ${((u.cpu.gateway ?? 0) / (TOTAL / 2 ** 30)).toFixed(0)})`,
    );
    say(`    peak RSS MB:             ${formatPerProcess(keep(u.rss), 0).replace(/; total.*/, '')}`);
    for (const p of ['gateway', 'files'] as const) {
      if ((u.rss[p] ?? 0) * MB >= RSS_LIMIT_BYTES) {
        say(`    ${p} went OVER ${RSS_LIMIT_BYTES / MB} MB RSS (${(u.rss[p] ?? 0).toFixed(1)} MB)`);
        exitCode = 1;
      }
    }
  };
  const idle = Object.fromEntries(['gateway', 'files'].map((n) => [n, targets.procs[n] ? (rssMBOf(targets.procs[n]) ?? 0) : 0]));
  say(`  RSS MB before the uploads:  gateway ${idle.gateway.toFixed(0)}, files ${idle.files.toFixed(0)}`);
  const direct = await uploadOne(filesBase, id, 'direct.bin', identity, md5, targets);
  show('upload direct to files', direct);
  const gw = await uploadOne(base, id, 'gateway.bin', () => bearer, md5, targets);
  show('upload through gateway', gw);
  await call(base, 'DELETE', `/api/records/${id}/draft`, { token: user.token });

  const directMBps = mbps(TOTAL, direct.putMs);
  const gwMBps = mbps(TOTAL, gw.putMs);
  say(`  ratio direct / cp          ${(directMBps / cpMBps).toFixed(2)}`);
  say(`  ratio gateway / cp         ${(gwMBps / cpMBps).toFixed(3)}   (aim ≥ ${AIM}; cp: page cache, no fsync)`);
  say(`  ratio gateway / copy+fsync ${(gwMBps / syncMBps).toFixed(2)}   (a copy as durable as an upload)`);
  say(`  ratio gateway / cp+sync    ${(gwMBps / mbps(TOTAL, copy.cpSyncMs)).toFixed(2)}`);
  say(
    `  ratio gateway / direct     ${(gwMBps / directMBps).toFixed(2)}   (gateway CPU ${(gw.cpu.gateway ?? 0).toFixed(0)} ms for the body)`,
  );

  const filesPeak = Math.max(gw.rss.files ?? 0, direct.rss.files ?? 0);
  say('\n=== files-upload bench summary ===');
  say(
    `  ${TOTAL === 2 ** 30 ? '1 GiB' : `${(TOTAL / 2 ** 20).toFixed(0)} MiB`} upload (${S3 ? 'S3 storage on MinIO' : 'local storage'}): through the gateway ${gwMBps.toFixed(1)} MB/s, direct to files ${directMBps.toFixed(1)} MB/s; cp ${cpMBps.toFixed(1)} MB/s, cp+sync ${mbps(TOTAL, copy.cpSyncMs).toFixed(1)} MB/s, stream copy+fsync ${syncMBps.toFixed(1)} MB/s`,
  );
  const verdict = (r: number) => `${r >= AIM ? 'met' : 'NOT met'}`;
  say(
    `  ratio gateway/cp ${(gwMBps / cpMBps).toFixed(3)} (aim ≥ ${AIM} × cp: ${verdict(gwMBps / cpMBps)}; baseline cp = into the page cache, no fsync), gateway/copy+fsync ${(gwMBps / syncMBps).toFixed(2)} (≥ ${AIM} × a copy as durable as an upload: ${verdict(gwMBps / syncMBps)}), direct/cp ${(directMBps / cpMBps).toFixed(3)}, gateway/direct ${(gwMBps / directMBps).toFixed(2)}`,
  );
  say(
    `  peak RSS MB (10^6 bytes): gateway ${(gw.rss.gateway ?? 0).toFixed(0)}, files ${filesPeak.toFixed(0)}, before the uploads ${idle.files.toFixed(0)} (aim ≤ ${RSS_LIMIT_BYTES / MB} MB${filesPeak * MB < RSS_LIMIT_BYTES && (gw.rss.gateway ?? 0) * MB < RSS_LIMIT_BYTES ? ': met' : ': NOT met'}); CPU ms per GiB through the gateway: gateway ${((gw.cpu.gateway ?? 0) / (TOTAL / 2 ** 30)).toFixed(0)}, files ${((gw.cpu.files ?? 0) / (TOTAL / 2 ** 30)).toFixed(0)} (load ${load()})`,
  );
} catch (err) {
  console.error('files-upload bench failed:', err);
  exitCode = 1;
} finally {
  await target?.stop();
}
process.exit(exitCode);
