/** Communities over real PostgreSQL and NATS: CRUD, rename, delete/restore, search, featured, logo, schema extensions, RPC. */
import { callRpc, RpcError } from '@rdm/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, BASE, communityBody, type Harness, startHarness } from './support.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

let h: Harness;
let app: Harness['sut']['app'];
const api = () => request(gatewayFront(app.callback(), SECRET));

beforeAll(async () => {
  h = await startHarness({ COMMUNITIES_LOGO_MAX_BYTES: 1000 });
  app = h.sut.app;
});
afterAll(async () => h?.stop());

async function create(slug: string, extra: Record<string, unknown> = {}, roles = true) {
  const res = await api().post('/api/communities').set(ADMIN).send(communityBody(slug, extra));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  if (roles) await h.seed(res.body.id, { 2: 'owner', 3: 'manager', 4: 'curator', 5: 'reader' });
  return res.body;
}

describe('POST /api/communities', () => {
  it('should create a community with the spec shape, statistics and the creator as hidden owner', async () => {
    const res = await api()
      .post('/api/communities')
      .set(ADMIN)
      .send({
        slug: 'Ocean-Data',
        id: 'ignored',
        metadata: {
          title: 'Ocean data',
          description: 'Sea things',
          type: { id: 'project' },
          website: 'https://ocean.example.org',
          curation_policy: '<p>ok</p><script>alert(1)</script>',
          organizations: [{ id: '01ggx4157' }, { name: 'Free Org' }],
          funding: [{ funder: { id: '00k4n6c32' }, award: { id: '00k4n6c32::755021' } }],
        },
        access: { visibility: 'public', member_policy: 'open', record_policy: 'closed' },
      });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const c = res.body;
    expect(c.slug).toBe('ocean-data');
    expect(c.access).toEqual({
      visibility: 'public',
      members_visibility: 'public',
      member_policy: 'open',
      record_submission_policy: 'closed',
      review_policy: 'closed',
      record_restricted_policy: 'restricted',
    });
    expect(c.metadata.type).toEqual({ id: 'project', title: { en: 'Project' } });
    expect(c.metadata.curation_policy).toBe('<p>ok</p>');
    expect(c.metadata.organizations).toEqual([
      { id: '01ggx4157', name: 'CERN', identifiers: [{ identifier: '01ggx4157', scheme: 'ror' }] },
      { name: 'Free Org' },
    ]);
    expect(c.metadata.funding[0]).toMatchObject({
      funder: { id: '00k4n6c32', name: 'European Commission' },
      award: { id: '00k4n6c32::755021', number: '755021', acronym: 'PT' },
    });
    expect(c.statistics).toEqual({ records: 0, files: 0, file_size: 0, record_views: 0, record_downloads: 0 });
    expect(c.deletion_status).toEqual({ is_deleted: false, status: 'P' });
    expect(c.children).toEqual({ allow: false });
    expect(c.revision_id).toBe(1);
    expect(c.links).toMatchObject({
      self: `${BASE}/api/communities/${c.id}`,
      self_html: `${BASE}/communities/ocean-data`,
      logo: `${BASE}/api/communities/${c.id}/logo`,
      public_members: `${BASE}/api/communities/${c.id}/members/public`,
      membership_requests: `${BASE}/api/communities/${c.id}/membership-requests`,
    });
    const owner = await h.db.db('members').where({ community_id: c.id }).first();
    expect(owner).toMatchObject({ member_id: '1', role: 'owner', visible: false, active: true, name: 'Ada Admin' });
    const events = await h.db.db('outbox').orderBy('seq').select('subject', 'payload');
    expect(events.map((e) => e.subject).slice(-2)).toEqual(['rdm.communities.community.created', 'rdm.communities.member.added']);
  });

  it('should refuse anonymous and (COMMUNITY_CREATORS=admins) non-admin users with 403, and let users create with COMMUNITY_CREATORS=users', async () => {
    expect((await api().post('/api/communities').send(communityBody('anon'))).status).toBe(403);
    const denied = await api().post('/api/communities').set(as('6')).send(communityBody('user-made'));
    expect(denied.body).toEqual({ status: 403, message: 'Permission denied.' });
    const open = h.appWith({ COMMUNITY_CREATORS: 'users' }).app;
    const res = await request(gatewayFront(open.callback(), SECRET)).post('/api/communities').set(as('6')).send(communityBody('user-made'));
    expect(res.status).toBe(201);
    expect(await h.db.db('members').where({ community_id: res.body.id }).first()).toMatchObject({ member_id: '6', role: 'owner' });
  });

  it('should answer every validation error at once with InvenioRDM messages', async () => {
    const res = await api()
      .post('/api/communities')
      .set(ADMIN)
      .send({
        slug: 'bad slug!',
        metadata: { description: 'x'.repeat(251), type: { id: 'nope' }, website: 'not a url' },
        access: { visibility: 'secret' },
      });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('A validation error occurred.');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'slug', messages: ['The identifier should contain only letters, numbers, or dashes.'] },
        { field: 'metadata.title', messages: ['Missing data for required field.'] },
        { field: 'metadata.description', messages: ['Field cannot be blank or longer than 250 characters.'] },
        { field: 'metadata.website', messages: ['Not a valid URL.'] },
        { field: 'access.visibility', messages: ['Must be one of: public, restricted.'] },
        { field: 'metadata.type', messages: ['Invalid value nope.'] },
      ]),
    );
    const uuid = await api().post('/api/communities').set(ADMIN).send(communityBody('9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d'));
    expect(uuid.body.errors).toEqual([{ field: 'slug', messages: ['The ID must not be an Universally Unique IDentifier (UUID).'] }]);
    await create('taken', {}, false);
    const dup = await api().post('/api/communities').set(ADMIN).send(communityBody('TAKEN'));
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([{ field: 'slug', messages: ['A community with this identifier already exists.'] }]);
    const notJson = await api().post('/api/communities').set(ADMIN).set('content-type', 'application/json').send('{');
    expect(notJson.body).toEqual({ status: 400, message: 'Unable to decode JSON data in request body.' });
  });
});

