/**
 * The administrator-only import of a file's bytes (issue 26, domain/imports.ts) through the
 * internal route, on the local engine: streamed, md5-verified, idempotent, refused for anyone but
 * the system or an administrator, nothing kept on a checksum mismatch, and the bucket's
 * manifest (what records' import RPC freezes) as announced.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenBehindFront } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, identityHeader, makeEngine, SECRET } from './support.js';

const md5 = (b: Buffer) => `md5:${createHash('md5').update(b).digest('hex')}`;

describe('files import route', () => {
  let h: Harness;
  let server: Server;
  let base: string;

  const put = async (
    bucket: string,
    key: string,
    body: Buffer | Buffer[],
    checksum: string,
    who = identityHeader('system', ['system']),
  ) => {
    const stream = Array.isArray(body)
      ? new ReadableStream({
          pull(ctrl) {
            const c = body.shift();
            if (c) ctrl.enqueue(c);
            else ctrl.close();
          },
        })
      : body;
    const res = await fetch(
      `${base}/internal/import/buckets/${bucket}/files/${key.split('/').map(encodeURIComponent).join('/')}?checksum=${checksum}`,
      {
        method: 'PUT',
        headers: { ...who, 'content-type': 'application/octet-stream' },
        body: stream,
        duplex: 'half',
      } as RequestInit,
    );
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    h = await createHarness(await makeEngine('local'), { FILES_MAX_FILE_BYTES: 1024 });
    server = listenBehindFront(h.app.callback(), SECRET);
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.close();
    await h?.close();
    await h?.engine.dispose();
  });

  it('should stream a file in (chunked, over the deposit size limit), verify its checksum and answer the same entry again', async () => {
    const chunks = Array.from({ length: 20 }, (_, i) => Buffer.alloc(64 * 1024, i));
    const whole = Buffer.concat(chunks);
    const first = await put('impf1-00001', 'data/Zürich ünïcode.bin', [...chunks], md5(whole));
    expect(first).toMatchObject({
      status: 201,
      body: { key: 'data/Zürich ünïcode.bin', checksum: md5(whole), size: whole.length, stored: true },
    });
    const again = await put('impf1-00001', 'data/Zürich ünïcode.bin', whole, md5(whole));
    expect(again).toMatchObject({ status: 200, body: { stored: false } });
    const m = await h.service.manifest('impf1-00001');
    expect(m.files).toHaveLength(1);
    expect(m.files[0]).toMatchObject({ key: 'data/Zürich ünïcode.bin', status: 'completed', checksum: md5(whole), size: whole.length });
    // Locked (records' import RPC): the same content is still answered, another one refused.
    await h.service.lock('impf1-00001');
    expect((await put('impf1-00001', 'data/Zürich ünïcode.bin', whole, md5(whole))).status).toBe(200);
    expect((await put('impf1-00001', 'other.txt', Buffer.from('x'), md5(Buffer.from('x')))).status).toBe(403);
  });

  it('should keep nothing when the bytes do not match the announced checksum', async () => {
    const before = (await h.engine.leftovers()).length;
    const r = await put('impf1-00002', 'a.txt', Buffer.from('hello'), md5(Buffer.from('hellO')));
    expect(r.status).toBe(422);
    expect(r.body.message).toMatch(/^Checksum mismatch for a\.txt/);
    expect((await h.service.manifest('impf1-00002')).files).toEqual([]);
    expect((await h.engine.leftovers()).length).toBe(before);
  });

  it('should refuse users, a missing checksum and a bad key with 4xx', async () => {
    const b = Buffer.from('x');
    expect((await put('impf1-00003', 'a.txt', b, md5(b), identityHeader('u1'))).status).toBe(403);
    expect((await put('impf1-00003', 'a.txt', b, md5(b), identityHeader('admin1', ['admin']))).status).toBe(201);
    expect((await put('impf1-00003', 'b.txt', b, 'sha1:abc')).status).toBe(400);
    expect((await put('impf1-00003', 'a\u0000b', b, md5(b))).status).toBe(400);
  });
});
