import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createRequest, type Env, startEnv } from './support.js';

let env: Env;
const OWNER = '81';
const STRANGER = '82';
const ADMIN = as('9', ['admin']);
const SYSTEM = { sub: 'system', roles: ['system'] };

/** Play the records service: an accepted deletion deletes the record, unless it is `gone`. */
function simulateRecords(): void {
  env.nats.nc.subscribe('rdm.requests.request.accepted', {
    callback: (_e, msg) => {
      const ev = JSON.parse(new TextDecoder().decode(msg.data));
      if (ev.data.type !== 'record-deletion') return;
      const record = ev.data.topic.record;
      if (record === 'gone')
        void env.publishEffect('rdm.records.record.deletion-failed', {
          request_id: ev.data.id,
          record_id: record,
          message: 'Record is already deleted.',
        });
      else
        void env.publishEffect('rdm.records.record.deleted', {
          id: record,
          parent_id: `p-${record}`,
          bucket_id: record,
          removal_reason: 'spam',
          is_visible: true,
          request_id: ev.data.id,
        });
    },
  });
}

/** Create a deletion request as records does (RPC create, as the owner). */
const ask = (record: string) =>
  createRequest(
    env,
    {
      type: 'record-deletion',
      created_by: { user: OWNER },
      receiver: { group: 'admin' },
      topic: { record },
      title: 'Ocean temperatures',
      payload: { reason: 'spam', comment: 'Uploaded twice.' },
      comment: { content: 'Uploaded twice.', format: 'html' },
    },
    { sub: OWNER, roles: [] },
  );

beforeAll(async () => {
  env = await startEnv({ effectWaitMs: 3000 });
  simulateRecords();
  await env.nats.nc.flush();
});
afterAll(async () => {
  await env?.close();
});

describe('record-deletion requests', () => {
  it('should be submitted for the administrators, readable by the owner, hidden from strangers', async () => {
    const r = await ask('rec-d1');
    expect(r).toMatchObject({
      type: 'record-deletion',
      status: 'submitted',
      is_open: true,
      created_by: { user: OWNER },
      receiver: { group: 'admin' },
      topic: { record: 'rec-d1' },
    });
    const owner = await env.http.get(`/api/requests/${r.id}`).set(as(OWNER)).expect(200);
    expect(Object.keys(owner.body.links.actions)).toEqual(['cancel']);
    const admin = await env.http.get(`/api/requests/${r.id}`).set(ADMIN).expect(200);
    expect(Object.keys(admin.body.links.actions).sort()).toEqual(['accept', 'decline']);
    expect((await env.http.get(`/api/requests/${r.id}`).set(as(STRANGER))).status).toBe(403);
    const mine = await env.http.get('/api/user/requests').set(as(OWNER)).expect(200);
    expect(mine.body.hits.hits.map((h: any) => h.id)).toContain(r.id);
  });

  it('should be accepted by an administrator once records deleted the record (saga); neither owner nor stranger may accept', async () => {
    const r = await ask('rec-d2');
    for (const who of [OWNER, STRANGER]) {
      const res = await env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(who)).send({});
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ status: 403 });
    }
    const acc = await env.http
      .post(`/api/requests/${r.id}/actions/accept`)
      .set(ADMIN)
      .send({ payload: { content: 'Done.', format: 'html' } })
      .expect(200);
    expect(acc.body).toMatchObject({ status: 'accepted', is_closed: true });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(OWNER)).expect(200);
    expect(tl.body.hits.hits.map((e: any) => [e.type, e.created_by.user, e.payload.event ?? e.payload.content])).toEqual([
      ['C', OWNER, 'Uploaded twice.'],
      ['L', '9', 'accepted'],
      ['C', '9', 'Done.'],
    ]);
  });

  it('should be accepted at once by the system (the grace-period path records takes)', async () => {
    const r = await ask('rec-d3');
    const acc = await env.actions.run(SYSTEM, r.id, 'accept', { payload: { content: 'Automatically accepted.', format: 'html' } });
    expect(acc).toMatchObject({ status: 'accepted' });
  });

  it('should go back to submitted when records cannot delete, then be declined by an administrator or cancelled by the owner', async () => {
    const r = await ask('gone');
    const acc = await env.http.post(`/api/requests/${r.id}/actions/accept`).set(ADMIN).send({}).expect(200);
    expect(acc.body).toMatchObject({ status: 'submitted', is_open: true });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(OWNER)).expect(200);
    expect(tl.body.hits.hits.at(-1)).toMatchObject({ type: 'L', payload: { event: 'accept_failed' } });
    expect((await env.http.post(`/api/requests/${r.id}/actions/decline`).set(as(OWNER)).send({})).status).toBe(403);
    const dec = await env.http.post(`/api/requests/${r.id}/actions/decline`).set(ADMIN).send({}).expect(200);
    expect(dec.body).toMatchObject({ status: 'declined', is_closed: true });
    const c = await ask('rec-d4');
    expect((await env.http.post(`/api/requests/${c.id}/actions/cancel`).set(as(STRANGER)).send({})).status).toBe(403);
    expect((await env.http.post(`/api/requests/${c.id}/actions/cancel`).set(as(OWNER)).send({}).expect(200)).body.status).toBe('cancelled');
  });
});
