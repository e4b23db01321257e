/**
 * Streaming for real: a 1 GiB upload (generated on the fly, never read from disk, sent with
 * chunked transfer so the service does not know the size) through the files app running in its
 * own process, then a full download. The service process's `process.memoryUsage().rss` is
 * sampled every 50 ms: it may grow by at most 100 MiB over its idle size while 1 GiB passes
 * through (buffering the file would add ~1024 MiB), and never exceed 256 MiB; this test
 * process stays under 200 MB. Why growth over idle and not only a fixed ceiling: the idle size
 * follows the libraries a service loads (S3 client, search clients), not how it moves bytes.
 * `MEMTEST_DEBUG=1` also prints the per-phase maxima of heapTotal, external and arrayBuffers.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestDb, repoRoot, testDb } from '@rdm/platform/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CI, S3_MISSING, S3_SETTINGS, s3Available, describeEngines } from './support.js';

const GiB = 1024 * 1024 * 1024;
const LIMIT = 200 * 1024 * 1024;
/** Largest RSS growth of the service over its idle size while 1 GiB streams through. */
const GROWTH_LIMIT = 100 * 1024 * 1024;
/** Ceiling of the service's RSS. */
const SERVICE_LIMIT = 256 * 1024 * 1024;
const S3_UP = await s3Available();
if (!S3_UP && !CI) console.warn(`[files memory test] skipping S3: ${S3_MISSING}`);

/** A fixed pseudo-random 1 MiB block, repeated (with its index stamped in) to make 1 GiB. */
function block(): Buffer {
  const b = Buffer.allocUnsafe(1024 * 1024);
  let s = 42;
  for (let i = 0; i < b.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    b[i] = s >>> 16;
  }
  return b;
}

/** Send `total` bytes with chunked transfer; resolves with the response and the md5 of what was sent. */
function upload(port: number, path: string, total: number, onProgress: () => void): Promise<{ status: number; body: any; md5: string }> {
  const base = block();
  const hash = createHash('md5');
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'PUT', headers: { 'content-type': 'application/octet-stream' } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString() || 'null'), md5: hash.digest('hex') }),
        );
      },
    );
    req.on('error', reject);
    let sent = 0;
    let i = 0;
    const pump = () => {
      while (sent < total) {
        const chunk = Buffer.from(base);
        chunk.writeUInt32LE(i++, 0);
        hash.update(chunk);
        sent += chunk.length;
        onProgress();
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

function call(port: number, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { 'content-type': 'application/json' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString();
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Download everything, hashing it, without keeping it. */
function download(port: number, path: string, onProgress: () => void): Promise<{ status: number; md5: string; size: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      const h = createHash('md5');
      let size = 0;
      res.on('data', (c: Buffer) => {
        h.update(c);
        size += c.length;
        onProgress();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, md5: h.digest('hex'), size }));
    });
    req.on('error', reject);
    req.end();
  });
}

