/**
 * Per-bucket quotas against a real PostgreSQL: the configured default (`FILES_MAX_RECORD_BYTES`)
 * refuses an upload that would pass it mid-stream (400, nothing stored), an accepted
 * `quota-increase` request (the consumer's handler, in its transaction) raises the bucket's quota
 * idempotently and emits `rdm.files.bucket.quota-changed` through the outbox, and the upload then fits.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventEnvelope } from '@rdm/platform';
import { listenBehindFront, testLogger } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onQuotaIncreaseAccepted, type QuotaRequestEvent } from '../../src/events/quota.consumer.js';
import { createHarness, type Harness, identityHeader, makeEngine, SECRET } from './support.js';

const OWNER = 'user-quota-owner';
const KB = 1024;

describe(onQuotaIncreaseAccepted.name, () => {
  let h: Harness;
  let server: Server;
  let base: string;
  let rec: string;
  let bucket: string;

  const put = async (key: string, chunks: Buffer[]) => {
    const body = new ReadableStream({
      pull(ctrl) {
        const c = chunks.shift();
        if (c) ctrl.enqueue(c);
        else ctrl.close();
      },
    });
    const res = await fetch(`${base}/api/records/${rec}/draft/files/${key}/content`, {
      method: 'PUT',
      headers: { ...identityHeader(OWNER), 'content-type': 'application/octet-stream' },
      body,
      duplex: 'half',
    } as RequestInit);
    return { status: res.status, body: await res.json().catch(() => undefined) };
  };
  const init = async (key: string) => {
    const res = await fetch(`${base}/api/records/${rec}/draft/files`, {
      method: 'POST',
      headers: { ...identityHeader(OWNER), 'content-type': 'application/json' },
      body: JSON.stringify([{ key }]),
    });
    expect(res.status).toBe(201);
  };
  const accept = (requestId: string, payload: Record<string, unknown>) =>
    h.tdb.db.transaction((trx) =>
      onQuotaIncreaseAccepted(
        trx,
        { data: { id: requestId, type: 'quota-increase', payload } } as unknown as EventEnvelope<QuotaRequestEvent>,
        testLogger('quota'),
      ),
    );
  const chunks = (n: number) => Array.from({ length: n }, (_, i) => Buffer.alloc(16 * KB, i));

  beforeAll(async () => {
    h = await createHarness(await makeEngine('local'), { FILES_MAX_RECORD_BYTES: 64 * KB, FILES_MAX_FILE_BYTES: 64 * KB });
    server = listenBehindFront(h.app.callback(), SECRET);
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    rec = 'quota-rec';
    bucket = h.records.add(rec, { owner: OWNER }).draftBucket as string;
  });

  afterAll(async () => {
    server?.close();
    await h?.close();
    await h?.engine.dispose();
  });

  it('should refuse mid-upload a file that would pass the default bucket quota', async () => {
    await init('big.bin');
    const r = await put('big.bin', chunks(6)); // 96 KB > 64 KB, chunked: no Content-Length
    expect(r).toEqual({ status: 400, body: { status: 400, message: 'File size limit exceeded.' } });
  });

  it("should raise the bucket's quota once and confirm it through the outbox", async () => {
    await accept('req-1', { bucket_id: bucket, quota_size: 200 * KB, reason: 'more' });
    await accept('req-1', { bucket_id: bucket, quota_size: 200 * KB, reason: 'more' });
    await accept('req-0', { bucket_id: bucket, quota_size: 10 * KB, reason: 'smaller asks never lower it' });
    expect(await h.tdb.db('buckets').where({ id: bucket }).first('quota_bytes')).toEqual({ quota_bytes: String(200 * KB) });
    const rows = await h.tdb.db('outbox').where({ subject: 'rdm.files.bucket.quota-changed' }).select('payload');
    const data = rows.map((r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload).data);
    expect(data).toContainEqual({ bucket_id: bucket, quota_bytes: 200 * KB, request_id: 'req-1' });
    expect(data).toContainEqual({ bucket_id: bucket, quota_bytes: 200 * KB, request_id: 'req-0' });
  });

  it('should let the upload through once the quota was raised, and still refuse past it', async () => {
    const r = await put('big.bin', chunks(6));
    expect(r.status).toBe(200);
    await init('more.bin');
    const over = await put('more.bin', chunks(7)); // 96 + 112 KB > 200 KB
    expect(over.body).toEqual({ status: 400, message: 'File size limit exceeded.' });
  });

  it('should ignore a payload without a bucket or a size', async () => {
    const count = () => h.tdb.db('outbox').where({ subject: 'rdm.files.bucket.quota-changed' }).count({ n: '*' }).first();
    const before = await count();
    await accept('req-bad', { quota_size: 'lots' });
    expect(await count()).toEqual(before);
  });
});
