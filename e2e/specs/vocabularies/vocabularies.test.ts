import { describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;
const ids = (body: any) => (body.hits.hits as { id: string }[]).map((h) => h.id);

describe('GET /api/vocabularies', () => {
  it('should list the vocabulary types in the list envelope, sorted by id', async () => {
    const res = await api('/api/vocabularies');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['aggregations', 'hits', 'links', 'sortBy']);
    expect(res.body.sortBy).toBe('id');
    expect(res.body.links.self).toBe(`${baseUrl()}/api/vocabularies?page=1&size=25&sort=id`);
    const all = ids(res.body);
    expect(all).toEqual([...all].sort());
    for (const t of [
      'resourcetypes',
      'licenses',
      'languages',
      'creatorsroles',
      'contributorsroles',
      'titletypes',
      'descriptiontypes',
      'datetypes',
      'relationtypes',
      'communitytypes',
      'removalreasons',
      'subjects',
      'affiliations',
      'funders',
      'awards',
      'names',
    ]) {
      expect(all).toContain(t);
    }
  });

  it('should render each item as {id, pid_type, count, is_custom_vocabulary, links{self}}', async () => {
    const res = await api('/api/vocabularies?q=resourcetypes');
    expect(res.body.hits.hits).toEqual([
      {
        id: 'resourcetypes',
        pid_type: 'rsrct',
        count: 47,
        is_custom_vocabulary: false,
        links: { self: `${baseUrl()}/api/vocabularies/resourcetypes` },
      },
    ]);
    // The count is the type's entries: the 17 shipped ones plus any an import spec added meanwhile
    // (specs share the stack), so it lies between the affiliations' totals read just before and after.
    const total = async () => (await api('/api/affiliations?size=1')).body.hits.total as number;
    const before = await total();
    const custom = await api('/api/vocabularies?q=affiliations');
    const after = await total();
    expect(before).toBeGreaterThanOrEqual(17);
    expect(custom.body.hits.hits[0]).toMatchObject({ id: 'affiliations', pid_type: 'aff', is_custom_vocabulary: true });
    expect(custom.body.hits.hits[0].count).toBeGreaterThanOrEqual(before);
    expect(custom.body.hits.hits[0].count).toBeLessThanOrEqual(after);
    // `q` is a substring match on the id: code:programmingLanguages matches too.
    const langs = await api('/api/vocabularies?q=languages');
    expect(ids(langs.body)).toEqual(['code:programmingLanguages', 'languages']);
    expect(langs.body.hits.hits[1]).toMatchObject({ pid_type: 'lng', count: 7847 });
  });

  it('should page with size and give next/prev links', async () => {
    const res = await api('/api/vocabularies?size=5&page=2');
    expect(res.status).toBe(200);
    expect(res.body.hits.hits).toHaveLength(5);
    expect(res.body.links.prev).toBe(`${baseUrl()}/api/vocabularies?page=1&size=5&sort=id`);
    expect(res.body.links.next).toBe(`${baseUrl()}/api/vocabularies?page=3&size=5&sort=id`);
  });
});

describe('GET /api/vocabularies/resourcetypes', () => {
  it('should list image-photo with its props and title.en for q=photo', async () => {
    const res = await api('/api/vocabularies/resourcetypes?q=photo');
    expect(res.status).toBe(200);
    expect(res.body.sortBy).toBe('bestmatch');
    const hit = res.body.hits.hits.find((h: { id: string }) => h.id === 'image-photo');
    expect(hit).toEqual({
      id: 'image-photo',
      created: expect.stringMatching(TS),
      updated: expect.stringMatching(TS),
      links: { self: `${baseUrl()}/api/vocabularies/resourcetypes/image-photo` },
      revision_id: expect.any(Number),
      title: expect.objectContaining({ en: 'Photo', de: 'Foto', sv: 'Foto', cs: 'Fotografie' }),
      icon: 'chart bar outline',
      tags: ['depositable', 'linkable'],
      props: {
        csl: 'graphic',
        datacite_general: 'Image',
        datacite_type: 'Photo',
        eurepo: 'info:eu-repo/semantics/other',
        marc21_subtype: 'photo',
        marc21_type: 'image',
        openaire_resourceType: '0025',
        openaire_type: 'dataset',
        'schema.org': 'https://schema.org/Photograph',
        subtype: 'image-photo',
        type: 'image',
      },
      type: 'resourcetypes',
    });
    expect(res.body.links.self).toBe(`${baseUrl()}/api/vocabularies/resourcetypes?page=1&q=photo&size=25&sort=bestmatch`);
  });

  it('should default to the title sort with 25 per page and a next link', async () => {
    const res = await api('/api/vocabularies/resourcetypes');
    expect(res.body.hits.total).toBe(47);
    expect(res.body.hits.hits).toHaveLength(25);
    expect(res.body.sortBy).toBe('title');
    expect(res.body.links).toEqual({
      self: `${baseUrl()}/api/vocabularies/resourcetypes?page=1&size=25&sort=title`,
      next: `${baseUrl()}/api/vocabularies/resourcetypes?page=2&size=25&sort=title`,
    });
    const page2 = await api('/api/vocabularies/resourcetypes?page=2&size=25');
    expect(page2.body.hits.hits).toHaveLength(22);
    expect(page2.body.links.prev).toBeDefined();
    expect(page2.body.links.next).toBeUndefined();
  });

  it('should filter by tags and suggest by prefix', async () => {
    const lic = await api('/api/vocabularies/licenses?tags=recommended');
    expect(ids(lic.body).sort()).toEqual(['apache-2.0', 'cc-by-4.0', 'cc-by-sa-4.0', 'cc0-1.0', 'gpl-3.0-or-later', 'mit']);
    expect(lic.body.links.self).toContain('tags=recommended');
    const sug = await api('/api/vocabularies/languages?suggest=engl&size=5');
    expect(sug.body.sortBy).toBe('bestmatch');
    expect(ids(sug.body)[0]).toBe('eng');
  });

  it('should answer 404 for an unknown vocabulary', async () => {
    const res = await api('/api/vocabularies/no-such-vocabulary');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, message: 'Not found.' });
  });

  it('should answer 400 for bad page, size, sort and q', async () => {
    for (const qs of ['page=0', 'page=abc', 'size=0', 'size=x', 'sort=nope', 'q=(unclosed']) {
      const res = await api(`/api/vocabularies/resourcetypes?${qs}`);
      expect(res.status, qs).toBe(400);
      expect(res.body.status).toBe(400);
      expect(typeof res.body.message).toBe('string');
    }
  });
});
