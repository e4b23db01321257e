/**
 * Record files through the gateway (black box): register, upload with chunked transfer, commit,
 * list (draft and published shapes), metadata, delete, download headers and ranges, the zip
 * archive, and the errors (duplicate key, bad key, no permission, unknown key, changing a
 * published record's files).
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { walkthroughMetadata } from '../records/support.js';
import { readZip } from './zip.js';

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');
const enc = (key: string) => key.split('/').map(encodeURIComponent).join('/');

/** Bytes of a download (api() decodes text; downloads need the raw bytes). */
async function download(path: string, token?: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${baseUrl()}${path}`, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A request with the path sent verbatim (fetch would normalise `..` segments away). */
function rawRequest(method: string, path: string, token: string): Promise<{ status: number; body: any }> {
  const url = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path,
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString();
          let body: any;
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end('x');
  });
}

/** A body sent with chunked transfer encoding (a stream without a length). */
function chunked(parts: Buffer[]): ReadableStream<Uint8Array> {
  const queue = [...parts];
  return new ReadableStream({
    pull(ctrl) {
      const c = queue.shift();
      if (c) ctrl.enqueue(c);
      else ctrl.close();
    },
  });
}

async function newDraft(token: string): Promise<string> {
  const res = await api('/api/records', {
    method: 'POST',
    token,
    body: { access: { record: 'public', files: 'public' }, files: { enabled: true }, metadata: walkthroughMetadata() },
  });
  if (res.status !== 201) throw new Error(`create draft ${res.status}: ${res.text}`);
  return res.body.id;
}

async function addFile(token: string, id: string, key: string, content: Buffer | string): Promise<any> {
  const init = await api(`/api/records/${id}/draft/files`, { method: 'POST', token, body: [{ key }] });
  if (init.status !== 201) throw new Error(`init ${init.status}: ${init.text}`);
  return uploadAndCommit(token, id, key, content);
}

async function uploadAndCommit(token: string, id: string, key: string, content: Buffer | string): Promise<any> {
  const up = await api(`/api/records/${id}/draft/files/${enc(key)}/content`, { method: 'PUT', token, raw: content });
  if (up.status !== 200) throw new Error(`upload ${up.status}: ${up.text}`);
  const commit = await api(`/api/records/${id}/draft/files/${enc(key)}/commit`, { method: 'POST', token });
  if (commit.status !== 200) throw new Error(`commit ${commit.status}: ${commit.text}`);
  return commit.body;
}

let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  owner = await createUser({ email: uniqueEmail('files-owner') });
  other = await createUser({ email: uniqueEmail('files-other') });
});

describe('draft files: register, upload, commit, read', () => {
  let id: string;
  let base: string;
  const content = Buffer.concat([Buffer.from('col1,col2\n'), Buffer.alloc(200_000, 'x'), Buffer.from('\nend')]);

  beforeAll(async () => {
    id = await newDraft(owner.token);
    base = `${baseUrl()}/api/records/${id}/draft/files`;
  });

  it('POST /draft/files registers pending entries (201, file list shape)', async () => {
    const res = await api(`/api/records/${id}/draft/files`, {
      method: 'POST',
      token: owner.token,
      body: [{ key: 'data.csv' }, { key: 'figs/plot one.png' }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      enabled: true,
      links: { self: base, archive: `${baseUrl()}/api/records/${id}/draft/files-archive` },
      entries: [
        {
          created: expect.stringMatching(TS),
          updated: expect.stringMatching(TS),
          metadata: null,
          access: { hidden: false },
          links: { self: `${base}/data.csv`, content: `${base}/data.csv/content`, commit: `${base}/data.csv/commit` },
          key: 'data.csv',
          transfer: { type: 'L' },
          status: 'pending',
        },
        expect.objectContaining({
          key: 'figs/plot one.png',
          status: 'pending',
          links: expect.objectContaining({ self: `${base}/figs/plot%20one.png` }),
        }),
      ],
      default_preview: null,
      order: [],
    });
  });

  it('PUT …/content streams raw bytes with chunked transfer (200, still pending)', async () => {
    const res = await api(`/api/records/${id}/draft/files/data.csv/content`, {
      method: 'PUT',
      token: owner.token,
      raw: chunked([content.subarray(0, 65_536), content.subarray(65_536, 150_000), content.subarray(150_000)]) as unknown as string,
    });
    expect(res.status).toBe(200);
    expect(res.body.key).toBe('data.csv');
    expect(res.body.status).toBe('pending');
  });

  it('POST …/commit completes the file (200, md5 checksum, size, mimetype, ids)', async () => {
    const res = await api(`/api/records/${id}/draft/files/data.csv/commit`, { method: 'POST', token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      created: expect.stringMatching(TS),
      updated: expect.stringMatching(TS),
      mimetype: 'text/csv',
      version_id: expect.stringMatching(UUID),
      file_id: expect.stringMatching(UUID),
      bucket_id: expect.any(String),
      metadata: null,
      access: { hidden: false },
      links: { self: `${base}/data.csv`, content: `${base}/data.csv/content`, commit: `${base}/data.csv/commit` },
      key: 'data.csv',
      size: content.length,
      transfer: { type: 'L' },
      status: 'completed',
      checksum: `md5:${md5(content)}`,
      storage_class: 'L',
    });
  });

  it("GET /draft/files lists the draft's files in the listing shape", async () => {
    await uploadAndCommit(owner.token, id, 'figs/plot one.png', Buffer.from('\x89PNG fake'));
    const res = await api(`/api/records/${id}/draft/files`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['enabled', 'links', 'entries', 'default_preview', 'order']);
    expect(res.body.entries.map((e: any) => [e.key, e.status])).toEqual([
      ['data.csv', 'completed'],
      ['figs/plot one.png', 'completed'],
    ]);
    expect(Object.keys(res.body.entries[0]).sort()).toEqual(
      [
        'access',
        'bucket_id',
        'checksum',
        'created',
        'file_id',
        'key',
        'links',
        'metadata',
        'mimetype',
        'size',
        'status',
        'storage_class',
        'transfer',
        'updated',
        'version_id',
      ].sort(),
    );
  });

  it('GET/PUT /draft/files/<key> reads and updates the file metadata', async () => {
    const read = await api(`/api/records/${id}/draft/files/figs/plot%20one.png`, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body.key).toBe('figs/plot one.png');
    const upd = await api(`/api/records/${id}/draft/files/figs/plot%20one.png`, {
      method: 'PUT',
      token: owner.token,
      body: { metadata: { caption: 'A plot' }, access: { hidden: false } },
    });
    expect(upd.status).toBe(200);
    expect(upd.body.metadata).toEqual({ caption: 'A plot' });
    expect((await api(`/api/records/${id}/draft/files/figs/plot%20one.png`, { token: owner.token })).body.metadata).toEqual({
      caption: 'A plot',
    });
  });

  it('GET …/content downloads with ETag, Content-Length, Content-Type, Content-Disposition; md5 matches', async () => {
    const res = await download(`/api/records/${id}/draft/files/data.csv/content`, owner.token);
    expect(res.status).toBe(200);
    expect(md5(res.bytes)).toBe(md5(content));
    expect(res.headers.get('etag')).toBe(`"md5:${md5(content)}"`);
    expect(res.headers.get('content-length')).toBe(String(content.length));
    // As InvenioRDM: CSV could be rendered by a browser, so it is served as text/plain, inline.
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('content-disposition')).toBe('inline');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    const dl = await download(`/api/records/${id}/draft/files/data.csv/content?download=1`, owner.token);
    expect(dl.headers.get('content-disposition')).toBe('attachment; filename=data.csv');
  });

  it('GET …/content honours Range (206, Content-Range), refuses unsatisfiable ranges (416) and answers If-None-Match with 304', async () => {
    const part = await download(`/api/records/${id}/draft/files/data.csv/content`, owner.token, { range: 'bytes=0-8' });
    expect(part.status).toBe(206);
    expect(part.bytes.toString()).toBe('col1,col2');
    expect(part.headers.get('content-range')).toBe(`bytes 0-8/${content.length}`);
    const bad = await download(`/api/records/${id}/draft/files/data.csv/content`, owner.token, { range: `bytes=${content.length + 10}-` });
    expect(bad.status).toBe(416);
    const cached = await download(`/api/records/${id}/draft/files/data.csv/content`, owner.token, {
      'if-none-match': `"md5:${md5(content)}"`,
    });
    expect(cached.status).toBe(304);
  });

  it('GET /draft/files-archive streams a zip of every committed file', async () => {
    const res = await download(`/api/records/${id}/draft/files-archive`, owner.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=${id}.zip`);
    const entries = readZip(res.bytes);
    expect(entries.map((e) => e.name)).toEqual(['data.csv', 'figs/plot one.png']);
    expect(md5(entries[0].data)).toBe(md5(content));
    expect(entries.every((e) => e.crcOk)).toBe(true);
  });

  it('DELETE /draft/files/<key> removes a file (204)', async () => {
    await addFile(owner.token, id, 'temp.txt', 'temporary');
    const res = await api(`/api/records/${id}/draft/files/temp.txt`, { method: 'DELETE', token: owner.token });
    expect(res.status).toBe(204);
    const gone = await api(`/api/records/${id}/draft/files/temp.txt`, { token: owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ status: 404, message: `Record '${id}' has no file 'temp.txt'.` });
  });
});

