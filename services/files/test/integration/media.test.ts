/**
 * Media files (InvenioRDM's second bucket of a draft/record, `…/media-files…`) through the files
 * HTTP API, and their bucket lifecycle through the RPCs and event handlers records drives: lock
 * at publish (empty allowed), an edit draft's own copy (import allowing an empty source), the
 * superseded media bucket dropped, a deleted draft's media bucket dropped. Real PostgreSQL, NATS
 * (stub records) and the local engine.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { type EventEnvelope, SYSTEM } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FilesTarget } from '../../src/domain/authorizer.js';
import { onDraftDeleted, onRecordPublished } from '../../src/events/consumers.js';
import { type Harness, createHarness, identityHeader, makeEngine } from './support.js';
import { listenBehindFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const OWNER = 'user-owner';

describe('media files', () => {
  let h: Harness;
  let server: Server;
  let base: string;
  let n = 0;

  async function call(method: string, path: string, o: { json?: unknown; raw?: Buffer; user?: string | null } = {}) {
    const headers: Record<string, string> = { ...identityHeader(o.user === undefined ? OWNER : o.user) };
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
    return {
      status: res.status,
      body: buf.length && res.headers.get('content-type')?.includes('json') ? JSON.parse(buf.toString()) : undefined,
      bytes: buf,
    };
  }

  function record(extra: Parameters<Harness['records']['add']>[1] | object = {}) {
    const id = `media-${String(++n).padStart(5, '0')}`;
    const rec = h.records.add(id, { owner: OWNER, mediaDraftBucket: `mbkt-${randomUUID()}`, ...extra });
    return { id, rec, draft: `/api/records/${id}/draft/media-files`, published: `/api/records/${id}/media-files` };
  }

  /** Commit a media file through the service (system identity). */
  async function mediaFile(recordId: string, key: string, text: string): Promise<void> {
    const t: FilesTarget = { identity: SYSTEM, recordId, scope: 'draft', kind: 'media' };
    await h.service.init(t, [{ key }]);
    await h.service.upload(t, key, Readable.from([Buffer.from(text)]), text.length);
    await h.service.commit(t, key);
  }

  const envelope = <T>(type: string, data: T): EventEnvelope<T> =>
    ({
      id: randomUUID(),
      type,
      version: 1,
      occurred_at: new Date().toISOString(),
      aggregate: { type: 'record', id: 'x', revision: 1 },
      data,
    }) as EventEnvelope<T>;

  beforeAll(async () => {
    h = await createHarness(await makeEngine('local'));
    server = listenBehindFront(h.app.callback(), SECRET);
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.close();
    await h?.close();
    await h?.engine.dispose();
  });

  it('should manage a draft media file in its own bucket, with media-files links, leaving the files bucket alone', async () => {
    const { id, rec, draft } = record();
    const init = await call('POST', draft, { json: [{ key: 'cover.png' }] });
    expect(init.status).toBe(201);
    const api = `https://rdm.example.org/api/records/${id}/draft`;
    expect(init.body.links).toEqual({ self: `${api}/media-files`, archive: `${api}/media-files-archive` });
    expect(init.body.entries[0].links).toEqual({
      self: `${api}/media-files/cover.png`,
      content: `${api}/media-files/cover.png/content`,
      commit: `${api}/media-files/cover.png/commit`,
    });
    expect((await call('PUT', `${draft}/cover.png/content`, { raw: Buffer.from('PNG!') })).status).toBe(200);
    const c = await call('POST', `${draft}/cover.png/commit`);
    expect(c.body).toMatchObject({ status: 'completed', bucket_id: rec.mediaDraftBucket, size: 4 });
    expect((await call('GET', `${draft}/cover.png/content`)).bytes.toString()).toBe('PNG!');
    expect((await call('GET', `${draft}-archive`)).status).toBe(200);
    expect((await call('GET', `/api/records/${id}/draft/files`)).body.entries).toEqual([]);
    expect((await h.service.manifest(rec.draftBucket!)).files).toEqual([]);
    expect((await h.service.manifest(rec.mediaDraftBucket!)).files.map((f) => f.key)).toEqual(['cover.png']);
    // Same permissions as files: another user may not touch them.
    expect((await call('POST', draft, { json: [{ key: 'x.png' }], user: 'someone-else' })).status).toBe(403);
    // Multipart works on media files too.
    const mp = await call('POST', draft, { json: [{ key: 'clip.bin', size: 3, transfer: { type: 'M', parts: 1 } }] });
    expect(mp.body.entries.find((e: any) => e.key === 'clip.bin').links.parts[0].url).toBe(`${api}/media-files/clip.bin/content/1`);
  });

  it('should answer 403 "Files are not enabled." when media files are disabled', async () => {
    const { draft } = record({ mediaEnabled: false });
    const r = await call('POST', draft, { json: [{ key: 'a.png' }] });
    expect(r.body).toEqual({ status: 403, message: 'Files are not enabled.' });
    expect((await call('GET', draft)).body).toMatchObject({ enabled: false });
  });

  it("should serve a published record's media files read-only (writes 403, InvenioRDM's default policy)", async () => {
    const { id, rec, published } = record();
    await mediaFile(id, 'thumb.png', 'T');
    rec.recordBucket = rec.draftBucket;
    rec.mediaRecordBucket = rec.mediaDraftBucket;
    await h.service.lockIfComplete(rec.mediaRecordBucket!, { allowEmpty: true });
    const list = await call('GET', published, { user: null });
    expect(list.body.entries.map((e: any) => e.key)).toEqual(['thumb.png']);
    expect(list.body.links.self).toBe(`https://rdm.example.org/api/records/${id}/media-files`);
    expect((await call('GET', `${published}/thumb.png/content`, { user: null })).bytes.toString()).toBe('T');
    for (const [method, path, json] of [
      ['POST', published, [{ key: 'x.png' }]],
      ['PUT', `${published}/thumb.png/content`, undefined],
      ['DELETE', `${published}/thumb.png`, undefined],
    ] as const) {
      const r = await call(method, path, json ? { json } : { raw: Buffer.from('x') });
      expect(r.status, `${method} ${path}`).toBe(403);
    }
    // Files (not media) of published records stay 405.
    expect((await call('POST', `/api/records/${id}/files`, { json: [{ key: 'x' }] })).status).toBe(405);
  });

  it('should refuse media files (501) when records answers without the media echo, never touching the files bucket', async () => {
    const { id, rec, draft } = record({ noMediaSupport: true });
    const r = await call('POST', draft, { json: [{ key: 'a.png' }] });
    expect(r.status).toBe(501);
    expect((await h.service.manifest(rec.draftBucket!)).files).toEqual([]);
    expect((await call('GET', `/api/records/${id}/draft/files`)).status).toBe(200);
  });

  it('should lock an empty or complete media bucket at publish (allow_empty), and not one with pending files', async () => {
    const empty = `mbkt-${randomUUID()}`;
    expect((await h.service.lockIfComplete(empty)).locked).toBe(false);
    expect((await h.service.lockIfComplete(empty, { allowEmpty: true })).locked).toBe(true);
    const { id, rec } = record();
    await h.service.init({ identity: SYSTEM, recordId: id, scope: 'draft', kind: 'media' }, [{ key: 'p.png' }]);
    expect((await h.service.lockIfComplete(rec.mediaDraftBucket!, { allowEmpty: true })).locked).toBe(false);
  });

  it("should give an edit draft its own media copy, publish it in place of the record's and drop the old one", async () => {
    const { id, rec } = record();
    await mediaFile(id, 'a.png', 'A');
    const recordMedia = rec.mediaDraftBucket!;
    await h.service.lockIfComplete(recordMedia, { allowEmpty: true });
    // Edit: records imports the record's media into the edit draft's new media bucket (empty allowed).
    const editMedia = `mbkt-${randomUUID()}`;
    expect((await h.service.importFiles(recordMedia, editMedia, { allowEmpty: true })).files.map((f) => f.key)).toEqual(['a.png']);
    expect((await h.service.importFiles(`mbkt-${randomUUID()}`, `mbkt-${randomUUID()}`, { allowEmpty: true })).files).toEqual([]);
    rec.mediaDraftBucket = editMedia;
    await mediaFile(id, 'b.png', 'B');
    // Publish the edit: records points the record at the edit's bucket and announces the superseded one.
    await h.tdb.db.transaction((trx) =>
      onRecordPublished(
        h.service,
        trx,
        envelope('rdm.records.record.published', {
          id,
          parent_id: id,
          index: 1,
          is_latest: true,
          access_status: 'open',
          bucket_id: rec.draftBucket!,
          media_bucket_id: editMedia,
          superseded_media_bucket_id: recordMedia,
        }),
      ),
    );
    const m = await h.service.manifest(editMedia);
    expect([m.locked, m.files.map((f) => f.key)]).toEqual([true, ['a.png', 'b.png']]);
    expect((await h.tdb.db('buckets').where({ id: recordMedia }).first()) ?? null).toBeNull();
    // The shared object of a.png is still there (referenced by the new bucket).
    const t: FilesTarget = { identity: SYSTEM, recordId: id, scope: 'draft', kind: 'media' };
    const { storageKey } = await h.service.content(t, 'a.png');
    expect((await h.engine.storage.stat(storageKey))?.size).toBe(1);
  });

  it("should drop a deleted draft's media bucket (an edit draft's too) and the keys it registered in the locked files bucket", async () => {
    const { id, rec } = record();
    await mediaFile(id, 'c.png', 'C');
    await h.service.lock(rec.draftBucket!);
    rec.draftLocked = true;
    await h.service.init({ identity: SYSTEM, recordId: id, scope: 'draft' }, [{ key: 'registered.txt' }]);
    await h.tdb.db.transaction((trx) =>
      onDraftDeleted(
        h.service,
        trx,
        envelope('rdm.records.draft.deleted', {
          id,
          parent_id: 'p',
          bucket_id: rec.draftBucket!,
          kind: 'edit',
          media_bucket_id: rec.mediaDraftBucket,
        }),
        { info: () => undefined, warn: () => undefined },
      ),
    );
    expect((await h.tdb.db('buckets').where({ id: rec.mediaDraftBucket }).first()) ?? null).toBeNull();
    const files = await h.tdb.db('files').where({ bucket_id: rec.draftBucket }).select('key');
    expect(files).toEqual([]);
    expect((await h.tdb.db('buckets').where({ id: rec.draftBucket }).first()).locked).toBe(true);
  });
});