describe('GET /api/communities/<id or slug>', () => {
  it('should read by id and by slug; 404 for unknown; restricted only for members', async () => {
    const c = await create('readable');
    expect((await api().get(`/api/communities/${c.id}`)).body.slug).toBe('readable');
    expect((await api().get('/api/communities/READABLE')).body.id).toBe(c.id);
    const unknown = await api().get('/api/communities/no-such-thing');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ status: 404, message: 'The persistent identifier does not exist.' });
    const r = await create('hidden-one', { access: { visibility: 'restricted' } });
    expect((await api().get(`/api/communities/${r.id}`)).status).toBe(403);
    expect((await api().get(`/api/communities/${r.id}`).set(as('6'))).status).toBe(403);
    const asReader = await api().get(`/api/communities/${r.id}`).set(as('5'));
    expect(asReader.status).toBe(200);
    expect(asReader.body.statistics.records).toBe(0);
  });
});

describe('community statistics: record_views and record_downloads', () => {
  it("should show the usage totals records counts for the community's records, and 0 while records cannot say", async () => {
    const c = await create('viewed');
    h.usage.set(c.id, { views: 42, downloads: 7 });
    const res = await api().get(`/api/communities/${c.id}`).set(as('2'));
    expect(res.status).toBe(200);
    expect(res.body.statistics).toMatchObject({ record_views: 42, record_downloads: 7 });
    // Records gone (the client's 503): the read still answers, with zeros.
    const gone = { communityUsage: () => Promise.reject(new RpcError('rdm.records.rpc.community-usage')) };
    const { app: without } = h.appWith({}, { usage: gone });
    const down = await request(gatewayFront(without.callback(), SECRET)).get(`/api/communities/${c.id}`).set(as('2'));
    expect(down.status).toBe(200);
    expect(down.body.statistics).toMatchObject({ record_views: 0, record_downloads: 0 });
  });
});

describe('PUT /api/communities/<id>', () => {
  it('should update (revision +1) for owners, check If-Match, refuse readers and slug changes', async () => {
    const c = await create('updatable');
    const body = { ...communityBody('updatable'), metadata: { title: 'New title', type: { id: 'event' } } };
    const res = await api().put(`/api/communities/${c.id}`).set(as('2')).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ revision_id: 2, metadata: { title: 'New title', type: { id: 'event', title: { en: 'Event' } } } });
    expect(res.body.statistics).toBeDefined();
    const stale = await api().put(`/api/communities/${c.id}`).set(as('2')).set('If-Match', '1').send(body);
    expect(stale.status).toBe(412);
    expect(stale.body.message).toBe("Revision id provided(1) doesn't match record's one(2)");
    expect((await api().put(`/api/communities/${c.id}`).set(as('2')).set('If-Match', '2').send(body)).body.revision_id).toBe(3);
    expect((await api().put(`/api/communities/${c.id}`).set(as('5')).send(body)).status).toBe(403);
    expect((await api().put(`/api/communities/${c.id}`).set(as('4')).send(body)).status).toBe(403);
    expect((await api().put(`/api/communities/${c.id}`).send(body)).status).toBe(403);
    const slug = await api()
      .put(`/api/communities/${c.id}`)
      .set(as('2'))
      .send({ ...body, slug: 'other' });
    expect(slug.body.errors).toEqual([{ field: 'slug', messages: ['The ID should be modified through the renaming URL instead.'] }]);
    const vis = await api()
      .put(`/api/communities/${c.id}`)
      .set(as('3'))
      .send({ ...body, access: { visibility: 'restricted' } });
    expect(vis.status).toBe(403);
    expect((await api().put('/api/communities/nope-nope').set(ADMIN).send(body)).status).toBe(404);
    expect(
      (
        await api()
          .put(`/api/communities/${c.id}`)
          .set(as('2'))
          .send({ slug: 'updatable', metadata: { title: '' } })
      ).status,
    ).toBe(400);
  });
});

