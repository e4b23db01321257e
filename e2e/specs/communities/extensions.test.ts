/**
 * Community schema extensions (the spec's three read endpoints and the write call designed for
 * them) and featured communities, through the gateway.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { makeCommunity } from './support.js';

const SCHEMA = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  type: 'object',
  properties: { 'ocean:depth': { type: 'number', minimum: 0 }, 'ocean:vessel': { type: 'string' } },
  required: ['ocean:depth'],
  additionalProperties: false,
};

describe('community schema extensions and featured communities', () => {
  let admin: TestUser;
  let user: TestUser;
  let c: any;

  beforeAll(async () => {
    [admin, user] = await Promise.all([
      createUser({ email: uniqueEmail('ext-admin'), admin: true }),
      createUser({ email: uniqueEmail('ext-user') }),
    ]);
    c = await makeCommunity(admin.token, 'Ocean Extension Community');
  });

  it('PUT /api/community-schema-extension/<slug> registers versions; invalid schema 400; non-owner 403', async () => {
    expect((await api(`/api/community-schema-extension/${c.slug}`, { method: 'PUT', token: user.token, body: SCHEMA })).status).toBe(403);
    const bad = await api(`/api/community-schema-extension/${c.slug}`, {
      method: 'PUT',
      token: admin.token,
      body: { type: 'object', properties: { x: { type: 'no-such-type' } } },
    });
    expect(bad.status).toBe(400);
    const v1 = await api(`/api/community-schema-extension/${c.slug}`, { method: 'PUT', token: admin.token, body: SCHEMA });
    expect([200, 201]).toContain(v1.status);
    const v2 = await api(`/api/community-schema-extension/${c.slug}`, {
      method: 'PUT',
      token: admin.token,
      body: { ...SCHEMA, properties: { ...SCHEMA.properties, 'ocean:cruise': { type: 'string' } } },
    });
    expect([200, 201]).toContain(v2.status);
  });

  it('GET …/<slug> gives {url, uuid} of the latest; the url serves {id, json_schema, version}', async () => {
    const latest = await api(`/api/community-schema-extension/${c.slug}`);
    expect(latest.status, latest.text).toBe(200);
    expect(Object.keys(latest.body).sort()).toEqual(['url', 'uuid']);
    expect(latest.body.url).toBe(`${baseUrl()}/api/community-schema-extension/schema/${latest.body.uuid}/jsonschema`);
    const doc = await api(latest.body.url);
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ id: latest.body.uuid, version: 2 });
    expect(doc.body.json_schema.properties['ocean:cruise']).toEqual({ type: 'string' });
    expect((await api('/api/community-schema-extension/no-such-community-zz')).status).toBe(404);
    expect((await api('/api/community-schema-extension/schema/00000000-0000-4000-8000-000000000000/jsonschema')).status).toBe(404);
  });

  it('GET /api/community-schema-extension lists every registration', async () => {
    const list = await api('/api/community-schema-extension');
    expect(list.status).toBe(200);
    // One entry per community: its latest registration.
    const mine = list.body.filter((e: any) => e.community_id === c.id);
    expect(mine.map((e: any) => e.community_schema_version)).toEqual([2]);
    for (const e of mine) {
      expect(e).toEqual({
        community_id: c.id,
        community_schema_version: expect.any(Number),
        community_slug: c.slug,
        schema_id: expect.any(String),
        section: expect.anything(),
      });
    }
  });

  it('featured: administrators feature a community, anyone lists it; owners who are not admins 403', async () => {
    const owner = await createUser({ email: uniqueEmail('ext-owner') });
    const denied = await api(`/api/communities/${c.id}/featured`, {
      method: 'POST',
      token: owner.token,
      body: { start_date: new Date().toISOString() },
    });
    expect(denied.status).toBe(403);
    const bad = await api(`/api/communities/${c.id}/featured`, { method: 'POST', token: admin.token, body: {} });
    expect(bad.status).toBe(400);
    const f = await api(`/api/communities/${c.id}/featured`, {
      method: 'POST',
      token: admin.token,
      body: { start_date: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(f.status, f.text).toBe(201);
    const list = await api('/api/communities/featured?size=100');
    expect(list.status).toBe(200);
    expect(list.body.hits.hits.map((h: any) => h.id)).toContain(c.id);
    const del = await api(`/api/communities/${c.id}/featured/${f.body.id}`, { method: 'DELETE', token: admin.token });
    expect(del.status).toBe(204);
    const after = await api('/api/communities/featured?size=100');
    expect(after.body.hits.hits.map((h: any) => h.id)).not.toContain(c.id);
  });
});