describe('draft files: errors', () => {
  let id: string;

  beforeAll(async () => {
    id = await newDraft(owner.token);
    await addFile(owner.token, id, 'one.txt', 'one');
  });

  it('should refuse a duplicate key with 400', async () => {
    const res = await api(`/api/records/${id}/draft/files`, { method: 'POST', token: owner.token, body: [{ key: 'one.txt' }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 400, message: 'File with key one.txt already exists.' });
  });

  it('should refuse an empty list, an object body and bad keys with 400', async () => {
    const empty = await api(`/api/records/${id}/draft/files`, { method: 'POST', token: owner.token, body: [] });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({
      status: 400,
      message: 'A validation error occurred.',
      errors: [{ field: '_schema', messages: ['No files to upload.'] }],
    });
    const obj = await api(`/api/records/${id}/draft/files`, { method: 'POST', token: owner.token, body: { key: 'x.txt' } });
    expect(obj.status).toBe(400);
    expect(obj.body.errors).toEqual([{ field: '_schema', messages: ['Invalid input type.'] }]);
    const bad = await api(`/api/records/${id}/draft/files`, { method: 'POST', token: owner.token, body: [{ key: '../../etc/passwd' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: '0.key', messages: ['File key must not contain "." or ".." path segments.'] }]);
    const inUrl = await rawRequest('PUT', `/api/records/${id}/draft/files/a/%2e%2e/%2e%2e/b/content`, owner.token);
    expect(inUrl.status).toBe(400);
  });

  it('should refuse fetch and remote transfers at validation with 400 and a field error on the type, registering nothing', async () => {
    const res = await api(`/api/records/${id}/draft/files`, {
      method: 'POST',
      token: owner.token,
      body: [
        { key: 'fetched.bin', transfer: { type: 'F' } },
        { key: 'remote.bin', transfer: { type: 'R' } },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      message: 'A validation error occurred.',
      errors: [
        {
          field: '0.transfer.type',
          messages: ['Fetch transfers (F) are not supported: upload the content (L) or upload it in parts (M).'],
        },
        {
          field: '1.transfer.type',
          messages: ['Remote transfers (R) are not supported: upload the content (L) or upload it in parts (M).'],
        },
      ],
    });
    const list = await api(`/api/records/${id}/draft/files`, { token: owner.token });
    expect(list.body.entries.map((e: { key: string }) => e.key)).toEqual(['one.txt']);
  });

  it('should answer 404 for unknown keys and records', async () => {
    const key = await api(`/api/records/${id}/draft/files/missing.txt`, { token: owner.token });
    expect(key.status).toBe(404);
    expect(key.body).toEqual({ status: 404, message: `Record '${id}' has no file 'missing.txt'.` });
    const content = await api(`/api/records/${id}/draft/files/missing.txt/content`, { token: owner.token });
    expect(content.status).toBe(404);
    const rec = await api('/api/records/zzzzz-zzz00/draft/files', { token: owner.token });
    expect(rec.status).toBe(404);
  });

  it("should refuse other users and anonymous callers with 403 on a draft's files", async () => {
    for (const token of [other.token, undefined]) {
      expect((await api(`/api/records/${id}/draft/files`, { token })).status).toBe(403);
      expect((await api(`/api/records/${id}/draft/files/one.txt/content`, { token })).status).toBe(403);
      const init = await api(`/api/records/${id}/draft/files`, { method: 'POST', token, body: [{ key: 'intruder.txt' }] });
      expect(init.status).toBe(403);
      expect(init.body).toEqual({ status: 403, message: 'Permission denied.' });
      expect((await api(`/api/records/${id}/draft/files/one.txt`, { method: 'DELETE', token })).status).toBe(403);
    }
  });

  it('should refuse content that is not application/octet-stream with 415', async () => {
    await api(`/api/records/${id}/draft/files`, { method: 'POST', token: owner.token, body: [{ key: 'typed.txt' }] });
    const res = await api(`/api/records/${id}/draft/files/typed.txt/content`, {
      method: 'PUT',
      token: owner.token,
      raw: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
  });

  it('should refuse to commit a file without content (400)', async () => {
    await api(`/api/records/${id}/draft/files`, { method: 'POST', token: owner.token, body: [{ key: 'empty-handed.txt' }] });
    const res = await api(`/api/records/${id}/draft/files/empty-handed.txt/commit`, { method: 'POST', token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('File with key empty-handed.txt not uploaded yet.');
  });
});

describe('published record files', () => {
  let id: string;
  const text = 'published content';

  beforeAll(async () => {
    id = await newDraft(owner.token);
    await addFile(owner.token, id, 'paper.txt', text);
    const pub = await api(`/api/records/${id}/draft/actions/publish`, { method: 'POST', token: owner.token });
    if (pub.status !== 202) throw new Error(`publish ${pub.status}: ${pub.text}`);
  });

  it('GET /files lists the published files with pids and without commit links', async () => {
    const res = await api(`/api/records/${id}/files`);
    expect(res.status).toBe(200);
    const base = `${baseUrl()}/api/records/${id}/files`;
    expect(res.body.enabled).toBe(true);
    expect(res.body.links).toEqual({ self: base, archive: `${baseUrl()}/api/records/${id}/files-archive` });
    expect(res.body.entries).toHaveLength(1);
    const e = res.body.entries[0];
    expect(e).toMatchObject({ key: 'paper.txt', status: 'completed', checksum: `md5:${md5(text)}`, size: text.length, pids: {} });
    expect(e.links).toEqual({ self: `${base}/paper.txt`, content: `${base}/paper.txt/content` });
  });

  it('GET /files/<key> and …/content serve the published file anonymously', async () => {
    const meta = await api(`/api/records/${id}/files/paper.txt`);
    expect(meta.status).toBe(200);
    expect(meta.body.key).toBe('paper.txt');
    const res = await download(`/api/records/${id}/files/paper.txt/content`);
    expect(res.status).toBe(200);
    expect(res.bytes.toString()).toBe(text);
    const zip = await download(`/api/records/${id}/files-archive`);
    expect(readZip(zip.bytes).map((e) => [e.name, e.data.toString()])).toEqual([['paper.txt', text]]);
  });

  it("should answer 405 to writes on a published record's files", async () => {
    expect((await api(`/api/records/${id}/files`, { method: 'POST', token: owner.token, body: [{ key: 'x.txt' }] })).status).toBe(405);
    expect((await api(`/api/records/${id}/files/paper.txt`, { method: 'DELETE', token: owner.token })).status).toBe(405);
    expect((await api(`/api/records/${id}/files/paper.txt/content`, { method: 'PUT', token: owner.token, raw: 'x' })).status).toBe(405);
  });

  it("should refuse changes to a published record's files through an edit draft (403, bucket locked)", async () => {
    const edit = await api(`/api/records/${id}/draft`, { method: 'POST', token: owner.token });
    expect(edit.status).toBe(201);
    // InvenioRDM's order: registering a key is accepted, its content upload is the 403.
    const init = await api(`/api/records/${id}/draft/files`, { method: 'POST', token: owner.token, body: [{ key: 'late.txt' }] });
    expect(init.status).toBe(201);
    const up = await api(`/api/records/${id}/draft/files/late.txt/content`, { method: 'PUT', token: owner.token, raw: 'x' });
    expect(up.status).toBe(403);
    expect(up.body).toEqual({ status: 403, message: 'Bucket is locked for modifications.' });
    expect((await api(`/api/records/${id}/files/late.txt`)).status).toBe(404);
    const del = await api(`/api/records/${id}/draft/files/paper.txt`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(403);
    // Reads still work through the edit draft.
    expect((await download(`/api/records/${id}/draft/files/paper.txt/content`, owner.token)).bytes.toString()).toBe(text);
    expect((await api(`/api/records/${id}/draft`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await download(`/api/records/${id}/files/paper.txt/content`)).bytes.toString()).toBe(text);
  });

  it('a new version links the previous files with files-import (same file_id, no copy)', async () => {
    const nv = await api(`/api/records/${id}/versions`, { method: 'POST', token: owner.token });
    expect(nv.status).toBe(201);
    const v2 = nv.body.id;
    const imp = await api(`/api/records/${v2}/draft/actions/files-import`, { method: 'POST', token: owner.token });
    expect(imp.status).toBe(201);
    const old = await api(`/api/records/${id}/files/paper.txt`);
    const linked = await api(`/api/records/${v2}/draft/files/paper.txt`, { token: owner.token });
    expect(linked.status).toBe(200);
    expect(linked.body.file_id).toBe(old.body.file_id);
    expect(linked.body.version_id).not.toBe(old.body.version_id);
    expect((await download(`/api/records/${v2}/draft/files/paper.txt/content`, owner.token)).bytes.toString()).toBe(text);
    // Discarding the new version keeps the published bytes.
    expect((await api(`/api/records/${v2}/draft`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await download(`/api/records/${id}/files/paper.txt/content`)).bytes.toString()).toBe(text);
  });
});
