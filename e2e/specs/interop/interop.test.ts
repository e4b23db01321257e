/**
 * Interoperability through the gateway: content negotiation and `/export/<format>` on a
 * published record, and the OAI-PMH provider at `/oai2d` (outside `/api`, where harvesters look).
 * Formats and XSD validation are covered in records' own tests; this checks the public path.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, publish, uploadFiles } from '../records/support.js';

describe('exports and OAI-PMH through the gateway', () => {
  let owner: TestUser;
  let id: string;

  beforeAll(async () => {
    owner = await createUser({ email: uniqueEmail('interop') });
    const d = await createDraft(owner.token);
    id = d.body.id;
    await uploadFiles(owner.token, id, { 'data.csv': 'a,b\n1,2\n' });
    const p = await publish(owner.token, id);
    if (p.status !== 202) throw new Error(`publish ${p.status}: ${p.text}`);
  });

  it('GET /api/records/<id> with Accept: application/x-bibtex answers BibTeX; /export/datacite-json DataCite', async () => {
    const bib = await api(`/api/records/${id}`, { headers: { accept: 'application/x-bibtex' } });
    expect(bib.status).toBe(200);
    expect(bib.headers.get('content-type')).toMatch(/^application\/x-bibtex/);
    expect(bib.text).toMatch(/^@\w+\{/);
    expect(bib.text).toContain('A Romans story');
    const dc = await api(`/api/records/${id}/export/datacite-json`);
    expect(dc.status, dc.text).toBe(200);
    expect(dc.body.titles[0].title).toBe('A Romans story');
  });

  it('an Accept nobody serves is 406 listing the supported types', async () => {
    const res = await api(`/api/records/${id}`, { headers: { accept: 'application/x-nothing' } });
    expect(res.status).toBe(406);
    expect(res.text).toContain('application/x-bibtex');
  });

  it('GET /oai2d?verb=Identify and GetRecord answer OAI-PMH XML', async () => {
    const identify = await fetch(`${baseUrl()}/oai2d?verb=Identify`);
    expect(identify.status).toBe(200);
    expect(identify.headers.get('content-type')).toMatch(/xml/);
    const xml = await identify.text();
    expect(xml).toContain('<Identify>');
    expect(xml).toContain('<protocolVersion>2.0</protocolVersion>');
    const list = await (await fetch(`${baseUrl()}/oai2d?verb=ListIdentifiers&metadataPrefix=oai_dc`)).text();
    const ident = /<identifier>(oai:[^<]+)<\/identifier>/.exec(list)?.[1];
    expect(ident).toBeDefined();
    const rec = await (
      await fetch(`${baseUrl()}/oai2d?verb=GetRecord&metadataPrefix=oai_dc&identifier=${encodeURIComponent(ident as string)}`)
    ).text();
    expect(rec).toContain('<oai_dc:dc');
    const bad = await (await fetch(`${baseUrl()}/oai2d?verb=Nope`)).text();
    expect(bad).toContain('code="badVerb"');
  });

  it('GET /oai2d answers badArgument (200), never 500, for datestamps outside the supported range', async () => {
    for (const args of ['until=9999-12-31', 'from=0000-01-01', 'from=0000-01-01&until=9999-12-31', 'until=9999-12-31T23:59:59Z']) {
      for (const verb of ['ListRecords', 'ListIdentifiers']) {
        const res = await fetch(`${baseUrl()}/oai2d?verb=${verb}&metadataPrefix=oai_dc&${args}`);
        expect(res.status, `${verb} ${args}`).toBe(200);
        expect(await res.text()).toContain('code="badArgument"');
      }
    }
  });
});