describe('POST /api/communities/<id>/rename', () => {
  it('should rename and refuse the same, a missing or a taken slug', async () => {
    const c = await create('old-name');
    await create('other-name', {}, false);
    const res = await api().post(`/api/communities/${c.id}/rename`).set(as('2')).send({ slug: 'New-Name' });
    expect(res.status).toBe(200);
    expect(res.body.slug).toBe('new-name');
    expect(res.body.links.self_html).toBe(`${BASE}/communities/new-name`);
    const same = await api().post(`/api/communities/${c.id}/rename`).set(as('2')).send({ slug: 'new-name' });
    expect(same.body.errors).toEqual([{ field: 'slug', messages: ['A new ID value is required for the renaming.'] }]);
    expect((await api().post(`/api/communities/${c.id}/rename`).set(as('2')).send({})).body.errors).toEqual([
      { field: 'slug', messages: ['Missing data for required field.'] },
    ]);
    expect((await api().post(`/api/communities/${c.id}/rename`).set(as('2')).send({ slug: 'other-name' })).status).toBe(400);
    expect((await api().post(`/api/communities/${c.id}/rename`).set(as('5')).send({ slug: 'x-y' })).status).toBe(403);
  });
});

describe('community settings are owners only (issue 18, InvenioRDM can_update)', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(10, 7)]);

  it('should refuse a manager the update, rename and logo writes an owner may make', async () => {
    const c = await create('managed-settings');
    const body = { ...communityBody('managed-settings'), metadata: { title: 'By a manager', type: { id: 'event' } } };
    const denied = { status: 403, message: 'Permission denied.' };
    const put = await api().put(`/api/communities/${c.id}`).set(as('3')).send(body);
    expect(put.status).toBe(403);
    expect(put.body).toMatchObject(denied);
    expect((await api().post(`/api/communities/${c.id}/rename`).set(as('3')).send({ slug: 'by-a-manager' })).body).toMatchObject(denied);
    const logo = await api().put(`/api/communities/${c.id}/logo`).set(as('3')).set('content-type', 'application/octet-stream').send(png);
    expect(logo.body).toMatchObject(denied);
    // The owner's logo stays: a manager may not remove it either.
    expect(
      (await api().put(`/api/communities/${c.id}/logo`).set(as('2')).set('content-type', 'application/octet-stream').send(png)).status,
    ).toBe(200);
    expect((await api().delete(`/api/communities/${c.id}/logo`).set(as('3'))).body).toMatchObject(denied);
    const after = await api().get(`/api/communities/${c.id}`).set(as('2'));
    expect(after.body).toMatchObject({ slug: 'managed-settings', revision_id: 1, metadata: { title: 'Community managed-settings' } });
    expect((await api().get(`/api/communities/${c.id}/logo`)).status).toBe(200);
    expect((await api().delete(`/api/communities/${c.id}/logo`).set(as('2'))).status).toBe(204);
  });
});

