import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createRequest, type Env, startEnv } from './support.js';

let env: Env;
const REQUESTER = '60';
const OWNER = '61';
const OUTSIDER = '62';

/** Play the records service: an accepted access request is granted, unless its record is `gone`. */
function simulateRecords(): void {
  env.nats.nc.subscribe('rdm.requests.request.accepted', {
    callback: (_e, msg) => {
      const ev = JSON.parse(new TextDecoder().decode(msg.data));
      if (!['user-access-request', 'guest-access-request'].includes(ev.data.type)) return;
      const record = ev.data.topic.record;
      if (record === 'gone')
        void env.publishEffect('rdm.records.access-request.failed', {
          request_id: ev.data.id,
          record_id: record,
          message: 'The record no longer exists.',
        });
      else
        void env.publishEffect('rdm.records.access-request.granted', {
          request_id: ev.data.id,
          record_id: record,
          parent_id: `p-${record}`,
          permission: 'view',
          ...(ev.data.type === 'user-access-request'
            ? { kind: 'grant', user_id: ev.data.created_by.user }
            : { kind: 'link', link_id: '00000000-0000-4000-8000-000000000001', expires_at: null }),
        });
    },
  });
}

const userAsk = (record: string, message = 'I study oceans.') =>
  createRequest(
    env,
    {
      type: 'user-access-request',
      created_by: { user: REQUESTER },
      receiver: { user: OWNER },
      topic: { record },
      title: 'Ocean temperatures',
      payload: { permission: 'view', message, consent_to_share_personal_data: 'true' },
      comment: { content: message, format: 'html' },
    },
    { sub: REQUESTER, roles: [] },
  );
const guestAsk = (record: string) =>
  createRequest(env, {
    type: 'guest-access-request',
    created_by: { email: 'guest@example.org' },
    receiver: { user: OWNER },
    topic: { record },
    title: 'Ocean temperatures',
    payload: { permission: 'view', email: 'guest@example.org', full_name: 'Grace Guest', secret_link_expiration: '0' },
    comment: { content: 'For my thesis.', format: 'html' },
  });

beforeAll(async () => {
  env = await startEnv({ effectWaitMs: 3000 });
  simulateRecords();
  await env.nats.nc.flush();
});
afterAll(async () => {
  await env?.close();
});

describe('access request types', () => {
  it('should create a user access request submitted, with its message, listed for both sides', async () => {
    const r = await userAsk('rec-a');
    expect(r).toMatchObject({
      type: 'user-access-request',
      status: 'submitted',
      is_open: true,
      title: 'Ocean temperatures',
      created_by: { user: REQUESTER },
      receiver: { user: OWNER },
      topic: { record: 'rec-a' },
      expires_at: null,
    });
    expect(r.links.self_html).toBe(`https://rdm.example.org/access/requests/${r.id}`);
    const asOwner = await env.http.get(`/api/requests/${r.id}`).set(as(OWNER)).expect(200);
    expect(Object.keys(asOwner.body.links.actions).sort()).toEqual(['accept', 'decline']);
    const asRequester = await env.http.get(`/api/requests/${r.id}`).set(as(REQUESTER)).expect(200);
    expect(Object.keys(asRequester.body.links.actions)).toEqual(['cancel']);
    expect((await env.http.get(`/api/requests/${r.id}`).set(as(OUTSIDER))).status).toBe(403);
    for (const who of [OWNER, REQUESTER]) {
      const mine = await env.http.get('/api/user/requests').set(as(who)).expect(200);
      expect(mine.body.hits.hits.map((h: any) => h.id)).toContain(r.id);
    }
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(OWNER)).expect(200);
    expect(tl.body.hits.hits.map((e: any) => [e.type, e.created_by, e.payload.content])).toEqual([
      ['C', { user: REQUESTER }, 'I study oceans.'],
    ]);
    const facets = await env.http.get('/api/user/requests').set(as(OWNER)).expect(200);
    expect(facets.body.aggregations.type.buckets).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: 'user-access-request', label: 'Access request' })]),
    );
  });

  it('should be accepted by the owner once records granted access (saga), the requester cannot accept', async () => {
    const r = await userAsk('rec-b');
    expect((await env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(REQUESTER)).send({})).status).toBe(403);
    const acc = await env.http
      .post(`/api/requests/${r.id}/actions/accept`)
      .set(as(OWNER))
      .send({ payload: { content: 'Welcome aboard', format: 'html' } })
      .expect(200);
    expect(acc.body).toMatchObject({ status: 'accepted', is_closed: true });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(REQUESTER)).expect(200);
    expect(tl.body.hits.hits.map((e: any) => [e.type, e.created_by.user, e.payload.event ?? e.payload.content])).toEqual([
      ['C', REQUESTER, 'I study oceans.'],
      ['L', OWNER, 'accepted'],
      ['C', OWNER, 'Welcome aboard'],
    ]);
  });

  it('should go back to submitted when records cannot apply it, and decline or cancel as other types', async () => {
    const r = await userAsk('gone');
    const acc = await env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(OWNER)).send({}).expect(200);
    expect(acc.body).toMatchObject({ status: 'submitted', is_open: true });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(OWNER)).expect(200);
    expect(tl.body.hits.hits.at(-1)).toMatchObject({ type: 'L', created_by: { user: 'system' }, payload: { event: 'accept_failed' } });
    const dec = await env.http.post(`/api/requests/${r.id}/actions/decline`).set(as(OWNER)).send({}).expect(200);
    expect(dec.body).toMatchObject({ status: 'declined', is_closed: true });
    const c = await userAsk('rec-c');
    expect((await env.http.post(`/api/requests/${c.id}/actions/cancel`).set(as(REQUESTER)).send({}).expect(200)).body.status).toBe(
      'cancelled',
    );
  });

  it("should keep a guest's request for the owner, authored by the guest's e-mail, and accept it with a link", async () => {
    const r = await guestAsk('rec-g');
    expect(r).toMatchObject({ type: 'guest-access-request', status: 'submitted', created_by: { email: 'guest@example.org' } });
    const owner = await env.http.get(`/api/requests/${r.id}`).set(as(OWNER)).expect(200);
    expect(owner.body.links.self_html).toBe(`https://rdm.example.org/me/requests/${r.id}`);
    expect(Object.keys(owner.body.links.actions).sort()).toEqual(['accept', 'decline']);
    const mine = await env.http.get('/api/user/requests').set(as(OWNER)).expect(200);
    expect(mine.body.hits.hits.map((h: any) => h.id)).toContain(r.id);
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(OWNER)).expect(200);
    expect(tl.body.hits.hits[0]).toMatchObject({
      type: 'C',
      created_by: { email: 'guest@example.org' },
      payload: { content: 'For my thesis.' },
    });
    const acc = await env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(OWNER)).send({}).expect(200);
    expect(acc.body.status).toBe('accepted');
  });
});
