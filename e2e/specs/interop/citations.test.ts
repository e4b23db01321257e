/**
 * Formatted citations through the gateway (issue 23): `GET /api/records/<id>` with
 * `Accept: text/x-bibliography`, `?style=` and `?locale=`, as InvenioRDM serves them (APA by
 * default; an unknown style → 400 listing the styles), and the landing page's citation box, which
 * reads the same API and switches style with a plain GET form (`/records/<id>?style=`).
 * Black box: the gateway only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { publishedRecord, walkthroughMetadata } from '../records/support.js';

const BIB = { accept: 'text/x-bibliography' };
const HTML = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };
const STYLES = [
  'apa',
  'harvard-cite-them-right',
  'modern-language-association',
  'vancouver',
  'chicago-author-date',
  'chicago-notes-bibliography',
  'ieee',
  'nature',
];

describe('formatted citations (text/x-bibliography)', () => {
  let owner: TestUser;
  let record: any;
  let restricted: any;
  let link: string;

  beforeAll(async () => {
    owner = await createUser({ email: uniqueEmail('cite-owner') });
    const metadata = {
      ...walkthroughMetadata(),
      resource_types: [{ id: 'dataset' }],
      title: 'Ocean temperatures',
      publication_date: '2024-03-05',
      creators: [{ person_or_org: { type: 'personal', given_name: 'Troy', family_name: 'Brown' } }],
      contributors: [],
      version: 'v1',
      publisher: 'InvenioRDM',
    };
    [record, restricted] = await Promise.all([
      publishedRecord(owner.token, metadata),
      publishedRecord(owner.token, { ...metadata, title: 'Hidden temperatures' }, { record: 'restricted', files: 'restricted' }),
    ]);
    const doi = record.pids?.doi?.identifier;
    link = doi ? `https://doi.org/${doi}` : record.links.self_html;
  }, 120_000);

  it('should answer APA by default, in the shape APA documents', async () => {
    const res = await api(`/api/records/${record.id}`, { headers: BIB });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/x-bibliography; charset=utf-8');
    expect(res.headers.get('vary') ?? '').toMatch(/accept/i);
    expect(res.text).toBe(`Brown, T. (2024). Ocean temperatures (Version v1) [Dataset]. InvenioRDM. ${link}`);
  }, 60_000);

  it('should render every offered style, ?style= and ?locale= as asked', async () => {
    for (const style of STYLES) {
      const res = await api(`/api/records/${record.id}?style=${style}`, { headers: BIB });
      expect(res.status, `${style}: ${res.text}`).toBe(200);
      expect(res.text, style).toContain('Ocean');
      expect(res.text, style).toContain('Brown');
    }
    const ieee = await api(`/api/records/${record.id}?style=ieee`, { headers: BIB });
    expect(ieee.text).toMatch(/^\[1\] T\. Brown, “Ocean temperatures\.” InvenioRDM, Mar\. 05, 2024\./);
    const de = await api(`/api/records/${record.id}?style=apa&locale=de-DE`, { headers: BIB });
    expect(de.text).toContain('[Datensatz]');
    const fallback = await api(`/api/records/${record.id}?locale=xx-YY`, { headers: BIB });
    expect(fallback.status).toBe(200);
    expect(fallback.text).toContain('[Dataset]');
  }, 180_000);

  it('should refuse an unknown style with 400 listing the styles, and a locale that is no language tag', async () => {
    const res = await api(`/api/records/${record.id}?style=no-such-style`, { headers: BIB });
    expect(res.status).toBe(400);
    expect(res.body.status).toBe(400);
    expect(res.body.message).toMatch(/^Citation string style not found\./);
    for (const s of STYLES) expect(res.body.message).toContain(s);
    const locale = await api(`/api/records/${record.id}?locale=%3Cscript%3E`, { headers: BIB });
    expect(locale.status).toBe(400);
    expect(locale.body.errors[0].field).toBe('locale');
  });

  it('should apply the same permission checks as the JSON read', async () => {
    expect((await api(`/api/records/${restricted.id}`, { headers: BIB })).status).toBe(403);
    const own = await api(`/api/records/${restricted.id}`, { token: owner.token, headers: BIB });
    expect(own.status).toBe(200);
    expect(own.text).toContain('Hidden temperatures');
    expect((await api('/api/records/zzzzz-zzzzz', { headers: BIB })).status).toBe(404);
  });

  it("should show the citation box on the landing page, switch style by the page's GET form, refuse a bad style", async () => {
    const res = await api(`/records/${record.id}`, { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.text).toContain('id="citation"');
    expect(res.text).toContain(`<p class="citation">Brown, T. (2024). Ocean temperatures (Version v1) [Dataset]. InvenioRDM. ${link}</p>`);
    expect(res.text).toContain(`<form method="get" action="${baseUrl()}/records/${record.id}#citation"`);
    const ieee = await api(`/records/${record.id}?style=ieee`, { headers: HTML });
    expect(ieee.status).toBe(200);
    expect(ieee.text).toMatch(/<p class="citation">\[1\] T\. Brown, “Ocean temperatures\.”/);
    expect(ieee.text).toMatch(/<option value="ieee" selected>/);
    const bad = await api(`/records/${record.id}?style=nope`, { headers: HTML });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^text\/html/);
    expect(bad.text).toContain('Citation string style not found.');
  }, 60_000);
});
