/**
 * Proxy overhead benchmark: `GET /api/vocabularies/resourcetypes/<id>` straight to a bare koa
 * handler vs through the gateway (src/main.ts) in front of it, 50 connections each.
 *
 *   cd services/gateway && pnpm exec tsx bench/proxy-bench.ts   (needs NATS at NATS_URL)
 *
 * Prints requests/s and p99 of both and their ratio. Loopback only; bounded in time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import autocannon from 'autocannon';

const UPSTREAM_PORT = 5199;
const GATEWAY_PORT = 5198;
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const path = '/api/vocabularies/resourcetypes/image-photo';

const children: ChildProcess[] = [];
function start(script: string, env: Record<string, string>): ChildProcess {
  const c = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(c);
  return c;
}
async function waitUp(url: string) {
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never came up`);
}
async function run(url: string) {
  await autocannon({ url, connections: CONNECTIONS, duration: 2 }); // warm-up
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION });
  return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

try {
  start('bench/upstream.ts', { PORT: String(UPSTREAM_PORT) });
  start('src/main.ts', {
    PORT: String(GATEWAY_PORT),
    VOCABULARIES_URL: `http://127.0.0.1:${UPSTREAM_PORT}`,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMIT_ANONYMOUS: '1000000000',
    OPENAPI_FETCH_ATTEMPTS: '0',
  });
  await waitUp(`http://127.0.0.1:${UPSTREAM_PORT}${path}`);
  await waitUp(`http://127.0.0.1:${GATEWAY_PORT}/readyz`);
  const direct = await run(`http://127.0.0.1:${UPSTREAM_PORT}${path}`);
  const gateway = await run(`http://127.0.0.1:${GATEWAY_PORT}${path}`);
  console.log(JSON.stringify({ direct, gateway, ratio: Math.round((gateway.rps / direct.rps) * 100) / 100 }, null, 1));
} finally {
  for (const c of children) c.kill('SIGTERM');
}
