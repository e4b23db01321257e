import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, BASE, createRequest, type Env, startEnv } from './support.js';

let env: Env;
let community: { id: string; slug: string };
const OWNER = '10';
const MANAGER = '11';
const CURATOR = '12';
const INVITEE = '20';
const OTHER = '30';

/** Play the communities service: answer each accepted invitation with member.added. */
function simulateCommunities(): void {
  env.nats.nc.subscribe('rdm.requests.request.accepted', {
    callback: (_e, msg) => {
      const ev = JSON.parse(new TextDecoder().decode(msg.data));
      if (ev.data.type !== 'community-invitation') return;
      void env.publishEffect('rdm.communities.member.added', {
        community_id: ev.data.topic.community,
        member_type: 'user',
        member_id: ev.data.receiver.user,
        role: ev.data.payload?.role ?? 'reader',
        request_id: ev.data.id,
      });
    },
  });
}

const invite = (key?: string) =>
  createRequest(
    env,
    {
      type: 'community-invitation',
      created_by: { community: community.id },
      receiver: { user: INVITEE },
      topic: { community: community.id },
      payload: { role: 'curator' },
      comment: { content: '<p>Join us</p><script>alert(1)</script>', format: 'html' },
      key,
    },
    { sub: OWNER, roles: [] },
  );

beforeAll(async () => {
  env = await startEnv({ effectWaitMs: 3000 });
  community = env.fake.add({ title: 'Ocean people', slug: 'ocean' });
  env.fake.setRole(community.id, OWNER, 'owner');
  env.fake.setRole(community.id, MANAGER, 'manager');
  env.fake.setRole(community.id, CURATOR, 'curator');
  simulateCommunities();
  await env.nats.nc.flush();
});
afterAll(async () => {
  await env?.close();
});

