/**
 * Benchmark: `GET /api/vocabularies/resourcetypes/<id>` through the gateway, side by side with a
 * bare koa JSON handler serving the same body on 127.0.0.1, both with autocannon at 50
 * connections for BENCH_SECONDS (default 10) after a 2 s warm-up. Prints requests/s, p50 and
 * p99 of both and the ratio gateway/bare; the target is gateway p99 ≤ 20 ms.
 *
 *   pnpm exec tsx scripts/bench/vocabularies.bench.ts        (or `make bench`)
 *
 * - Target: BENCH_BASE_URL (default http://127.0.0.1:5000), loopback only. When nothing answers
 *   there, the bench starts its own vocabularies service and gateway with `startStack()` from
 *   scripts/up.ts on spare ports (BENCH_GATEWAY_PORT, default 5870; vocabularies on +2), with
 *   rate limiting off, migrates (and loads the fixtures), and stops them at the end. Postgres
 *   and NATS must be running (`make up` or scripts/infra/*.sh start).
 * - A running stack must have rate limiting off or high enough (`RATE_LIMIT_ENABLED=false`):
 *   a run with more than 1 % non-2xx answers fails.
 * - Env: BENCH_ENTRY_ID (image-photo), BENCH_SECONDS (10), BENCH_CONNECTIONS (50),
 *   BENCH_LOG_LEVEL (warn; the services' LOG_LEVEL when the bench starts them),
 *   BENCH_RATE_LIMIT_STORE (unset: rate limiting off; `local` or `nats`: on, with that
 *   RATE_LIMIT_STORE and limits high enough never to refuse, to measure the limiter's cost).
 * Exit code 0 when both runs completed without errors; the p99 target is reported, not enforced.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { REPO_ROOT, type Stack, startStack } from '../up.js';

const ENTRY_ID = process.env.BENCH_ENTRY_ID ?? 'image-photo';
const SECONDS = Math.min(Math.max(Number(process.env.BENCH_SECONDS ?? 10), 1), 60);
const CONNECTIONS = Math.min(Math.max(Number(process.env.BENCH_CONNECTIONS ?? 50), 1), 500);
const PATH = `/api/vocabularies/resourcetypes/${encodeURIComponent(ENTRY_ID)}`;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const P99_TARGET_MS = 20;

/** The gateway's rate-limit variables for BENCH_RATE_LIMIT_STORE (off when unset). */
function rateLimitEnv(): Record<string, string> {
  const store = process.env.BENCH_RATE_LIMIT_STORE;
  if (!store) return { RATE_LIMIT_ENABLED: 'false' };
  const high = '100000000';
  return { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_STORE: store, RATE_LIMIT_AUTHENTICATED: high, RATE_LIMIT_ANONYMOUS: high };
}

/** Refuse anything but the loopback interface. */
function assertLoopback(url: string): string {
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) {
    throw new Error(`BENCH_BASE_URL must be a loopback address (got ${u.hostname})`);
  }
  return `${u.protocol}//${u.host}`;
}

async function answers(url: string, timeoutMs = 1500): Promise<Response | null> {
  try {
    return await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    return null;
  }
}