describeEngines(S3_UP, '1 GiB upload memory (%s storage)', (kind) => {
  let tdb: TestDb;
  let child: ChildProcess;
  let port: number;
  let dir: string;
  let childMax = 0;
  let childIdle = 0;
  let phase = 'idle';
  const phaseMax: Record<string, number> = {};
  let selfMax = 0;
  const bucketName = `rdm-files-mem-${Date.now()}`;

  beforeAll(async () => {
    if (kind === 's3' && !S3_UP) throw new Error(S3_MISSING);
    tdb = await testDb('files');
    dir = mkdtempSync(join(tmpdir(), 'rdm-files-mem-'));
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      FILES_TEST_SCHEMA: tdb.schema,
      DATABASE_URL: tdb.url,
      FILES_STORAGE: kind,
      FILES_STORAGE_PATH: dir,
      FILES_MAX_RECORD_BYTES: String(2 * GiB),
      ...(kind === 's3'
        ? {
            S3_ENDPOINT: S3_SETTINGS.endpoint,
            S3_ACCESS_KEY: S3_SETTINGS.accessKey,
            S3_SECRET_KEY: S3_SETTINGS.secretKey,
            S3_BUCKET: bucketName,
          }
        : {}),
    };
    child = fork(join(repoRoot(), 'services/files/test/integration/fixtures/memory-server.ts'), [], {
      execArgv: ['--import', 'tsx'],
      cwd: repoRoot(),
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`memory server exited with ${code}`)));
      child.on('message', (m: any) => {
        if (m?.type === 'ready') resolve(m.port);
        if (m?.type === 'rss') {
          childMax = Math.max(childMax, m.rss);
          if (phase === 'idle') childIdle = m.rss;
          phaseMax[phase] = Math.max(phaseMax[phase] ?? 0, m.rss);
          if (process.env.MEMTEST_DEBUG)
            for (const k of ['heapTotal', 'external', 'arrayBuffers'])
              phaseMax[`${phase}.${k}`] = Math.max(phaseMax[`${phase}.${k}`] ?? 0, m[k]);
        }
      });
    });
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (kind === 's3' && S3_UP) {
      const { S3Storage } = await import('@rdm/platform/storage/s3');
      const s3 = new S3Storage({ ...S3_SETTINGS, bucket: bucketName, partSize: 16 * 1024 * 1024 });
      const keys: string[] = [];
      for await (const k of s3.list('')) keys.push(k);
      if (keys.length) await s3.client.removeObjects(bucketName, keys);
      await s3.client.removeBucket(bucketName).catch(() => undefined);
    }
    await tdb?.destroy();
  });

  it(
    'should upload, commit and download 1 GiB while the service RSS grows by under 100 MiB',
    async () => {
      const sampleSelf = () => {
        selfMax = Math.max(selfMax, process.memoryUsage().rss);
      };
      const init = await call(port, 'POST', '/api/records/memry-00001/draft/files', [{ key: 'big.bin' }]);
      expect(init.status).toBe(201);
      // The idle size is a sample taken before any byte moves: on a loaded machine the first one
      // (every 50 ms from the child) may not have arrived yet, so wait for it.
      for (const deadline = Date.now() + 10_000; childIdle === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));

      phase = 'upload';
      const t0 = Date.now();
      const up = await upload(port, '/api/records/memry-00001/draft/files/big.bin/content', GiB, sampleSelf);
      const uploadMs = Date.now() - t0;
      expect(up.status).toBe(200);
      const commit = await call(port, 'POST', '/api/records/memry-00001/draft/files/big.bin/commit');
      expect(commit.status).toBe(200);
      expect(commit.body.size).toBe(GiB);
      expect(commit.body.checksum).toBe(`md5:${up.md5}`);

      phase = 'download';
      const t1 = Date.now();
      const down = await download(port, '/api/records/memry-00001/draft/files/big.bin/content', sampleSelf);
      const downloadMs = Date.now() - t1;
      expect(down).toEqual({ status: 200, md5: up.md5, size: GiB });
      // Let a last sample arrive.
      await new Promise((r) => setTimeout(r, 200));
      console.info(
        `[files memory ${kind}] upload ${(1024 / (uploadMs / 1000)).toFixed(0)} MiB/s, download ${(1024 / (downloadMs / 1000)).toFixed(0)} MiB/s; ` +
          `RSS service idle ${(childIdle / 2 ** 20).toFixed(0)} MiB, max ${(childMax / 2 ** 20).toFixed(0)} MiB ` +
          `(${Object.entries(phaseMax)
            .map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(0)}`)
            .join(', ')}), test process max ${(selfMax / 2 ** 20).toFixed(0)} MiB`,
      );
      expect(childMax).toBeGreaterThan(0);
      expect(childIdle).toBeGreaterThan(0);
      expect(childMax - childIdle).toBeLessThan(GROWTH_LIMIT);
      expect(childMax).toBeLessThan(SERVICE_LIMIT);
      expect(selfMax).toBeLessThan(LIMIT);
      expect((await call(port, 'DELETE', '/api/records/memry-00001/draft/files/big.bin')).status).toBe(204);
    },
    10 * 60_000,
  );
});
