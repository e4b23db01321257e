/**
 * FAIR signposting and the sitemap through the gateway: the level-1 `Link` header of a record
 * read, the linkset (`Accept: application/linkset+json`) and `/sitemap.xml` at the site root.
 * Link contents are covered in records' own tests; this checks the public path.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, publish, uploadFiles } from '../records/support.js';

describe('signposting and sitemap through the gateway', () => {
  let owner: TestUser;
  let id: string;

  beforeAll(async () => {
    owner = await createUser({ email: uniqueEmail('signposting') });
    const d = await createDraft(owner.token);
    id = d.body.id;
    await uploadFiles(owner.token, id, { 'data.csv': 'a,b\n1,2\n' });
    const p = await publish(owner.token, id);
    if (p.status !== 202) throw new Error(`publish ${p.status}: ${p.text}`);
  });

  it('GET /api/records/<id> carries cite-as, describedby, item and linkset links', async () => {
    const res = await api(`/api/records/${id}`);
    expect(res.status).toBe(200);
    const link = res.headers.get('link') ?? '';
    expect(link).toContain('rel="cite-as"');
    expect(link).toContain(`rel="describedby" ; type="application/vnd.datacite.datacite+xml"`);
    expect(link).toMatch(new RegExp(`/api/records/${id}/files/data\\.csv/content> ; rel="item"`));
    expect(link).toContain(`/api/records/${id}> ; rel="linkset" ; type="application/linkset+json"`);
  });

  it('Accept: application/linkset+json answers the linkset', async () => {
    const res = await api(`/api/records/${id}`, { headers: { accept: 'application/linkset+json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/linkset\+json/);
    const body = JSON.parse(res.text);
    expect(body.linkset[0].anchor).toMatch(new RegExp(`/records/${id}$`));
  });

  it('GET /sitemap.xml lists the published record', async () => {
    const res = await fetch(`${baseUrl()}/sitemap.xml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/xml/);
    const xml = await res.text();
    expect(xml).toMatch(/<(urlset|sitemapindex) xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/);
    if (xml.includes('<urlset')) expect(xml).toContain(`/records/${id}</loc>`);
  });
});
