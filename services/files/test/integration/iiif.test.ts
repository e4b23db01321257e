/**
 * The IIIF room of the files service end to end inside the service: real app, PostgreSQL, NATS
 * (private server) carrying `authorize-files` to the records stub. Image API 2.1
 * (info.json, image requests, 400s), the derivative cache (in the object store, behind the access
 * check, bounded), manifests 2.1/3.0, restricted files answering as their download, and a
 * 20000×20000 PNG refused quickly without decoding — on both storage engines (local folder; S3 on
 * MinIO, skipped locally without it, failing under CI).
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenBehindFront } from '@rdm/platform/testing';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blackPng } from '../support/images.js';
import {
  CI,
  createHarness,
  describeEngines,
  type Harness,
  identityHeader,
  makeEngine,
  S3_MISSING,
  SECRET,
  s3Available,
} from './support.js';

const S3_UP = await s3Available();
if (!S3_UP && !CI) console.warn(`[files IIIF tests] skipping S3: ${S3_MISSING}`);
const OWNER = 'user-owner';
const BASE = 'https://rdm.example.org';

interface Res {
  status: number;
  headers: Headers;
  body: any;
  bytes: Buffer;
}

describeEngines(S3_UP, 'files IIIF (%s storage)', (kind) => {
  let h: Harness;
  let server: Server;
  let base: string;

  async function call(
    method: string,
    path: string,
    o: { user?: string | null; raw?: Buffer; headers?: Record<string, string>; json?: unknown } = {},
  ): Promise<Res> {
    const headers: Record<string, string> = { ...identityHeader(o.user === undefined ? OWNER : o.user), ...(o.headers ?? {}) };
    let body: Buffer | string | undefined;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] = 'application/json';
    } else if (o.raw) {
      body = o.raw;
      headers['content-type'] = 'application/octet-stream';
    }
    const res = await fetch(`${base}${path}`, { method, headers, body, redirect: 'manual' });
    const bytes = Buffer.from(await res.arrayBuffer());
    let parsed: any;
    try {
      parsed = bytes.length && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(bytes.toString('utf8')) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, bytes };
  }

  async function addFile(recordId: string, key: string, content: Buffer): Promise<void> {
    expect((await call('POST', `/api/records/${recordId}/draft/files`, { json: [{ key }] })).status).toBe(201);
    const path = `/api/records/${recordId}/draft/files/${encodeURIComponent(key)}`;
    expect((await call('PUT', `${path}/content`, { raw: content })).status).toBe(200);
    expect((await call('POST', `${path}/commit`)).status).toBe(200);
  }

  /** A record whose draft bucket is also its published bucket (the stub's way to publish). */
  async function record(id: string, files: [string, Buffer][], o: { publicFiles?: boolean; order?: string[] } = {}) {
    const rec = h.records.add(id, {
      owner: OWNER,
      publicFiles: o.publicFiles ?? true,
      order: o.order ?? [],
      metadata: { title: `Title of ${id}`, description: 'Some images', publication_date: '2026-11-28', creators: [{ name: 'Doe, Jane' }] },
    });
    for (const [key, bytes] of files) await addFile(id, key, bytes);
    rec.recordBucket = rec.draftBucket;
    return rec;
  }

  let png: Buffer;
  let jpg: Buffer;

  beforeAll(async () => {
    png = await sharp({ create: { width: 640, height: 480, channels: 4, background: { r: 200, g: 20, b: 20, alpha: 1 } } })
      .png()
      .toBuffer();
    jpg = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#2040a0' } })
      .jpeg()
      .toBuffer();
    h = await createHarness(
      await makeEngine('local'),
      {},
      { iiif: { FILES_IIIF_CACHE_BYTES: 200_000, FILES_IIIF_MAX_PIXELS: 50_000_000 } },
    );
    server = listenBehindFront(h.app.callback(), SECRET);
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await record(
      'iiif-pub01',
      [
        ['b.png', png],
        ['a photo.jpg', jpg],
        ['notes.txt', Buffer.from('hello')],
      ],
      { order: ['b.png', 'a photo.jpg', 'notes.txt'] },
    );
    await record('iiif-res01', [['secret.png', png]], { publicFiles: false });
  });

  afterAll(async () => {
    server?.close();
    await h?.close();
    await h?.engine.dispose();
  });

  describe('Image API 2.1', () => {
    it('should answer info.json at level 2 with the image size, CORS and the JSON-LD type when asked', async () => {
      const res = await call('GET', '/api/iiif/record:iiif-pub01:b.png/info.json', {
        user: null,
        headers: { accept: 'application/ld+json' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/ld\+json/);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.body).toMatchObject({
        '@context': 'http://iiif.io/api/image/2/context.json',
        '@id': `${BASE}/api/iiif/record:iiif-pub01:b.png`,
        protocol: 'http://iiif.io/api/image',
        width: 640,
        height: 480,
      });
      expect(res.body.profile[0]).toBe('http://iiif.io/api/image/2/level2.json');
      expect(res.body.profile[1]).toMatchObject({ maxWidth: 10_000, maxHeight: 10_000, maxArea: 25_000_000 });
      expect(res.body.tiles[0].width).toBe(256);
      expect(res.body.sizes.at(-1)).toEqual({ width: 640, height: 480 });
    });

    it('should redirect the base URI to info.json (303)', async () => {
      const res = await call('GET', '/api/iiif/record:iiif-pub01:b.png', { user: null });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`${BASE}/api/iiif/record:iiif-pub01:b.png/info.json`);
    });

    it.each([
      ['full/full/0/default.jpg', 'jpeg', 640, 480],
      ['square/!100,100/0/default.png', 'png', 100, 100],
      ['pct:0,0,50,50/160,/90/gray.webp', 'webp', 120, 160],
      ['10,10,200,100/pct:50/!0/bitonal.tif', 'tiff', 100, 50],
      ['full/^250,/0/default.jpg', 'jpeg', 250, 188],
    ])('should render %s', async (params, format, width, height) => {
      const res = await call('GET', `/api/iiif/record:iiif-pub01:b.png/${params}`, { user: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(`image/${format}`);
      const meta = await sharp(res.bytes).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual([format, width, height]);
    });

    it('should serve a file key with a space and a JPEG source', async () => {
      const res = await call('GET', '/api/iiif/record:iiif-pub01:a%20photo.jpg/full/150,/0/default.png', { user: null });
      expect(res.status).toBe(200);
      expect((await sharp(res.bytes).metadata()).width).toBe(150);
    });

    it('should mirror before rotating', async () => {
      const half = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#000' } })
        .composite([{ input: { create: { width: 10, height: 10, channels: 3, background: '#fff' } }, left: 0, top: 0 }])
        .png()
        .toBuffer();
      await record('iiif-mir01', [['m.png', half]]);
      const res = await call('GET', '/api/iiif/record:iiif-mir01:m.png/full/full/!0/default.png', { user: null });
      const { data, info } = await sharp(res.bytes).raw().toBuffer({ resolveWithObject: true });
      const px = (x: number, y: number) => data[(y * info.width + x) * info.channels];
      expect([px(2, 5), px(17, 5)]).toEqual([0, 255]);
    });

    it.each([
      'full/full/0/default.gif',
      'full/full/0/native.jpg',
      'full/full/400/default.jpg',
      'full/0,/0/default.jpg',
      '700,0,10,10/full/0/default.jpg',
      'full/20000,/0/default.jpg',
      'nope/full/0/default.jpg',
    ])('should answer 400 for %s', async (params) => {
      const res = await call('GET', `/api/iiif/record:iiif-pub01:b.png/${params}`, { user: null });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 400 });
    });

    it('should answer 404 for unknown identifiers, records and keys', async () => {
      for (const path of [
        '/api/iiif/67352ccc-d1b0-11e1-89ae-279075081939/info.json',
        '/api/iiif/record:iiif-nope1:b.png/info.json',
        '/api/iiif/record:iiif-pub01:c.png/full/full/0/default.jpg',
        '/api/iiif/record:iiif-pub01/info.json',
      ]) {
        expect((await call('GET', path, { user: null })).status, path).toBe(404);
      }
    });

    it('should answer 415 for a file that is not an image', async () => {
      await record('iiif-bad01', [['fake.png', Buffer.from('not an image at all')]]);
      const res = await call('GET', '/api/iiif/record:iiif-bad01:fake.png/full/full/0/default.jpg', { user: null });
      expect(res.status).toBe(415);
      expect((await call('GET', '/api/iiif/record:iiif-pub01:notes.txt/info.json', { user: null })).status).toBe(415);
    });

    it('should refuse a 20000x20000 PNG with a 422 quickly, without decoding it', async () => {
      await record('iiif-big01', [['huge.png', blackPng(20_000, 20_000)]]);
      const rssBefore = process.memoryUsage().rss;
      const t0 = Date.now();
      const res = await call('GET', '/api/iiif/record:iiif-big01:huge.png/full/!256,256/0/default.jpg', { user: null });
      expect(res.status).toBe(422);
      expect(res.body.message).toMatch(/too large/);
      expect(Date.now() - t0).toBeLessThan(5000);
      // Decoding 400 Mpx would take at least 400 MB.
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(150 * 1024 * 1024);
      expect((await call('GET', '/api/iiif/record:iiif-big01:huge.png/info.json', { user: null })).status).toBe(422);
    });
  });

  describe('derivative cache', () => {
    it('should keep a derivative in the object store and serve it again from there', async () => {
      const path = '/api/iiif/record:iiif-pub01:b.png/full/64,/0/default.jpg';
      const first = await call('GET', path, { user: null });
      const second = await call('GET', path, { user: null });
      expect(first.headers.get('x-iiif-cache')).toBe('miss');
      expect(second.headers.get('x-iiif-cache')).toBe('hit');
      expect(second.bytes.equals(first.bytes)).toBe(true);
      const keys = (await h.engine.leftovers()).filter((k) => k.startsWith('iiif/'));
      expect(keys.length).toBeGreaterThan(0);
      const etag = second.headers.get('etag') as string;
      expect((await call('GET', path, { user: null, headers: { 'if-none-match': etag } })).status).toBe(304);
    });

    it('should stay within FILES_IIIF_CACHE_BYTES, evicting the least recently served', async () => {
      for (let w = 300; w < 340; w += 4) {
        expect((await call('GET', `/api/iiif/record:iiif-pub01:b.png/full/${w},/0/default.png`, { user: null })).status).toBe(200);
      }
      expect(await h.iiif.derivatives.totalBytes()).toBeLessThanOrEqual(200_000);
      const stored = (await h.engine.leftovers()).filter((k) => k.startsWith('iiif/'));
      const { rows } = await h.tdb.db.raw('SELECT storage_key FROM iiif_derivatives');
      expect(stored.sort()).toEqual(rows.map((r: { storage_key: string }) => r.storage_key).sort());
    });

    it('should serve a cached derivative of a restricted image only after the access check', async () => {
      const path = '/api/iiif/record:iiif-res01:secret.png/full/80,/0/default.jpg';
      const owner = await call('GET', path);
      expect(owner.status).toBe(200);
      expect((await call('GET', path)).headers.get('x-iiif-cache')).toBe('hit');
      const download = await call('GET', '/api/records/iiif-res01/files/secret.png/content', { user: null });
      const anonymous = await call('GET', path, { user: null });
      expect(download.status).toBe(403);
      expect(anonymous.status).toBe(download.status);
      expect(anonymous.bytes.includes(owner.bytes.subarray(0, 64))).toBe(false);
      for (const p of ['/api/iiif/record:iiif-res01:secret.png/info.json', '/api/iiif/record:iiif-res01/manifest']) {
        expect((await call('GET', p, { user: null })).status, p).toBe(403);
      }
    });
  });

  describe('Presentation API', () => {
    it('should answer a 2.1 manifest with a canvas per image in the record order, labelled from the record', async () => {
      const res = await call('GET', '/api/iiif/record:iiif-pub01/manifest', { user: null });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        '@context': 'http://iiif.io/api/presentation/2/context.json',
        '@type': 'sc:Manifest',
        '@id': `${BASE}/api/iiif/record:iiif-pub01/manifest`,
        label: 'Title of iiif-pub01',
        description: 'Some images',
        metadata: [
          { label: 'Publication Date', value: '2026-11-28' },
          { label: 'Creators', value: 'Doe, Jane' },
        ],
      });
      const canvases = res.body.sequences[0].canvases;
      expect(canvases.map((c: any) => [c.label, c.width, c.height])).toEqual([
        ['b.png', 640, 480],
        ['a photo.jpg', 300, 200],
      ]);
      expect(canvases[1]['@id']).toBe(`${BASE}/api/iiif/record:iiif-pub01/canvas/a%20photo.jpg`);
      expect(canvases[1].images[0].resource.service['@id']).toBe(`${BASE}/api/iiif/record:iiif-pub01:a%20photo.jpg`);
    });

    it('should answer the sequence and a canvas on their own', async () => {
      const seq = await call('GET', '/api/iiif/record:iiif-pub01/sequence/default', { user: null });
      expect(seq.status).toBe(200);
      expect(seq.body).toMatchObject({ '@type': 'sc:Sequence', '@context': 'http://iiif.io/api/presentation/2/context.json' });
      const canvas = await call('GET', '/api/iiif/record:iiif-pub01/canvas/a%20photo.jpg', { user: null });
      expect(canvas.status).toBe(200);
      expect(canvas.body).toMatchObject({ '@type': 'sc:Canvas', label: 'a photo.jpg', width: 300, height: 200 });
      expect((await call('GET', '/api/iiif/record:iiif-pub01/canvas/notes.txt', { user: null })).status).toBe(404);
    });

    it('should answer Presentation 3.0 when the Accept profile asks for it', async () => {
      const res = await call('GET', '/api/iiif/record:iiif-pub01/manifest', {
        user: null,
        headers: { accept: 'application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(
        /^application\/ld\+json;profile="http:\/\/iiif.io\/api\/presentation\/3\/context.json"/,
      );
      expect(res.body).toMatchObject({ type: 'Manifest', label: { none: ['Title of iiif-pub01'] } });
      expect(res.body.items.map((c: any) => c.label.none[0])).toEqual(['b.png', 'a photo.jpg']);
      expect(res.body.items[0].items[0].items[0].body.service[0]['@id']).toBe(`${BASE}/api/iiif/record:iiif-pub01:b.png`);
    });

    it("should serve a draft's manifest to its owner only", async () => {
      expect((await call('GET', '/api/iiif/draft:iiif-pub01/manifest')).status).toBe(200);
      expect((await call('GET', '/api/iiif/draft:iiif-pub01/manifest', { user: 'someone-else' })).status).toBe(403);
      expect((await call('GET', '/api/iiif/draft:iiif-pub01:b.png/full/32,/0/default.png')).status).toBe(200);
    });

    it('should ask records for the metadata, never the local copy', () => {
      const asked = h.records.calls.filter((c) => c.with_metadata);
      expect(asked.length).toBeGreaterThan(0);
    });
  });
});
