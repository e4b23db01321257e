import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDb } from '@rdm/platform/testing';
import { appOver, as, BASE, loadedDb } from './setup.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './setup.js';

let t: TestDb;
let app: ReturnType<typeof appOver>;
let http: ReturnType<typeof request>;

const ADMIN = { sub: '1', roles: ['admin'] };
const USER = { sub: '2', roles: [] };

beforeAll(async () => {
  t = await loadedDb();
  app = appOver(t);
  http = request(gatewayFront(app.app.callback(), SECRET));
});
afterAll(async () => {
  await t?.destroy();
});

const ids = (res: { body: { hits: { hits: { id: string }[] } } }) => res.body.hits.hits.map((h) => h.id);

describe('GET /api/vocabularies', () => {
  it('should list vocabulary types with pid_type, count, is_custom_vocabulary and links, sorted by id', async () => {
    const res = await http.get('/api/vocabularies').expect(200);
    expect(res.body.hits.total).toBe(18);
    expect(res.body.hits.hits[0]).toEqual({
      id: 'affiliations',
      pid_type: 'aff',
      count: 17,
      is_custom_vocabulary: true,
      links: { self: `${BASE}/api/vocabularies/affiliations` },
    });
    expect(res.body.hits.hits.find((h: { id: string }) => h.id === 'resourcetypes')).toMatchObject({
      pid_type: 'rsrct',
      count: 47,
      is_custom_vocabulary: false,
    });
    expect(res.body.sortBy).toBe('id');
    expect(res.body.links).toEqual({ self: `${BASE}/api/vocabularies?page=1&size=25&sort=id` });
  });

  it('should page and filter by a substring of the id', async () => {
    const page = await http.get('/api/vocabularies?size=5&page=2').expect(200);
    expect(page.body.hits.hits).toHaveLength(5);
    expect(page.body.links).toEqual({
      self: `${BASE}/api/vocabularies?page=2&size=5&sort=id`,
      prev: `${BASE}/api/vocabularies?page=1&size=5&sort=id`,
      next: `${BASE}/api/vocabularies?page=3&size=5&sort=id`,
    });
    const q = await http.get('/api/vocabularies?q=ROLES').expect(200);
    expect(ids(q)).toEqual(['contributorsroles', 'creatorsroles']);
  });

  it('should accept a trailing slash and HEAD', async () => {
    expect((await http.get('/api/vocabularies/').expect(200)).body.hits.total).toBe(18);
    expect((await http.get('/api/vocabularies/resourcetypes/').expect(200)).body.hits.total).toBe(47);
    await http.head('/api/vocabularies/resourcetypes/dataset').expect(200);
  });

  it('should answer 400 for bad paging', async () => {
    const res = await http.get('/api/vocabularies?size=0').expect(400);
    expect(res.body).toMatchObject({ status: 400, message: 'A validation error occurred.' });
  });
});

