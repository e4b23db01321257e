import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { describedByTypes } from '../../src/export/formats.js';
import { wellFormed } from '../../src/export/xsd/xmllint.js';
import { OWNER, publish } from './export-support.js';
import { as, BASE, type Env, fullMetadata, startEnv, VOCAB } from './support.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

/** `Link` header → [{href, rel, type?}] (RFC 8288 form as written by the service). */
function parseLinks(header: string): { href: string; rel: string; type?: string }[] {
  return header.split(' , ').map((part) => {
    const href = /^<([^>]+)>/.exec(part)?.[1] ?? '';
    const rel = /rel="([^"]+)"/.exec(part)?.[1] ?? '';
    const type = /type="([^"]+)"/.exec(part)?.[1];
    return type ? { href, rel, type } : { href, rel };
  });
}

const urlsOf = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);

describe('FAIR signposting and the sitemap', () => {
  let env: Env;
  let open: Record<string, any>;
  let withDoi: Record<string, any>;
  let restricted: Record<string, any>;

  beforeAll(async () => {
    VOCAB['resourcetypes/image-photo'] = {
      ...VOCAB['resourcetypes/image-photo'],
      props: { ...VOCAB['resourcetypes/image-photo'].props, 'schema.org': 'https://schema.org/Photograph' },
    };
    env = await startEnv();
    open = await publish(env, { files: ['data one.csv', 'b.png'] });
    withDoi = await publish(env, { metadata: fullMetadata() });
    const external = await env.request
      .post('/api/records')
      .set(as(OWNER))
      .send({ files: { enabled: false }, metadata: fullMetadata(), pids: { doi: { identifier: '10.9999/fair.1', provider: 'external' } } });
    expect(external.status, JSON.stringify(external.body)).toBe(201);
    const pub = await env.request.post(`/api/records/${external.body.id}/draft/actions/publish`).set(as(OWNER));
    expect(pub.status, JSON.stringify(pub.body)).toBe(202);
    withDoi = pub.body;
    restricted = await publish(env, { access: { record: 'restricted', files: 'restricted' } });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should send level-1 links (files in the files summary order) on GET /api/records/<id>: cite-as, describedby per format, item per file, license, author, type, linkset', async () => {
    const res = await env.request.get(`/api/records/${open.id}`);
    expect(res.status).toBe(200);
    const links = parseLinks(res.headers.link);
    const api = `${BASE}/api/records/${open.id}`;
    const landing = `${BASE}/records/${open.id}`;
    const rel = (r: string) => links.filter((l) => l.rel === r);
    expect(rel('cite-as')).toEqual([{ href: landing, rel: 'cite-as' }]);
    expect(rel('describedby').map((l) => l.type)).toEqual([...describedByTypes()].sort());
    expect(rel('describedby').every((l) => l.href === api)).toBe(true);
    expect(rel('item')).toEqual([
      { href: `${api}/files/b.png/content`, rel: 'item', type: 'image/png' },
      { href: `${api}/files/data%20one.csv/content`, rel: 'item', type: 'application/octet-stream' },
    ]);
    expect(rel('license').map((l) => l.href)).toEqual([
      'https://creativecommons.org/licenses/by/4.0/legalcode',
      'https://customlicense.org/licenses/by/4.0/',
    ]);
    expect(rel('author')).toEqual([{ href: 'https://orcid.org/0000-0002-1825-0097', rel: 'author' }]);
    expect(rel('type').map((l) => l.href)).toEqual(['https://schema.org/Photograph', 'https://schema.org/AboutPage']);
    expect(links.at(-1)).toEqual({ href: api, rel: 'linkset', type: 'application/linkset+json' });
    // The cached rendering carries the same header.
    expect((await env.request.get(`/api/records/${open.id}`)).headers.link).toBe(res.headers.link);
  });

  it('should cite a record by its DOI and list no item of files the caller may not read', async () => {
    const res = await env.request.get(`/api/records/${withDoi.id}`);
    const links = parseLinks(res.headers.link);
    expect(links.filter((l) => l.rel === 'cite-as')).toEqual([{ href: 'https://doi.org/10.9999/fair.1', rel: 'cite-as' }]);
    expect(links.filter((l) => l.rel === 'item')).toEqual([]);
    const owner = await env.request.get(`/api/records/${restricted.id}`).set(as(OWNER));
    expect(owner.status).toBe(200);
    expect(parseLinks(owner.headers.link).filter((l) => l.rel === 'item')).toEqual([]);
  });

  it('should answer the linkset (level 2) for Accept: application/linkset+json', async () => {
    const res = await env.request.get(`/api/records/${open.id}`).set('Accept', 'application/linkset+json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/linkset+json; charset=utf-8');
    const body = JSON.parse(res.text);
    const api = `${BASE}/api/records/${open.id}`;
    const landing = `${BASE}/records/${open.id}`;
    const [first, ...rest] = body.linkset;
    expect(first.anchor).toBe(landing);
    expect(first['cite-as']).toEqual([{ href: landing }]);
    expect(first.item).toHaveLength(2);
    expect(first.describedby).toContainEqual({ href: api, type: 'application/vnd.datacite.datacite+xml' });
    expect(first.describedby).not.toContainEqual({ href: api, type: 'application/linkset+json' });
    expect(rest).toEqual([
      { anchor: `${api}/files/b.png/content`, collection: [{ href: landing, type: 'text/html' }] },
      { anchor: `${api}/files/data%20one.csv/content`, collection: [{ href: landing, type: 'text/html' }] },
      { anchor: api, describes: [{ href: landing, type: 'text/html' }] },
    ]);
    expect((await env.request.get(`/api/records/${open.id}/export/linkset`)).status).toBe(200);
  });

  it('should send only the linkset link when a collection is larger than five', async () => {
    const many = await publish(env, { files: ['1.txt', '2.txt', '3.txt', '4.txt', '5.txt', '6.txt'] });
    const res = await env.request.get(`/api/records/${many.id}`);
    expect(res.headers.link).toBe(`<${BASE}/api/records/${many.id}> ; rel="linkset" ; type="application/linkset+json"`);
  });

  it('should list the public latest records in /sitemap.xml, and page them behind a sitemap index past the limit', async () => {
    const res = await env.request.get('/sitemap.xml');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(wellFormed(res.text)).toEqual([]);
    expect(res.text).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    const urls = urlsOf(res.text);
    expect(urls).toContain(`${BASE}/records/${open.id}`);
    expect(urls).toContain(`${BASE}/records/${withDoi.id}`);
    expect(urls).not.toContain(`${BASE}/records/${restricted.id}`);
    expect(res.text).toMatch(/<lastmod>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<\/lastmod>/);

    const small = supertest(
      gatewayFront(createApp({ ...env.deps, config: { ...env.deps.config, SITEMAP_MAX_URLS: 2 } as never }).app.callback(), SECRET),
    );
    const index = await small.get('/sitemap.xml');
    expect(index.text).toContain('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    const pages = urlsOf(index.text);
    expect(pages).toEqual(Array.from({ length: Math.ceil(urls.length / 2) }, (_, i) => `${BASE}/sitemaps/records-${i + 1}.xml`));
    const all: string[] = [];
    for (const p of pages) {
      const page = await small.get(new URL(p).pathname);
      expect(page.status).toBe(200);
      all.push(...urlsOf(page.text));
    }
    expect(all.sort()).toEqual([...urls].sort());
    expect((await small.get(`/sitemaps/records-${pages.length + 1}.xml`)).status).toBe(404);
    expect((await small.get('/sitemaps/other.xml')).status).toBe(404);
  });
});
