/**
 * Leftovers of uploads whose process was killed mid-put (issue 10, defect 7): the local engine's
 * partial files and S3's incomplete multipart uploads are swept by age, at the janitor's start
 * and periodically, while uploads in flight are left alone.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { LocalStorage } from '@rdm/platform';
import type { S3Storage } from '@rdm/platform/storage/s3';
import { testDb, testLogger, waitFor } from '@rdm/platform/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageGc } from '../../src/domain/storage-gc.js';
import { CI, makeEngine, S3_MISSING, s3Available } from './support.js';

const S3_UP = await s3Available();
const HOUR = 3600 * 1000;
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
});

describe('stale upload leftovers (local storage)', () => {
  it('should remove partial files of dead uploads at the janitor start, keeping an upload in flight', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rdm-stale-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const storage = new LocalStorage(root);
    await storage.init();
    // What a process killed inside put() leaves: a partial file nobody writes any more.
    mkdirSync(join(root, '.partial'), { recursive: true });
    const dead = join(root, '.partial', 'dead-upload');
    writeFileSync(dead, Buffer.alloc(1024 * 1024));
    const twoHoursAgo = new Date(Date.now() - 2 * HOUR);
    utimesSync(dead, twoHoursAgo, twoHoursAgo);
    // A live upload, still streaming.
    const body = new PassThrough();
    const live = storage.put('uploads/live', body);
    body.write(Buffer.alloc(64 * 1024, 1));
    await waitFor(() => readdirSync(join(root, '.partial')).length === 2);

    const t = await testDb('files');
    cleanups.push(() => t.destroy());
    const gc = new StorageGc({ db: t.db, storage, logger: testLogger('gc'), intervalMs: 60_000, staleMs: HOUR });
    gc.start();
    cleanups.push(() => gc.stop());
    await waitFor(() => !readdirSync(join(root, '.partial')).includes('dead-upload'), { timeoutMs: 5000 });

    body.end(Buffer.alloc(1000, 2));
    expect(await live).toMatchObject({ size: 64 * 1024 + 1000 });
    expect(readdirSync(join(root, '.partial'))).toEqual([]);
    expect((await storage.stat('uploads/live'))?.size).toBe(64 * 1024 + 1000);
  });

  it('should sweep periodically, not only at start', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rdm-stale-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const storage = new LocalStorage(root);
    await storage.init();
    const t = await testDb('files');
    cleanups.push(() => t.destroy());
    const gc = new StorageGc({ db: t.db, storage, logger: testLogger('gc'), intervalMs: 100, staleMs: HOUR, staleSweepIntervalMs: 200 });
    gc.start();
    cleanups.push(() => gc.stop());
    await new Promise((r) => setTimeout(r, 300));
    mkdirSync(join(root, '.partial'), { recursive: true });
    const dead = join(root, '.partial', 'later');
    writeFileSync(dead, 'x');
    const old = new Date(Date.now() - 2 * HOUR);
    utimesSync(dead, old, old);
    await waitFor(() => readdirSync(join(root, '.partial')).length === 0, { timeoutMs: 5000 });
  });
});

describe.skipIf(!S3_UP && !CI)('stale upload leftovers (s3 storage)', () => {
  it('should abort incomplete multipart uploads older than the age, keeping younger ones', async () => {
    if (!S3_UP) throw new Error(S3_MISSING);
    const engine = await makeEngine('s3');
    cleanups.push(() => engine.dispose());
    const storage = engine.storage as S3Storage;
    const bucket = (storage as unknown as { bucket: string }).bucket;
    // A put whose process died after initiating the multipart upload.
    await storage.client.initiateNewMultipartUpload(bucket, 'uploads/dead', {});
    await new Promise((r) => setTimeout(r, 1500));
    await storage.client.initiateNewMultipartUpload(bucket, 'uploads/young', {});
    expect((await storage.incompleteUploads('')).sort()).toEqual(['uploads/dead', 'uploads/young']);

    expect(await storage.sweepStale(1000)).toBe(1);
    expect(await storage.incompleteUploads('')).toEqual(['uploads/young']);
  });
});
