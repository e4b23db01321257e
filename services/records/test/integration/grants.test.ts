/**
 * Access grants (`…/access/grants`, `…/access/users`) and parent access settings (`…/access`):
 * CRUD, errors, permissions, the levels they give over record, draft, files and search.
 */
import { isAppError } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '601';
const GRANTEE = '602';
const OTHER = '603';

describe('record access grants and settings', () => {
  let env: Env;
  const restricted = async (): Promise<string> => {
    const d = (
      await env.request
        .post('/api/records')
        .set(as(OWNER))
        .send({ metadata: fullMetadata(), access: { record: 'restricted', files: 'restricted' } })
    ).body;
    env.files.addFile(d.id, 'a.txt');
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    return d.id as string;
  };
  const files = async (id: string, scope: string, sub: string): Promise<number> => {
    try {
      await env.rpc('rdm.records.rpc.authorize-files', { record_id: id, scope, action: 'read', identity: { sub, roles: [] } });
      return 200;
    } catch (err) {
      if (isAppError(err)) return err.status;
      throw err;
    }
  };
  const grant = (id: string, user: string, permission: string) =>
    env.request
      .post(`/api/records/${id}/access/users`)
      .set(as(OWNER))
      .send({ grants: [{ subject: { type: 'user', id: user }, permission }] });

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should grant preview to a user: record, draft, files, shared_with_me; revoked at once', async () => {
    const id = await restricted();
    expect((await env.request.get(`/api/records/${id}`).set(as(GRANTEE))).status).toBe(403);
    const created = await grant(id, GRANTEE, 'preview');
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      hits: { hits: [{ id: GRANTEE, subject: { type: 'user', id: GRANTEE }, permission: 'preview' }], total: 1 },
    });
    expect((await env.request.get(`/api/records/${id}`).set(as(GRANTEE))).status).toBe(200);
    expect(await files(id, 'record', GRANTEE)).toBe(200);
    await env.request.post(`/api/records/${id}/draft`).set(as(OWNER)).expect(201);
    expect((await env.request.get(`/api/records/${id}/draft`).set(as(GRANTEE))).status).toBe(200);
    expect(await files(id, 'draft', GRANTEE)).toBe(200);
    expect((await env.request.put(`/api/records/${id}/draft`).set(as(GRANTEE)).send({ metadata: fullMetadata() })).status).toBe(403);
    expect((await env.request.get(`/api/records/${id}/access/links`).set(as(GRANTEE))).status).toBe(403);

    const shared = (await env.request.get('/api/user/records?shared_with_me=true').set(as(GRANTEE)).expect(200)).body;
    expect(shared.hits.hits.map((h: { id: string }) => h.id)).toEqual([id]);
    expect((await env.request.get('/api/user/records?shared_with_me=true').set(as(OTHER))).body.hits.total).toBe(0);
    const search = (await env.request.get('/api/records').set(as(GRANTEE)).expect(200)).body;
    expect(search.hits.hits.map((h: { id: string }) => h.id)).toContain(id);

    // The grant list, by position and by user; others may not look.
    const list = (await env.request.get(`/api/records/${id}/access/grants`).set(as(OWNER)).expect(200)).body;
    expect(list).toEqual({ hits: { hits: [{ id: '0', subject: { type: 'user', id: GRANTEE }, permission: 'preview' }], total: 1 } });
    expect((await env.request.get(`/api/records/${id}/access/users/${GRANTEE}`).set(as(OWNER))).body.permission).toBe('preview');
    for (const who of [as(OTHER), as(GRANTEE), as(null)]) {
      expect((await env.request.get(`/api/records/${id}/access/grants`).set(who)).status).toBe(403);
      expect((await env.request.post(`/api/records/${id}/access/grants`).set(who).send({ grants: [] })).status).toBe(403);
    }
    expect((await env.request.get(`/api/records/${id}/access/grants/7`).set(as(OWNER))).status).toBe(404);

    await env.request.delete(`/api/records/${id}/access/users/${GRANTEE}`).set(as(OWNER)).expect(204);
    expect((await env.request.get(`/api/records/${id}`).set(as(GRANTEE))).status).toBe(403);
    expect(await files(id, 'record', GRANTEE)).toBe(403);
    expect((await env.request.get('/api/user/records?shared_with_me=true').set(as(GRANTEE))).body.hits.total).toBe(0);
  });

  it('should give manage, edit and view by level, and refuse bad grants with field errors', async () => {
    const id = await restricted();
    await env.request.post(`/api/records/${id}/draft`).set(as(OWNER)).expect(201);
    await grant(id, GRANTEE, 'view').expect(201);
    expect((await env.request.get(`/api/records/${id}`).set(as(GRANTEE))).status).toBe(200);
    expect((await env.request.get(`/api/records/${id}/draft`).set(as(GRANTEE))).status).toBe(403);
    const up = await env.request.patch(`/api/records/${id}/access/grants/0`).set(as(OWNER)).send({ permission: 'edit' });
    expect(up.body).toEqual({ id: '0', subject: { type: 'user', id: GRANTEE }, permission: 'edit' });
    expect(
      (
        await env.request
          .put(`/api/records/${id}/draft`)
          .set(as(GRANTEE))
          .send({ metadata: fullMetadata(), access: { record: 'restricted', files: 'restricted' } })
      ).status,
    ).toBe(200);
    expect((await env.request.get(`/api/records/${id}/access/links`).set(as(GRANTEE))).status).toBe(403);
    await env.request.patch(`/api/records/${id}/access/users/${GRANTEE}`).set(as(OWNER)).send({ permission: 'manage' }).expect(200);
    expect((await env.request.get(`/api/records/${id}/access/links`).set(as(GRANTEE))).status).toBe(200);
    // A manager grants others (role grants too); an admin as well.
    await env.request
      .post(`/api/records/${id}/access/grants`)
      .set(as(GRANTEE))
      .send({ grants: [{ subject: { type: 'role', id: 'reviewers' }, permission: 'view' }] })
      .expect(201);
    expect((await env.request.get(`/api/records/${id}`).set(as(OTHER, ['reviewers']))).status).toBe(200);
    expect((await env.request.get(`/api/records/${id}/access/grants`).set(as('9', ['admin']))).body.hits.total).toBe(2);

    const bad = await env.request
      .post(`/api/records/${id}/access/grants`)
      .set(as(OWNER))
      .send({ grants: [{ subject: { type: 'group', id: '' }, permission: 'own' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { field: 'grants.0.subject.type', messages: ['Must be one of: user, role.'] },
      { field: 'grants.0.subject.id', messages: ['Not a valid string.'] },
      { field: 'grants.0.permission', messages: ['Must be one of: view, preview, edit, manage.'] },
    ]);
    const dup = await grant(id, GRANTEE, 'view');
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([{ field: 'grants.0.subject', messages: ['A grant for this subject already exists.'] }]);
    expect(
      (
        await env.request
          .post(`/api/records/${id}/access/users`)
          .set(as(OWNER))
          .send({ grants: [{ subject: { type: 'role', id: 'x' }, permission: 'view' }] })
      ).status,
    ).toBe(400);
    expect((await env.request.patch(`/api/records/${id}/access/grants/0`).set(as(OWNER)).send({ permission: 'own' })).status).toBe(400);
  });

  it('should update the parent access settings (manage only), with field errors', async () => {
    const id = await restricted();
    const r = await env.request
      .put(`/api/records/${id}/access`)
      .set(as(OWNER))
      .send({ access: { settings: { allow_user_requests: true, secret_link_expiration: 30, accept_conditions_text: 'Be nice' } } });
    expect(r.status).toBe(200);
    expect(r.body.access.settings).toEqual({
      allow_user_requests: true,
      allow_guest_requests: false,
      accept_conditions_text: 'Be nice',
      secret_link_expiration: 30,
    });
    const p = await env.request.patch(`/api/records/${id}/access`).set(as(OWNER)).send({ allow_guest_requests: true });
    expect(p.body.access.settings).toMatchObject({ allow_user_requests: true, allow_guest_requests: true });
    const read = (await env.request.get(`/api/records/${id}`).set(as(OWNER))).body;
    expect(read.parent.access.settings).toMatchObject({
      allow_user_requests: true,
      allow_guest_requests: true,
      secret_link_expiration: 30,
    });
    const bad = await env.request
      .patch(`/api/records/${id}/access`)
      .set(as(OWNER))
      .send({ allow_user_requests: 'yes', secret_link_expiration: 1000 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'settings.allow_user_requests',
      'settings.secret_link_expiration',
    ]);
    expect((await env.request.patch(`/api/records/${id}/access`).set(as(OTHER)).send({ allow_user_requests: false })).status).toBe(403);
  });
});
