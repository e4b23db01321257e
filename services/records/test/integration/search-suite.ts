/**
 * The record search suite, run on every engine: search.test.ts (postgres) and
 * search-engine.test.ts (OpenSearch): the same requests must give the same answers.
 */
import { foldText, type SearchEngine } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { community } from './review-support.js';
import { as, BASE, type Env, startEnv } from './support.js';

const API = `${BASE}/api`;
const ALICE = '101';
const BOB = '202';
const CAROL = '303';
const ADMIN = '900';

interface Spec {
  owner: string;
  title: string;
  rt: string;
  date: string;
  family: string;
  files?: string[];
  access?: Record<string, unknown>;
  publish?: boolean;
}

function metadata(s: Pick<Spec, 'title' | 'rt' | 'date' | 'family'>) {
  return {
    resource_types: [{ id: s.rt }],
    title: s.title,
    publication_date: s.date,
    publisher: 'InvenioRDM',
    creators: [{ person_or_org: { type: 'personal', given_name: 'Jo', family_name: s.family } }],
  };
}

/** Defines the suite; `engine` (OpenSearch/Elasticsearch) replaces the postgres indexer when given. */
export function recordSearchSuite(label: string, engine?: () => Promise<{ engine: SearchEngine; prefix: string }>) {
  describe(`record search (GET /api/records, /api/user/records, /api/communities/<id>/records) on ${label}`, () => {
    let env: Env;
    const ids: Record<string, string> = {};
    const parents: Record<string, string> = {};

    async function create(name: string, s: Spec): Promise<string> {
      const files = s.files ?? [];
      const res = await env.request
        .post('/api/records')
        .set(as(s.owner))
        .send({ access: s.access ?? { record: 'public', files: 'public' }, files: { enabled: files.length > 0 }, metadata: metadata(s) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const id = res.body.id as string;
      ids[name] = id;
      parents[name] = res.body.parent.id;
      for (const key of files) env.files.addFile(id, key, { size: 10 });
      if (s.publish !== false) {
        const pub = await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(s.owner));
        expect(pub.status, JSON.stringify(pub.body)).toBe(202);
      }
      return id;
    }

    const search = (query: string, user: string | null = null, roles: string[] = []) =>
      env.request.get(`/api/records${query}`).set(as(user, roles));
    const idsOf = (res: { body: any }) => (res.body.hits.hits as any[]).map((h) => h.id);

    beforeAll(async () => {
      env = await startEnv(engine ? { search: await engine() } : {});
      await create('romans', {
        owner: ALICE,
        title: 'Römäns in Britain',
        rt: 'image-photo',
        date: '2019-05-01',
        family: 'Brown',
        files: ['data.pdf', 'figure.png'],
      });
      await create('ocean', { owner: ALICE, title: 'Ocean temperature series', rt: 'dataset', date: '2021', family: 'Smith' });
      await create('temples', {
        owner: BOB,
        title: 'Greek temples of Sicily',
        rt: 'publication-article',
        date: '2021-03',
        family: 'Papadopoulos',
        files: ['table.csv'],
      });
      await create('secret', {
        owner: BOB,
        title: 'Secret ocean notes',
        rt: 'dataset',
        date: '2022-01-01',
        family: 'Hidden',
        access: { record: 'restricted', files: 'restricted' },
      });
      await create('draft', {
        owner: ALICE,
        title: 'Unfinished ocean draft',
        rt: 'dataset',
        date: '2023',
        family: 'Brown',
        publish: false,
      });
    });

    afterAll(async () => {
      await env?.close();
    });

    describe('GET /api/records', () => {
      it('should list the published public records, newest first, with the spec envelope', async () => {
        const res = await search('');
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['aggregations', 'hits', 'links', 'sortBy']);
        expect(res.body.sortBy).toBe('mostrecent');
        expect(res.body.hits.total).toBe(3);
        expect(idsOf(res)).toEqual([ids.temples, ids.ocean, ids.romans]);
        expect(res.body.links).toEqual({ self: `${API}/records?page=1&size=25&sort=mostrecent` });
        const hit = res.body.hits.hits[2];
        expect(hit).toMatchObject({
          id: ids.romans,
          is_published: true,
          is_draft: false,
          status: 'published',
          metadata: { title: 'Römäns in Britain' },
        });
        expect(hit.links.self).toBe(`${API}/records/${ids.romans}`);
        expect(hit.versions.is_latest_draft).toBeUndefined();
        expect(hit.parent.access.grants).toBeUndefined();
      });

      it('should answer a repeated search with the same JSON, typed as JSON (a shared answer is spliced from cached hits)', async () => {
        const first = await search('');
        const again = await search('');
        expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(again.text).toBe(first.text);
        // Compact JSON whose every part is there: what koa writes for the whole envelope.
        expect(again.text).toBe(JSON.stringify(again.body));
        expect(again.body.hits.hits.map((h: { id: string }) => h.id)).toEqual([ids.temples, ids.ocean, ids.romans]);
        expect(Object.keys(again.body)).toEqual(['hits', 'aggregations', 'sortBy', 'links']);
      });

      it('should compute every aggregation with labels and the exact bucket shape', async () => {
        const res = await search('');
        const aggs = res.body.aggregations;
        expect(Object.keys(aggs).sort()).toEqual(['access_status', 'file_type', 'publication_date', 'resource_type', 'resource_types']);
        expect(aggs.access_status).toEqual({
          label: 'Access status',
          buckets: [
            { key: 'open', doc_count: 2, label: 'Open', is_selected: false },
            { key: 'metadata-only', doc_count: 1, label: 'Metadata-only', is_selected: false },
          ],
        });
        expect(aggs.file_type).toEqual({
          label: 'File type',
          buckets: [
            { key: 'csv', doc_count: 1, label: 'CSV', is_selected: false },
            { key: 'pdf', doc_count: 1, label: 'PDF', is_selected: false },
            { key: 'png', doc_count: 1, label: 'PNG', is_selected: false },
          ],
        });
        expect(aggs.resource_types).toEqual({
          label: 'Resource types',
          buckets: [
            { key: 'dataset', doc_count: 1, label: 'Dataset', is_selected: false, inner: { buckets: [] } },
            {
              key: 'image',
              doc_count: 1,
              label: 'Image',
              is_selected: false,
              inner: { buckets: [{ key: 'image-photo', doc_count: 1, label: 'Photo', is_selected: false }] },
            },
            {
              key: 'publication',
              doc_count: 1,
              label: 'Publication',
              is_selected: false,
              inner: { buckets: [{ key: 'publication-article', doc_count: 1, label: 'Journal article', is_selected: false }] },
            },
          ],
        });
        expect(aggs.resource_type).toEqual(aggs.resource_types);
        expect(aggs.publication_date).toEqual({
          label: 'Publication date',
          buckets: [
            { key: '2019', doc_count: 1, label: '2019', is_selected: false },
            { key: '2020', doc_count: 0, label: '2020', is_selected: false },
            { key: '2021', doc_count: 2, label: '2021', is_selected: false },
          ],
        });
      });

      it.each([
        ['romans', ['romans']],
        ['ROMÄNS britain', ['romans']],
        ['metadata.title:romans', ['romans']],
        ['title:"in britain"', ['romans']],
        ['metadata.creators.person_or_org.name:brown', ['romans']],
        ['creators.creator:smith', ['ocean']],
        ['metadata.creators.person_or_org.family_name:Papadopoulos', ['temples']],
        ['"greek temples"', ['temples']],
        ['"temples greek"', []],
        ['ocean OR temples', ['temples', 'ocean']],
        ['ocean AND NOT temperature', []],
        ['metadata.resource_type.id:dataset', ['ocean']],
        ['access.status:metadata-only', ['ocean']],
        ['metadata.publication_date:[2021 TO 2021]', ['temples', 'ocean']],
        ['temp*', ['temples', 'ocean']],
        ['metadata.title:temp*', ['temples', 'ocean']],
        ['files.types:csv', ['temples']],
        ['metadata.description:ocean', []],
        ['no.such.field:x', []],
        ['*', ['temples', 'ocean', 'romans']],
      ])('should search q=%j', async (q, expected) => {
        const res = await search(`?q=${encodeURIComponent(q)}&sort=mostrecent`);
        expect(res.status).toBe(200);
        expect(idsOf(res)).toEqual(expected.map((n) => ids[n]));
        expect(res.body.hits.total).toBe(expected.length);
      });

      it('should search by id, parent id and DOI-like identifiers', async () => {
        const r0 = await search(`?q=${encodeURIComponent(`id:${ids.temples}`)}`);
        expect(r0.status, JSON.stringify(r0.body)).toBe(200);
        expect(idsOf(r0)).toEqual([ids.temples]);
        expect(idsOf(await search(`?q=${encodeURIComponent(`parent.id:${parents.ocean}`)}`))).toEqual([ids.ocean]);
        expect(idsOf(await search(`?q=${encodeURIComponent(`pids.oai.identifier:"oai:rdm.example.org:${ids.romans}"`)}`))).toEqual([
          ids.romans,
        ]);
      });

      it('should OR side-by-side keywords like InvenioRDM, ranking records that match more of them first', async () => {
        const res = await search('?q=ocean+temples');
        expect(res.status).toBe(200);
        expect(new Set(idsOf(res))).toEqual(new Set([ids.ocean, ids.temples]));
        const both = await search('?q=ocean+temperature+series');
        expect(idsOf(both)[0]).toBe(ids.ocean);
        const required = await search('?q=%2Bocean+%2Btemples');
        expect(idsOf(required)).toEqual([]);
      });

      it('should fall back to a plain word search for a q the parser cannot read (InvenioRDM: 200)', async () => {
        const fallback = await search(`?q=${encodeURIComponent('(ocean')}`);
        expect(fallback.status).toBe(200);
        expect(idsOf(fallback)).toEqual([ids.ocean]);
        const either = await search(`?q=${encodeURIComponent('"ocean temples')}`);
        expect(new Set(idsOf(either))).toEqual(new Set([ids.ocean, ids.temples]));
        for (const q of ['title:', 'AND', '"open']) expect((await search(`?q=${encodeURIComponent(q)}`)).status, q).toBe(200);
      });

      it('should answer 400 Invalid query string syntax. to what the engine rejects', async () => {
        const res = await search(`?q=${encodeURIComponent('metadata.publication_date:abc')}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ status: 400, message: 'Invalid query string syntax.' });
      });

      it('should sort by bestmatch with q by default, and honour the other sorts', async () => {
        const best = await search('?q=ocean');
        expect(best.body.sortBy).toBe('bestmatch');
        expect(best.body.links.self).toBe(`${API}/records?page=1&q=ocean&size=25&sort=bestmatch`);
        const oldest = await search('?sort=oldest');
        expect(idsOf(oldest)).toEqual([ids.romans, ids.ocean, ids.temples]);
        const newest = await search('?sort=newest');
        expect(newest.body.sortBy).toBe('newest');
        expect(idsOf(newest)).toEqual([ids.temples, ids.ocean, ids.romans]);
        expect((await search('?mostrecent=true')).body.sortBy).toBe('mostrecent');
        for (const s of ['version', 'mostviewed', 'mostdownloaded', 'updated-desc', 'updated-asc']) {
          const res = await search(`?sort=${s}`);
          expect(res.status, s).toBe(200);
          expect(res.body.sortBy).toBe(s);
          expect(res.body.hits.total).toBe(3);
        }
        const upd = await search('?sort=updated-asc');
        expect(idsOf(upd)).toEqual([ids.romans, ids.ocean, ids.temples]);
      });

      it('should answer 400 to a bad sort, page or size', async () => {
        const sort = await search('?sort=nope');
        expect(sort.status).toBe(400);
        expect(sort.body).toEqual({
          status: 400,
          message: 'A validation error occurred.',
          errors: [{ field: '_schema', messages: ["Invalid sort option 'nope'."] }],
        });
        const page = await search('?page=0');
        expect(page.status).toBe(400);
        expect(page.body.errors).toEqual([{ field: 'page', messages: ['Must be greater than or equal to 1.'] }]);
        expect((await search('?size=abc')).status).toBe(400);
        const window = await search('?page=101&size=100');
        expect(window.status).toBe(400);
        expect(window.body).toEqual({ status: 400, message: 'Invalid querystring parameters.' });
        expect((await search('?allversions=maybe')).status).toBe(400);
      });

      it('should accept any page size like InvenioRDM (no maximum; clients ask size=10000 to fetch everything)', async () => {
        for (const size of [1001, 10000, 20000]) {
          const res = await search(`?size=${size}`);
          expect(res.status, String(size)).toBe(200);
          expect(res.body.hits.hits).toHaveLength(res.body.hits.total);
          expect(res.body.links.self).toBe(`${API}/records?page=1&size=${size}&sort=mostrecent`);
        }
        expect((await search('?size=10000&page=2')).body).toEqual({ status: 400, message: 'Invalid querystring parameters.' });
      });

      it('should filter hits by facets while aggregations ignore every facet filter', async () => {
        const all = (await search('')).body.aggregations;
        const res = await search('?access_status=metadata-only');
        expect(idsOf(res)).toEqual([ids.ocean]);
        expect(res.body.hits.total).toBe(1);
        const { access_status, ...rest } = res.body.aggregations;
        const { access_status: allAccess, ...allRest } = all;
        expect(rest).toEqual(allRest);
        expect(access_status.buckets.map((b: any) => [b.key, b.doc_count, b.is_selected])).toEqual([
          ['open', 2, false],
          ['metadata-only', 1, true],
        ]);
        expect(allAccess.buckets).toHaveLength(2);
        expect(res.body.links.self).toBe(`${API}/records?access_status=metadata-only&page=1&size=25&sort=mostrecent`);
      });

      it.each([
        ['file_type=pdf', ['romans']],
        ['file_type=pdf&file_type=csv', ['temples', 'romans']],
        ['resource_types=image', ['romans']],
        ['resource_types=image::image-photo', ['romans']],
        ['resource_types=image::image-other', []],
        ['resource_types=image-photo', ['romans']],
        ['resource_type=dataset', ['ocean']],
        ['resource_types=dataset&resource_types=publication', ['temples', 'ocean']],
        ['publication_date=2021--2021', ['temples', 'ocean']],
        ['publication_date=2019--2020', ['romans']],
        ['publication_date=2019', ['romans']],
        ['publication_date=2020..', ['temples', 'ocean']],
        ['publication_date=..2020', ['romans']],
        ['publication_date=[2019..2021)', ['romans']],
        ['publication_date=2021-03', ['temples', 'ocean']],
        ['publication_date=2021-03-15', ['temples', 'ocean']],
        ['publication_date=2021-04', ['ocean']],
        ['publication_date=2019&publication_date=2021-04', ['ocean', 'romans']],
        ['access_status=open&file_type=csv', ['temples']],
        ['access_status=nothing', []],
      ])('should filter %s', async (qs, expected) => {
        const res = await search(`?${qs.replace(/\[/g, '%5B').replace(/\)/g, '%29')}`);
        expect(res.status).toBe(200);
        expect(idsOf(res)).toEqual(expected.map((n) => ids[n]));
        expect(res.body.hits.total).toBe(expected.length);
      });

      it('should mark selected buckets, inner buckets included', async () => {
        const res = await search('?resource_types=image::image-photo&publication_date=2021&file_type=pdf');
        const rt = res.body.aggregations.resource_types.buckets;
        expect(rt.find((b: any) => b.key === 'image').is_selected).toBe(false);
        expect(rt.find((b: any) => b.key === 'image').inner.buckets[0].is_selected).toBe(true);
        expect(res.body.aggregations.publication_date.buckets.find((b: any) => b.key === '2021').is_selected).toBe(true);
        expect(res.body.aggregations.file_type.buckets.find((b: any) => b.key === 'pdf').is_selected).toBe(true);
        const typeOnly = await search('?resource_types=image');
        expect(typeOnly.body.aggregations.resource_types.buckets.find((b: any) => b.key === 'image').is_selected).toBe(true);
      });

      it('should answer 400 to an invalid publication_date filter', async () => {
        const res = await search('?publication_date=last-year');
        expect(res.status).toBe(400);
        expect(res.body.errors[0].field).toBe('publication_date');
      });

      it('should paginate: page 2 of size 1 is the second record, with prev and next links', async () => {
        const res = await search('?size=1&page=2');
        expect(idsOf(res)).toEqual([ids.ocean]);
        expect(res.body.hits.total).toBe(3);
        expect(res.body.links).toEqual({
          self: `${API}/records?page=2&size=1&sort=mostrecent`,
          prev: `${API}/records?page=1&size=1&sort=mostrecent`,
          next: `${API}/records?page=3&size=1&sort=mostrecent`,
        });
        const last = await search('?size=1&page=3');
        expect(idsOf(last)).toEqual([ids.romans]);
        expect(last.body.links.next).toBeUndefined();
        const beyond = await search('?size=1&page=4');
        expect(beyond.body.hits.hits).toEqual([]);
        expect(beyond.body.hits.total).toBe(3);
      });

      it('should show a restricted record only to its owner, grantees and administrators; drafts never', async () => {
        expect(idsOf(await search('?q=secret'))).toEqual([]);
        expect(idsOf(await search('?q=secret', ALICE))).toEqual([]);
        expect(idsOf(await search('?q=secret', BOB))).toEqual([ids.secret]);
        expect(idsOf(await search('?q=secret', ADMIN, ['admin']))).toEqual([ids.secret]);
        expect((await search('', BOB)).body.hits.total).toBe(4);
        expect((await search('', BOB)).body.aggregations.access_status.buckets).toContainEqual({
          key: 'restricted',
          doc_count: 1,
          label: 'Restricted',
          is_selected: false,
        });
        // A grant on the parent (written by the access feature) opens it to the grantee.
        await env.db.raw(`UPDATE search_docs SET doc = jsonb_set(doc, '{parent,access,grants}', ?::jsonb) WHERE parent_id = ?`, [
          JSON.stringify([{ subject: { type: 'user', id: CAROL }, permission: 'view', origin: 'api' }]),
          parents.secret,
        ]);
        await env.syncSearch([parents.secret]);
        expect(idsOf(await search('?q=secret', CAROL))).toEqual([ids.secret]);
        expect(idsOf(await search('?q=secret', ALICE))).toEqual([]);
        // The unpublished draft is never a search hit, not even for its owner.
        for (const who of [null, ALICE, BOB]) expect(idsOf(await search('?q=unfinished', who))).toEqual([]);
        expect(idsOf(await search('?q=unfinished', ADMIN, ['admin']))).toEqual([]);
      });
    });

    describe('versions and read-your-writes', () => {
      let v2: string;

      it('should list only latest versions unless allversions=true', async () => {
        const nv = await env.request.post(`/api/records/${ids.ocean}/versions`).set(as(ALICE));
        expect(nv.status).toBe(201);
        v2 = nv.body.id;
        const md = { ...nv.body.metadata, title: 'Ocean temperature series, second edition' };
        const put = await env.request
          .put(`/api/records/${v2}/draft`)
          .set(as(ALICE))
          .send({ access: nv.body.access, files: { enabled: false }, metadata: md });
        expect(put.status).toBe(200);
        // The new-version draft is visible to its writer at once, in the same transaction's search docs.
        const mine = await env.request.get('/api/user/records?q=edition').set(as(ALICE));
        expect(idsOf(mine)).toEqual([v2]);
        const pub = await env.request.post(`/api/records/${v2}/draft/actions/publish`).set(as(ALICE));
        expect(pub.status).toBe(202);
        // Read-your-writes: the published version is found by the next search, no indexing delay.
        expect(idsOf(await search('?q=edition'))).toEqual([v2]);
        expect(idsOf(await search('?q=ocean'))).toEqual([v2]);
        const all = await search('?q=ocean&allversions=true&sort=version');
        expect(idsOf(all)).toEqual([v2, ids.ocean]);
        expect(all.body.links.self).toBe(`${API}/records?allversions=true&page=1&q=ocean&size=25&sort=version`);
      });

      it('should count and list a record in the very next search after its publish, facet cache warm or not', async () => {
        const before = await search('');
        await search('');
        const res = await env.request
          .post('/api/records')
          .set(as(CAROL))
          .send({
            access: { record: 'public', files: 'public' },
            files: { enabled: false },
            metadata: metadata({ title: 'Yak herding notes', rt: 'dataset', date: '2024', family: 'Herder' }),
          });
        const pub = await env.request.post(`/api/records/${res.body.id}/draft/actions/publish`).set(as(CAROL));
        expect(pub.status).toBe(202);
        const after = await search('');
        expect(after.body.hits.total).toBe(before.body.hits.total + 1);
        expect(idsOf(after)[0]).toBe(res.body.id);
        expect((await search('?resource_types=dataset')).body.hits.hits.map((h: any) => h.id)).toContain(res.body.id);
      });

      it('should find a just-created draft in /api/user/records and a just-published record in /api/records', async () => {
        const res = await env.request
          .post('/api/records')
          .set(as(CAROL))
          .send({
            access: { record: 'public', files: 'public' },
            files: { enabled: false },
            metadata: metadata({ title: 'Zebra migrations', rt: 'dataset', date: '2024', family: 'Stripe' }),
          });
        const id = res.body.id;
        expect(idsOf(await env.request.get('/api/user/records?q=zebra').set(as(CAROL)))).toEqual([id]);
        expect(idsOf(await search('?q=zebra'))).toEqual([]);
        await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(CAROL));
        expect(idsOf(await search('?q=zebra'))).toEqual([id]);
      });
    });

    describe('GET /api/user/records', () => {
      const mine = (query: string, user: string | null = ALICE) => env.request.get(`/api/user/records${query}`).set(as(user));

      it('should answer 403 Permission denied. to anonymous callers', async () => {
        const res = await mine('', null);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ status: 403, message: 'Permission denied.' });
      });

      it("should list the caller's drafts and records, latest draft per parent, updated first", async () => {
        const res = await mine('');
        expect(res.status).toBe(200);
        expect(res.body.sortBy).toBe('updated-desc');
        // ocean v1 is not the latest of its parent; the draft is listed.
        expect(new Set(idsOf(res))).toEqual(new Set([ids.romans, ids.draft, (await search('?q=edition')).body.hits.hits[0].id]));
        expect(res.body.hits.total).toBe(3);
        expect(res.body.links.self).toBe(`${API}/user/records?page=1&size=25&sort=updated-desc`);
        const draft = res.body.hits.hits.find((h: any) => h.id === ids.draft);
        expect(draft).toMatchObject({ is_draft: true, is_published: false, status: 'draft' });
        expect(draft.links.self).toBe(`${API}/records/${ids.draft}/draft`);
        expect(draft.versions.is_latest_draft).toBe(true);
        expect(Object.keys(res.body.aggregations).sort()).toEqual([
          'access_status',
          'file_type',
          'is_published',
          'publication_date',
          'resource_type',
          'resource_types',
        ]);
        expect(res.body.aggregations.is_published).toEqual({
          label: 'Status',
          buckets: [
            { key: 'true', doc_count: 2, label: 'Published', is_selected: false },
            { key: 'false', doc_count: 1, label: 'Unpublished', is_selected: false },
          ],
        });
      });

      it('should filter by is_published (false lists drafts) and keep it in the links', async () => {
        const drafts = await mine('?is_published=false');
        expect(idsOf(drafts)).toEqual([ids.draft]);
        expect(drafts.body.links.self).toBe(`${API}/user/records?is_published=false&page=1&size=25&sort=updated-desc`);
        expect(drafts.body.aggregations.is_published.buckets.find((b: any) => b.key === 'false').is_selected).toBe(true);
        expect((await mine('?is_published=true')).body.hits.total).toBe(2);
        expect((await mine('?is_published=perhaps')).status).toBe(400);
      });

      it('should list an edited record once, as its edit draft', async () => {
        const edit = await env.request.post(`/api/records/${ids.romans}/draft`).set(as(ALICE));
        expect(edit.status).toBe(201);
        const res = await mine('?q=romans');
        expect(res.body.hits.total).toBe(1);
        expect(res.body.hits.hits[0]).toMatchObject({ id: ids.romans, is_draft: true, is_published: true });
        // The published record is still what everyone else finds.
        expect((await search('?q=romans')).body.hits.hits[0]).toMatchObject({ id: ids.romans, is_draft: false });
      });

      it("should never show other users' items; shared_with_me=true lists only shared items", async () => {
        expect(idsOf(await mine('?q=temples'))).toEqual([]);
        expect(idsOf(await mine('?q=secret', CAROL))).toEqual([]);
        expect((await mine('?shared_with_me=true')).body.hits.total).toBe(0);
        expect((await mine('?shared_with_me=false')).body.hits.total).toBe(3);
        // A preview grant shares an item; a view grant does not.
        await env.db.raw(`UPDATE search_docs SET doc = jsonb_set(doc, '{parent,access,grants}', ?::jsonb) WHERE parent_id = ?`, [
          JSON.stringify([{ subject: { type: 'user', id: ALICE }, permission: 'preview', origin: 'api' }]),
          parents.temples,
        ]);
        await env.syncSearch([parents.temples]);
        const shared = await mine('?shared_with_me=true');
        expect(idsOf(shared)).toEqual([ids.temples]);
        expect(shared.body.links.self).toBe(`${API}/user/records?page=1&shared_with_me=true&size=25&sort=updated-desc`);
        expect((await mine('')).body.hits.total).toBe(4);
        expect(idsOf(await mine('?q=secret', CAROL))).toEqual([]);
      });

      it('should accept the sorts of the caller’s records and refuse unknown ones', async () => {
        for (const s of ['bestmatch', 'updated-desc', 'updated-asc', 'newest', 'oldest', 'version']) {
          const res = await mine(`?q=ocean&sort=${s}`);
          expect(res.status, s).toBe(200);
          expect(res.body.sortBy).toBe(s);
        }
        expect((await mine('?sort=title')).status).toBe(400);
      });
    });

    describe('ranking and folding', () => {
      it('should rank by bestmatch: more occurrences of the terms first', async () => {
        const mk = (title: string) =>
          env.request
            .post('/api/records')
            .set(as(CAROL))
            .send({
              access: { record: 'public', files: 'public' },
              files: { enabled: false },
              metadata: metadata({ title, rt: 'dataset', date: '2020', family: 'Ranker' }),
            })
            .then(async (r) => {
              await env.request.post(`/api/records/${r.body.id}/draft/actions/publish`).set(as(CAROL));
              return r.body.id as string;
            });
        const once = await mk('Walrus colony survey');
        const twice = await mk('Walrus walrus: a walrus census');
        const res = await search('?q=walrus');
        expect(res.body.sortBy).toBe('bestmatch');
        expect(idsOf(res)).toEqual([twice, once]);
        expect(idsOf(await search('?q=walrus&sort=oldest'))).toEqual([once, twice]);
      });

      it('should fold in SQL (rdm_fold) exactly as foldText does in JS', async () => {
        const samples = [
          'Römäns',
          'ÉCOLE Polytechnique',
          'Straße',
          'Ærø Łódź Œuvre Đorđe þorn',
          'İstanbul',
          'São Paulo – Ñandú',
          'naïve café',
          'ĳssel',
        ];
        for (const s of samples) {
          const r = await env.db.raw('SELECT rdm_fold(?) AS f', [s]);
          expect(r.rows[0].f, s).toBe(foldText(s));
        }
      });
    });

    describe('GET /api/communities/<id>/records', () => {
      it('should list the records of a community (none until communities exist) with community links', async () => {
        env.fakeCommunities.add(community('my-community', { id: 'c0ffee00-0000-4000-8000-000000000001' }));
        expect((await env.request.get('/api/communities/unknown-community/records')).status).toBe(404);
        const res = await env.request.get('/api/communities/my-community/records');
        expect(res.status).toBe(200);
        expect(res.body.hits).toEqual({ hits: [], total: 0 });
        expect(res.body.links.self).toBe(`${API}/communities/my-community/records?page=1&size=25&sort=mostrecent`);
        await env.db.raw(
          `UPDATE search_docs SET doc = jsonb_set(doc, '{parent,communities}', ?::jsonb), community_ids = ?::text[] WHERE parent_id = ?`,
          [
            JSON.stringify({ ids: ['c0ffee00-0000-4000-8000-000000000001'], default: 'c0ffee00-0000-4000-8000-000000000001' }),
            ['c0ffee00-0000-4000-8000-000000000001'],
            parents.temples,
          ],
        );
        await env.syncSearch([parents.temples]);
        const hit = await env.request.get('/api/communities/c0ffee00-0000-4000-8000-000000000001/records?q=greek');
        expect(idsOf(hit)).toEqual([ids.temples]);
        expect(hit.body.aggregations.access_status.buckets).toEqual([{ key: 'open', doc_count: 1, label: 'Open', is_selected: false }]);
        // A q the parser cannot read falls back to its words: none here, so nothing matches (InvenioRDM: 200).
        const unreadable = await env.request.get('/api/communities/c0ffee00-0000-4000-8000-000000000001/records?q=(');
        expect([unreadable.status, unreadable.body.hits.total]).toEqual([200, 0]);
      });
    });
  });
}