describe('GET /api/vocabularies/<type>', () => {
  it('should find image-photo with its props and title for q=photo, sorted by bestmatch', async () => {
    const res = await http.get('/api/vocabularies/resourcetypes?q=photo').expect(200);
    expect(res.body.sortBy).toBe('bestmatch');
    const hit = res.body.hits.hits.find((h: { id: string }) => h.id === 'image-photo');
    expect(hit).toMatchObject({
      id: 'image-photo',
      type: 'resourcetypes',
      revision_id: 1,
      title: { en: 'Photo', de: 'Foto' },
      icon: 'chart bar outline',
      tags: ['depositable', 'linkable'],
      props: { type: 'image', subtype: 'image-photo', csl: 'graphic', 'schema.org': 'https://schema.org/Photograph' },
      links: { self: `${BASE}/api/vocabularies/resourcetypes/image-photo` },
    });
    expect(hit.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);
    expect(res.body.links.self).toBe(`${BASE}/api/vocabularies/resourcetypes?page=1&q=photo&size=25&sort=bestmatch`);
  });

  it('should sort by title by default and list 25 per page with a next link', async () => {
    const res = await http.get('/api/vocabularies/resourcetypes').expect(200);
    expect(res.body.hits.total).toBe(47);
    expect(res.body.hits.hits).toHaveLength(25);
    expect(res.body.sortBy).toBe('title');
    expect(res.body.links).toEqual({
      self: `${BASE}/api/vocabularies/resourcetypes?page=1&size=25&sort=title`,
      next: `${BASE}/api/vocabularies/resourcetypes?page=2&size=25&sort=title`,
    });
    const titles = res.body.hits.hits.map((h: { title: { en: string } }) => h.title.en);
    expect([...titles].sort()).toEqual(titles);
  });

  it('should support fielded queries over titles, props and tags', async () => {
    expect(ids(await http.get('/api/vocabularies/resourcetypes?q=title.en:photo').expect(200))).toEqual(['image-photo']);
    const props = await http.get('/api/vocabularies/resourcetypes?q=props.type:image&size=100').expect(200);
    expect(props.body.hits.total).toBe(7);
    const tags = await http.get('/api/vocabularies/resourcetypes?q=tags:linkable%20AND%20NOT%20tags:depositable').expect(200);
    expect(ids(tags).sort()).toEqual(['instrument', 'project']);
    expect(ids(await http.get('/api/vocabularies/languages?q=id:eng').expect(200))).toEqual(['eng']);
    expect(ids(await http.get('/api/vocabularies/resourcetypes?q=Fotografie').expect(200))).toEqual(['image-photo']);
  });

  it('should filter by tags (repeatable) and keep the filter in the links', async () => {
    const res = await http.get('/api/vocabularies/licenses?tags=recommended').expect(200);
    expect(ids(res).sort()).toEqual(['apache-2.0', 'cc-by-4.0', 'cc-by-sa-4.0', 'cc0-1.0', 'gpl-3.0-or-later', 'mit']);
    expect(res.body.links.self).toBe(`${BASE}/api/vocabularies/licenses?page=1&size=25&sort=title&tags=recommended`);
    const reasons = await http.get('/api/vocabularies/removalreasons?tags=deletion-request').expect(200);
    expect(reasons.body.hits.total).toBeGreaterThan(0);
  });

  it('should suggest by prefix, best match first', async () => {
    const langs = await http.get('/api/vocabularies/languages?suggest=engl&size=3').expect(200);
    expect(langs.body.sortBy).toBe('bestmatch');
    expect(ids(langs)[0]).toBe('eng');
    expect(langs.body.links.self).toContain('suggest=engl');
    const rt = await http.get('/api/vocabularies/resourcetypes?suggest=jour').expect(200);
    expect(ids(rt).sort()).toEqual(['publication-article', 'publication-journal']);
  });

  it('should ignore stray query arguments, type= included, and leave them out of links', async () => {
    const res = await http.get('/api/vocabularies/resourcetypes?invalid=test&type=languages').expect(200);
    expect(res.body.hits.total).toBe(47);
    expect(res.body.links.self).not.toContain('invalid');
    expect(res.body.links.self).not.toContain('type=');
  });

  it('should answer 404 for an unknown type', async () => {
    expect((await http.get('/api/vocabularies/invalid').expect(404)).body).toEqual({ status: 404, message: 'Not found.' });
    await http.get('/api/vocabularies/invalid/').expect(404);
  });

  it('should answer 400 for bad page, size, sort, q syntax and q with suggest', async () => {
    for (const qs of ['page=0', 'size=abc', 'size=100000', 'page=-1']) {
      const res = await http.get(`/api/vocabularies/resourcetypes?${qs}`).expect(400);
      expect(res.body.status).toBe(400);
    }
    expect((await http.get('/api/vocabularies/resourcetypes?sort=nope').expect(400)).body.errors).toEqual([
      { field: '_schema', messages: ["Invalid sort option 'nope'."] },
    ]);
    expect((await http.get('/api/vocabularies/resourcetypes?q=(').expect(400)).body.message).toBe('Invalid query string syntax.');
    expect((await http.get('/api/vocabularies/resourcetypes?q=a&suggest=b').expect(400)).body.message).toBe(
      'Invalid querystring parameters.',
    );
  });
});

describe('GET /api/vocabularies/<type>/<id>', () => {
  it('should return the entry with an ETag and answer 304 to If-None-Match', async () => {
    const res = await http.get('/api/vocabularies/licenses/cc-by-4.0').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers.etag).toBe('"1"');
    expect(res.body).toMatchObject({
      id: 'cc-by-4.0',
      type: 'licenses',
      title: { en: 'Creative Commons Attribution 4.0 International' },
      tags: ['recommended', 'all', 'data'],
      props: { url: 'https://creativecommons.org/licenses/by/4.0/', scheme: 'spdx' },
      links: { self: `${BASE}/api/vocabularies/licenses/cc-by-4.0` },
    });
    const cached = await http.get('/api/vocabularies/licenses/cc-by-4.0').set('If-None-Match', '"1"').expect(304);
    expect(cached.text).toBe('');
    await http.get('/api/vocabularies/licenses/cc-by-4.0').set('If-None-Match', '"7"').expect(200);
  });

  it('should answer 404 with InvenioRDM message for an unknown id or a wrong type', async () => {
    const res = await http.get('/api/vocabularies/licenses/invalid-id').expect(404);
    expect(res.body).toEqual({ status: 404, message: 'The persistent identifier does not exist.' });
    await http.get('/api/vocabularies/invalid/cc-by-4.0').expect(404);
    await http.get('/api/vocabularies/resourcetypes/cc-by-4.0').expect(404);
  });

  it('should serve the localized UI form for application/vnd.inveniordm.v1+json', async () => {
    const res = await http
      .get('/api/vocabularies/resourcetypes/dataset')
      .set('Accept', 'application/vnd.inveniordm.v1+json')
      .set('Accept-Language', 'de')
      .expect(200);
    expect(res.body).toMatchObject({ id: 'dataset', title_l10n: 'Datensatz' });
  });
});