/** The bare koa handler, in its own process so it does not share our event loop with autocannon. */
async function startBare(body: string): Promise<{ url: string; child: ChildProcess }> {
  const code = `
    const Koa = require('koa');
    const body = process.env.BENCH_BODY;
    const app = new Koa();
    app.use(async (ctx) => { ctx.type = 'application/json'; ctx.body = body; });
    const server = app.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
    server.keepAliveTimeout = 65000;
    process.on('SIGTERM', () => server.close(() => process.exit(0)));
  `;
  const child = spawn(process.execPath, ['-e', code], {
    cwd: join(REPO_ROOT, 'services', 'vocabularies'), // where `koa` resolves
    env: { ...process.env, BENCH_BODY: body },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await Promise.race([
    once(child.stdout!, 'data'),
    new Promise((_, rej) => setTimeout(() => rej(new Error('bare koa server did not start')), 15_000)),
  ])) as [Buffer];
  return { url: `http://127.0.0.1:${Number(chunk.toString().trim())}`, child };
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function measure(url: string): Promise<Result> {
  await autocannon({ url, connections: CONNECTIONS, duration: 2 }); // warm-up (caches, JIT, pools)
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

const row = (name: string, r: Result) =>
  `${name.padEnd(9)} ${String(r.rps).padStart(9)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${String(r.requests).padStart(9)} ${String(r.non2xx + r.errors).padStart(7)}`;

let stack: Stack | null = null;
let bare: ChildProcess | null = null;
let exitCode = 1;
const deadline = setTimeout(
  () => {
    console.error('bench: global time limit reached; stopping');
    void cleanup().finally(() => process.exit(1));
  },
  (SECONDS * 2 + 240) * 1000,
);
deadline.unref();

async function cleanup(): Promise<void> {
  if (bare?.pid && bare.exitCode === null) bare.kill('SIGTERM');
  bare = null;
  if (stack) await stack.stop();
  stack = null;
}
// SIGTERM too: `make bench` (run-all.ts) stops a bench that runs too long with it.
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void cleanup().finally(() => process.exit(130)));

try {
  let base = assertLoopback(process.env.BENCH_BASE_URL ?? 'http://127.0.0.1:5000');
  let entry = await answers(`${base}${PATH}`);
  if (!entry || entry.status >= 500) {
    const gwPort = Number(process.env.BENCH_GATEWAY_PORT ?? 5870);
    console.log(`bench: nothing answers ${base}${PATH}; starting vocabularies + gateway on 127.0.0.1:${gwPort} (+2)…`);
    stack = await startStack({
      only: ['vocabularies', 'gateway'],
      ports: { gateway: gwPort, vocabularies: gwPort + 2 },
      env: { ...rateLimitEnv(), LOG_LEVEL, PUBLIC_BASE_URL: `http://127.0.0.1:${gwPort}` },
      restart: false,
      logDir: join(REPO_ROOT, '.data', 'bench-logs'),
      readyTimeoutMs: 120_000,
    });
    base = `http://127.0.0.1:${gwPort}`;
    entry = await answers(`${base}${PATH}`, 10_000);
  }
  if (!entry || entry.status !== 200) throw new Error(`GET ${base}${PATH} answered ${entry?.status ?? 'nothing'}`);
  const body = await entry.text();
  const b = await startBare(body);
  bare = b.child;
  const bareUrl = `${b.url}${PATH}`;

  console.log(`bench: ${CONNECTIONS} connections, ${SECONDS} s each, body ${Buffer.byteLength(body)} bytes, entry ${ENTRY_ID}`);
  const gateway = await measure(`${base}${PATH}`);
  const direct = await measure(bareUrl);
  console.log(
    `\n${'target'.padEnd(9)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'requests'.padStart(9)} ${'bad'.padStart(7)}`,
  );
  console.log(row('gateway', gateway));
  console.log(row('bare koa', direct));
  const ratio = direct.rps > 0 ? gateway.rps / direct.rps : 0;
  console.log(
    `\nratio gateway/bare: ${ratio.toFixed(2)} (req/s), p99 ${gateway.p99.toFixed(1)} ms vs target ${P99_TARGET_MS} ms: ${gateway.p99 <= P99_TARGET_MS ? 'met' : 'NOT met'}`,
  );
  console.log('\n=== vocabularies bench summary ===');
  console.log(
    `  gateway ${gateway.rps} req/s, p50 ${gateway.p50.toFixed(1)} ms, p99 ${gateway.p99.toFixed(1)} ms (aim ≤ ${P99_TARGET_MS}: ${gateway.p99 <= P99_TARGET_MS ? 'met' : 'NOT met'}); bare koa ${direct.rps} req/s, p99 ${direct.p99.toFixed(1)} ms; ratio ${ratio.toFixed(2)} (load ${loadavg()[0].toFixed(2)})`,
  );
  console.log(
    JSON.stringify({
      bench: 'vocabularies',
      path: PATH,
      connections: CONNECTIONS,
      seconds: SECONDS,
      gateway,
      bare: direct,
      ratio: Math.round(ratio * 100) / 100,
      p99TargetMs: P99_TARGET_MS,
    }),
  );
  const bad = (r: Result) => r.errors > 0 || r.non2xx > r.requests * 0.01;
  if (bad(gateway)) console.error('bench: the gateway run had errors or >1 % non-2xx answers (rate limiting on?)');
  exitCode = bad(gateway) || bad(direct) ? 1 : 0;
} catch (err) {
  console.error(`bench failed: ${(err as Error).message}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
