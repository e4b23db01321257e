import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';

describe('GET /api/vocabularies/<type>/<id>', () => {
  it('should return the entry with every field of the spec', async () => {
    const res = await api('/api/vocabularies/resourcetypes/dataset');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'created',
      'icon',
      'id',
      'links',
      'props',
      'revision_id',
      'tags',
      'title',
      'type',
      'updated',
    ]);
    expect(res.body).toMatchObject({
      id: 'dataset',
      type: 'resourcetypes',
      title: { en: 'Dataset' },
      props: { type: 'dataset', csl: 'dataset', 'schema.org': 'https://schema.org/Dataset' },
      links: { self: `${baseUrl()}/api/vocabularies/resourcetypes/dataset` },
    });
  });

  it('should send an ETag and answer 304 to a matching If-None-Match', async () => {
    const first = await api('/api/vocabularies/licenses/cc-by-4.0');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toBe(`"${first.body.revision_id}"`);
    const again = await api('/api/vocabularies/licenses/cc-by-4.0', { headers: { 'if-none-match': etag as string } });
    expect(again.status).toBe(304);
  });

  it('should answer 404 with the persistent identifier message for an unknown id or a wrong type', async () => {
    const res = await api('/api/vocabularies/licenses/no-such-licence');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, message: 'The persistent identifier does not exist.' });
    expect((await api('/api/vocabularies/languages/cc-by-4.0')).status).toBe(404);
    expect((await api('/api/vocabularies/no-such-vocabulary/x')).status).toBe(404);
  });
});

describe('vocabularies served at the API root', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser({ email: uniqueEmail('vocab') });
  });

  it('should serve affiliations at /api/affiliations and /api/affiliations/<id>', async () => {
    const list = await api('/api/affiliations?suggest=CERN');
    expect(list.status).toBe(200);
    expect(list.body.hits.hits[0]).toMatchObject({ id: '01ggx4157', acronym: 'CERN', name: 'European Organization for Nuclear Research' });
    const one = await api('/api/affiliations/01ggx4157');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: '01ggx4157', country: 'CH', links: { self: `${baseUrl()}/api/affiliations/01ggx4157` } });
    const sorted = await api('/api/affiliations');
    expect(sorted.body.sortBy).toBe('name');
    expect(sorted.body.links.self).toBe(`${baseUrl()}/api/affiliations?page=1&size=25&sort=name`);
  });

  it('should serve funders, awards and subjects at the root', async () => {
    const ec = await api('/api/funders/00k4n6c32');
    expect(ec.status).toBe(200);
    expect(ec.body).toMatchObject({ name: 'European Commission' });
    expect((await api('/api/funders?q=commission')).body.hits.total).toBeGreaterThan(0);
    expect((await api('/api/awards')).status).toBe(200);
    const subjects = await api('/api/subjects');
    expect(subjects.status).toBe(200);
    expect(subjects.body.sortBy).toBe('subject');
    expect((await api('/api/funders/no-such-funder')).status).toBe(404);
  });

  it('should keep names for authenticated users', async () => {
    expect((await api('/api/names')).status).toBe(403);
    const res = await api('/api/names', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.hits).toBeDefined();
  });

  it('should find a name by one of its identifiers (GET /api/names/<scheme>/<value>) for authenticated callers only', async () => {
    const admin = await createUser({ email: uniqueEmail('names-admin'), admin: true });
    const orcid = '0000-0002-1825-0097';
    const created = await api('/api/names', {
      token: admin.token,
      body: {
        id: orcid,
        name: 'Carberry, Josiah',
        given_name: 'Josiah',
        family_name: 'Carberry',
        identifiers: [{ scheme: 'orcid', identifier: orcid }],
      },
    });
    expect([201, 409], created.text).toContain(created.status);
    const found = await api(`/api/names/orcid/${orcid}`, { token: user.token });
    expect(found.status, found.text).toBe(200);
    expect(found.body).toMatchObject({ id: orcid, name: 'Carberry, Josiah', identifiers: [{ scheme: 'orcid', identifier: orcid }] });
    // The scheme is not case-sensitive; an unknown identifier or scheme is a 404 with the error body.
    expect((await api(`/api/names/ORCID/${orcid}`, { token: user.token })).status).toBe(200);
    const unknown = await api('/api/names/orcid/0000-0000-0000-000X', { token: user.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: 404 });
    expect((await api(`/api/names/isni/${orcid}`, { token: user.token })).status).toBe(404);
    // Anonymous callers may not read names at all.
    const anon = await api(`/api/names/orcid/${orcid}`);
    expect(anon.status).toBe(403);
    expect(anon.body).toEqual({ status: 403, message: 'Permission denied.' });
  });

  it('should refuse writes from non-administrators with 403', async () => {
    for (const token of [undefined, user.token]) {
      const post = await api('/api/vocabularies/licenses', { token, body: { id: 'e2e-x', title: { en: 'X' } } });
      expect(post.status).toBe(403);
      expect(post.body).toEqual({ status: 403, message: 'Permission denied.' });
      expect((await api('/api/vocabularies/licenses/mit', { method: 'PUT', token, body: { title: { en: 'X' } } })).status).toBe(403);
      expect((await api('/api/vocabularies/licenses/mit', { method: 'DELETE', token })).status).toBe(403);
      expect((await api('/api/affiliations', { token, body: { id: 'x', name: 'X' } })).status).toBe(403);
    }
  });
});
