/**
 * InvenioRDM's multipart transfer through the files HTTP API, on both storage engines (local
 * folder; S3 on MinIO — skipped locally without it, failing under CI): init with
 * `transfer: {type: "M", parts, part_size}`, parts in parallel and in any order, commit assembling
 * the file with its md5, the InvenioRDM errors, and nothing visible or left behind.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { S3_MIN_PART_BYTES } from '../../src/domain/multipart.js';
import { CI, type Harness, S3_MISSING, createHarness, identityHeader, makeEngine, s3Available, describeEngines } from './support.js';
import { listenBehindFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const S3_UP = await s3Available();
if (!S3_UP && !CI) console.warn(`[files multipart tests] skipping S3: ${S3_MISSING}`);

const OWNER = 'user-owner';
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

/** Deterministic bytes. */
function bytes(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x & 0xff;
  }
  return b;
}

describeEngines(S3_UP, 'multipart transfer (%s storage)', (kind) => {
  // S3 needs parts of 5 MiB at least (but the last); the local engine takes any size.
  const P = kind === 's3' ? S3_MIN_PART_BYTES : 64 * 1024;
  let h: Harness;
  let server: Server;
  let base: string;
  let n = 0;

  async function call(method: string, path: string, o: { json?: unknown; raw?: Buffer; user?: string } = {}) {
    const headers: Record<string, string> = { ...identityHeader(o.user ?? OWNER) };
    let body: Buffer | string | undefined;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] = 'application/json';
    } else if (o.raw) {
      body = o.raw;
      headers['content-type'] = 'application/octet-stream';
    }
    const res = await fetch(`${base}${path}`, { method, headers, body });
    const buf = Buffer.from(await res.arrayBuffer());
    let json: any;
    try {
      json = buf.length ? JSON.parse(buf.toString()) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, body: json, bytes: buf };
  }

  /** A fresh draft (stub records) and its files path. */
  function draft(): { id: string; files: string; bucket: string } {
    const id = `mpart-${String(++n).padStart(5, '0')}`;
    const rec = h.records.add(id, { owner: OWNER });
    return { id, files: `/api/records/${id}/draft/files`, bucket: rec.draftBucket! };
  }

  /** Storage keys, with incomplete uploads and multipart folders (nothing may be left behind). */
  const storage = async () => (await h.engine.leftovers()).sort();

  beforeAll(async () => {
    if (kind === 's3' && !S3_UP) throw new Error(S3_MISSING);
    h = await createHarness(await makeEngine(kind));
    server = listenBehindFront(h.app.callback(), SECRET);
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.close();
    await h?.close();
    await h?.engine.dispose();
  });

  it('should initialise a multipart entry with InvenioRDM part links, take parts in parallel in any order and assemble them on commit', async () => {
    const d = draft();
    const content = bytes(2 * P + 1234, 7);
    const init = await call('POST', d.files, {
      json: [{ key: 'big.bin', size: content.length, transfer: { type: 'M', parts: 3, part_size: P } }],
    });
    expect(init.status).toBe(201);
    const entry = init.body.entries[0];
    expect(entry).toMatchObject({
      key: 'big.bin',
      status: 'pending',
      size: content.length,
      transfer: { type: 'M', parts: 3, part_size: P },
    });
    const self = `https://rdm.example.org/api/records/${d.id}/draft/files/big.bin`;
    expect(entry.links).toMatchObject({ self, content: null, commit: `${self}/commit` });
    expect(entry.links.parts.map((p: any) => [p.part, p.url])).toEqual([1, 2, 3].map((i) => [i, `${self}/content/${i}`]));
    for (const p of entry.links.parts) expect(Date.parse(p.expiration)).toBeGreaterThan(Date.now() + 3600_000);

    const slices = [content.subarray(0, P), content.subarray(P, 2 * P), content.subarray(2 * P)];
    const answers = await Promise.all([3, 1, 2].map((i) => call('PUT', `${d.files}/big.bin/content/${i}`, { raw: slices[i - 1] })));
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(answers[0].body).toMatchObject({ key: 'big.bin', status: 'pending' });

    // Nothing visible before the commit: no content, no object in storage.
    expect((await call('GET', `${d.files}/big.bin/content`)).status).toBe(404);
    expect((await storage()).filter((k) => k.startsWith('objects/'))).toEqual([]);
    expect((await h.service.manifest(d.bucket)).files[0].status).toBe('pending');

    const commit = await call('POST', `${d.files}/big.bin/commit`);
    expect(commit.status, JSON.stringify(commit.body)).toBe(200);
    expect(commit.body).toMatchObject({
      key: 'big.bin',
      status: 'completed',
      size: content.length,
      checksum: `md5:${md5(content)}`,
      transfer: { type: 'L' },
      storage_class: 'L',
    });
    expect(commit.body.links.parts).toBeUndefined();
    const got = await call('GET', `${d.files}/big.bin/content`);
    expect(got.status).toBe(200);
    expect(md5(got.bytes)).toBe(md5(content));
    // Exactly one object, no part, partial file or incomplete upload left.
    expect(await storage()).toEqual([expect.stringMatching(/^objects\//)]);
    // Committing again is a no-op.
    expect((await call('POST', `${d.files}/big.bin/commit`)).body.checksum).toBe(`md5:${md5(content)}`);
  });

  it('should replace a part sent again and assemble a single-part file', async () => {
    const d = draft();
    const content = bytes(1000, 3);
    expect((await call('POST', d.files, { json: [{ key: 'one.bin', size: 1000, transfer: { type: 'M', parts: 1 } }] })).status).toBe(201);
    expect((await call('PUT', `${d.files}/one.bin/content/1`, { raw: bytes(1000, 99) })).status).toBe(200);
    expect((await call('PUT', `${d.files}/one.bin/content/1`, { raw: content })).status).toBe(200);
    const commit = await call('POST', `${d.files}/one.bin/commit`);
    expect(commit.body).toMatchObject({ status: 'completed', checksum: `md5:${md5(content)}`, size: 1000 });
  });

  it('should answer InvenioRDM errors: part number, part sizes, missing parts, whole content, wrong transfer', async () => {
    const d = draft();
    const size = P + 10;
    expect(
      (await call('POST', d.files, { json: [{ key: 'm.bin', size, transfer: { type: 'M', parts: 2, part_size: P } }, { key: 'l.txt' }] }))
        .status,
    ).toBe(201);
    const put = (key: string, part: number | string, raw: Buffer) => call('PUT', `${d.files}/${key}/content/${part}`, { raw });

    const tooHigh = await put('m.bin', 3, bytes(10, 1));
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.body).toEqual({ status: 400, message: 'Part number is higher than total parts sent in multipart initialization.' });
    expect((await put('m.bin', 0, bytes(10, 1))).status).toBe(400);
    const wrongSize = await put('m.bin', 1, bytes(P - 1, 1));
    expect(wrongSize.body).toEqual({
      status: 400,
      message: 'Size of this part must be equal to part_size sent in multipart initialization.',
    });
    expect((await put('m.bin', 2, bytes(11, 1))).body.message).toBe(
      'Size of the last part must be 10 bytes (the file size minus the other parts).',
    );

    expect((await put('m.bin', 2, bytes(10, 1))).status).toBe(200);
    const missing = await call('POST', `${d.files}/m.bin/commit`);
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('File with key m.bin is missing parts: 1.');

    const whole = await call('PUT', `${d.files}/m.bin/content`, { raw: bytes(size, 1) });
    expect(whole.body).toEqual({ status: 400, message: 'Can not set content for multipart file, use the parts instead.' });
    const notM = await put('l.txt', 1, bytes(3, 1));
    expect(notM.body).toEqual({ status: 400, message: 'Transfer type "L" does not support multipart uploads.' });
    // A key that does not exist is a 404, as for every file route.
    expect((await put('nope.bin', 1, bytes(3, 1))).status).toBe(404);
  });

  it('should validate the init payload (size and parts required, consistent plan)', async () => {
    const d = draft();
    const before = await storage();
    const init = (item: Record<string, unknown>) => call('POST', d.files, { json: [{ key: 'x.bin', ...item }] });
    expect((await init({ transfer: { type: 'M', parts: 2 } })).body).toEqual({
      status: 400,
      message: 'Multipart file transfer requires file size.',
    });
    expect((await init({ size: 10, transfer: { type: 'M' } })).body).toEqual({
      status: 400,
      message: 'Multipart file transfer requires parts.',
    });
    const plan = await init({ size: 10, transfer: { type: 'M', parts: 2, part_size: 4 } });
    expect(plan.status).toBe(400);
    expect(plan.body.message).toMatch(/cannot hold 10 bytes/);
    const bad = await init({ size: 10, transfer: { type: 'M', parts: 'two', chunk: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        { field: '0.transfer.parts', messages: ['Not a valid integer.'] },
        { field: '0.transfer.chunk', messages: ['Unknown field.'] },
      ]),
    );
    // Refused inits leave no storage upload behind.
    expect(await storage()).toEqual(before);
  });

  it('should abort the storage upload when the entry is deleted before its commit', async () => {
    const d = draft();
    const before = await storage();
    expect(
      (await call('POST', d.files, { json: [{ key: 'gone.bin', size: P + 1, transfer: { type: 'M', parts: 2, part_size: P } }] })).status,
    ).toBe(201);
    expect((await call('PUT', `${d.files}/gone.bin/content/1`, { raw: bytes(P, 5) })).status).toBe(200);
    expect((await storage()).length).toBeGreaterThan(before.length);
    expect((await call('DELETE', `${d.files}/gone.bin`)).status).toBe(204);
    expect(await storage()).toEqual(before);
  });
});