describe('community-invitation over HTTP', () => {
  it('should create submitted with title, description, 30-day expiry, number, comment and outbox event', async () => {
    const r = await invite();
    expect(r).toMatchObject({
      type: 'community-invitation',
      status: 'submitted',
      is_open: true,
      is_closed: false,
      is_expired: false,
      title: 'Invitation to join "Ocean people"',
      description: 'You will join as "Curator".',
      created_by: { community: community.id },
      receiver: { user: INVITEE },
      topic: { community: community.id },
      payload: { role: 'curator' },
    });
    expect(r.number).toMatch(/^[0-9a-hjkmnp-tv-z]+$/);
    const days = (new Date(r.expires_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(r.links.self_html).toBe(`${BASE}/communities/ocean/requests/${r.id}`);
    const ob = await env.tdb.db('outbox').where({ aggregate_id: r.id });
    expect(ob.map((x) => x.subject)).toEqual(['rdm.requests.request.created']);
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(INVITEE)).expect(200);
    expect(tl.body.hits.total).toBe(1);
    expect(tl.body.hits.hits[0]).toMatchObject({
      type: 'C',
      created_by: { user: OWNER },
      payload: { content: '<p>Join us</p>', format: 'html' },
    });
    expect(tl.body.links.self).toBe(`${BASE}/api/requests/${r.id}/timeline?page=1&size=25&sort=oldest`);
  });

  it('should be idempotent by key', async () => {
    const key = `k-${randomUUID()}`;
    const a = await invite(key);
    const b = await invite(key);
    expect(b.id).toBe(a.id);
    expect(b.number).toBe(a.number);
  });

  it('should show action links for the caller only', async () => {
    const r = await invite();
    const invitee = await env.http.get(`/api/requests/${r.id}`).set(as(INVITEE)).expect(200);
    expect(Object.keys(invitee.body.links.actions).sort()).toEqual(['accept', 'decline']);
    expect(invitee.body.links.actions.accept).toBe(`${BASE}/api/requests/${r.id}/actions/accept`);
    const owner = await env.http.get(`/api/requests/${r.id}`).set(as(OWNER)).expect(200);
    expect(Object.keys(owner.body.links.actions)).toEqual(['cancel']);
    const curator = await env.http.get(`/api/requests/${r.id}`).set(as(CURATOR));
    expect(curator.status).toBe(403);
    expect(curator.body).toEqual({ status: 403, message: 'Permission denied.' });
  });

  it('should check 404 → unknown action 400 → permission 403 → state 400 in order', async () => {
    const r = await invite();
    const missing = await env.http.post(`/api/requests/${randomUUID()}/actions/accept`).set(as(INVITEE));
    expect(missing.status).toBe(404);
    expect((await env.http.get('/api/requests/not-a-uuid').set(as(INVITEE))).status).toBe(404);
    const unknown = await env.http.post(`/api/requests/${r.id}/actions/submit`).set(as(INVITEE));
    expect(unknown.body).toEqual({ status: 400, message: "Error for action 'submit': No such action available" });
    const forbidden = await env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(OWNER));
    expect(forbidden.status).toBe(403);
    await env.http.post(`/api/requests/${r.id}/actions/decline`).set(as(INVITEE)).expect(200);
    const wrong = await env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(INVITEE));
    expect(wrong.body).toEqual({ status: 400, message: "Error for action 'accept': Could not execute the action" });
    // A forbidden caller on a wrong state still gets 403.
    expect((await env.http.post(`/api/requests/${r.id}/actions/cancel`).set(as(INVITEE))).status).toBe(403);
  });

  it('should accept with a comment: L accepted then C, request.accepted in the outbox, waiting for member.added', async () => {
    const r = await invite();
    const started = Date.now();
    const res = await env.http
      .post(`/api/requests/${r.id}/actions/accept`)
      .set(as(INVITEE))
      .send({ payload: { content: 'Thanks!', format: 'html' } })
      .expect(200);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(res.body).toMatchObject({ status: 'accepted', is_open: false, is_closed: true, links: { actions: {} } });
    expect(res.body.last_reply).toMatchObject({ type: 'C', payload: { content: 'Thanks!' } });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(INVITEE)).expect(200);
    expect(tl.body.hits.hits.map((e: any) => [e.type, e.payload.event ?? e.payload.content])).toEqual([
      ['C', '<p>Join us</p>'],
      ['L', 'accepted'],
      ['C', 'Thanks!'],
    ]);
    expect(tl.body.hits.hits[1].created_by).toEqual({ user: INVITEE });
    const ob = await env.tdb.db('outbox').where({ aggregate_id: r.id }).orderBy('seq');
    expect(ob.map((x) => x.subject)).toEqual(['rdm.requests.request.created', 'rdm.requests.request.accepted']);
    expect(ob[1].payload.data).toMatchObject({
      id: r.id,
      type: 'community-invitation',
      actor: { user: INVITEE },
      payload: { role: 'curator' },
    });
  });

  it('should roll back the whole action when the comment is empty', async () => {
    const r = await invite();
    const res = await env.http
      .post(`/api/requests/${r.id}/actions/accept`)
      .set(as(INVITEE))
      .send({ payload: { content: '' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'payload.content', messages: ['Shorter than minimum length 1.'] }]);
    const after = await env.http.get(`/api/requests/${r.id}`).set(as(INVITEE)).expect(200);
    expect(after.body.status).toBe('submitted');
    await env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(INVITEE)).send({}).expect(200);
  });

  it('should let exactly one of 20 parallel accepts win', async () => {
    const r = await invite();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(INVITEE)).send({})),
    );
    const codes = results.map((x) => x.status).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 400)).toHaveLength(19);
    for (const x of results.filter((y) => y.status === 400))
      expect(x.body).toEqual({ status: 400, message: "Error for action 'accept': Could not execute the action" });
    const logs = await env.tdb.db('request_events').where({ request_id: r.id, type: 'L' });
    expect(logs).toHaveLength(1);
    const ob = await env.tdb.db('outbox').where({ aggregate_id: r.id, subject: 'rdm.requests.request.accepted' });
    expect(ob).toHaveLength(1);
  });

  it('should let the owner or manager cancel (a bare cancel adds one log event)', async () => {
    const r = await invite();
    const res = await env.http.post(`/api/requests/${r.id}/actions/cancel`).set(as(MANAGER)).expect(200);
    expect(res.body.status).toBe('cancelled');
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(MANAGER)).expect(200);
    expect(tl.body.hits.total).toBe(2);
  });

  it('should refuse delete of an invitation (403) and lock while locking is off (403)', async () => {
    const r = await invite();
    expect((await env.http.delete(`/api/requests/${r.id}`).set(as(OWNER))).status).toBe(403);
    expect((await env.http.delete(`/api/requests/${r.id}`).set(as('admin', ['admin']))).status).toBe(403);
    expect((await env.http.get(`/api/requests/${r.id}/lock`).set(as(INVITEE))).status).toBe(403);
    expect((await env.http.get(`/api/requests/${r.id}/unlock`).set(as(INVITEE))).status).toBe(403);
  });
});

