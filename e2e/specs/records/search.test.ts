/**
 * Record search through the gateway: GET /api/records (q, facets, filters, sorts, pagination,
 * permissions), GET /api/user/records and GET /api/communities/<id>/records. Every record made
 * here carries a unique word in its title, so other specs' records never interfere.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { makeCommunity } from '../communities/support.js';
import { createDraft, publishedRecord, walkthroughMetadata } from './support.js';

const DENIED = { status: 403, message: 'Permission denied.' };
const BAD_Q = { status: 400, message: 'Invalid query string syntax.' };
/** A word no other record contains (letters only, so it is one search term). */
const TAG = `zq${[...randomBytes(6)].map((b) => String.fromCharCode(97 + (b % 26))).join('')}`;

let owner: TestUser;
let other: TestUser;
const ids: Record<string, string> = {};

const md = (title: string, over: Record<string, unknown> = {}) => ({ ...walkthroughMetadata(), title, ...over });
const idsOf = (res: { body: any }) => (res.body.hits.hits as any[]).map((h) => h.id);
const search = (qs: string, token?: string) => api(`/api/records${qs}`, { token });

beforeAll(async () => {
  owner = await createUser({ email: uniqueEmail('search-owner') });
  other = await createUser({ email: uniqueEmail('search-other') });
  ids.aurora = (await publishedRecord(owner.token, md(`${TAG} aurora photographs`))).id;
  ids.borealis = (
    await publishedRecord(
      owner.token,
      md(`${TAG} borealis measurements`, { resource_types: [{ id: 'dataset' }], publication_date: '2015' }),
    )
  ).id;
  ids.hidden = (await publishedRecord(owner.token, md(`${TAG} hidden notes`), { record: 'restricted', files: 'restricted' })).id;
  const draft = await createDraft(owner.token, {
    access: { record: 'public', files: 'public' },
    files: { enabled: true },
    metadata: md(`${TAG} unfinished draft`),
  });
  expect(draft.status).toBe(201);
  ids.draft = draft.body.id;
});

