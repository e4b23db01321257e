/**
 * Secret access links: CRUD with its errors and permissions, and the token (`?token=`, the
 * authorize-files RPC's `access_token`) over record, draft, edit and files, revocation and expiry.
 */
import { isAppError } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '501';
const OTHER = '502';
const ADMIN = as('9', ['admin']);
const FILES_RPC = 'rdm.records.rpc.authorize-files';

describe('record access links', () => {
  let env: Env;
  const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

  /** A published restricted record with one file, and an open edit draft when `edit`. */
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
  const link = async (id: string, body: Record<string, unknown>) =>
    (await env.request.post(`/api/records/${id}/access/links`).set(as(OWNER)).send(body).expect(201)).body;
  const filesAnswer = async (payload: Record<string, unknown>): Promise<number> => {
    try {
      await env.rpc(FILES_RPC, payload);
      return 200;
    } catch (err) {
      if (isAppError(err)) return err.status;
      throw err;
    }
  };

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should create, list, read, patch and delete links (owner and admin; others 403)', async () => {
    const id = await restricted();
    const created = await link(id, { permission: 'view', expires_at: future(10), description: 'for a reviewer' });
    expect(Object.keys(created).sort()).toEqual(['created_at', 'description', 'expires_at', 'id', 'permission', 'token']);
    expect(created).toMatchObject({ permission: 'view', description: 'for a reviewer', expires_at: future(10) });
    expect(typeof created.token).toBe('string');
    const noExpiry = (await env.request.post(`/api/records/${id}/access/links`).set(ADMIN).send({ permission: 'edit' }).expect(201)).body;
    expect(noExpiry.expires_at).toBeUndefined();

    const list = (await env.request.get(`/api/records/${id}/access/links`).set(as(OWNER)).expect(200)).body;
    expect(list).toEqual({ hits: { hits: [created, noExpiry], total: 2 } });
    // The token is shown on every read (derived, not stored) and never changes.
    const read = (await env.request.get(`/api/records/${id}/access/links/${created.id}`).set(as(OWNER)).expect(200)).body;
    expect(read).toEqual(created);

    const patched = (
      await env.request
        .patch(`/api/records/${id}/access/links/${created.id}`)
        .set(as(OWNER))
        .send({ permission: 'preview', expires_at: future(5) })
    ).body;
    expect(patched).toEqual({ ...created, permission: 'preview', expires_at: future(5) });

    for (const who of [as(OTHER), as(null)]) {
      expect((await env.request.get(`/api/records/${id}/access/links`).set(who)).status).toBe(403);
      expect((await env.request.post(`/api/records/${id}/access/links`).set(who).send({ permission: 'view' })).status).toBe(403);
      expect((await env.request.delete(`/api/records/${id}/access/links/${created.id}`).set(who)).status).toBe(403);
    }
    // A link holder (even edit) does not manage links.
    expect((await env.request.get(`/api/records/${id}/access/links?token=${noExpiry.token}`).set(as(OTHER))).status).toBe(403);

    await env.request.delete(`/api/records/${id}/access/links/${created.id}`).set(as(OWNER)).expect(204);
    const gone = await env.request.get(`/api/records/${id}/access/links/${created.id}`).set(as(OWNER));
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ status: 404, message: 'No secret link found with the given ID.' });
    expect((await env.request.delete(`/api/records/${id}/access/links/${created.id}`).set(as(OWNER))).status).toBe(404);
    expect((await env.request.get('/api/records/nope-0000/access/links').set(as(OWNER))).status).toBe(404);
  });

  it('should answer 400 with field errors for a bad permission or expiry', async () => {
    const id = await restricted();
    const bad = async (body: unknown) =>
      (
        await env.request
          .post(`/api/records/${id}/access/links`)
          .set(as(OWNER))
          .send(body as object)
      ).body;
    expect(await bad({})).toMatchObject({
      status: 400,
      errors: [{ field: 'permission', messages: ['An access permission level is required'] }],
    });
    expect((await bad({ permission: 'manage' })).errors).toEqual([
      { field: 'permission', messages: ['Must be one of: view, preview, edit.'] },
    ]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await bad({ permission: 'view', expires_at: today })).errors).toEqual([
      { field: 'expires_at', messages: ['Expiration date must be set to the future'] },
    ]);
    expect((await bad({ permission: 'view', expires_at: '2024-02-30' })).errors).toEqual([
      { field: 'expires_at', messages: ['Not a valid date.'] },
    ]);
    const l = await link(id, { permission: 'view', expires_at: future(3) });
    const patch = async (body: Record<string, unknown>) =>
      (await env.request.patch(`/api/records/${id}/access/links/${l.id}`).set(as(OWNER)).send(body)).body;
    expect((await patch({ expires_at: future(30) })).errors).toEqual([
      { field: 'expires_at', messages: ['Cannot postpone expiration of links'] },
    ]);
    expect((await patch({ expires_at: null })).errors).toEqual([
      { field: 'expires_at', messages: ['Cannot postpone expiration of links'] },
    ]);
    expect((await patch({ permission: 'owner' })).status).toBe(400);
  });

  it('should open the record, draft and files by the link level, and stop at once when deleted', async () => {
    const id = await restricted();
    await env.request.post(`/api/records/${id}/draft`).set(as(OWNER)).expect(201); // edit draft
    const view = await link(id, { permission: 'view' });
    const preview = await link(id, { permission: 'preview' });
    const edit = await link(id, { permission: 'edit' });
    const get = (path: string, token?: string) => env.request.get(`${path}${token ? `?token=${token}` : ''}`).set(as(OTHER));
    const files = (scope: string, action: string, token?: string) =>
      filesAnswer({ record_id: id, scope, action, identity: { sub: null, roles: [] }, ...(token ? { access_token: token } : {}) });

    expect((await get(`/api/records/${id}`)).status).toBe(403);
    expect((await get(`/api/records/${id}`, 'not-a-token')).status).toBe(403);
    expect(await files('record', 'read')).toBe(403);
    for (const t of [view.token, preview.token, edit.token]) {
      const r = await get(`/api/records/${id}`, t);
      expect(r.status).toBe(200);
      expect(r.body.id).toBe(id);
      expect(r.body.parent.access.links).toBeUndefined(); // links/grants stay for managers
      expect(await files('record', 'read', t)).toBe(200);
    }
    expect((await get(`/api/records/${id}/draft`, view.token)).status).toBe(403);
    expect(await files('draft', 'read', view.token)).toBe(403);
    expect((await get(`/api/records/${id}/draft`, preview.token)).status).toBe(200);
    expect(await files('draft', 'read', preview.token)).toBe(200);
    expect(await files('draft', 'update', preview.token)).toBe(403);
    const put = (token: string) =>
      env.request
        .put(`/api/records/${id}/draft?token=${token}`)
        .set(as(OTHER))
        .send({ metadata: { ...fullMetadata(), title: 'Edited by link' }, access: { record: 'restricted', files: 'restricted' } });
    expect((await put(preview.token)).status).toBe(403);
    const edited = await put(edit.token);
    expect(edited.status).toBe(200);
    expect(edited.body.metadata.title).toBe('Edited by link');
    // A token of another record's link opens nothing here.
    const other = await restricted();
    const foreign = await link(other, { permission: 'edit' });
    expect((await get(`/api/records/${id}`, foreign.token)).status).toBe(403);

    // Search honours the link too (any level), and only with the token.
    const found = async (token?: string) =>
      (await env.request.get(`/api/records?q=id:${id}${token ? `&token=${token}` : ''}`).set(as(OTHER))).body.hits.hits.map(
        (h: { id: string }) => h.id,
      );
    expect(await found()).toEqual([]);
    expect(await found(view.token)).toEqual([id]);
    expect(await found(foreign.token)).toEqual([]);

    // Revoked: the very next request is refused (nothing cached for link readers).
    await env.request.delete(`/api/records/${id}/access/links/${view.id}`).set(as(OWNER)).expect(204);
    expect((await get(`/api/records/${id}`, view.token)).status).toBe(403);
    expect(await files('record', 'read', view.token)).toBe(403);
  });

  it('should ignore an expired link', async () => {
    const id = await restricted();
    const l = await link(id, { permission: 'view', expires_at: future(2) });
    expect((await env.request.get(`/api/records/${id}?token=${l.token}`)).status).toBe(200);
    await env.db.raw("UPDATE access_links SET expires_at = (now() AT TIME ZONE 'UTC')::date WHERE id = ?", [l.id]);
    expect((await env.request.get(`/api/records/${id}?token=${l.token}`)).status).toBe(403);
  });
});