describe('PUT /api/requests/<id>', () => {
  it('should let the receiver change title while submitted and ignore other keys; refuse unknown keys', async () => {
    const r = await invite();
    const res = await env.http
      .put(`/api/requests/${r.id}`)
      .set(as(INVITEE))
      .send({ title: 'New title', payload: { role: 'owner' }, receiver: { user: OTHER }, topic: { community: randomUUID() } })
      .expect(200);
    // Past `created` the references are ignored, as InvenioRDM does: the invitation stays aimed
    // at its invitee and community (communities applies it from its own pending member row).
    expect(res.body).toMatchObject({
      title: 'New title',
      payload: { role: 'curator' },
      receiver: { user: INVITEE },
      topic: { community: community.id },
      revision_id: r.revision_id + 1,
    });
    const bad = await env.http.put(`/api/requests/${r.id}`).set(as(INVITEE)).send({ status: 'accepted' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'status', messages: ['Unknown field.'] }]);
    expect((await env.http.put(`/api/requests/${r.id}`).set(as(OTHER)).send({ title: 'x' })).status).toBe(403);
    expect((await env.http.put(`/api/requests/${r.id}`).set(as(INVITEE)).set('If-Match', '1').send({ title: 'x' })).status).toBe(412);
  });

  // Issue 18, finding 2: the review saga publishes `topic.record` into `receiver.community`, so a
  // creator who re-aims a created review at someone else's draft must be refused.
  it('should refuse a changed topic or receiver of a created request (400 per field), for the creator and administrators alike', async () => {
    const mine = env.fake.add({ title: 'Mine', review_policy: 'open' });
    const r = await createRequest(env, {
      type: 'community-submission',
      created_by: { user: OTHER },
      receiver: { community: mine.id },
      topic: { record: 'abcde-fgh12' },
    });
    expect(r.status).toBe('created');
    const reaim = await env.http
      .put(`/api/requests/${r.id}`)
      .set(as(OTHER))
      .send({ topic: { record: 'vwxyz-abc34' }, receiver: { community: community.id } });
    expect(reaim.status).toBe(400);
    expect(reaim.body).toEqual({
      status: 400,
      message: 'A validation error occurred.',
      errors: [
        { field: 'receiver', messages: ['The receiver of this request cannot be changed.'] },
        { field: 'topic', messages: ['The topic of this request cannot be changed.'] },
      ],
    });
    const admin = await env.http
      .put(`/api/requests/${r.id}`)
      .set(as('99', ['admin']))
      .send({ topic: { record: 'vwxyz-abc34' } });
    expect(admin.status).toBe(400);
    // Echoing the current references back is no change, and title/description still change.
    const echo = await env.http
      .put(`/api/requests/${r.id}`)
      .set(as(OTHER))
      .send({ title: 'Mine', topic: { record: 'abcde-fgh12' }, receiver: { community: mine.id } })
      .expect(200);
    expect(echo.body).toMatchObject({ title: 'Mine', topic: { record: 'abcde-fgh12' }, receiver: { community: mine.id } });
    const stored = await env.http.get(`/api/requests/${r.id}`).set(as(OTHER)).expect(200);
    expect(stored.body).toMatchObject({ topic: { record: 'abcde-fgh12' }, receiver: { community: mine.id } });
  });

  it('should refuse updates of closed requests except for administrators', async () => {
    const r = await invite();
    await env.http.post(`/api/requests/${r.id}/actions/decline`).set(as(INVITEE)).expect(200);
    expect((await env.http.put(`/api/requests/${r.id}`).set(as(INVITEE)).send({ title: 'x' })).status).toBe(403);
    await env.http
      .put(`/api/requests/${r.id}`)
      .set(as('99', ['admin']))
      .send({ title: 'x' })
      .expect(200);
  });
});