describe('root-served vocabularies', () => {
  it('should serve affiliations and funders at /api/<type> with their own fields and sort', async () => {
    const list = await http.get('/api/affiliations').expect(200);
    expect(list.body.sortBy).toBe('name');
    expect(list.body.hits.total).toBe(17);
    expect(list.body.links.self).toBe(`${BASE}/api/affiliations?page=1&size=25&sort=name`);
    const cern = await http.get('/api/affiliations/01ggx4157').expect(200);
    expect(cern.body).toMatchObject({
      id: '01ggx4157',
      acronym: 'CERN',
      name: 'European Organization for Nuclear Research',
      country: 'CH',
      links: { self: `${BASE}/api/affiliations/01ggx4157` },
    });
    expect(cern.body.type).toBeUndefined();
    expect((await http.get('/api/funders/00k4n6c32').expect(200)).body).toMatchObject({ name: 'European Commission', country: 'BE' });
    await http.get('/api/funders/nope').expect(404);
  });

  it('should rank the acronym match first when suggesting affiliations', async () => {
    const res = await http.get('/api/affiliations?suggest=CERN').expect(200);
    expect(ids(res)[0]).toBe('01ggx4157');
  });

  it('should serve the same entries under /api/vocabularies/<type>', async () => {
    const res = await http.get('/api/vocabularies/affiliations?q=cern').expect(200);
    expect(ids(res)).toContain('01ggx4157');
    expect(res.body.links.self).toContain('/api/vocabularies/affiliations?');
  });

  it('should keep names for authenticated callers only', async () => {
    expect((await http.get('/api/names').expect(403)).body).toEqual({ status: 403, message: 'Permission denied.' });
    await http.get('/api/names/0000-0001-2345-6789').expect(403);
    const res = await http.get('/api/names').set(as(USER)).expect(200);
    expect(res.body.hits.total).toBe(0);
    await http.get('/api/names/orcid/0000-0001-2345-6789').set(as(USER)).expect(404);
  });

  it('should list empty subjects and awards with their default sorts', async () => {
    expect((await http.get('/api/subjects').expect(200)).body.sortBy).toBe('subject');
    const awards = await http.get('/api/awards').expect(200);
    expect(awards.body.sortBy).toBe('newest');
    expect(awards.body.aggregations).toEqual({ funders: { label: 'Funders', buckets: [] } });
  });
});

