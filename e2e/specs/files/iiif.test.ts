/**
 * IIIF through the gateway (black box, issue 24): a record published with a PNG and a JPEG; every
 * IIIF link of its answer (`self_iiif_manifest`, `self_iiif_sequence`, `thumbnails`) and of its
 * files' entries (`iiif_canvas`, `iiif_base`, `iiif_info`, `iiif_api`) answers; the manifest,
 * parsed with `@iiif/parser`, names every image file in order (2.1, and 3.0 by `Accept`); a
 * record with restricted files answers IIIF requests as its download does, and a secret link
 * opens them; a draft's manifest is its owner's; a 20000×20000 PNG is refused with a 4xx.
 */
import { deflateSync } from 'node:zlib';
import { normalize } from '@iiif/parser';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, publish, walkthroughMetadata } from '../records/support.js';

let owner: TestUser;

/** GET an absolute URL, answering status, headers and bytes (images are not text). */
async function get(url: string, o: { token?: string; accept?: string } = {}) {
  const headers: Record<string, string> = {};
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.accept) headers.accept = o.accept;
  const res = await fetch(url, { headers, redirect: 'manual' });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: () => JSON.parse(bytes.toString('utf8')) };
}

async function upload(token: string, id: string, files: Record<string, Buffer>): Promise<void> {
  const init = await api(`/api/records/${id}/draft/files`, { method: 'POST', token, body: Object.keys(files).map((key) => ({ key })) });
  if (init.status !== 201) throw new Error(`files init ${init.status}: ${init.text}`);
  for (const [key, bytes] of Object.entries(files)) {
    const path = `/api/records/${id}/draft/files/${encodeURIComponent(key)}`;
    const up = await api(`${path}/content`, { method: 'PUT', token, raw: bytes });
    if (up.status !== 200) throw new Error(`upload ${key} ${up.status}: ${up.text}`);
    const commit = await api(`${path}/commit`, { method: 'POST', token });
    if (commit.status !== 200) throw new Error(`commit ${key} ${commit.status}: ${commit.text}`);
  }
}

/** A published record with `files`; answers the record read by its owner. */
async function published(files: Record<string, Buffer>, access = { record: 'public', files: 'public' }): Promise<any> {
  const d = await createDraft(owner.token, {
    access,
    files: { enabled: true },
    metadata: { ...walkthroughMetadata(), title: 'Images of Rome' },
  });
  if (d.status !== 201) throw new Error(`create ${d.status}: ${d.text}`);
  await upload(owner.token, d.body.id, files);
  const pub = await publish(owner.token, d.body.id);
  if (pub.status !== 202) throw new Error(`publish ${pub.status}: ${pub.text}`);
  return (await api(`/api/records/${d.body.id}`, { token: owner.token })).body;
}