describe('request lists', () => {
  it('should answer 403 to anonymous callers', async () => {
    expect((await env.http.get('/api/requests')).status).toBe(403);
    expect((await env.http.get('/api/user/requests')).status).toBe(403);
  });

  it('should list only readable requests with type/status aggregations and post-filter facets', async () => {
    const other = env.fake.add({ title: 'Elsewhere' });
    const foreign = await createRequest(env, {
      type: 'community-invitation',
      created_by: { community: other.id },
      receiver: { user: OTHER },
      topic: { community: other.id },
      payload: { role: 'reader' },
    });
    const mine = await invite();
    await env.http.post(`/api/requests/${mine.id}/actions/decline`).set(as(INVITEE)).expect(200);
    const res = await env.http.get('/api/requests').set(as(INVITEE)).expect(200);
    const ids = res.body.hits.hits.map((h: any) => h.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(foreign.id);
    expect(res.body.sortBy).toBe('newest');
    expect(res.body.aggregations.type.buckets).toEqual([
      { key: 'community-invitation', doc_count: res.body.hits.total, label: 'Member invitation', is_selected: false },
    ]);
    const filtered = await env.http.get('/api/requests?status=declined').set(as(INVITEE)).expect(200);
    expect(filtered.body.hits.hits.every((h: any) => h.status === 'declined')).toBe(true);
    expect(filtered.body.aggregations.status.buckets.find((b: any) => b.key === 'declined')).toMatchObject({
      is_selected: true,
      label: 'Declined',
    });
    expect(filtered.body.aggregations.status.buckets.map((b: any) => b.key)).toContain('submitted');
    const open = await env.http.get('/api/requests?is_open=true').set(as(INVITEE)).expect(200);
    expect(open.body.hits.hits.every((h: any) => h.is_open)).toBe(true);
    const byOwner = await env.http.get('/api/requests').set(as(OWNER)).expect(200);
    expect(byOwner.body.hits.hits.map((h: any) => h.id)).toContain(mine.id);
    const q = await env.http
      .get(`/api/requests?q=${encodeURIComponent(`"${mine.number}"`)}`)
      .set(as(INVITEE))
      .expect(200);
    expect(q.body.hits.hits.map((h: any) => h.id)).toEqual([mine.id]);
    expect((await env.http.get('/api/requests?q=(').set(as(INVITEE))).status).toBe(400);
    expect((await env.http.get('/api/requests?sort=nope').set(as(INVITEE))).status).toBe(400);
    expect((await env.http.get('/api/requests?created_by=nocolon').set(as(INVITEE))).body).toEqual({
      status: 400,
      message: 'Not a valid reference.',
    });
    const rec = await env.http.get(`/api/requests?receiver=user:${INVITEE}&created_by=nosuchthing:1`).set(as(INVITEE)).expect(200);
    expect(rec.body.hits.hits.every((h: any) => h.receiver.user === INVITEE)).toBe(true);
  });

  it("should list the user's requests at /api/user/requests", async () => {
    const r = await invite();
    const res = await env.http.get('/api/user/requests').set(as(INVITEE)).expect(200);
    expect(res.body.hits.hits.map((h: any) => h.id)).toContain(r.id);
    const owner = await env.http.get('/api/user/requests').set(as(OWNER)).expect(200);
    expect(owner.body.hits.hits.map((h: any) => h.id)).not.toContain(r.id);
  });

  it('should list community requests for curators and up only, without membership requests', async () => {
    const m = await createRequest(env, {
      type: 'community-membership-request',
      created_by: { user: OTHER },
      receiver: { community: community.id },
      topic: { community: community.id },
    });
    expect(m.title).toBe('Request to join "Ocean people"');
    const res = await env.http.get(`/api/communities/${community.id}/requests`).set(as(CURATOR)).expect(200);
    expect(res.body.hits.hits.map((h: any) => h.id)).not.toContain(m.id);
    expect((await env.http.get(`/api/communities/${community.id}/requests`).set(as(OTHER))).status).toBe(403);
    expect((await env.http.get('/api/communities/ocean/requests').set(as(CURATOR))).status).toBe(403);
    // The membership request: owner and manager accept; its creator sees /me/requests.
    const asCreator = await env.http.get(`/api/requests/${m.id}`).set(as(OTHER)).expect(200);
    expect(asCreator.body.links.self_html).toBe(`${BASE}/me/requests/${m.id}`);
    expect(Object.keys(asCreator.body.links.actions)).toEqual(['cancel']);
    const asManager = await env.http.get(`/api/requests/${m.id}`).set(as(MANAGER)).expect(200);
    expect(asManager.body.links.self_html).toBe(`${BASE}/communities/ocean/membership-requests/${m.id}`);
    expect(Object.keys(asManager.body.links.actions).sort()).toEqual(['accept', 'decline']);
  });

  it('should answer 405 to POST /api/requests', async () => {
    expect((await env.http.post('/api/requests').set(as(OWNER)).send({})).status).toBe(405);
  });
});

describe('expiry job', () => {
  it('should expire submitted requests past expires_at as the system', async () => {
    const r = await createRequest(env, {
      type: 'community-invitation',
      created_by: { community: community.id },
      receiver: { user: INVITEE },
      topic: { community: community.id },
      expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    const before = await env.http.get(`/api/requests/${r.id}`).set(as(INVITEE)).expect(200);
    expect(before.body).toMatchObject({ status: 'submitted', is_expired: true });
    expect(await env.expiry.runOnce()).toBeGreaterThanOrEqual(1);
    const after = await env.http.get(`/api/requests/${r.id}`).set(as(INVITEE)).expect(200);
    expect(after.body).toMatchObject({ status: 'expired', is_closed: true });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(INVITEE)).expect(200);
    expect(tl.body.hits.hits.at(-1)).toMatchObject({ type: 'L', created_by: { user: 'system' }, payload: { event: 'expired' } });
    const ob = await env.tdb.db('outbox').where({ aggregate_id: r.id, subject: 'rdm.requests.request.expired' });
    expect(ob).toHaveLength(1);
    expect(await env.expiry.runOnce()).toBe(0);
    // Nobody but the system expires.
    const x = await invite();
    expect((await env.http.post(`/api/requests/${x.id}/actions/expire`).set(as('1', ['admin']))).status).toBe(403);
  });
});
