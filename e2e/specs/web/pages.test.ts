/**
 * Landing pages through the gateway (issue 23): the web service renders the `*_html` links the
 * API hands out. A published record with a file, its latest-version redirect, a restricted record
 * (anonymous vs a secret link's `?token=`), a deleted record (410 tombstone page), a community,
 * the search page, unknown ids (404 HTML for browsers, JSON for `Accept: application/json`), and
 * user text that never comes back as markup. Black box: the gateway only.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { makeCommunity } from '../communities/support.js';
import { createDraft, publish, publishedRecord, uploadFiles, walkthroughMetadata } from '../records/support.js';

const HTML = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };
const XSS = '<script>alert("x")</script>';

/** GET a page as a browser would (no redirects followed). */
function page(path: string, o: { token?: string; headers?: Record<string, string> } = {}) {
  return api(path, { token: o.token, headers: { ...HTML, ...(o.headers ?? {}) } });
}

/** The JSON-LD documents of a page. */
function jsonLdOf(html: string): any[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1] as string));
}

describe('landing pages', () => {
  let owner: TestUser;
  let admin: TestUser;
  let record: any;
  const marker = `web${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    [owner, admin] = await Promise.all([
      createUser({ email: uniqueEmail('web-owner') }),
      createUser({ email: uniqueEmail('web-admin'), admin: true }),
    ]);
    record = await publishedRecord(owner.token, {
      ...walkthroughMetadata(),
      title: `Landing ${marker} ${XSS}`,
      subjects: [{ subject: XSS }],
    });
  });

  it('should render the record page at links.self_html with its metadata, file, exports, JSON-LD and signposting', async () => {
    expect(record.links.self_html).toBe(`${baseUrl()}/records/${record.id}`);
    const res = await page(`/records/${record.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = res.text;
    expect(html).toContain(`Landing ${marker} &lt;script>`);
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('href="https://orcid.org/0000-0002-1825-0097"');
    expect(html).toContain('data.txt');
    expect(html).toContain(`href="${baseUrl()}/api/records/${record.id}/files/data.txt/content"`);
    expect(html).toContain('md5:5d41402abc4b2a76b9719d911017c592'); // md5("hello")
    expect(html).toContain(`${baseUrl()}/api/records/${record.id}/files-archive`);
    expect(html).toContain(`<link rel="canonical" href="${baseUrl()}/records/${record.id}"/>`);
    expect(html).toContain(`<meta name="citation_title" content="Landing ${marker} &lt;script>`);
    expect(html).toContain('<meta name="citation_author" content="Brown, Troy"/>');
    expect(html).toContain(`type="application/x-bibtex" href="${baseUrl()}/api/records/${record.id}/export/bibtex"`);
    // JSON-LD: the API's own export, parsed back from the page.
    const [ld] = jsonLdOf(html);
    const exported = await api(`/api/records/${record.id}`, { headers: { accept: 'application/ld+json' } });
    expect(ld).toEqual(JSON.parse(exported.text));
    expect(ld.name).toBe(record.metadata.title);
    // Signposting: the record's level-1 Link header, anchored at this page.
    expect(res.headers.get('link')).toContain('rel="describedby"');
    // The stylesheet the page names is served, cacheable for ever under its hashed name.
    const css = html.match(/<link rel="stylesheet" href="([^"]+)"/)?.[1] as string;
    const sheet = await api(css);
    expect(sheet.status).toBe(200);
    expect(sheet.headers.get('content-type')).toMatch(/^text\/css/);
    expect(sheet.headers.get('cache-control')).toContain('immutable');
    expect(sheet.text).toContain('prefers-color-scheme:dark');
  });

  it('should serve anonymous visitors from the page cache while the revision is unchanged, never a signed-in one', async () => {
    await page(`/records/${record.id}`);
    const again = await page(`/records/${record.id}`);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-page-cache')).toBe('hit');
    // The cached page: sent gzip-compressed to a client accepting it, with an ETag of its own; 304 once the browser has it.
    const gz = await page(`/records/${record.id}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gz.text).toContain(marker);
    const pageEtag = gz.headers.get('etag') as string;
    expect(pageEtag).toMatch(/^"[\w-]+"$/);
    const known = await page(`/records/${record.id}`, { headers: { 'If-None-Match': pageEtag } });
    expect(known.status).toBe(304);
    expect(known.headers.get('etag')).toBe(pageEtag);
    const signedIn = await page(`/records/${record.id}`, { token: owner.token });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get('x-page-cache')).toBeNull();
  });

  it('should redirect /records/<id>/latest to the latest version page', async () => {
    const res = await page(`/records/${record.id}/latest`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${baseUrl()}/records/${record.id}`);
  });

  it('should redirect parent_html (the parent id) and self_doi_html to the record page', async () => {
    const parent = await page(new URL(record.links.parent_html).pathname);
    expect(parent.status).toBe(302);
    expect(parent.headers.get('location')).toBe(`${baseUrl()}/records/${record.id}`);
    const doi = record.pids?.doi?.identifier;
    if (doi) {
      const res = await page(`/doi/${doi}`);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(record.links.self_html);
    }
    expect((await page('/doi/10.9999/no-such-doi')).status).toBe(404);
  });

  it('should resolve /doi/<doi> of an older version to that version and the concept DOI to the latest version', async () => {
    const t = owner.token;
    const d = (await createDraft(t)).body;
    expect((await api(`/api/records/${d.id}/draft/pids/doi`, { method: 'POST', token: t })).status).toBe(201);
    await uploadFiles(t, d.id, { 'x.txt': 'x' });
    const v1 = (await publish(t, d.id)).body;
    const nv = await api(`/api/records/${v1.id}/versions`, { method: 'POST', token: t });
    expect(nv.status, nv.text).toBe(201);
    expect((await api(`/api/records/${nv.body.id}/draft/actions/files-import`, { method: 'POST', token: t })).status).toBe(201);
    expect((await api(`/api/records/${nv.body.id}/draft/pids/doi`, { method: 'POST', token: t })).status).toBe(201);
    const v2 = (await publish(t, nv.body.id)).body;
    const conceptDoi = v1.parent.pids.doi.identifier as string;
    expect(v1.links.parent_doi_html).toBe(`${baseUrl()}/doi/${conceptDoi}`);
    const expected: [string, string][] = [
      [v1.pids.doi.identifier, v1.links.self_html],
      [v2.pids.doi.identifier, v2.links.self_html],
      [conceptDoi, v2.links.self_html],
    ];
    // The pages find DOIs through the records search (on a search engine: once the index is refreshed).
    const deadline = Date.now() + 15_000;
    let seen: string[] = [];
    do {
      seen = [];
      for (const [doi] of expected) {
        const res = await page(`/doi/${doi}`);
        seen.push(`${res.status} ${res.headers.get('location') ?? ''}`);
      }
      if (seen.every((x, i) => x === `302 ${expected[i]?.[1]}`)) break;
      await new Promise((r) => setTimeout(r, 300));
    } while (Date.now() < deadline);
    expect(seen).toEqual(expected.map(([, to]) => `302 ${to}`));
  });

  it('should answer 404 pages for unknown ids (HTML for browsers, the JSON error body for JSON clients)', async () => {
    const html = await page('/records/zzzzz-zzz99');
    expect(html.status).toBe(404);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html.text).toContain('<h1>Not found</h1>');
    const json = await api('/records/zzzzz-zzz99', { headers: { accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect(json.body).toMatchObject({ status: 404, message: expect.any(String) });
    expect((await page(`/communities/no-such-${marker}`)).status).toBe(404);
    expect((await page('/static/site.000000000000.css')).status).toBe(404);
    const bad = await api('/search?page=0');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 400, errors: [{ field: 'page' }] });
  });

  it('should show a restricted record only with a secret link, as the API does', async () => {
    const restricted = await publishedRecord(
      owner.token,
      { ...walkthroughMetadata(), title: `Restricted ${marker}` },
      { record: 'restricted', files: 'restricted' },
    );
    const anonymousApi = await api(`/api/records/${restricted.id}`);
    const anonymous = await page(`/records/${restricted.id}`);
    expect(anonymous.status).toBe(anonymousApi.status);
    expect(anonymous.text).not.toContain(`Restricted ${marker}`);
    const link = await api(`/api/records/${restricted.id}/access/links`, {
      method: 'POST',
      token: owner.token,
      body: { permission: 'view' },
    });
    expect(link.status, link.text).toBe(201);
    const withLink = await page(`/records/${restricted.id}?token=${encodeURIComponent(link.body.token)}`);
    expect(withLink.status, withLink.text).toBe(200);
    expect(withLink.text).toContain(`Restricted ${marker}`);
    expect(withLink.text).toContain('data.txt');
    expect(withLink.headers.get('x-page-cache')).toBeNull();
    const owned = await page(`/records/${restricted.id}`, { token: owner.token });
    expect(owned.status).toBe(200);
  });

  it('should answer a deleted record with its tombstone page (410)', async () => {
    const doomed = await publishedRecord(owner.token, { ...walkthroughMetadata(), title: `Doomed ${marker}` });
    const body = { removal_reason: { id: 'spam' }, note: 'e2e web', citation_text: 'Cite me', is_visible: true };
    const del = await api(`/api/records/${doomed.id}/delete`, { method: 'DELETE', token: admin.token, body });
    expect([200, 204]).toContain(del.status);
    const res = await page(`/records/${doomed.id}`);
    expect(res.status).toBe(410);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('Record deleted');
    expect(res.text).toContain('Cite me');
    const json = await api(`/records/${doomed.id}`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(410);
    expect(json.body).toMatchObject({ status: 410 });
  });

  it("should render a community's page at its self_html", async () => {
    const community = await makeCommunity(admin.token, `Community ${marker} ${XSS}`);
    expect(community.links.self_html).toBe(`${baseUrl()}/communities/${community.slug}`);
    const res = await page(`/communities/${community.slug}`);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain(`Community ${marker} &lt;script>`);
    expect(res.text).not.toContain('<script>alert');
    expect(res.text).toContain('Mars Institute');
    expect(res.text).toContain('<p>We curate.</p>');
    expect(res.text).toMatch(/0 records/);
  });

  it('should find the record on the search page, with facets and the query escaped', async () => {
    let res = await page(`/search?q=${encodeURIComponent(marker)}`);
    for (let i = 0; i < 20 && !res.text.includes(record.links.self_html); i++) {
      await new Promise((r) => setTimeout(r, 250));
      res = await page(`/search?q=${encodeURIComponent(marker)}`);
    }
    expect(res.status).toBe(200);
    expect(res.text).toContain(`href="${record.links.self_html}"`);
    expect(res.text).toContain('access_status=open');
    const hostile = await page(`/search?q=${encodeURIComponent(XSS)}`);
    expect(hostile.status).toBe(200);
    expect(hostile.text).not.toContain('<script>alert');
  });
});