describe('DELETE /api/communities/<id> and restore', () => {
  it('should be blocked by open requests, soft delete for owners, 410 afterwards, keep the slug, restore', async () => {
    const c = await create('doomed');
    h.open.set(c.id, 1);
    const blocked = await api().delete(`/api/communities/${c.id}`).set(as('2'));
    expect(blocked.status).toBe(400);
    expect(blocked.body.message).toBe('There is 1 request open for this community. Please, resolve it before deleting this community.');
    h.open.set(c.id, 3);
    expect((await api().delete(`/api/communities/${c.id}`).set(as('2'))).body.message).toBe(
      'There are 3 requests open for this community. Please, resolve them before deleting this community.',
    );
    h.open.set(c.id, 0);
    expect((await api().delete(`/api/communities/${c.id}`).set(as('3'))).status).toBe(403);
    expect((await api().delete(`/api/communities/${c.id}`).set(as('2'))).status).toBe(204);
    const gone = await api().get(`/api/communities/${c.id}`);
    expect(gone.status).toBe(410);
    expect(gone.body).toEqual({ status: 410, message: 'The record has been deleted.' });
    expect((await api().put(`/api/communities/${c.id}`).set(as('2')).send(communityBody('doomed'))).status).toBe(410);
    expect((await api().delete(`/api/communities/${c.id}`).set(as('2'))).status).toBe(410);
    expect((await api().post('/api/communities').set(ADMIN).send(communityBody('doomed'))).body.errors[0].field).toBe('slug');
    expect((await api().get('/api/communities?q=doomed')).body.hits.total).toBe(0);
    expect((await api().post(`/api/communities/${c.id}/restore`).set(as('5'))).status).toBe(403);
    const restored = await api().post(`/api/communities/${c.id}/restore`).set(as('2'));
    expect(restored.status).toBe(200);
    expect(restored.body.deletion_status).toEqual({ is_deleted: false, status: 'P' });
    const subjects = (await h.db.db('outbox').where('aggregate_id', c.id).orderBy('seq').select('subject')).map((r) => r.subject);
    expect(subjects).toEqual(expect.arrayContaining(['rdm.communities.community.deleted', 'rdm.communities.community.restored']));
  });
});

describe('GET /api/communities (search)', () => {
  it('should search with q, facets, sorts; hide restricted from non-members and deleted from everyone', async () => {
    await create('search-alpha', { metadata: { title: 'Alpha plankton', type: { id: 'project' } } });
    await create('search-beta', { metadata: { title: 'Beta plankton', type: { id: 'event' } }, access: { visibility: 'restricted' } });
    const anon = await api().get('/api/communities?q=plankton');
    expect(anon.body.hits.hits.map((c: { slug: string }) => c.slug)).toEqual(['search-alpha']);
    expect(anon.body.sortBy).toBe('bestmatch');
    expect(anon.body.hits.hits[0].statistics).toBeUndefined();
    const member = await api().get('/api/communities?q=plankton&sort=oldest').set(as('5'));
    expect(member.body.hits.hits.map((c: { slug: string }) => c.slug)).toEqual(['search-alpha', 'search-beta']);
    expect(member.body.aggregations.visibility.buckets).toEqual([
      { key: 'public', doc_count: 1, label: 'Public', is_selected: false },
      { key: 'restricted', doc_count: 1, label: 'Restricted', is_selected: false },
    ]);
    const typed = await api().get('/api/communities?q=plankton&type=event').set(as('5'));
    expect(typed.body.hits.total).toBe(1);
    expect(typed.body.aggregations.type.buckets).toEqual(
      expect.arrayContaining([
        { key: 'event', doc_count: 1, label: 'Event', is_selected: true },
        { key: 'project', doc_count: 1, label: 'Project', is_selected: false },
      ]),
    );
    expect(typed.body.links.self).toBe(`${BASE}/api/communities?page=1&q=plankton&size=25&sort=bestmatch&type=event`);
    expect((await api().get('/api/communities?q=metadata.type.id:event').set(ADMIN)).body.hits.total).toBeGreaterThanOrEqual(1);
    expect((await api().get('/api/communities')).body.sortBy).toBe('newest');
    expect((await api().get('/api/communities?sort=nope')).status).toBe(400);
    expect((await api().get('/api/communities?q=(unclosed')).body).toEqual({ status: 400, message: 'Invalid query string syntax.' });
  });

  it("should list the caller's communities at /api/user/communities and refuse anonymous", async () => {
    const mine = await api().get('/api/user/communities?size=100').set(as('4'));
    expect(mine.status).toBe(200);
    expect(mine.body.hits.total).toBeGreaterThan(0);
    expect((await api().get('/api/user/communities').set(as('7'))).body.hits.total).toBe(0);
    expect((await api().get('/api/user/communities')).status).toBe(403);
  });
});

