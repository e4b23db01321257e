/**
 * `quota-increase` requests through the real requests service (Postgres + NATS): submitted for the
 * administrators, accepted once the files service confirms the new quota (saga, simulated here on
 * NATS as files does), declined by an administrator, cancelled by the owner; nobody else acts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createRequest, type Env, startEnv } from './support.js';

let env: Env;
const OWNER = '91';
const STRANGER = '92';
const ADMIN = as('9', ['admin']);

/** Play the files service: an accepted quota-increase raises the bucket's quota and says so. */
function simulateFiles(): void {
  env.nats.nc.subscribe('rdm.requests.request.accepted', {
    callback: (_e, msg) => {
      const ev = JSON.parse(new TextDecoder().decode(msg.data));
      if (ev.data.type !== 'quota-increase') return;
      void env.publishEffect('rdm.files.bucket.quota-changed', {
        bucket_id: ev.data.payload.bucket_id,
        quota_bytes: ev.data.payload.quota_size,
        request_id: ev.data.id,
      });
    },
  });
}

/** Create a quota request as records does (RPC create, as the owner). */
const ask = (draft: string) =>
  createRequest(
    env,
    {
      type: 'quota-increase',
      created_by: { user: OWNER },
      receiver: { group: 'admin' },
      topic: { record: draft },
      title: 'Sea floor scans',
      payload: { quota_size: 200_000_000_000, reason: 'Raw sonar data.', bucket_id: `b-${draft}` },
      comment: { content: 'Raw sonar data.', format: 'html' },
    },
    { sub: OWNER, roles: [] },
  );

beforeAll(async () => {
  env = await startEnv({ effectWaitMs: 3000 });
  simulateFiles();
  await env.nats.nc.flush();
});
afterAll(async () => {
  await env?.close();
});

describe('quota-increase requests', () => {
  it('should be submitted for the administrators, the owner may only cancel, a stranger not read it', async () => {
    const r = await ask('q1');
    expect(r).toMatchObject({ type: 'quota-increase', status: 'submitted', receiver: { group: 'admin' }, topic: { record: 'q1' } });
    const owner = await env.http.get(`/api/requests/${r.id}`).set(as(OWNER)).expect(200);
    expect(Object.keys(owner.body.links.actions)).toEqual(['cancel']);
    expect((await env.http.get(`/api/requests/${r.id}`).set(as(STRANGER))).status).toBe(403);
  });

  it('should be accepted by an administrator once files confirmed the quota; owner and stranger may not accept', async () => {
    const r = await ask('q2');
    for (const who of [OWNER, STRANGER])
      expect((await env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(who)).send({})).status).toBe(403);
    const acc = await env.http.post(`/api/requests/${r.id}/actions/accept`).set(ADMIN).send({}).expect(200);
    expect(acc.body).toMatchObject({ status: 'accepted', is_closed: true });
  });

  it('should be declined by an administrator or cancelled by its owner', async () => {
    const d = await ask('q3');
    expect((await env.http.post(`/api/requests/${d.id}/actions/decline`).set(as(OWNER)).send({})).status).toBe(403);
    expect((await env.http.post(`/api/requests/${d.id}/actions/decline`).set(ADMIN).send({}).expect(200)).body.status).toBe('declined');
    const c = await ask('q4');
    expect((await env.http.post(`/api/requests/${c.id}/actions/cancel`).set(as(STRANGER)).send({})).status).toBe(403);
    expect((await env.http.post(`/api/requests/${c.id}/actions/cancel`).set(as(OWNER)).send({}).expect(200)).body.status).toBe('cancelled');
  });
});
