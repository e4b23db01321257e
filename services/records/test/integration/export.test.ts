import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMATS, MEDIA_TYPES } from '../../src/export/formats.js';
import { validateXml, wellFormed, XSD } from '../../src/export/xsd/xmllint.js';
import { OWNER, publish } from './export-support.js';
import { as, BASE, type Env, startEnv } from './support.js';

/** Buffer any response body as text (supertest only buffers JSON and text/* by itself). */
function asText<T extends { buffer(b: boolean): T; parse(fn: (r: any, cb: (e: Error | null, body: string) => void) => void): T }>(
  req: T,
): T {
  return req.buffer(true).parse((r, cb) => {
    let s = '';
    r.on('data', (c: Buffer) => {
      s += c.toString('utf8');
    });
    r.on('end', () => cb(null, s));
  });
}

const XML_SCHEMAS: Record<string, string> = { 'datacite-xml': XSD.datacite, dublincore: XSD.oaiDc, marcxml: XSD.marc21 };

describe('GET /api/records/:id exports', () => {
  let env: Env;
  let open: Record<string, any>;
  let closedFiles: Record<string, any>;
  let restricted: Record<string, any>;

  beforeAll(async () => {
    env = await startEnv();
    open = await publish(env, { files: ['visible-data.csv'] });
    closedFiles = await publish(env, { access: { record: 'public', files: 'restricted' }, files: ['hidden-name.csv'] });
    restricted = await publish(env, { access: { record: 'restricted', files: 'restricted' }, files: ['secret.csv'] });
  });
  afterAll(async () => {
    await env?.close();
  });

  // The formatted citation (`text/x-bibliography`) is served by Accept only, as InvenioRDM does.
  for (const f of EXPORT_FORMATS.filter((x) => !x.acceptOnly)) {
    it(`should answer /export/${f.name} with ${f.mediaType}${XML_SCHEMAS[f.name] ? ' valid against its XSD' : ''}`, async () => {
      const res = await asText(env.request.get(`/api/records/${open.id}/export/${f.name}`));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(f.contentType);
      const body = res.body as string;
      if (XML_SCHEMAS[f.name]) expect(validateXml(body, XML_SCHEMAS[f.name])).toEqual([]);
      else if (f.name === 'dcat-ap') expect(wellFormed(body)).toEqual([]);
      else if (f.name !== 'bibtex') expect(() => JSON.parse(body)).not.toThrow();
      const expected: Record<string, string> = {
        geojson: 'FeatureCollection',
        marcxml: open.id,
        linkset: `"anchor": "${BASE}/records/${open.id}"`,
      };
      expect(body).toContain(expected[f.name] ?? 'A Romans story');
    });
  }

  it('should keep JSON the default of the record read (ETag, Link, same body)', async () => {
    const res = await env.request.get(`/api/records/${open.id}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers.etag).toBe(`"${open.revision_id}"`);
    expect(res.headers.link).toContain('rel="linkset"');
    expect(res.headers.vary).toContain('Accept');
    expect(res.body.id).toBe(open.id);
    const star = await env.request.get(`/api/records/${open.id}`).set('Accept', 'text/html, */*;q=0.8');
    expect(star.status).toBe(200);
    expect(star.body.id).toBe(open.id);
  });

  it('should negotiate every format by Accept and by ?format=', async () => {
    for (const f of EXPORT_FORMATS.filter((x) => x.name !== 'json')) {
      const byAccept = await env.request.get(`/api/records/${open.id}`).set('Accept', f.mediaType);
      expect(byAccept.status).toBe(200);
      expect(byAccept.headers['content-type']).toBe(f.contentType);
    }
    const byParam = await asText(env.request.get(`/api/records/${open.id}?format=bibtex`));
    expect(byParam.status).toBe(200);
    expect(byParam.headers['content-type']).toBe('application/x-bibtex; charset=utf-8');
    expect(byParam.body).toMatch(/^@misc\{brown_2020_/);
  });

  it('should refuse an unsupported Accept or format with 406 listing the supported types', async () => {
    const expected = { status: 406, message: `Invalid 'Accept' header. Expected one of: ${MEDIA_TYPES.join(', ')}` };
    const res = await env.request.get(`/api/records/${open.id}`).set('Accept', 'text/x-unknown');
    expect(res.status).toBe(406);
    expect(res.body).toEqual(expected);
    const param = await env.request.get(`/api/records/${open.id}?format=pdf`);
    expect(param.status).toBe(406);
    expect(param.body).toEqual(expected);
    const unknown = await env.request.get(`/api/records/${open.id}/export/pdf`);
    expect(unknown.status).toBe(404);
  });

  it('should apply the read permissions of the JSON read (403 restricted, 404 unknown)', async () => {
    const anon = await env.request.get(`/api/records/${restricted.id}/export/datacite-json`);
    expect(anon.status).toBe(403);
    expect(anon.body).toEqual({ status: 403, message: 'Permission denied.' });
    const negotiated = await env.request.get(`/api/records/${restricted.id}`).set('Accept', 'application/x-bibtex');
    expect(negotiated.status).toBe(403);
    const owner = await asText(env.request.get(`/api/records/${restricted.id}/export/dcat-ap`).set(as(OWNER)));
    expect(owner.status).toBe(200);
    expect(owner.body).toContain('secret.csv');
    const missing = await env.request.get('/api/records/aaaaa-aaa00/export/bibtex');
    expect(missing.status).toBe(404);
  });

  it('should never leak restricted files into any export', async () => {
    for (const f of EXPORT_FORMATS) {
      const path = `/api/records/${closedFiles.id}`;
      const res = await asText(
        f.acceptOnly ? env.request.get(path).set('Accept', f.mediaType) : env.request.get(`${path}/export/${f.name}`),
      );
      expect(res.status).toBe(200);
      expect(res.body).not.toContain('hidden-name');
    }
    const owner = await asText(env.request.get(`/api/records/${closedFiles.id}/export/json-ld`).set(as(OWNER)));
    expect(owner.body).toContain('hidden-name.csv');
  });

  it('should redirect a parent id to the latest version, keeping the format', async () => {
    const res = await env.request.get(`/api/records/${open.parent.id}/export/bibtex`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${BASE}/api/records/${open.id}/export/bibtex`);
  });
});