/** A valid PNG of any declared size (1-bit, black), tiny once compressed. */
function blackPng(width: number, height: number): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = table[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(body));
    return Buffer.concat([head, body, tail]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc((Math.ceil(width / 8) + 1) * height), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

let png: Buffer;
let jpg: Buffer;

beforeAll(async () => {
  owner = await createUser({ email: uniqueEmail('iiif-owner') });
  png = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#c03020' } })
    .png()
    .toBuffer();
  jpg = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#2040a0' } })
    .jpeg()
    .toBuffer();
});

describe('IIIF links of a published record', () => {
  let rec: any;

  beforeAll(async () => {
    rec = await published({ 'photo.png': png, 'scan 1.jpg': jpg, 'notes.txt': Buffer.from('no image') });
  });

  it('should answer every IIIF link of the record and of its image files', async () => {
    const links: string[] = [rec.links.self_iiif_manifest, rec.links.self_iiif_sequence, ...Object.values<string>(rec.links.thumbnails)];
    expect(Object.keys(rec.links.thumbnails).length).toBeGreaterThan(0);
    const entries = Object.values<any>(rec.files.entries);
    const images = entries.filter((e) => e.key !== 'notes.txt');
    expect(
      images.map((e) =>
        Object.keys(e.links)
          .filter((k) => k.startsWith('iiif_'))
          .sort(),
      ),
    ).toEqual([
      ['iiif_api', 'iiif_base', 'iiif_canvas', 'iiif_info'],
      ['iiif_api', 'iiif_base', 'iiif_canvas', 'iiif_info'],
    ]);
    for (const e of images) links.push(e.links.iiif_canvas, e.links.iiif_info, e.links.iiif_api);
    for (const url of links) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
    }
    for (const e of images) {
      const base = await get(e.links.iiif_base);
      expect(base.status, e.links.iiif_base).toBe(303);
      expect(base.headers.get('location')).toBe(e.links.iiif_info);
    }
  });

  it('should describe each image in info.json and render thumbnails at their size', async () => {
    const photo = rec.files.entries['photo.png'];
    const info = (await get(photo.links.iiif_info)).json();
    expect(info).toMatchObject({ '@id': photo.links.iiif_base, width: 320, height: 240 });
    expect(info.profile[0]).toBe('http://iiif.io/api/image/2/level2.json');
    const thumb = await get(rec.links.thumbnails['100']);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect(await sharp(thumb.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 100, height: 75 });
    const api = await get(rec.files.entries['scan 1.jpg'].links.iiif_api);
    expect(await sharp(api.bytes).metadata()).toMatchObject({ format: 'png', width: 200, height: 100 });
  });

  it('should serve a 2.1 manifest that @iiif/parser reads, naming every image file in order', async () => {
    const res = await get(rec.links.self_iiif_manifest);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const manifest = res.json();
    expect(manifest['@type']).toBe('sc:Manifest');
    const n = normalize(manifest) as any;
    const m = n.entities.Manifest[n.resource.id];
    expect(m.label).toEqual({ none: ['Images of Rome'] });
    const canvases = m.items.map((ref: { id: string }) => n.entities.Canvas[ref.id]);
    expect(canvases.map((c: any) => Object.values(c.label).flat()[0])).toEqual(['photo.png', 'scan 1.jpg']);
    expect(canvases.map((c: any) => c.id)).toEqual([
      rec.files.entries['photo.png'].links.iiif_canvas,
      rec.files.entries['scan 1.jpg'].links.iiif_canvas,
    ]);
    // Why decodeURI: the parser's 2→3 upgrade percent-encodes image ids once more (`%20` → `%2520`).
    const resources = Object.keys(n.entities.ContentResource).map(decodeURI);
    expect(resources).toEqual(
      expect.arrayContaining([rec.files.entries['photo.png'].links.iiif_api, rec.files.entries['scan 1.jpg'].links.iiif_api]),
    );
  });

  it('should serve Presentation 3.0 by the Accept profile, also read by @iiif/parser', async () => {
    const res = await get(rec.links.self_iiif_manifest, {
      accept: 'application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"',
    });
    expect(res.status).toBe(200);
    const manifest = res.json();
    expect(manifest['@context']).toBe('http://iiif.io/api/presentation/3/context.json');
    const n = normalize(manifest) as any;
    const m = n.entities.Manifest[n.resource.id];
    expect(m.items.map((ref: { id: string }) => n.entities.Canvas[ref.id].label.none[0])).toEqual(['photo.png', 'scan 1.jpg']);
  });

  it('should answer 400 for bad IIIF parameters and 404 for unknown identifiers', async () => {
    const base = rec.files.entries['photo.png'].links.iiif_base;
    expect((await get(`${base}/full/full/0/native.jpg`)).status).toBe(400);
    expect((await get(`${base}/full/full/0/default.bmp`)).status).toBe(400);
    expect((await get(`${base}/0,0,0,0/full/0/default.jpg`)).status).toBe(400);
    expect((await get(base.replace('photo.png', 'none.png'))).status).toBe(404);
  });
});

describe('IIIF of restricted files', () => {
  let rec: any;

  beforeAll(async () => {
    rec = await published({ 'secret.png': png }, { record: 'public', files: 'restricted' });
  });

  it('should answer anonymous IIIF requests as the download answers, even once a derivative is cached', async () => {
    const e = rec.files.entries['secret.png'];
    expect((await get(e.links.iiif_api, { token: owner.token })).status).toBe(200);
    const download = await get(e.links.content);
    expect(download.status).toBe(403);
    for (const url of [e.links.iiif_api, e.links.iiif_info, e.links.iiif_base, e.links.iiif_canvas, rec.links.self_iiif_manifest]) {
      expect((await get(url)).status, url).toBe(download.status);
    }
  });

  it('should open them with a secret link token', async () => {
    const link = await api(`/api/records/${rec.id}/access/links`, { method: 'POST', token: owner.token, body: { permission: 'view' } });
    expect(link.status).toBe(201);
    const t = `?token=${encodeURIComponent(link.body.token)}`;
    const e = rec.files.entries['secret.png'];
    expect((await get(`${e.links.iiif_api}${t}`)).status).toBe(200);
    expect((await get(`${e.links.iiif_info}${t}`)).status).toBe(200);
    expect((await get(`${rec.links.self_iiif_manifest}${t}`)).status).toBe(200);
  });
});

