/**
 * The files HTTP API end to end inside the service: real app, real PostgreSQL, real NATS (private
 * server) carrying `rdm.records.rpc.authorize-files` to a stub, and both storage engines on real
 * servers (local folder; S3 on MinIO — skipped locally without it, failing under CI).
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CI, type Harness, S3_MISSING, createHarness, identityHeader, makeEngine, s3Available, describeEngines } from './support.js';
import { readZip } from './zip.js';
import { listenBehindFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const S3_UP = await s3Available();
if (!S3_UP && !CI) console.warn(`[files http tests] skipping S3: ${S3_MISSING}`);

const OWNER = 'user-owner';
const OTHER = 'user-other';
const BASE = 'https://rdm.example.org';
const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');

interface Res {
  status: number;
  headers: Headers;
  body: any;
  bytes: Buffer;
}

describeEngines(S3_UP, 'files HTTP API (%s storage)', (kind) => {
  let h: Harness;
  let server: Server;
  let base: string;

  /** One HTTP call; `raw` is sent as bytes (Buffer) or as a chunked stream (array of chunks). */
  async function call(
    method: string,
    path: string,
    o: { user?: string | null; json?: unknown; raw?: Buffer | Buffer[]; headers?: Record<string, string> } = {},
  ): Promise<Res> {
    const headers: Record<string, string> = { ...identityHeader(o.user === undefined ? OWNER : o.user), ...(o.headers ?? {}) };
    let body: RequestInit['body'];
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] ??= 'application/json';
    } else if (Array.isArray(o.raw)) {
      const chunks = o.raw;
      body = new ReadableStream({
        pull(ctrl) {
          const c = chunks.shift();
          if (c) ctrl.enqueue(c);
          else ctrl.close();
        },
      });
      headers['content-type'] ??= 'application/octet-stream';
    } else if (o.raw) {
      body = o.raw;
      headers['content-type'] ??= 'application/octet-stream';
    }
    const res = await fetch(`${base}${path}`, { method, headers, body, duplex: 'half' } as RequestInit);
    const bytes = Buffer.from(await res.arrayBuffer());
    let parsed: any;
    try {
      parsed = bytes.length ? JSON.parse(bytes.toString('utf8')) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, bytes };
  }

  /** A call with the path sent verbatim (fetch would normalise `%2E%2E` segments away). */
  function rawCall(method: string, path: string, body?: Buffer): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const url = new URL(base);
      const req = httpRequest(
        {
          hostname: url.hostname,
          port: url.port,
          path,
          method,
          headers: { ...identityHeader(OWNER), 'content-type': 'application/octet-stream' },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => {
            const text = Buffer.concat(parts).toString();
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Init + upload + commit one file. */
  async function addFile(recordId: string, key: string, content: Buffer): Promise<any> {
    expect((await call('POST', `/api/records/${recordId}/draft/files`, { json: [{ key }] })).status).toBe(201);
    const path = `/api/records/${recordId}/draft/files/${key.split('/').map(encodeURIComponent).join('/')}`;
    expect((await call('PUT', `${path}/content`, { raw: content })).status).toBe(200);
    const c = await call('POST', `${path}/commit`);
    expect(c.status).toBe(200);
    return c.body;
  }

  /** Objects in storage, by prefix. */
  async function storedKeys(): Promise<string[]> {
    return (await h.engine.leftovers()).sort();
  }

  beforeAll(async () => {
    if (kind === 's3' && !S3_UP) throw new Error(S3_MISSING);
    h = await createHarness(await makeEngine(kind), {
      FILES_MAX_COUNT: 5,
      FILES_MAX_RECORD_BYTES: 8 * 1024 * 1024,
      FILES_MAX_FILE_BYTES: 6 * 1024 * 1024,
    });
    server = listenBehindFront(h.app.callback(), SECRET);
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.close();
    await h?.close();
    await h?.engine.dispose();
  });

  describe('upload workflow', () => {
    const rec = 'wflow-00001';
    const content = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300_000, 7), Buffer.from('end')]);

    beforeAll(() => {
      h.records.add(rec, { owner: OWNER, default_preview: null, order: [] });
    });

    it('should initialise pending entries and answer the file list (201)', async () => {
      const res = await call('POST', `/api/records/${rec}/draft/files`, {
        json: [{ key: 'paper.pdf' }, { key: 'data/run 1.csv', metadata: { description: 'run' } }],
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['enabled', 'links', 'entries', 'default_preview', 'order']);
      expect(res.body.enabled).toBe(true);
      expect(res.body.links).toEqual({
        self: `${BASE}/api/records/${rec}/draft/files`,
        archive: `${BASE}/api/records/${rec}/draft/files-archive`,
      });
      expect(res.body.default_preview).toBeNull();
      expect(res.body.order).toEqual([]);
      const [pdf, csv] = res.body.entries;
      expect(pdf).toEqual({
        created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
        updated: expect.any(String),
        metadata: null,
        access: { hidden: false },
        links: {
          self: `${BASE}/api/records/${rec}/draft/files/paper.pdf`,
          content: `${BASE}/api/records/${rec}/draft/files/paper.pdf/content`,
          commit: `${BASE}/api/records/${rec}/draft/files/paper.pdf/commit`,
        },
        key: 'paper.pdf',
        transfer: { type: 'L' },
        status: 'pending',
      });
      expect(csv.metadata).toEqual({ description: 'run' });
      expect(csv.links.self).toBe(`${BASE}/api/records/${rec}/draft/files/data/run%201.csv`);
    });

    it('should stream content with chunked transfer and keep the entry pending (200)', async () => {
      const chunks = [content.subarray(0, 100_000), content.subarray(100_000, 200_001), content.subarray(200_001)];
      const res = await call('PUT', `/api/records/${rec}/draft/files/paper.pdf/content`, { raw: chunks });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('pending');
      expect(res.body.key).toBe('paper.pdf');
      expect(res.body.checksum).toBeUndefined();
      const keys = await storedKeys();
      expect(keys.filter((k) => k.startsWith('uploads/'))).toHaveLength(1);
      expect(keys.filter((k) => k.startsWith('objects/'))).toHaveLength(0);
    });

    it('should replace uploaded content on a second upload, removing the first temporary object', async () => {
      const res = await call('PUT', `/api/records/${rec}/draft/files/paper.pdf/content`, { raw: content });
      expect(res.status).toBe(200);
      expect((await storedKeys()).filter((k) => k.startsWith('uploads/'))).toHaveLength(1);
    });

    it('should commit: completed entry with md5 checksum, size, mimetype and ids; object at its final key', async () => {
      const res = await call('POST', `/api/records/${rec}/draft/files/paper.pdf/commit`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        created: expect.any(String),
        updated: expect.any(String),
        mimetype: 'application/pdf',
        version_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        file_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        bucket_id: h.records.records.get(rec)!.draftBucket,
        metadata: null,
        access: { hidden: false },
        links: expect.objectContaining({ commit: `${BASE}/api/records/${rec}/draft/files/paper.pdf/commit` }),
        key: 'paper.pdf',
        size: content.length,
        transfer: { type: 'L' },
        status: 'completed',
        checksum: `md5:${md5(content)}`,
        storage_class: 'L',
      });
      const keys = await storedKeys();
      expect(keys).toEqual([`objects/${res.body.file_id.slice(0, 2)}/${res.body.file_id.slice(2, 4)}/${res.body.file_id}`]);
      // Idempotent.
      const again = await call('POST', `/api/records/${rec}/draft/files/paper.pdf/commit`);
      expect(again.status).toBe(200);
      expect(again.body.version_id).toBe(res.body.version_id);
    });

    it('should emit rdm.files.file.committed through the outbox', async () => {
      const rows = await h.tdb.db('outbox').select('subject', 'payload');
      expect(rows).toHaveLength(1);
      expect(rows[0].subject).toBe('rdm.files.file.committed');
      expect(rows[0].payload.data).toEqual({
        bucket_id: h.records.records.get(rec)!.draftBucket,
        key: 'paper.pdf',
        size: content.length,
        checksum: `md5:${md5(content)}`,
      });
    });

    it("should list the draft's files in the spec's listing shape", async () => {
      const res = await call('GET', `/api/records/${rec}/draft/files`);
      expect(res.status).toBe(200);
      const pdf = res.body.entries.find((e: any) => e.key === 'paper.pdf');
      expect(Object.keys(pdf)).toEqual([
        'created',
        'updated',
        'mimetype',
        'version_id',
        'file_id',
        'bucket_id',
        'metadata',
        'access',
        'links',
        'key',
        'size',
        'transfer',
        'status',
        'checksum',
        'storage_class',
      ]);
      expect(res.body.entries.map((e: any) => [e.key, e.status])).toEqual([
        ['paper.pdf', 'completed'],
        ['data/run 1.csv', 'pending'],
      ]);
    });

    it('should read and update file metadata', async () => {
      const read = await call('GET', `/api/records/${rec}/draft/files/data/run%201.csv`);
      expect(read.status).toBe(200);
      expect(read.body.key).toBe('data/run 1.csv');
      const upd = await call('PUT', `/api/records/${rec}/draft/files/data/run%201.csv`, {
        json: { metadata: { description: 'second run' }, access: { hidden: true } },
      });
      expect(upd.status).toBe(200);
      expect(upd.body.metadata).toEqual({ description: 'second run' });
      expect(upd.body.access).toEqual({ hidden: true });
      const bad = await call('PUT', `/api/records/${rec}/draft/files/data/run%201.csv`, { json: { key: 'renamed.csv' } });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({
        status: 400,
        message: 'A validation error occurred.',
        errors: [{ field: 'key', messages: ['Unknown field.'] }],
      });
    });

    it('should download with ETag, Content-Length, Content-Type, Content-Disposition and matching md5', async () => {
      const res = await call('GET', `/api/records/${rec}/draft/files/paper.pdf/content`);
      expect(res.status).toBe(200);
      expect(md5(res.bytes)).toBe(md5(content));
      expect(res.headers.get('etag')).toBe(`"md5:${md5(content)}"`);
      expect(res.headers.get('content-length')).toBe(String(content.length));
      // InvenioRDM serves anything a browser could render as octet-stream, as an attachment.
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename=paper.pdf');
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none';");
      // A draft's content is no published item: no FAIR signposting.
      expect(res.headers.get('link')).toBeNull();
    });

    it('should serve single byte ranges (206) and refuse unsatisfiable ones (416)', async () => {
      const r = await call('GET', `/api/records/${rec}/draft/files/paper.pdf/content`, { headers: { range: 'bytes=0-7' } });
      expect(r.status).toBe(206);
      expect(r.bytes.toString()).toBe('%PDF-1.4');
      expect(r.headers.get('content-range')).toBe(`bytes 0-7/${content.length}`);
      expect(r.headers.get('content-length')).toBe('8');
      const tail = await call('GET', `/api/records/${rec}/draft/files/paper.pdf/content`, { headers: { range: 'bytes=-3' } });
      expect(tail.status).toBe(206);
      expect(tail.bytes.toString()).toBe('end');
      const bad = await call('GET', `/api/records/${rec}/draft/files/paper.pdf/content`, {
        headers: { range: `bytes=${content.length}-` },
      });
      expect(bad.status).toBe(416);
      expect(bad.headers.get('content-range')).toBe(`bytes */${content.length}`);
      const stale = await call('GET', `/api/records/${rec}/draft/files/paper.pdf/content`, {
        headers: { range: 'bytes=0-7', 'if-range': '"md5:other"' },
      });
      expect(stale.status).toBe(200);
      expect(stale.bytes.length).toBe(content.length);
    });

    it('should answer If-None-Match with 304 and HEAD without a body', async () => {
      const etag = `"md5:${md5(content)}"`;
      const r = await call('GET', `/api/records/${rec}/draft/files/paper.pdf/content`, { headers: { 'if-none-match': etag } });
      expect(r.status).toBe(304);
      expect(r.bytes.length).toBe(0);
      const head = await call('HEAD', `/api/records/${rec}/draft/files/paper.pdf/content`);
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(content.length));
    });

    it('should serve inline types inline and give non-ASCII names an RFC 5987 filename*', async () => {
      await addFile(rec, 'résumé.txt', Buffer.from('hello'));
      const r = await call('GET', `/api/records/${rec}/draft/files/${encodeURIComponent('résumé.txt')}/content`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(r.headers.get('content-disposition')).toBe('inline');
      const dl = await call('GET', `/api/records/${rec}/draft/files/${encodeURIComponent('résumé.txt')}/content?download=1`);
      expect(dl.headers.get('content-disposition')).toBe("attachment; filename=resume.txt; filename*=UTF-8''r%C3%A9sum%C3%A9.txt");
    });

    it('should refuse content of a file that is not committed (404)', async () => {
      const r = await call('GET', `/api/records/${rec}/draft/files/data/run%201.csv/content`);
      expect(r.status).toBe(404);
    });

    it('should stream a zip of the committed files as <id>.zip', async () => {
      const r = await call('GET', `/api/records/${rec}/draft/files-archive`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/zip');
      expect(r.headers.get('content-disposition')).toBe(`attachment; filename=${rec}.zip`);
      const entries = readZip(r.bytes);
      expect(entries.map((e) => e.name)).toEqual(['paper.pdf', 'résumé.txt']);
      expect(md5(entries[0].data)).toBe(md5(content));
      expect(entries[1].data.toString()).toBe('hello');
      expect(entries.every((e) => e.crcOk)).toBe(true);
    });

    it('should delete a file (204) and its object from storage', async () => {
      const before = (await storedKeys()).length;
      const r = await call('DELETE', `/api/records/${rec}/draft/files/${encodeURIComponent('résumé.txt')}`);
      expect(r.status).toBe(204);
      expect((await storedKeys()).length).toBe(before - 1);
      const gone = await call('GET', `/api/records/${rec}/draft/files/${encodeURIComponent('résumé.txt')}`);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({ status: 404, message: `Record '${rec}' has no file 'résumé.txt'.` });
    });
  });

  describe('errors and limits', () => {
    const rec = 'errs0-00002';
    beforeAll(() => {
      h.records.add(rec, { owner: OWNER });
    });

    it('should refuse an empty list, an object body and bad keys with 400', async () => {
      const empty = await call('POST', `/api/records/${rec}/draft/files`, { json: [] });
      expect(empty.status).toBe(400);
      expect(empty.body).toEqual({
        status: 400,
        message: 'A validation error occurred.',
        errors: [{ field: '_schema', messages: ['No files to upload.'] }],
      });
      const obj = await call('POST', `/api/records/${rec}/draft/files`, { json: { key: 'a.txt' } });
      expect(obj.body.errors).toEqual([{ field: '_schema', messages: ['Invalid input type.'] }]);
      const bad = await call('POST', `/api/records/${rec}/draft/files`, {
        json: [{ key: '../../etc/passwd' }, { key: 'a\u0001b' }, { key: '/abs' }, { key: 'x'.repeat(256) }],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.field)).toEqual(['0.key', '1.key', '2.key', '3.key']);
      // A NUL cannot even be stored: the platform body parser refuses it first, naming the field.
      const nul = await call('POST', `/api/records/${rec}/draft/files`, { json: [{ key: 'ok.txt' }, { key: 'a\u0000b' }] });
      expect(nul.status).toBe(400);
      expect(nul.body.errors).toEqual([{ field: '1.key', messages: ['Must not contain NUL characters or unpaired surrogates.'] }]);
      const notJson = await call('POST', `/api/records/${rec}/draft/files`, {
        raw: Buffer.from('{'),
        headers: { 'content-type': 'application/json' },
      });
      expect(notJson.status).toBe(400);
      expect(notJson.body.message).toBe('Unable to decode JSON data in request body.');
    });

    it('should refuse a bad key in the URL with 400', async () => {
      const r = await rawCall('PUT', `/api/records/${rec}/draft/files/a/%2E%2E/b/content`, Buffer.from('x'));
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        status: 400,
        message: 'Invalid file key.',
        errors: [{ field: 'key', messages: ['File key must not contain "." or ".." path segments.'] }],
      });
      const dotdot = await rawCall('GET', `/api/records/${rec}/draft/files/../../x`);
      expect(dotdot.status).toBe(400);
      const nul = await rawCall('GET', `/api/records/${rec}/draft/files/a%00b`);
      expect(nul.status).toBe(400);
      const broken = await rawCall('GET', `/api/records/${rec}/draft/files/a%E0%A4%A`);
      expect(broken.status).toBe(400);
    });

    it('should refuse duplicate keys with 400', async () => {
      expect((await call('POST', `/api/records/${rec}/draft/files`, { json: [{ key: 'dup.txt' }] })).status).toBe(201);
      const r = await call('POST', `/api/records/${rec}/draft/files`, { json: [{ key: 'dup.txt' }] });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ status: 400, message: 'File with key dup.txt already exists.' });
      const inOne = await call('POST', `/api/records/${rec}/draft/files`, { json: [{ key: 'twice.txt' }, { key: 'twice.txt' }] });
      expect(inOne.body.message).toBe('File with key twice.txt already exists.');
    });

    it('should refuse more files than FILES_MAX_COUNT with 400 and add none of them', async () => {
      const r = await call('POST', `/api/records/${rec}/draft/files`, { json: [1, 2, 3, 4, 5].map((i) => ({ key: `many-${i}.txt` })) });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ status: 400, message: 'Uploading selected files will result in exceeding the max amount per record.' });
      const list = await call('GET', `/api/records/${rec}/draft/files`);
      expect(list.body.entries.map((e: any) => e.key)).toEqual(['dup.txt']);
    });

    it('should refuse an oversized Content-Length up front, storing nothing and keeping the entry pending', async () => {
      const before = await storedKeys();
      const big = Buffer.alloc(6 * 1024 * 1024 + 1, 1);
      const r = await call('PUT', `/api/records/${rec}/draft/files/dup.txt/content`, { raw: big });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ status: 400, message: 'File size limit exceeded.' });
      expect(await storedKeys()).toEqual(before);
      expect((await call('GET', `/api/records/${rec}/draft/files/dup.txt`)).body.status).toBe('pending');
    });

    it('should stop a chunked upload at the limit, storing nothing and keeping the entry pending', async () => {
      const before = await storedKeys();
      const chunks = Array.from({ length: 7 }, (_, i) => Buffer.alloc(1024 * 1024, i));
      const r = await call('PUT', `/api/records/${rec}/draft/files/dup.txt/content`, { raw: chunks });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('File size limit exceeded.');
      expect(await storedKeys()).toEqual(before);
      expect(await h.tdb.db('storage_gc').count({ n: '*' }).first()).toEqual({ n: '0' });
      const entry = await call('GET', `/api/records/${rec}/draft/files/dup.txt`);
      expect(entry.body.status).toBe('pending');
    });

    it('should enforce the per-record total across files', async () => {
      await addFile(rec, 'five-mb.bin', Buffer.alloc(5 * 1024 * 1024, 3));
      expect((await call('POST', `/api/records/${rec}/draft/files`, { json: [{ key: 'four-mb.bin' }] })).status).toBe(201);
      const r = await call('PUT', `/api/records/${rec}/draft/files/four-mb.bin/content`, { raw: Buffer.alloc(4 * 1024 * 1024, 4) });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('File size limit exceeded.');
      expect((await call('DELETE', `/api/records/${rec}/draft/files/five-mb.bin`)).status).toBe(204);
    });

    it('should remove the temporary object and the entry when the client aborts mid-upload', async () => {
      expect((await call('POST', `/api/records/${rec}/draft/files`, { json: [{ key: 'aborted.bin' }] })).status).toBe(201);
      const before = await storedKeys();
      const url = new URL(`${base}/api/records/${rec}/draft/files/aborted.bin/content`);
      const req = httpRequest({
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'PUT',
        headers: { ...identityHeader(OWNER), 'content-type': 'application/octet-stream', 'content-length': String(5 * 1024 * 1024) },
      });
      req.on('error', () => undefined);
      req.write(Buffer.alloc(2 * 1024 * 1024, 9));
      await new Promise((r) => setTimeout(r, 300));
      req.destroy();
      // The server notices the abort asynchronously.
      const deadline = Date.now() + 10_000;
      let entry: Res;
      do {
        await new Promise((r) => setTimeout(r, 100));
        entry = await call('GET', `/api/records/${rec}/draft/files/aborted.bin`);
      } while (entry.status !== 404 && Date.now() < deadline);
      expect(entry.status).toBe(404);
      expect(await storedKeys()).toEqual(before);
    });

    it('should refuse commit without content and upload after commit', async () => {
      const r = await call('POST', `/api/records/${rec}/draft/files/dup.txt/commit`);
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('File with key dup.txt not uploaded yet.');
      await addFile(rec, 'done.txt', Buffer.from('done'));
      const again = await call('PUT', `/api/records/${rec}/draft/files/done.txt/content`, { raw: Buffer.from('other') });
      expect(again.status).toBe(400);
      expect(again.body.message).toBe('File with key "done.txt" is already committed.');
    });

    it('should refuse non-octet-stream uploads with 415', async () => {
      const r = await call('PUT', `/api/records/${rec}/draft/files/dup.txt/content`, {
        raw: Buffer.from('x'),
        headers: { 'content-type': 'text/plain' },
      });
      expect(r.status).toBe(415);
    });

    it('should answer 404 for unknown keys and records, and check the key before the permission', async () => {
      const unknown = await call('GET', `/api/records/${rec}/draft/files/nope.txt`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.message).toBe(`Record '${rec}' has no file 'nope.txt'.`);
      const asOther = await call('GET', `/api/records/${rec}/draft/files/nope.txt`, { user: OTHER });
      expect(asOther.status).toBe(404);
      const record = await call('GET', '/api/records/zzzzz-zzz99/draft/files');
      expect(record.status).toBe(404);
      expect(record.body.message).toBe('The persistent identifier does not exist.');
    });

    it('should answer 403 to callers without permission, anonymous included', async () => {
      for (const user of [OTHER, null]) {
        expect((await call('GET', `/api/records/${rec}/draft/files`, { user })).status).toBe(403);
        expect((await call('GET', `/api/records/${rec}/draft/files/done.txt/content`, { user })).status).toBe(403);
        const init = await call('POST', `/api/records/${rec}/draft/files`, { user, json: [{ key: 'x.txt' }] });
        expect(init.status).toBe(403);
        expect(init.body).toEqual({ status: 403, message: 'Permission denied.' });
        expect((await call('DELETE', `/api/records/${rec}/draft/files/done.txt`, { user })).status).toBe(403);
      }
    });

    it('should refuse a forged identity header with 401', async () => {
      const r = await call('GET', `/api/records/${rec}/draft/files`, { user: null, headers: { 'x-rdm-identity': 'e30.bm9wZQ' } });
      expect(r.status).toBe(401);
    });

    it('should answer {enabled:false, links} and 403 "Files are not enabled." when files are disabled', async () => {
      h.records.add('nofil-00003', { owner: OWNER, enabled: false });
      const list = await call('GET', '/api/records/nofil-00003/draft/files');
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        enabled: false,
        links: { self: `${BASE}/api/records/nofil-00003/draft/files`, archive: `${BASE}/api/records/nofil-00003/draft/files-archive` },
      });
      const init = await call('POST', '/api/records/nofil-00003/draft/files', { json: [{ key: 'a.txt' }] });
      expect(init.status).toBe(403);
      expect(init.body.message).toBe('Files are not enabled.');
    });

    it('should delete all files of a draft (204)', async () => {
      const keysBefore = await storedKeys();
      expect(keysBefore.length).toBeGreaterThan(0);
      const r = await call('DELETE', `/api/records/${rec}/draft/files`);
      expect(r.status).toBe(204);
      expect((await call('GET', `/api/records/${rec}/draft/files`)).body.entries).toEqual([]);
    });
  });

  describe('published records', () => {
    const rec = 'publd-00004';
    let bucket: string;
    const content = Buffer.from('published bytes');

    beforeAll(async () => {
      const r = h.records.add(rec, { owner: OWNER, order: ['a.txt'], default_preview: 'a.txt' });
      bucket = r.draftBucket!;
      await addFile(rec, 'a.txt', content);
      await addFile(rec, 'dir/b.png', Buffer.from('png'));
      // Publish: records locks the bucket (event or RPC) and serves it as the record's files.
      await h.service.lock(bucket);
      r.recordBucket = bucket;
      r.draftBucket = undefined;
    });

    it("should list a published record's files with pids and without commit links", async () => {
      const res = await call('GET', `/api/records/${rec}/files`, { user: null });
      expect(res.status).toBe(200);
      expect(res.body.links).toEqual({ self: `${BASE}/api/records/${rec}/files`, archive: `${BASE}/api/records/${rec}/files-archive` });
      expect(res.body.default_preview).toBe('a.txt');
      expect(res.body.order).toEqual(['a.txt']);
      const a = res.body.entries[0];
      expect(a.pids).toEqual({});
      expect(a.links).toEqual({
        self: `${BASE}/api/records/${rec}/files/a.txt`,
        content: `${BASE}/api/records/${rec}/files/a.txt/content`,
      });
      expect(a.status).toBe('completed');
    });

    it('should serve published content, entries and the archive anonymously', async () => {
      const c = await call('GET', `/api/records/${rec}/files/a.txt/content`, { user: null });
      expect(c.status).toBe(200);
      expect(c.bytes.equals(content)).toBe(true);
      // FAIR signposting level 1 on a published file: its collection (landing page) and the linkset.
      expect(c.headers.get('link')).toBe(
        `<https://rdm.example.org/records/${rec}> ; rel="collection" ; type="text/html" , ` +
          `<https://rdm.example.org/api/records/${rec}> ; rel="linkset" ; type="application/linkset+json"`,
      );
      const png = await call('GET', `/api/records/${rec}/files/dir/b.png/content`, { user: null });
      expect(png.headers.get('content-type')).toBe('image/png');
      expect(png.headers.get('content-disposition')).toBe('inline');
      expect((await call('GET', `/api/records/${rec}/files/dir/b.png`, { user: null })).body.key).toBe('dir/b.png');
      const zip = await call('GET', `/api/records/${rec}/files-archive`, { user: null });
      expect(readZip(zip.bytes).map((e) => e.name)).toEqual(['a.txt', 'dir/b.png']);
    });

    it("should answer 405 to writes on a published record's files", async () => {
      for (const [method, path] of [
        ['POST', `/api/records/${rec}/files`],
        ['PUT', `/api/records/${rec}/files/a.txt`],
        ['DELETE', `/api/records/${rec}/files/a.txt`],
        ['PUT', `/api/records/${rec}/files/a.txt/content`],
        ['POST', `/api/records/${rec}/files/a.txt/commit`],
      ]) {
        const r = await call(method, path, method === 'POST' && path.endsWith('/files') ? { json: [{ key: 'x' }] } : {});
        expect(r.status, `${method} ${path}`).toBe(405);
        expect(r.body.message).toBe('The method is not allowed for the requested URL.');
      }
    });

    it('should refuse changes through an edit draft whose bucket is locked (403), registering keys for the draft only', async () => {
      const r = h.records.records.get(rec)!;
      r.draftBucket = bucket;
      r.draftLocked = true;
      try {
        // InvenioRDM's order: the key is accepted (201, pending), its content upload is the 403.
        const init = await call('POST', `/api/records/${rec}/draft/files`, { json: [{ key: 'new.txt' }] });
        expect(init.status).toBe(201);
        expect(init.body.entries.map((e: any) => [e.key, e.status])).toContainEqual(['new.txt', 'pending']);
        const up = await call('PUT', `/api/records/${rec}/draft/files/new.txt/content`, { raw: Buffer.from('x') });
        expect(up.status).toBe(403);
        expect(up.body).toEqual({ status: 403, message: 'Bucket is locked for modifications.' });
        expect((await call('POST', `/api/records/${rec}/draft/files/new.txt/commit`)).status).toBe(403);
        // Nothing changed in the locked bucket: the record and its manifest do not see the registration.
        expect((await call('GET', `/api/records/${rec}/files/new.txt`)).status).toBe(404);
        expect((await call('GET', `/api/records/${rec}/files`)).body.entries.map((e: any) => e.key)).not.toContain('new.txt');
        expect((await h.service.manifest(bucket)).files.map((f) => f.key)).not.toContain('new.txt');
        expect((await call('GET', `/api/records/${rec}/draft/files/new.txt`)).body.status).toBe('pending');
        // A registration can be dropped; the record's files cannot.
        expect((await call('DELETE', `/api/records/${rec}/draft/files/new.txt`)).status).toBe(204);
        expect((await call('GET', `/api/records/${rec}/draft/files/new.txt`)).status).toBe(404);
        expect((await call('DELETE', `/api/records/${rec}/draft/files/a.txt`)).status).toBe(403);
        expect((await call('PUT', `/api/records/${rec}/draft/files/a.txt/content`, { raw: Buffer.from('x') })).status).toBe(403);
        expect((await call('PUT', `/api/records/${rec}/draft/files/a.txt`, { json: { metadata: {} } })).status).toBe(403);
        // A multipart init creates storage at once: refused on a locked bucket.
        const mp = await call('POST', `/api/records/${rec}/draft/files`, {
          json: [{ key: 'big.bin', size: 10, transfer: { type: 'M', parts: 1 } }],
        });
        expect(mp.status).toBe(403);
        // Even if records forgot to say so, our own lock holds.
        r.draftLocked = false;
        expect((await call('POST', `/api/records/${rec}/draft/files`, { json: [{ key: 'other.txt' }] })).status).toBe(403);
        expect((await call('DELETE', `/api/records/${rec}/draft/files/a.txt`)).status).toBe(403);
        expect((await call('GET', `/api/records/${rec}/draft/files/a.txt/content`)).status).toBe(200);
      } finally {
        r.draftBucket = undefined;
      }
    });
  });
});