describe('GET /api/records', () => {
  it('should find the published public records by a keyword, best match first', async () => {
    const res = await search(`?q=${TAG}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['aggregations', 'hits', 'links', 'sortBy']);
    expect(res.body.sortBy).toBe('bestmatch');
    expect(res.body.hits.total).toBe(2);
    expect(new Set(idsOf(res))).toEqual(new Set([ids.aurora, ids.borealis]));
    const hit = res.body.hits.hits.find((h: any) => h.id === ids.aurora);
    expect(hit).toMatchObject({
      is_published: true,
      is_draft: false,
      status: 'published',
      links: { self: `${baseUrl()}/api/records/${ids.aurora}` },
    });
    expect(res.body.links).toEqual({ self: `${baseUrl()}/api/records?page=1&q=${TAG}&size=25&sort=bestmatch` });
  });

  it('should return the facets with exact bucket shapes, labels and nested resource types', async () => {
    const { aggregations: aggs } = (await search(`?q=${TAG}`)).body;
    expect(Object.keys(aggs).sort()).toEqual(['access_status', 'file_type', 'publication_date', 'resource_type', 'resource_types']);
    for (const agg of Object.values(aggs) as any[]) {
      for (const b of agg.buckets)
        expect(Object.keys(b).sort()).toEqual(
          Object.keys(b).includes('inner')
            ? ['doc_count', 'inner', 'is_selected', 'key', 'label']
            : ['doc_count', 'is_selected', 'key', 'label'],
        );
    }
    expect(aggs.access_status).toEqual({
      label: 'Access status',
      buckets: [{ key: 'open', doc_count: 2, label: 'Open', is_selected: false }],
    });
    expect(aggs.file_type.buckets).toEqual([{ key: 'txt', doc_count: 2, label: 'TXT', is_selected: false }]);
    expect(aggs.resource_types.buckets).toEqual([
      { key: 'dataset', doc_count: 1, label: 'Dataset', is_selected: false, inner: { buckets: [] } },
      {
        key: 'image',
        doc_count: 1,
        label: 'Image',
        is_selected: false,
        inner: { buckets: [{ key: 'image-photo', doc_count: 1, label: 'Photo', is_selected: false }] },
      },
    ]);
    expect(aggs.resource_type).toEqual(aggs.resource_types);
    expect(aggs.publication_date.buckets[0]).toEqual({ key: '2015', doc_count: 1, label: '2015', is_selected: false });
    expect(aggs.publication_date.buckets.at(-1)).toEqual({ key: '2020', doc_count: 1, label: '2020', is_selected: false });
  });

  it('should filter hits by facet values while the facet counts stay those of the query', async () => {
    const all = (await search(`?q=${TAG}`)).body.aggregations;
    const res = await search(`?q=${TAG}&resource_types=dataset`);
    expect(idsOf(res)).toEqual([ids.borealis]);
    expect(res.body.hits.total).toBe(1);
    expect(res.body.aggregations.access_status).toEqual(all.access_status);
    expect(res.body.aggregations.resource_types.buckets.find((b: any) => b.key === 'dataset').is_selected).toBe(true);
    expect(idsOf(await search(`?q=${TAG}&resource_types=image::image-photo`))).toEqual([ids.aurora]);
    expect(idsOf(await search(`?q=${TAG}&publication_date=2015--2015`))).toEqual([ids.borealis]);
    expect(idsOf(await search(`?q=${TAG}&access_status=restricted`))).toEqual([]);
    expect((await search(`?q=${TAG}&file_type=txt`)).body.hits.total).toBe(2);
  });

  it('should search fields and identifiers', async () => {
    expect(idsOf(await search(`?q=${encodeURIComponent(`metadata.title:${TAG} AND metadata.title:aurora`)}`))).toEqual([ids.aurora]);
    expect(idsOf(await search(`?q=${encodeURIComponent(`id:${ids.borealis}`)}`))).toEqual([ids.borealis]);
    expect(idsOf(await search(`?q=${encodeURIComponent(`${TAG} AND metadata.resource_type.id:dataset`)}`))).toEqual([ids.borealis]);
    expect(idsOf(await search(`?q=${encodeURIComponent(`"${TAG} borealis"`)}`))).toEqual([ids.borealis]);
  });

  it('should sort and paginate with next/prev links only when there are more pages', async () => {
    const first = await search(`?q=${TAG}&sort=oldest&size=1`);
    expect(idsOf(first)).toEqual([ids.aurora]);
    expect(first.body.sortBy).toBe('oldest');
    expect(first.body.links).toEqual({
      self: `${baseUrl()}/api/records?page=1&q=${TAG}&size=1&sort=oldest`,
      next: `${baseUrl()}/api/records?page=2&q=${TAG}&size=1&sort=oldest`,
    });
    const second = await search(`?q=${TAG}&sort=oldest&size=1&page=2`);
    expect(idsOf(second)).toEqual([ids.borealis]);
    expect(second.body.links.next).toBeUndefined();
    expect(second.body.links.prev).toBe(`${baseUrl()}/api/records?page=1&q=${TAG}&size=1&sort=oldest`);
    expect(idsOf(await search(`?q=${TAG}&sort=newest`))).toEqual([ids.borealis, ids.aurora]);
    expect(idsOf(await search(`?q=${TAG}&sort=mostrecent`))).toEqual([ids.borealis, ids.aurora]);
    expect((await search('')).body.sortBy).toBe('mostrecent');
  });

  it('should keep restricted records and drafts from anonymous and other users', async () => {
    for (const token of [undefined, other.token]) {
      const res = await search(`?q=${TAG}`, token);
      expect(new Set(idsOf(res))).toEqual(new Set([ids.aurora, ids.borealis]));
    }
    const mine = await search(`?q=${TAG}`, owner.token);
    expect(new Set(idsOf(mine))).toEqual(new Set([ids.aurora, ids.borealis, ids.hidden]));
    expect(mine.body.aggregations.access_status.buckets).toContainEqual({
      key: 'restricted',
      doc_count: 1,
      label: 'Restricted',
      is_selected: false,
    });
    expect(idsOf(await search(`?q=${encodeURIComponent(`unfinished AND ${TAG}`)}`, owner.token))).toEqual([]);
  });

  it('should answer 400 to a q the engine rejects, an unknown sort and bad pages', async () => {
    // A q the parser cannot read falls back to a plain word search (InvenioRDM: 200); what the engine rejects is 400.
    expect((await search('?q=%28unclosed')).status).toBe(200);
    expect((await search('?q=title%3A')).status).toBe(200);
    expect(await search('?q=metadata.publication_date%3Asomeday').then((r) => [r.status, r.body])).toEqual([400, BAD_Q]);
    const sort = await search('?sort=nonsense');
    expect(sort.status).toBe(400);
    expect(sort.body.errors).toEqual([{ field: '_schema', messages: ["Invalid sort option 'nonsense'."] }]);
    expect((await search('?page=0')).status).toBe(400);
    expect((await search('?size=-1')).status).toBe(400);
    expect(await search('?page=500&size=100').then((r) => [r.status, r.body])).toEqual([
      400,
      { status: 400, message: 'Invalid querystring parameters.' },
    ]);
    expect((await search('?publication_date=whenever')).status).toBe(400);
  });
});

describe('GET /api/user/records', () => {
  it('should refuse anonymous callers with 403', async () => {
    const res = await api('/api/user/records');
    expect(res.status).toBe(403);
    expect(res.body).toEqual(DENIED);
  });

  it("should list the caller's drafts (is_published=false) and records", async () => {
    const drafts = await api(`/api/user/records?is_published=false&q=${TAG}`, { token: owner.token });
    expect(drafts.status).toBe(200);
    expect(idsOf(drafts)).toEqual([ids.draft]);
    expect(drafts.body.hits.hits[0]).toMatchObject({
      is_draft: true,
      is_published: false,
      links: { self: `${baseUrl()}/api/records/${ids.draft}/draft` },
    });
    const all = await api(`/api/user/records?q=${TAG}`, { token: owner.token });
    expect(new Set(idsOf(all))).toEqual(new Set([ids.aurora, ids.borealis, ids.hidden, ids.draft]));
    expect(all.body.aggregations.is_published.buckets).toEqual([
      { key: 'true', doc_count: 3, label: 'Published', is_selected: false },
      { key: 'false', doc_count: 1, label: 'Unpublished', is_selected: false },
    ]);
    const plain = await api('/api/user/records', { token: owner.token });
    expect(plain.body.sortBy).toBe('updated-desc');
    expect(plain.body.links.self).toBe(`${baseUrl()}/api/user/records?page=1&size=25&sort=updated-desc`);
  });

  it("should never list other users' items", async () => {
    const res = await api(`/api/user/records?q=${TAG}`, { token: other.token });
    expect(res.status).toBe(200);
    expect(res.body.hits).toEqual({ hits: [], total: 0 });
  });

  it('should show a new draft to its writer at once', async () => {
    const word = `${TAG}fresh`;
    const d = await createDraft(owner.token, {
      access: { record: 'public', files: 'public' },
      files: { enabled: true },
      metadata: md(`${word} draft`),
    });
    expect(idsOf(await api(`/api/user/records?q=${word}`, { token: owner.token }))).toEqual([d.body.id]);
  });
});

describe('GET /api/communities/<id>/records', () => {
  it('should answer an empty list with the community links for a community without records', async () => {
    const admin = await createUser({ email: uniqueEmail('search-admin'), admin: true });
    const c = await makeCommunity(admin.token, 'Search Without Records');
    const res = await api(`/api/communities/${c.slug}/records`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.hits).toEqual({ hits: [], total: 0 });
    expect(res.body.links.self).toBe(`${baseUrl()}/api/communities/${c.slug}/records?page=1&size=25&sort=mostrecent`);
  });

  it('should answer 404 for a community that does not exist (reference §4.2)', async () => {
    const res = await api('/api/communities/no-such-community-here/records');
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('The persistent identifier does not exist.');
  });
});