describe('IIIF links of files listings', () => {
  it("should give image entries of a record's and a draft's files listing the IIIF links of the record's entries, and they answer", async () => {
    const rec = await published({ 'pic.png': png, 'notes.txt': Buffer.from('text') });
    const listed = await api(`/api/records/${rec.id}/files`, { token: owner.token });
    const entry = (listed.body.entries as any[]).find((e) => e.key === 'pic.png');
    const names = ['iiif_canvas', 'iiif_base', 'iiif_info', 'iiif_api'];
    for (const n of names) expect(entry.links[n], n).toBe(rec.files.entries['pic.png'].links[n]);
    for (const n of ['iiif_canvas', 'iiif_info', 'iiif_api']) expect((await get(entry.links[n])).status, n).toBe(200);
    const text = (listed.body.entries as any[]).find((e) => e.key === 'notes.txt');
    expect(Object.keys(text.links).sort()).toEqual(['content', 'self']);

    const d = await createDraft(owner.token);
    await upload(owner.token, d.body.id, { 'draft.png': png });
    const drafts = await api(`/api/records/${d.body.id}/draft/files`, { token: owner.token });
    const de = drafts.body.entries[0];
    expect(de.links.iiif_info).toMatch(new RegExp(`/api/iiif/draft:${d.body.id}:draft.png/info.json$`));
    for (const n of ['iiif_canvas', 'iiif_info', 'iiif_api']) expect((await get(de.links[n], { token: owner.token })).status, n).toBe(200);
  });
});

describe('IIIF manifests read with a secret link', () => {
  it("should hand a viewer image URLs that carry the token, so a restricted record's images load from the manifest alone", async () => {
    const rec = await published({ 'a.png': png, 'b.png': png }, { record: 'restricted', files: 'restricted' });
    const link = await api(`/api/records/${rec.id}/access/links`, { method: 'POST', token: owner.token, body: { permission: 'view' } });
    expect(link.status).toBe(201);
    const token = link.body.token as string;
    expect((await get(rec.links.self_iiif_manifest)).status).toBe(403);
    const res = await get(`${rec.links.self_iiif_manifest}?token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(200);
    const manifest = res.json();
    const canvases = manifest.sequences[0].canvases as any[];
    expect(canvases.map((c) => c.label)).toEqual(['a.png', 'b.png']);
    for (const c of canvases) {
      const resource = c.images[0].resource;
      const service = resource.service['@id'] as string;
      // Anonymously, with nothing but the manifest's URLs (as a viewer on another origin).
      for (const url of [c['@id'], resource['@id'], `${service}/info.json`, `${service}/full/!64,64/0/default.jpg`]) {
        expect(url).toContain(token);
        expect((await get(url)).status, url).toBe(200);
      }
      const info = (await get(`${service}/info.json`)).json();
      expect((await get(`${info['@id']}/0,0,16,16/16,/0/default.png`)).status).toBe(200);
      // The same service without the token stays closed.
      expect((await get(`${service.replace(/;token=.*$/, '')}/info.json`)).status).toBe(403);
    }
    const v3 = await get(`${rec.links.self_iiif_manifest}?token=${encodeURIComponent(token)}`, {
      accept: 'application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"',
    });
    const body = v3.json().items[0].items[0].items[0].body;
    expect((await get(`${body.service[0]['@id']}/full/!64,64/0/default.jpg`)).status).toBe(200);
  });
});

describe('IIIF of drafts and of huge images', () => {
  it("should serve a draft's manifest to its owner only", async () => {
    const d = await createDraft(owner.token);
    await upload(owner.token, d.body.id, { 'draft.png': png });
    const manifest = d.body.links.self_iiif_manifest;
    expect(manifest).toMatch(/\/api\/iiif\/draft:/);
    const mine = await get(manifest, { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.json().sequences[0].canvases.map((c: any) => c.label)).toEqual(['draft.png']);
    expect((await get(manifest)).status).toBe(403);
  });

  it('should refuse a 20000x20000 PNG with a 4xx, quickly', async () => {
    const rec = await published({ 'huge.png': blackPng(20_000, 20_000) });
    const t0 = Date.now();
    const res = await get(rec.links.thumbnails['250']);
    expect(res.status).toBe(422);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect((await get(rec.files.entries['huge.png'].links.iiif_info)).status).toBe(422);
  });
});
