/**
 * Edges found by probing (issue 10): ~50 parallel commits of one file (defect 4) and a Range
 * reaching far past the end (defect 9), on the real app, PostgreSQL and storage engines.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CI, createHarness, type Harness, identityHeader, makeEngine, S3_MISSING, s3Available, describeEngines } from './support.js';
import { listenBehindFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const S3_UP = await s3Available();
if (!S3_UP && !CI) console.warn(`[files commit race tests] skipping S3: ${S3_MISSING}`);
const OWNER = 'user-owner';

describeEngines(S3_UP, 'files commit race and ranges (%s storage)', (kind) => {
  let h: Harness;
  let server: Server;
  let base: string;

  const call = async (method: string, path: string, init: { json?: unknown; raw?: Buffer; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...identityHeader(OWNER), ...(init.headers ?? {}) };
    let body: Buffer | string | undefined;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] = 'application/json';
    } else if (init.raw) {
      body = init.raw;
      headers['content-type'] = 'application/octet-stream';
    }
    const res = await fetch(`${base}${path}`, { method, headers, body });
    const bytes = Buffer.from(await res.arrayBuffer());
    let json: any;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, body: json, bytes };
  };

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

  it('should answer every one of 50 parallel commits of one file with the committed entry (never 500), keeping one object', async () => {
    const rec = `race${kind}-00001`;
    h.records.add(rec, { owner: OWNER, default_preview: null, order: [] });
    const content = Buffer.alloc(256 * 1024, 3);
    expect((await call('POST', `/api/records/${rec}/draft/files`, { json: [{ key: 'data.bin' }] })).status).toBe(201);
    expect((await call('PUT', `/api/records/${rec}/draft/files/data.bin/content`, { raw: content })).status).toBe(200);

    const results = await Promise.all(Array.from({ length: 50 }, () => call('POST', `/api/records/${rec}/draft/files/data.bin/commit`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 409)).toEqual([]);
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    for (const r of ok) {
      expect(r.body).toMatchObject({ key: 'data.bin', status: 'completed', size: content.length });
      expect(r.body.file_id).toBe(ok[0].body.file_id);
    }
    // Exactly one object survives once the losers' copies are collected.
    const objects = (await h.engine.leftovers()).filter((k) => k.startsWith('objects/'));
    expect(objects).toHaveLength(1);
    const back = await call('GET', `/api/records/${rec}/draft/files/data.bin/content`);
    expect(back.bytes.equals(content)).toBe(true);
  });

  it('should answer Range: bytes=0-<huge> with 206 and the whole body (clamped, RFC 9110)', async () => {
    const rec = `range${kind}-00001`;
    h.records.add(rec, { owner: OWNER, default_preview: null, order: [] });
    const content = Buffer.from('0123456789abcdef');
    expect((await call('POST', `/api/records/${rec}/draft/files`, { json: [{ key: 'r.txt' }] })).status).toBe(201);
    expect((await call('PUT', `/api/records/${rec}/draft/files/r.txt/content`, { raw: content })).status).toBe(200);
    expect((await call('POST', `/api/records/${rec}/draft/files/r.txt/commit`)).status).toBe(200);
    const res = await call('GET', `/api/records/${rec}/draft/files/r.txt/content`, { headers: { range: `bytes=0-${'9'.repeat(30)}` } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 0-15/${content.length}`);
    expect(res.bytes.equals(content)).toBe(true);
  });
});