describe('featured communities', () => {
  it('should let administrators feature a community and anyone list current featured ones', async () => {
    const c = await create('featured-one');
    expect((await api().post(`/api/communities/${c.id}/featured`).set(as('2')).send({ start_date: new Date().toISOString() })).status).toBe(
      403,
    );
    const f = await api().post(`/api/communities/${c.id}/featured`).set(ADMIN).send({ start_date: '2020-01-01T00:00:00Z' });
    expect(f.status).toBe(201);
    expect(f.body).toMatchObject({ id: expect.any(Number), start_date: '2020-01-01T00:00:00.000000+00:00' });
    const list = await api().get('/api/communities/featured');
    expect(list.body.hits.hits.map((x: { id: string }) => x.id)).toEqual([c.id]);
    expect((await api().get(`/api/communities/${c.id}/featured`).set(ADMIN)).body.hits.total).toBe(1);
    expect((await api().get(`/api/communities/${c.id}/featured`).set(as('2'))).status).toBe(403);
    const later = await api().put(`/api/communities/${c.id}/featured/${f.body.id}`).set(ADMIN).send({ start_date: '2999-01-01T00:00:00Z' });
    expect(later.status).toBe(200);
    expect((await api().get('/api/communities/featured')).body.hits.total).toBe(0);
    expect((await api().post(`/api/communities/${c.id}/featured`).set(ADMIN).send({ start_date: 'soon' })).status).toBe(400);
    expect((await api().delete(`/api/communities/${c.id}/featured/${f.body.id}`).set(ADMIN)).status).toBe(204);
    expect((await api().delete(`/api/communities/${c.id}/featured/${f.body.id}`).set(ADMIN)).status).toBe(404);
  });
});

describe('logo', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 7)]);

  it('should store, serve (sniffed type), replace and delete a logo; 404 without one', async () => {
    const c = await create('with-logo');
    expect((await api().get(`/api/communities/${c.id}/logo`)).body).toEqual({ status: 404, message: 'No logo exists for this community.' });
    const put = await api().put(`/api/communities/${c.id}/logo`).set(as('2')).set('content-type', 'application/octet-stream').send(png);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ size: png.length, mimetype: 'image/png', checksum: expect.stringMatching(/^md5:/) });
    const got = await api()
      .get(`/api/communities/${c.id}/logo`)
      .buffer(true)
      .parse((res, cb) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => cb(null, Buffer.concat(parts)));
      });
    expect(got.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(got.body as Buffer, png)).toBe(0);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect(
      (await api().put(`/api/communities/${c.id}/logo`).set(as('2')).set('content-type', 'application/octet-stream').send(svg)).body
        .mimetype,
    ).toBe('image/svg+xml');
    const keys: string[] = [];
    const { LocalStorage } = await import('@rdm/platform');
    for await (const k of new LocalStorage(h.storageDir).list('logos')) keys.push(k);
    expect(keys).toHaveLength(1);
    expect((await api().put(`/api/communities/${c.id}/logo`).set(as('5')).send(png)).status).toBe(403);
    expect((await api().delete(`/api/communities/${c.id}/logo`).set(as('2'))).status).toBe(204);
    expect((await api().delete(`/api/communities/${c.id}/logo`).set(as('2'))).status).toBe(404);
  });

  it('should refuse a logo over the limit by Content-Length and while streaming, keeping the previous one', async () => {
    const c = await create('big-logo');
    await api().put(`/api/communities/${c.id}/logo`).set(as('2')).set('content-type', 'application/octet-stream').send(png);
    const big = await api()
      .put(`/api/communities/${c.id}/logo`)
      .set(as('2'))
      .set('content-type', 'application/octet-stream')
      .send(Buffer.alloc(4_000_000));
    expect(big.status).toBe(400);
    expect(big.body.message).toBe('Logo size limit exceeded. Limit: 0.00 MB Given: 4.00 MB');
    // Chunked: no Content-Length, the limit is enforced on the stream.
    const req = api().put(`/api/communities/${c.id}/logo`).set(as('2')).set('content-type', 'application/octet-stream');
    req.write(Buffer.alloc(800));
    req.write(Buffer.alloc(800));
    const chunked = await req;
    expect(chunked.status).toBe(400);
    expect(chunked.body.message).toMatch(/^Logo size limit exceeded\. Limit: 0\.00 MB Given: more than/);
    const still = await api().get(`/api/communities/${c.id}/logo`);
    expect(still.headers['content-type']).toBe('image/png');
    const { LocalStorage } = await import('@rdm/platform');
    expect(await new LocalStorage(h.storageDir).partials()).toEqual([]);
  });
});

