import { isAppError } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '401';
const OTHER = '402';
const SUBJECT = 'rdm.records.rpc.authorize-files';
const user = (sub: string | null, roles: string[] = []) => ({ sub, roles });

describe(`RPC ${SUBJECT}`, () => {
  let env: Env;
  const authorize = (payload: Record<string, unknown>) => env.rpc<Record<string, unknown>>(SUBJECT, payload);
  const failure = async (payload: Record<string, unknown>) => {
    try {
      await authorize(payload);
    } catch (err) {
      if (isAppError(err)) return { status: err.status, message: err.message };
      throw err;
    }
    throw new Error('expected a failure');
  };

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should grant the owner read and update on a first draft (own bucket, unlocked)', async () => {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    for (const action of ['read', 'update']) {
      expect(await authorize({ record_id: d.id, scope: 'draft', action, identity: user(OWNER) })).toEqual({
        bucket_id: d.id,
        record_id: d.id,
        enabled: true,
        locked: false,
        default_preview: null,
        order: [],
      });
    }
    expect(await failure({ record_id: d.id, scope: 'draft', action: 'read', identity: user(OTHER) })).toEqual({
      status: 403,
      message: 'Permission denied.',
    });
    expect(await failure({ record_id: d.id, scope: 'draft', action: 'update', identity: user(null) })).toEqual({
      status: 403,
      message: 'Permission denied.',
    });
    expect(await failure({ record_id: d.id, scope: 'record', action: 'read', identity: user(OWNER) })).toEqual({
      status: 404,
      message: 'The persistent identifier is not registered.',
    });
    expect((await authorize({ record_id: d.id, scope: 'draft', action: 'update', identity: user('9', ['admin']) })).bucket_id).toBe(d.id);
  });

  it('should answer for published records by access.files and lock edit drafts', async () => {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    env.files.addFile(d.id, 'a.txt');
    expect((await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER))).status).toBe(202);
    const grant = await authorize({ record_id: d.id, scope: 'record', action: 'read', identity: user(null) });
    expect(grant).toEqual({ bucket_id: d.id, record_id: d.id, enabled: true, locked: true, default_preview: null, order: [] });
    expect(await failure({ record_id: d.id, scope: 'record', action: 'update', identity: user(OWNER) })).toMatchObject({ status: 403 });
    expect(await failure({ record_id: d.id, scope: 'draft', action: 'read', identity: user(OWNER) })).toEqual({
      status: 404,
      message: 'The persistent identifier does not exist.',
    });
    await env.request.post(`/api/records/${d.id}/draft`).set(as(OWNER)).expect(201);
    expect(await authorize({ record_id: d.id, scope: 'draft', action: 'update', identity: user(OWNER) })).toMatchObject({
      bucket_id: d.id,
      locked: true,
    });
    const nv = (await env.request.post(`/api/records/${d.id}/versions`).set(as(OWNER))).body;
    expect(await authorize({ record_id: nv.id, scope: 'draft', action: 'update', identity: user(OWNER) })).toMatchObject({
      bucket_id: nv.id,
      locked: false,
    });
  });

  it('should refuse restricted files to others', async () => {
    const d = (
      await env.request
        .post('/api/records')
        .set(as(OWNER))
        .send({ metadata: fullMetadata(), access: { record: 'public', files: 'restricted' } })
    ).body;
    env.files.addFile(d.id, 'a.txt');
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    expect(await failure({ record_id: d.id, scope: 'record', action: 'read', identity: user(null) })).toEqual({
      status: 403,
      message: 'Permission denied.',
    });
    expect((await authorize({ record_id: d.id, scope: 'record', action: 'read', identity: user(OWNER) })).bucket_id).toBe(d.id);
  });

  it('should 404 unknown ids and 400 malformed requests', async () => {
    expect(await failure({ record_id: 'zzzzz-zzz00', scope: 'record', action: 'read', identity: user(null) })).toEqual({
      status: 404,
      message: 'The persistent identifier does not exist.',
    });
    expect(await failure({ record_id: 'x', scope: 'bucket', action: 'read', identity: user(null) })).toMatchObject({ status: 400 });
    expect(await failure({ scope: 'draft' })).toMatchObject({ status: 400 });
  });
  it('should add the descriptive metadata with with_metadata (IIIF manifests), and only then', async () => {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    const plain = await authorize({ record_id: d.id, scope: 'draft', action: 'read', identity: user(OWNER) });
    expect(plain.metadata).toBeUndefined();
    const grant = await authorize({ record_id: d.id, scope: 'draft', action: 'read', identity: user(OWNER), with_metadata: true });
    expect(grant).toMatchObject({ bucket_id: d.id, record_id: d.id });
    const m = grant.metadata as Record<string, any>;
    expect(m).toMatchObject({ title: 'A Romans story', publication_date: '2020-06-01', description: '<p>A <b>description</b></p>' });
    expect(m.creators.map((c: { name: string }) => c.name)).toEqual([expect.stringMatching(/Brown/), 'Mars Institute']);
    expect(m.rights).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'cc-by-4.0' }),
        expect.objectContaining({ link: 'https://customlicense.org/licenses/by/4.0/' }),
      ]),
    );
    expect(await failure({ record_id: d.id, scope: 'draft', action: 'read', identity: user(OTHER), with_metadata: true })).toMatchObject({
      status: 403,
    });
  });
});
