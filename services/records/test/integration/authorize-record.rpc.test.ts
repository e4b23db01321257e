import { isAppError } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '411';
const OTHER = '412';
const SUBJECT = 'rdm.records.rpc.authorize-record';
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
  const publish = async (access?: Record<string, unknown>) => {
    const d = (
      await env.request
        .post('/api/records')
        .set(as(OWNER))
        .send({ metadata: fullMetadata(), ...(access ? { access } : {}) })
    ).body;
    env.files.addFile(d.id, 'a.txt');
    const r = await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER));
    expect(r.status).toBe(202);
    return r.body as Record<string, any>;
  };

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should answer the record and its parent to whoever may read it, as the HTTP read decides', async () => {
    const r = await publish();
    expect(await authorize({ record_id: r.id, identity: user(null) })).toEqual({ record_id: r.id, parent_id: r.parent.id });
    const restricted = await publish({ record: 'restricted', files: 'restricted' });
    expect(await authorize({ record_id: restricted.id, identity: user(OWNER) })).toEqual({
      record_id: restricted.id,
      parent_id: restricted.parent.id,
    });
    expect(await failure({ record_id: restricted.id, identity: user(OTHER) })).toMatchObject({ status: 403 });
    expect(await failure({ record_id: 'zzzzz-zzz00', identity: user(OWNER) })).toMatchObject({ status: 404 });
    const draft = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    expect(await failure({ record_id: draft.id, identity: user(OWNER) })).toEqual({
      status: 404,
      message: 'The persistent identifier is not registered.',
    });
    await env.request
      .delete(`/api/records/${r.id}/delete`)
      .set(as('9', ['admin']))
      .send({})
      .expect(204);
    expect(await failure({ record_id: r.id, identity: user(OWNER) })).toMatchObject({ status: 410 });
  });
});
