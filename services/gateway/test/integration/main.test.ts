import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { createLogger, serveRpc, type RpcServer } from '@rdm/platform';
import { spawnNatsServer, testNats, waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '../../src/auth.js';
import type { ServiceName } from '../../src/routes.js';
import { type StubUpstream, closedPort, identityOf, startUpstreams, upstreamEnv } from './stubs.js';

// The real entry point (src/main.ts) in its own process, so its memory can be watched.
const SECRET = 'integration-identity-secret';
const nats = spawnNatsServer({ port: 20000 + Math.floor(Math.random() * 20000) });
const gatewayDir = fileURLToPath(new URL('../..', import.meta.url));
let nc: NatsConnection;
let closeNats: () => Promise<void>;
let rpc: RpcServer;
let stubs: Record<ServiceName, StubUpstream>;
let child: ChildProcess;
let base: string;
let output = '';
const users = new Map<string, { user_id: string; roles: string[]; token_id: string }>();

const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/** PUT `total` bytes as a chunked stream, honouring back-pressure. */
function upload(path: string, total: number): Promise<{ status: number; body: { size: number } }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { method: 'PUT', headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

beforeAll(async () => {
  await nats.start();
  const h = await testNats(nats.url, 'gateway-main-test');
  nc = h.nc;
  closeNats = h.close;
  rpc = serveRpc<{ token: string }>(nc, 'rdm.users.rpc.verify-token', async ({ token }) => users.get(token) ?? null, {
    queue: 'users',
    logger: createLogger('users-stub', 'silent'),
  });
  stubs = await startUpstreams();
  const port = await closedPort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: gatewayDir,
    env: {
      ...process.env,
      ...upstreamEnv(stubs),
      PORT: String(port),
      NATS_URL: nats.url,
      IDENTITY_SECRET: SECRET,
      LOG_LEVEL: 'warn',
      TOKEN_CACHE_TTL_MS: '60000',
      OPENAPI_FETCH_ATTEMPTS: '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-5000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 200,
    message: 'gateway did not become ready',
  }).catch((e) => {
    throw new Error(`${(e as Error).message}\n${output}`);
  });
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  for (const s of Object.values(stubs ?? {})) await s.close();
  await rpc?.stop();
  await closeNats?.();
  await nats.dispose();
});

describe('gateway main', () => {
  it('should serve health, metrics and the merged OpenAPI document', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('http_request_duration_seconds');
    await waitFor(
      async () => {
        const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as { paths: Record<string, { get?: { summary?: string } }> };
        return doc.paths['/api/vocabularies/{type}/{id}']?.get?.summary === 'Read an entry (vocabularies fragment)';
      },
      { timeoutMs: 10_000, message: 'vocabularies fragment never merged' },
    );
  });

  it('should invalidate cached tokens from users events, then refuse them with 401 (the default)', async () => {
    users.set('main-token', { user_id: '3', roles: [], token_id: 'tok-3' });
    const call = async () => {
      const res = await fetch(`${base}/api/records`, { headers: { authorization: 'Bearer main-token' } });
      await res.arrayBuffer();
      return res.status;
    };
    expect(await call()).toBe(200);
    expect(identityOf(stubs.records.seen.at(-1), SECRET)).toMatchObject({ sub: '3', roles: [] });
    users.delete('main-token');
    nc.publish('rdm.users.token.revoked', JSON.stringify({ data: { id: 'tok-3', user_id: '3' } }));
    // The TTL is 60 s here, so only the event can make the gateway ask again.
    await waitFor(async () => (await call()) === 401, { timeoutMs: 3000, intervalMs: 50 });
    const seen = stubs.records.seen.length;
    expect(await call()).toBe(401);
    expect(stubs.records.seen).toHaveLength(seen);
  });

  it('should stream a 100 MB upload without buffering it', async () => {
    // Warm up (JIT, socket buffers, the allocator's working size: the upstream client's write path
    // settles at about 30 MiB of buffers awaiting collection), then take the baseline.
    expect((await upload('/api/records/abcde-fgh12/draft/files/warm.bin/content', 32 * 1024 * 1024)).status).toBe(200);
    const pid = child.pid as number;
    const baseline = rssBytes(pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssBytes(pid));
    }, 20);
    const total = 100 * 1024 * 1024;
    const res = await upload('/api/records/abcde-fgh12/draft/files/big.bin/content', total).finally(() => clearInterval(sampler));
    expect(res.status).toBe(200);
    expect(res.body.size).toBe(total);
    const grew = peak - baseline;
    expect(grew, `gateway RSS grew by ${Math.round(grew / 1048576)} MiB`).toBeLessThan(40 * 1024 * 1024);
  });

  it('should stop gracefully on SIGTERM', async () => {
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