describe('community schema extensions', () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: 'Ocean fields',
    type: 'object',
    properties: { depth: { type: 'number', minimum: 0 }, vessel: { type: 'string' } },
    required: ['depth'],
    additionalProperties: false,
  };

  it('should register versions (owner or admin), serve the three reads and validate over RPC', async () => {
    const c = await create('ext-comm');
    expect((await api().put('/api/community-schema-extension/ext-comm').set(as('3')).send(schema)).status).toBe(403);
    const bad = await api()
      .put('/api/community-schema-extension/ext-comm')
      .set(as('2'))
      .send({ type: 'object', properties: { a: { type: 'nope' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.length).toBeGreaterThan(0);
    expect(
      (
        await api()
          .put('/api/community-schema-extension/ext-comm')
          .set(as('2'))
          .send({ ...schema, required: true })
      ).status,
    ).toBe(400);
    const v1 = await api().put('/api/community-schema-extension/ext-comm').set(as('2')).send(schema);
    expect(v1.status, JSON.stringify(v1.body)).toBe(200);
    expect(v1.body).toMatchObject({ community_id: c.id, community_schema_version: 1, community_slug: 'ext-comm', section: 'Ocean fields' });
    const v2 = await api()
      .put('/api/community-schema-extension/ext-comm')
      .set(ADMIN)
      .send({ ...schema, required: ['vessel'] });
    expect(v2.body.community_schema_version).toBe(2);
    const list = await api().get('/api/community-schema-extension');
    expect(list.body).toContainEqual({
      community_id: c.id,
      community_schema_version: 2,
      community_slug: 'ext-comm',
      schema_id: v2.body.schema_id,
      section: 'Ocean fields',
    });
    expect((await api().get('/api/community-schema-extension/ext-comm')).body).toEqual({
      url: `${BASE}/api/community-schema-extension/schema/${v2.body.schema_id}/jsonschema`,
      uuid: v2.body.schema_id,
    });
    const fetched = await api().get(`/api/community-schema-extension/schema/${v1.body.schema_id}/jsonschema`);
    expect(fetched.body).toEqual({ id: v1.body.schema_id, json_schema: schema, version: 1 });
    expect((await api().get('/api/community-schema-extension/schema/nope/jsonschema')).status).toBe(404);
    expect((await api().get('/api/community-schema-extension/unknown-slug')).status).toBe(404);

    const ok = await callRpc(h.nats.nc, 'rdm.communities.rpc.validate-extension', {
      schema_id: v1.body.schema_id,
      community_extension: { 'ext-comm:depth': 12 },
    });
    expect(ok).toEqual({ valid: true });
    const ko = await callRpc<{ valid: boolean; errors: { field: string }[] }>(h.nats.nc, 'rdm.communities.rpc.validate-extension', {
      schema_id: v1.body.schema_id,
      community_extension: { 'ext-comm:depth': -1, 'other:x': 1 },
    });
    expect(ko.valid).toBe(false);
    expect(ko.errors.map((e) => e.field).sort()).toEqual([
      'metadata.community_extension.ext-comm:depth',
      'metadata.community_extension.other:x',
    ]);
    expect(h.sut.extensions.cacheSize).toBe(1);
    await expect(
      callRpc(h.nats.nc, 'rdm.communities.rpc.validate-extension', { schema_id: 'nope', community_extension: {} }),
    ).rejects.toMatchObject({ status: 404 });
  });
});

describe('schema extensions of a restricted community (issue 18)', () => {
  const schema = { $schema: 'http://json-schema.org/draft-04/schema#', title: 'Secret fields', type: 'object' };

  it('should answer non-readers as for an unknown slug or schema and leave the community out of their list', async () => {
    const c = await create('secret-ext', { access: { visibility: 'restricted' } });
    const v1 = await api().put('/api/community-schema-extension/secret-ext').set(as('2')).send(schema);
    expect(v1.status, JSON.stringify(v1.body)).toBe(200);
    const unknownSlug = await api().get('/api/community-schema-extension/no-such-community');
    const unknownSchema = await api().get('/api/community-schema-extension/schema/00000000-0000-4000-8000-000000000000/jsonschema');
    expect(unknownSlug.status).toBe(404);
    for (const who of [{}, as('9')]) {
      const bySlug = await api().get('/api/community-schema-extension/secret-ext').set(who);
      expect(bySlug.status).toBe(404);
      expect(bySlug.body).toEqual(unknownSlug.body);
      const byId = await api().get(`/api/community-schema-extension/schema/${v1.body.schema_id}/jsonschema`).set(who);
      expect(byId.status).toBe(404);
      expect(byId.body).toEqual(unknownSchema.body);
      const list = await api().get('/api/community-schema-extension').set(who);
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain('secret-ext');
      expect(JSON.stringify(list.body)).not.toContain(c.id);
    }
    // Members (a reader is enough) and administrators still see it.
    for (const who of [as('5'), ADMIN]) {
      expect((await api().get('/api/community-schema-extension/secret-ext').set(who)).body.uuid).toBe(v1.body.schema_id);
      expect((await api().get(`/api/community-schema-extension/schema/${v1.body.schema_id}/jsonschema`).set(who)).status).toBe(200);
      expect((await api().get('/api/community-schema-extension').set(who)).body).toContainEqual(
        expect.objectContaining({ community_slug: 'secret-ext', schema_id: v1.body.schema_id, section: 'Secret fields' }),
      );
    }
  });

  it('should not serve the schemas of a deleted community by id', async () => {
    const c = await create('gone-ext');
    const v1 = await api().put('/api/community-schema-extension/gone-ext').set(as('2')).send(schema);
    expect((await api().delete(`/api/communities/${c.id}`).set(as('2'))).status).toBe(204);
    expect((await api().get(`/api/community-schema-extension/schema/${v1.body.schema_id}/jsonschema`).set(ADMIN)).status).toBe(404);
  });
});

describe('RPC rdm.communities.rpc.get / roles', () => {
  it('should answer summaries by id or slug and the active roles of a user', async () => {
    const c = await create('rpc-comm');
    const got = await callRpc<{ communities: Record<string, unknown>[] }>(h.nats.nc, 'rdm.communities.rpc.get', {
      ids: [c.id, 'rpc-comm', 'unknown'],
    });
    expect(got.communities).toEqual([
      {
        id: c.id,
        slug: 'rpc-comm',
        title: 'Community rpc-comm',
        visibility: 'public',
        members_visibility: 'public',
        member_policy: 'closed',
        record_submission_policy: 'open',
        review_policy: 'closed',
        is_deleted: false,
      },
    ]);
    const roles = await callRpc<{ roles: Record<string, string> }>(h.nats.nc, 'rdm.communities.rpc.roles', {
      user_id: '4',
      community_ids: [c.id],
    });
    expect(roles).toEqual({ roles: { [c.id]: 'curator' } });
    const allRoles = await callRpc<{ roles: Record<string, string> }>(h.nats.nc, 'rdm.communities.rpc.roles', { user_id: '2' });
    expect(allRoles.roles[c.id]).toBe('owner');
    await expect(callRpc(h.nats.nc, 'rdm.communities.rpc.roles', {})).rejects.toMatchObject({ status: 400 });
    // Owners (abuse reports are mailed to them): the creator (admin '1', a hidden owner) and the
    // seeded owner '2'; not the manager, curator or reader.
    const owners = await callRpc<{ owners: Record<string, string[]> }>(h.nats.nc, 'rdm.communities.rpc.owners', {
      community_ids: [c.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid'],
    });
    expect(owners).toEqual({ owners: { [c.id]: ['1', '2'] } });
    await expect(callRpc(h.nats.nc, 'rdm.communities.rpc.owners', {})).rejects.toMatchObject({ status: 400 });
  });
});

// Issue 19, item 6: `custom_fields` was always `{}` and `children` always `{allow: false}`,
// whatever a client sent. Custom fields are InvenioRDM's COMMUNITIES_CUSTOM_FIELDS (none by
// default: every key is `Unknown field.`); `children.allow` changes are the system's alone (403).
describe('custom_fields and children', () => {
  const CF = JSON.stringify([
    { name: 'ns:topic', type: 'keyword' },
    { name: 'ns:since', type: 'date' },
    { name: 'ns:tags', type: 'text', multiple: true, max_items: 3, max_length: 20 },
    { name: 'ns:org', type: 'vocabulary', vocabulary: 'communitytypes' },
    {
      name: 'ns:meeting',
      type: 'object',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'year', type: 'integer' },
      ],
    },
  ]);
  const withCf = () =>
    request(gatewayFront(h.appWith({ COMMUNITIES_CUSTOM_FIELDS: CF, COMMUNITIES_CUSTOM_FIELDS_MAX_BYTES: 2000 }).app.callback(), SECRET));
  const values = {
    'ns:topic': 'oceans',
    'ns:since': '2020-01-31',
    'ns:tags': ['salt', 'water'],
    'ns:org': { id: 'event', title: { en: 'ignored input title' } },
    'ns:meeting': { title: 'Kick-off', year: 2024 },
  };

  it('should store, return and replace the configured custom fields (dereferencing vocabulary entries)', async () => {
    const res = await withCf()
      .post('/api/communities')
      .set(ADMIN)
      .send({ ...communityBody('cf-store'), custom_fields: values });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const stored = { ...values, 'ns:org': { id: 'event', title: { en: 'Event' } } };
    expect(res.body.custom_fields).toEqual(stored);
    expect((await withCf().get(`/api/communities/${res.body.id}`)).body.custom_fields).toEqual(stored);
    const hits = (await withCf().get('/api/communities?q=slug:cf-store')).body.hits.hits;
    expect(hits.map((c: { custom_fields: unknown }) => c.custom_fields)).toEqual([stored]);
    const put = await withCf()
      .put(`/api/communities/${res.body.id}`)
      .set(ADMIN)
      .send({ ...communityBody('cf-store'), custom_fields: { 'ns:topic': 'rivers' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.custom_fields).toEqual({ 'ns:topic': 'rivers' });
    // An update is a replace, as InvenioRDM's (its schema defaults `custom_fields` to `{}`).
    const cleared = await withCf().put(`/api/communities/${res.body.id}`).set(ADMIN).send(communityBody('cf-store'));
    expect(cleared.body.custom_fields).toEqual({});
  });

  it('should refuse unknown keys, bad values and oversized sections with field errors (nothing stored)', async () => {
    const bad = await withCf()
      .post('/api/communities')
      .set(ADMIN)
      .send({
        ...communityBody('cf-bad'),
        custom_fields: {
          'ns:nope': 1,
          'ns:since': '2020-13-01',
          'ns:tags': ['a', 'b', 'c', 'd'],
          'ns:topic': 5,
          'ns:org': { id: 'no-such-type' },
          'ns:meeting': { year: 'soon', extra: 1 },
        },
      });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'custom_fields.ns:nope', messages: ['Unknown field.'] },
        { field: 'custom_fields.ns:since', messages: ['Not a valid date.'] },
        { field: 'custom_fields.ns:tags', messages: ['Longer than maximum length 3.'] },
        { field: 'custom_fields.ns:topic', messages: ['Not a valid string.'] },
        { field: 'custom_fields.ns:meeting.year', messages: ['Not a valid integer.'] },
        { field: 'custom_fields.ns:meeting.extra', messages: ['Unknown field.'] },
      ]),
    );
    const vocab = await withCf()
      .post('/api/communities')
      .set(ADMIN)
      .send({ ...communityBody('cf-bad'), custom_fields: { 'ns:org': { id: 'no-such-type' } } });
    expect(vocab.body.errors).toEqual([{ field: 'custom_fields.ns:org', messages: ['Invalid value no-such-type.'] }]);
    const type = await withCf()
      .post('/api/communities')
      .set(ADMIN)
      .send({ ...communityBody('cf-bad'), custom_fields: ['x'] });
    expect(type.body.errors).toEqual([{ field: 'custom_fields', messages: ['Invalid input type.'] }]);
    const big = await withCf()
      .post('/api/communities')
      .set(ADMIN)
      .send({ ...communityBody('cf-bad'), custom_fields: { 'ns:topic': 'x'.repeat(3000) } });
    expect(big.body.errors).toEqual([{ field: 'custom_fields', messages: ['Custom fields larger than 2000 bytes.'] }]);
    expect(await h.db.db('communities').where({ slug: 'cf-bad' })).toHaveLength(0);
  });

  it('should accept only `{}` when no custom field is configured (InvenioRDM default) and refuse a bad definition at start', async () => {
    const none = await api()
      .post('/api/communities')
      .set(ADMIN)
      .send({ ...communityBody('cf-none'), custom_fields: { a: 1 } });
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual([{ field: 'custom_fields.a', messages: ['Unknown field.'] }]);
    const empty = await api()
      .post('/api/communities')
      .set(ADMIN)
      .send({ ...communityBody('cf-none'), custom_fields: {} });
    expect(empty.status).toBe(201);
    expect(empty.body.custom_fields).toEqual({});
    expect(() => h.appWith({ COMMUNITIES_CUSTOM_FIELDS: '[{"name": "ns:when", "type": "edtf"}]' })).toThrow(
      /COMMUNITIES_CUSTOM_FIELDS\[0\]: type edtf is not supported/,
    );
  });

  it('should refuse a change of children.allow (system only, as InvenioRDM) and accept the unchanged value', async () => {
    const yes = await api()
      .post('/api/communities')
      .set(ADMIN)
      .send({ ...communityBody('kids'), children: { allow: true } });
    expect(yes.status).toBe(403);
    expect(yes.body).toEqual({ status: 403, message: 'Permission denied.' });
    expect(
      (
        await api()
          .post('/api/communities')
          .set(ADMIN)
          .send({ ...communityBody('kids'), children: { allow: 'yes' } })
      ).body.errors,
    ).toEqual([{ field: 'children.allow', messages: ['Not a valid boolean.'] }]);
    const c = await api()
      .post('/api/communities')
      .set(ADMIN)
      .send({ ...communityBody('kids'), children: { allow: false } });
    expect(c.status).toBe(201);
    expect(c.body.children).toEqual({ allow: false });
    const put = await api()
      .put(`/api/communities/${c.body.id}`)
      .set(ADMIN)
      .send({ ...communityBody('kids'), children: { allow: true } });
    expect(put.status).toBe(403);
    expect((await api().get(`/api/communities/${c.body.id}`)).body.children).toEqual({ allow: false });
  });
});