describe('writes', () => {
  it('should refuse anonymous and ordinary users with 403 Permission denied.', async () => {
    for (const headers of [{}, as(USER)]) {
      expect(
        (
          await http
            .post('/api/vocabularies/licenses')
            .set(headers)
            .send({ id: 'x', title: { en: 'X' } })
            .expect(403)
        ).body,
      ).toEqual({
        status: 403,
        message: 'Permission denied.',
      });
      await http
        .put('/api/vocabularies/licenses/mit')
        .set(headers)
        .send({ title: { en: 'X' } })
        .expect(403);
      await http.delete('/api/vocabularies/licenses/mit').set(headers).expect(403);
      await http.post('/api/affiliations').set(headers).send({ id: 'x', name: 'X' }).expect(403);
      await http.post('/api/vocabularies/tasks').set(headers).send({}).expect(403);
    }
  });

  it('should let an administrator create, update (If-Match) and delete, refreshing cached reads', async () => {
    const created = await http
      .post('/api/vocabularies/licenses')
      .set(as(ADMIN))
      .send({ id: 'test-lic', title: { en: 'Test licence' }, tags: ['all'] })
      .expect(201);
    expect(created.body).toMatchObject({ id: 'test-lic', revision_id: 1, type: 'licenses' });
    await http
      .post('/api/vocabularies/licenses')
      .set(as(ADMIN))
      .send({ id: 'test-lic', title: { en: 'x' } })
      .expect(400);
    expect((await http.get('/api/vocabularies/licenses/test-lic').expect(200)).body.title.en).toBe('Test licence');
    await http
      .put('/api/vocabularies/licenses/test-lic')
      .set(as(ADMIN))
      .set('If-Match', '5')
      .send({ title: { en: 'Y' } })
      .expect(412);
    const updated = await http
      .put('/api/vocabularies/licenses/test-lic')
      .set(as(ADMIN))
      .set('If-Match', '1')
      .send({ title: { en: 'Renamed' } })
      .expect(200);
    expect(updated.body).toMatchObject({ revision_id: 2, title: { en: 'Renamed' } });
    const read = await http.get('/api/vocabularies/licenses/test-lic').expect(200);
    expect(read.body.title.en).toBe('Renamed');
    expect(read.headers.etag).toBe('"2"');
    await http.delete('/api/vocabularies/licenses/test-lic').set(as(ADMIN)).expect(204);
    await http.get('/api/vocabularies/licenses/test-lic').expect(404);
    await http
      .post('/api/vocabularies/licenses')
      .set(as(ADMIN))
      .send({ title: { en: 'no id' } })
      .expect(400);
  });

  it('should refuse NUL characters and unpaired surrogates in a written entry with 400 (PostgreSQL cannot store them)', async () => {
    const bodies = [
      { id: 'nul-lic', title: { en: 'a\u0000b' } },
      { id: 'nul\u0000lic' },
      { id: 'nul-lic', props: { 'k\u0000': 'v' } },
      { id: 'sur-lic', title: { en: 'a\ud800b' } },
      { id: 'sur-lic', tags: ['\udc00'] },
    ];
    for (const body of bodies) {
      const res = await http.post('/api/vocabularies/licenses').set(as(ADMIN)).send(body).expect(400);
      expect(res.body.errors[0].messages).toEqual(['Must not contain NUL characters or unpaired surrogates.']);
    }
    const put = await http
      .put('/api/vocabularies/licenses/cc-by-4.0')
      .set(as(ADMIN))
      .send({ title: { en: 'x\u0000' } })
      .expect(400);
    expect(put.body.errors).toEqual([{ field: 'title.en', messages: ['Must not contain NUL characters or unpaired surrogates.'] }]);
    // A paired surrogate (an emoji) is fine.
    await http
      .post('/api/vocabularies/licenses')
      .set(as(ADMIN))
      .send({ id: 'emoji-lic', title: { en: 'Smile \ud83d\ude00' } })
      .expect(201);
    await http.delete('/api/vocabularies/licenses/emoji-lic').set(as(ADMIN)).expect(204);
    // The body is refused by the platform parser before the policy runs; a clean body is still 403.
    await http.post('/api/vocabularies/licenses').set(as(USER)).send({ id: 'x\u0000' }).expect(400);
    await http.post('/api/vocabularies/licenses').set(as(USER)).send({ id: 'clean-lic' }).expect(403);
  });

  it('should hide unlisted entries from search and from everyone but the system', async () => {
    await http
      .post('/api/vocabularies/licenses')
      .set(as(ADMIN))
      .send({ id: 'hidden-lic', title: { en: 'Hidden' }, tags: ['unlisted'] })
      .expect(201);
    expect((await http.get('/api/vocabularies/licenses?q=hidden').expect(200)).body.hits.total).toBe(0);
    await http.get('/api/vocabularies/licenses/hidden-lic').expect(403);
    await http
      .get('/api/vocabularies/licenses/hidden-lic')
      .set(as({ sub: 'system', roles: ['system'] }))
      .expect(200);
  });
});

describe('NUL characters in URLs', () => {
  it('should answer 400 for a query value and 404 for an id, never 500', async () => {
    for (const url of [
      '/api/vocabularies?q=a%00b',
      '/api/vocabularies/licenses?q=%00',
      '/api/funders?suggest=x%00',
      '/api/names?tags=%00',
    ]) {
      expect((await http.get(url)).status, url).toBe(400);
    }
    for (const url of ['/api/vocabularies/licenses/a%00b', '/api/subjects/x%00', '/api/names/orcid/0000%00']) {
      expect((await http.get(url)).status, url).toBe(404);
    }
  });
});

describe('GET /openapi.json', () => {
  it('should serve the OpenAPI fragment of the vocabulary routes', async () => {
    const res = await http.get('/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/vocabularies',
        '/api/vocabularies/{type}',
        '/api/vocabularies/{type}/{id}',
        '/api/affiliations',
        '/api/subjects/{id}',
      ]),
    );
    expect(res.body.components.schemas.VocabularyEntry.required).toContain('revision_id');
  });
});
