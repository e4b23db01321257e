/** Members, invitations, membership requests and the consumers (requests' outcomes, records' statistics) over real PostgreSQL and NATS. */
import { randomUUID } from 'node:crypto';
import { ensureStream, eventSubjects } from '@rdm/platform';
import { waitFor } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommunitiesConsumers } from '../../src/events/consumers.js';
import { upsertParent } from '../../src/repo/stats.repo.js';
import { ADMIN, as, BASE, communityBody, type Harness, startHarness } from './support.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

let h: Harness;
let app: Harness['sut']['app'];
let consumers: { stop(): Promise<void>; ready: Promise<void> }[] = [];
const api = () => request(gatewayFront(app.callback(), SECRET));

beforeAll(async () => {
  h = await startHarness();
  app = h.sut.app;
  await ensureStream(h.nats.jsm, { name: 'REQUESTS', subjects: eventSubjects('requests') });
  await ensureStream(h.nats.jsm, { name: 'RECORDS', subjects: eventSubjects('records') });
  const { testLogger } = await import('@rdm/platform/testing');
  consumers = startCommunitiesConsumers({ db: h.db.db, nats: h.nats, members: h.sut.members, logger: testLogger('consumers') });
  await Promise.all(consumers.map((c) => c.ready));
});
afterAll(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
  await h?.stop();
});

async function create(slug: string, extra: Record<string, unknown> = {}) {
  const res = await api().post('/api/communities').set(ADMIN).send(communityBody(slug, extra));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await h.seed(res.body.id, { 2: 'owner', 3: 'manager', 4: 'curator', 5: 'reader' });
  return res.body as { id: string; slug: string };
}

/** Publish an event as its producer's relay would (Nats-Msg-Id given explicitly to simulate redelivery). */
async function publish(subject: string, data: Record<string, unknown>, envelopeId = randomUUID(), msgId = envelopeId) {
  const envelope = {
    id: envelopeId,
    type: subject,
    version: 1,
    occurred_at: new Date().toISOString(),
    aggregate: { type: 'x', id: 'x', revision: 1 },
    data,
  };
  await h.nats.js.publish(subject, JSON.stringify(envelope), { msgID: msgId });
  return envelope;
}

const requestEvent = (id: string, type: string, cid: string, uid: string) => ({
  id,
  number: '1',
  type,
  created_by: type === 'community-invitation' ? { community: cid } : { user: uid },
  receiver: type === 'community-invitation' ? { user: uid } : { community: cid },
  topic: { community: cid },
  actor: { user: uid },
});

describe('GET /api/communities/<id>/members', () => {
  it('should list active members for members only, with aggregations, q and sorts; a slug is a 400', async () => {
    const c = await create('members-list');
    const res = await api().get(`/api/communities/${c.id}/members`).set(as('4'));
    expect(res.status).toBe(200);
    expect(res.body.sortBy).toBe('name');
    expect(res.body.hits.hits.map((m: { member: { name: string } }) => m.member.name)).toEqual([
      'Ada Admin',
      'Cora Curator',
      'Max Manager',
      'Olga Owner',
      'Rita Reader',
    ]);
    const me = res.body.hits.hits.find((m: { member: { id: string } }) => m.member.id === '4');
    expect(me).toMatchObject({
      role: 'curator',
      visible: false,
      is_current_user: true,
      permissions: { can_leave: true, can_delete: false, can_update_role: false, can_update_visible: true },
      member: { type: 'user', id: '4', name: 'Cora Curator', avatar: `${BASE}/api/users/4/avatar.svg` },
      revision_id: 1,
      links: {},
    });
    expect(res.body.aggregations.role.buckets).toContainEqual({ key: 'owner', doc_count: 2, label: 'Owner', is_selected: false });
    expect(res.body.aggregations.visibility.buckets).toEqual([{ key: 'false', doc_count: 5, label: 'Hidden', is_selected: false }]);
    expect(res.body.links.self).toBe(`${BASE}/api/communities/${c.id}/members?page=1&size=25&sort=name`);
    expect((await api().get(`/api/communities/${c.id}/members?q=rita`).set(as('4'))).body.hits.total).toBe(1);
    expect((await api().get(`/api/communities/${c.id}/members?role=owner`).set(as('4'))).body.hits.total).toBe(2);
    const managerView = await api().get(`/api/communities/${c.id}/members?q=rita`).set(as('3'));
    expect(managerView.body.hits.hits[0].permissions).toEqual({
      can_leave: false,
      can_delete: true,
      can_update_role: true,
      can_update_visible: false,
    });
    expect((await api().get(`/api/communities/${c.id}/members?sort=newest`).set(as('4'))).body.sortBy).toBe('newest');
    expect((await api().get(`/api/communities/${c.id}/members`).set(as('6'))).status).toBe(403);
    expect((await api().get(`/api/communities/${c.id}/members`)).status).toBe(403);
    const slug = await api().get(`/api/communities/${c.slug}/members`).set(as('4'));
    expect(slug.status).toBe(400);
    expect(slug.body.errors).toEqual([{ field: 'pid_value', messages: ['Not a valid UUID.'] }]);
    expect((await api().get(`/api/communities/${randomUUID()}/members`).set(as('4'))).status).toBe(404);
  });

  it('should list visible members publicly without aggregations when the community and its members are public', async () => {
    const c = await create('members-public');
    await h.seed(c.id, { 7: 'reader' }, true);
    const res = await api().get(`/api/communities/${c.id}/members/public`);
    expect(res.status).toBe(200);
    expect(res.body.aggregations).toBeUndefined();
    expect(res.body.hits.hits).toEqual([
      {
        id: expect.any(String),
        member: { type: 'user', id: '7', name: 'Ivy Invitee', description: '', avatar: `${BASE}/api/users/7/avatar.svg` },
      },
    ]);
    const r = await create('members-private', { access: { visibility: 'restricted' } });
    expect((await api().get(`/api/communities/${r.id}/members/public`)).status).toBe(403);
    expect((await api().get(`/api/communities/${r.id}/members/public`).set(as('5'))).status).toBe(200);
  });

  it("should never match a co-member's e-mail address (only administrators search on addresses)", async () => {
    const c = await create('members-mail');
    // A member whose address shares nothing with their name or username.
    h.users.set('9', { id: '9', username: 'nina', full_name: 'Nina Nobody', email: 'hidden.handle@secret.example', active: true });
    await h.seed(c.id, { 9: 'reader' }, true);
    const names = async (q: string, who: Record<string, string>, list = 'members') => {
      const res = await api()
        .get(`/api/communities/${c.id}/${list}?q=${encodeURIComponent(q)}`)
        .set(who);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.hits.hits.map((m: { member: { name: string } }) => m.member.name);
    };
    for (const who of [as('4'), as('2')]) {
      for (const q of [
        'hidden',
        'hidden.handle',
        'hidden.handle@secret.example',
        'secret.example',
        'email:hidden.handle@secret.example',
        'email:*secret*',
        '_exists_:email',
      ]) {
        expect(await names(q, who), `${q}`).toEqual([]);
      }
      expect(await names('email:hidden.handle@secret.example', who, 'members/public')).toEqual([]);
      expect(await names('nina', who)).toEqual(['Nina Nobody']);
    }
    // Administrators see every address: they may search on it (fielded).
    expect(await names('email:hidden.handle@secret.example', ADMIN)).toEqual(['Nina Nobody']);
  });
});

describe('PUT and DELETE /api/communities/<id>/members', () => {
  it('should apply InvenioRDM role and visibility rules and the owner invariant', async () => {
    const c = await create('members-update');
    const put = (who: string, body: object) => api().put(`/api/communities/${c.id}/members`).set(as(who)).send(body);
    const own = await put('2', { members: [{ type: 'user', id: '2' }], role: 'reader' });
    expect(own.status).toBe(400);
    expect(own.body.errors).toEqual([{ field: '_schema', messages: ['You cannot change your own role.'] }]);
    const vis = await put('2', { members: [{ type: 'user', id: '5' }], visible: true });
    expect(vis.body.errors).toEqual([{ field: '_schema', messages: ['You can only set public visibility on your own membership.'] }]);
    expect((await put('3', { members: [{ type: 'user', id: '2' }], role: 'reader' })).status).toBe(403);
    expect((await put('3', { members: [{ type: 'user', id: '5' }], role: 'owner' })).status).toBe(403);
    expect((await put('5', { members: [{ type: 'user', id: '4' }], role: 'reader' })).status).toBe(403);
    expect((await put('6', { members: [{ type: 'user', id: '4' }], role: 'reader' })).status).toBe(403);
    expect((await put('2', { members: [{ type: 'user', id: '6' }], role: 'reader' })).body.errors).toEqual([
      { field: 'members', messages: ['Invalid member specified.'] },
    ]);
    expect((await put('2', { members: [{ type: 'user', id: '5' }] })).status).toBe(400);
    expect((await put('2', { members: [{ type: 'user', id: '5' }], role: 'boss' })).status).toBe(400);
    expect((await put('3', { members: [{ type: 'user', id: '5' }], role: 'curator' })).status).toBe(204);
    expect((await put('5', { members: [{ type: 'user', id: '5' }], visible: true })).status).toBe(204);
    const row = await h.db.db('members').where({ community_id: c.id, member_id: '5' }).first();
    expect(row).toMatchObject({ role: 'curator', visible: true, revision_id: 3 });
    const updates = await h.db
      .db('outbox')
      .where({ subject: 'rdm.communities.member.updated' })
      .whereRaw("payload->'data'->>'community_id' = ?", [c.id]);
    expect(updates).toHaveLength(2);
    // Demoting every owner leaves none: refused, nothing changed.
    const last = await put('1', { members: [{ type: 'user', id: '2' }], role: 'reader' });
    expect(last.status).toBe(204);
    const none = await api()
      .delete(`/api/communities/${c.id}/members`)
      .set(ADMIN)
      .send({ members: [{ type: 'user', id: '1' }] });
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual([{ field: '_schema', messages: ['A community must have at least one owner.'] }]);
    expect(await h.db.db('members').where({ community_id: c.id, member_id: '1' }).first()).toBeDefined();
  });

  it('should let members leave and managers remove what they manage', async () => {
    const c = await create('members-delete');
    const del = (who: string, id: string) =>
      api()
        .delete(`/api/communities/${c.id}/members`)
        .set(as(who))
        .send({ members: [{ type: 'user', id }] });
    expect((await del('4', '5')).status).toBe(403);
    expect((await del('3', '2')).status).toBe(403);
    expect((await del('5', '5')).status).toBe(204);
    expect((await del('3', '4')).status).toBe(204);
    expect((await del('2', '2')).status).toBe(204);
    expect((await h.db.db('members').where({ community_id: c.id }).select('member_id')).map((r) => r.member_id).sort()).toEqual(['1', '3']);
    expect(
      await h.db.db('outbox').where({ subject: 'rdm.communities.member.removed' }).whereRaw("payload->'data'->>'community_id' = ?", [c.id]),
    ).toHaveLength(3);
  });
});

describe('invitations', () => {
  it('should create a pending membership and its request, refuse duplicates and bad invitees', async () => {
    const c = await create('invites');
    const invite = (who: string, body: object) => api().post(`/api/communities/${c.id}/invitations`).set(as(who)).send(body);
    const ok = await invite('3', { members: [{ type: 'user', id: '7' }], role: 'curator', message: '<p>Join us</p>' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(204);
    const row = await h.db.db('members').where({ community_id: c.id, member_id: '7' }).first();
    expect(row).toMatchObject({ active: false, role: 'curator', request_type: 'community-invitation', request_status: 'submitted' });
    const sent = h.created.get(row.id);
    expect(sent?.input).toMatchObject({
      identity: { sub: '3', roles: [] },
      type: 'community-invitation',
      created_by: { community: c.id },
      receiver: { user: '7' },
      topic: { community: c.id },
      title: 'Invitation to join "Community invites"',
      description: 'You will join as "Curator".',
      payload: { role: 'curator' },
      comment: { content: '<p>Join us</p>', format: 'html' },
      key: row.id,
    });
    expect(row.request_id).toBe(sent?.request.id);
    const dup = await invite('2', { members: [{ type: 'user', id: '7' }], role: 'reader' });
    expect(dup.body.errors).toEqual([
      {
        field: 'members',
        messages: ['One of the submitted entity is already a member or pending a decision. The entire action was cancelled.'],
      },
    ]);
    expect((await invite('2', { members: [{ type: 'user', id: '5' }], role: 'reader' })).status).toBe(400);
    expect((await invite('2', { members: [{ type: 'user', id: '8' }], role: 'reader' })).body.errors).toEqual([
      { field: 'members', messages: ['Invalid member specified.'] },
    ]);
    expect((await invite('2', { members: [{ type: 'user', id: '999' }], role: 'reader' })).status).toBe(400);
    expect((await invite('2', { members: [{ type: 'group', id: 'x' }], role: 'reader' })).status).toBe(400);
    expect((await invite('2', { members: [{ type: 'email', id: 'a@b.c' }], role: 'reader' })).body.errors).toEqual([
      { field: 'members.0', messages: ['Invalid member type: email'] },
    ]);
    expect((await invite('2', { members: [{ type: 'user', id: '6' }] })).status).toBe(400);
    expect((await invite('4', { members: [{ type: 'user', id: '6' }], role: 'reader' })).status).toBe(403);
    expect((await invite('3', { members: [{ type: 'user', id: '6' }], role: 'owner' })).status).toBe(403);
    expect((await invite('6', { members: [{ type: 'user', id: '6' }], role: 'reader' })).status).toBe(403);

    const changed = await api()
      .put(`/api/communities/${c.id}/invitations`)
      .set(as('2'))
      .send({ members: [{ type: 'user', id: '7' }], role: 'reader' });
    expect(changed.status).toBe(204);
    const list = await api().get(`/api/communities/${c.id}/invitations`).set(as('3'));
    expect(list.status).toBe(200);
    expect(list.body.hits.hits).toHaveLength(1);
    expect(list.body.hits.hits[0]).toMatchObject({
      role: 'reader',
      member: { id: '7', name: 'Ivy Invitee' },
      request: {
        id: row.request_id,
        status: 'submitted',
        is_open: true,
        type: 'community-invitation',
        expires_at: expect.stringMatching(/\+00:00$/),
      },
      permissions: { can_cancel: true, can_update_role: true },
      links: {
        actions: { cancel: `${BASE}/api/requests/${row.request_id}/actions/cancel` },
        self_html: `${BASE}/communities/invites/requests/${row.request_id}`,
      },
    });
    expect(list.body.aggregations.is_open.buckets).toEqual([{ key: 'true', doc_count: 1, label: 'Open', is_selected: false }]);
    expect((await api().get(`/api/communities/${c.id}/invitations`).set(as('4'))).status).toBe(403);
    // Still not a member until accepted.
    expect((await api().get(`/api/communities/${c.id}/members`).set(as('7'))).status).toBe(403);
  });

  it('should comment the role change of a pending invitation on its request (as the system), only when it changes', async () => {
    const c = await create('invite-role');
    await api()
      .post(`/api/communities/${c.id}/invitations`)
      .set(as('2'))
      .send({ members: [{ type: 'user', id: '7' }], role: 'reader' })
      .expect(204);
    const row = await h.db.db('members').where({ community_id: c.id, member_id: '7' }).first();
    const before = h.comments.length;
    const put = (role: string, who = '2') =>
      api()
        .put(`/api/communities/${c.id}/invitations`)
        .set(as(who))
        .send({ members: [{ type: 'user', id: '7' }], role });
    expect((await put('curator')).status).toBe(204);
    expect(h.comments.slice(before)).toEqual([
      {
        id: row.request_id,
        identity: { sub: 'system', roles: ['system'] },
        payload: { content: 'You will join as "Curator" (changed from: "reader").', format: 'html' },
      },
    ]);
    expect((await h.db.db('members').where({ id: row.id }).first()).role).toBe('curator');
    // The same role again: nothing changes, nothing is said.
    expect((await put('curator')).status).toBe(204);
    expect(h.comments).toHaveLength(before + 1);
    // A manager may not hand out ownership: refused before anything is sent.
    expect((await put('owner', '3')).status).toBe(403);
    expect(h.comments).toHaveLength(before + 1);
    expect((await h.db.db('members').where({ id: row.id }).first()).role).toBe('curator');
  });

  it('should make the invitee a member exactly once when the accepted event is redelivered', async () => {
    const c = await create('invite-accept');
    await api()
      .post(`/api/communities/${c.id}/invitations`)
      .set(as('2'))
      .send({ members: [{ type: 'user', id: '7' }], role: 'curator' });
    const row = await h.db.db('members').where({ community_id: c.id, member_id: '7' }).first();
    const data = requestEvent(row.request_id, 'community-invitation', c.id, '7');
    const envelopeId = randomUUID();
    // Same event twice under different Nats-Msg-Ids: JetStream keeps both, the inbox dedupes.
    await publish('rdm.requests.request.accepted', data, envelopeId, `${envelopeId}-a`);
    await publish('rdm.requests.request.accepted', data, envelopeId, `${envelopeId}-b`);
    // A second, distinct event for the same request (e.g. a replayed outbox row) has no effect either.
    await publish('rdm.requests.request.accepted', data);
    await waitFor(
      async () => (await h.db.db('inbox').where({ consumer: 'communities-request-accepted' }).count({ n: '*' }).first())?.n === '2',
      {
        timeoutMs: 15_000,
      },
    );
    const members = await h.db.db('members').where({ community_id: c.id, member_id: '7' });
    expect(members).toHaveLength(1);
    expect(members[0]).toMatchObject({ active: true, role: 'curator', visible: false });
    const added = await h.db
      .db('outbox')
      .where({ subject: 'rdm.communities.member.added' })
      .whereRaw("payload->'data'->>'community_id' = ?", [c.id])
      .select('payload');
    const forRequest = added.filter((e) => e.payload.data.request_id === row.request_id);
    expect(forRequest).toHaveLength(1);
    expect(forRequest[0].payload.data).toEqual({
      community_id: c.id,
      member_type: 'user',
      member_id: '7',
      role: 'curator',
      visible: false,
      request_id: row.request_id,
    });
    expect((await api().get(`/api/communities/${c.id}/members`).set(as('7'))).status).toBe(200);
    const inv = await api().get(`/api/communities/${c.id}/invitations`).set(as('2'));
    expect(inv.body.hits.hits[0].request).toMatchObject({ status: 'accepted', is_open: false });
    expect(inv.body.hits.hits[0].permissions).toEqual({ can_cancel: false, can_update_role: false });
  });

  it('should drop the pending row on decline and archive the invitation; re-inviting works', async () => {
    const c = await create('invite-decline');
    await api()
      .post(`/api/communities/${c.id}/invitations`)
      .set(as('2'))
      .send({ members: [{ type: 'user', id: '7' }], role: 'reader' });
    const row = await h.db.db('members').where({ community_id: c.id, member_id: '7' }).first();
    await publish('rdm.requests.request.declined', requestEvent(row.request_id, 'community-invitation', c.id, '7'));
    await waitFor(async () => !(await h.db.db('members').where({ community_id: c.id, member_id: '7' }).first()), { timeoutMs: 15_000 });
    const list = await api().get(`/api/communities/${c.id}/invitations?is_open=false`).set(as('2'));
    expect(list.body.hits.hits.map((x: { request: { status: string } }) => x.request.status)).toEqual(['declined']);
    expect(
      (
        await api()
          .post(`/api/communities/${c.id}/invitations`)
          .set(as('2'))
          .send({ members: [{ type: 'user', id: '7' }], role: 'reader' })
      ).status,
    ).toBe(204);
    const again = await h.db.db('members').where({ community_id: c.id, member_id: '7' }).first();
    expect(again.id).not.toBe(row.id);
    expect(again.request_id).not.toBe(row.request_id);
  });
});

describe('membership requests', () => {
  it('should create a request for open communities, 403 for closed ones, 400 on repeat; accept makes a hidden reader', async () => {
    const closed = await create('mr-closed');
    expect((await api().post(`/api/communities/${closed.id}/membership-requests`).set(as('6')).send({})).status).toBe(403);
    const c = await create('mr-open', { access: { member_policy: 'open' } });
    expect((await api().post(`/api/communities/${c.id}/membership-requests`).send({})).status).toBe(403);
    const res = await api().post(`/api/communities/${c.id}/membership-requests`).set(as('6')).send({ message: 'Let me in' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      type: 'community-membership-request',
      status: 'submitted',
      created_by: { user: '6' },
      receiver: { community: c.id },
    });
    const row = await h.db.db('members').where({ community_id: c.id, member_id: '6' }).first();
    expect(h.created.get(row.id)?.input).toMatchObject({
      title: 'Request to join "Community mr-open"',
      comment: { content: 'Let me in', format: 'html' },
    });
    expect((await api().post(`/api/communities/${c.id}/membership-requests`).set(as('6')).send({})).status).toBe(400);
    expect((await api().post(`/api/communities/${c.id}/membership-requests`).set(as('5')).send({})).status).toBe(400);
    const list = await api().get(`/api/communities/${c.id}/membership-requests`).set(as('3'));
    expect(list.body.hits.hits[0].links.actions).toEqual({
      accept: `${BASE}/api/requests/${row.request_id}/actions/accept`,
      decline: `${BASE}/api/requests/${row.request_id}/actions/decline`,
    });
    expect((await api().get(`/api/communities/${c.id}/membership-requests`).set(as('5'))).status).toBe(403);
    const disabled = h.appWith({ COMMUNITIES_ALLOW_MEMBERSHIP_REQUESTS: false }).app;
    expect(
      (await request(gatewayFront(disabled.callback(), SECRET)).post(`/api/communities/${c.id}/membership-requests`).set(as('7')).send({}))
        .status,
    ).toBe(403);
    await publish('rdm.requests.request.accepted', requestEvent(row.request_id, 'community-membership-request', c.id, '6'));
    await waitFor(async () => (await h.db.db('members').where({ community_id: c.id, member_id: '6' }).first())?.active === true, {
      timeoutMs: 15_000,
    });
    expect(await h.db.db('members').where({ community_id: c.id, member_id: '6' }).first()).toMatchObject({
      role: 'reader',
      visible: false,
    });
  });

  // Issue 19, item 4: InvenioRDM serves PUT …/membership-requests (the members service's bulk
  // update): owners and managers change the role a pending request will get, commented on it.
  it('should change the role a pending membership request will get (PUT …/membership-requests); accept grants it', async () => {
    const c = await create('mr-role', { access: { member_policy: 'open' } });
    const put = (who: string | null, body: object) => api().put(`/api/communities/${c.id}/membership-requests`).set(as(who)).send(body);
    expect((await api().post(`/api/communities/${c.id}/membership-requests`).set(as('6')).send({})).status).toBe(201);
    const row = await h.db.db('members').where({ community_id: c.id, member_id: '6' }).first();
    const before = h.comments.length;
    const ok = await put('3', { members: [{ type: 'user', id: '6' }], role: 'curator' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(204);
    expect(ok.text).toBe('');
    expect((await h.db.db('members').where({ id: row.id }).first()).role).toBe('curator');
    expect(h.comments.slice(before)).toEqual([
      {
        id: row.request_id,
        identity: { sub: 'system', roles: ['system'] },
        payload: { content: 'You will join as "Curator" (changed from: "reader").', format: 'html' },
      },
    ]);
    const list = await api().get(`/api/communities/${c.id}/membership-requests`).set(as('2'));
    expect(list.body.hits.hits[0]).toMatchObject({ role: 'curator', member: { id: '6' } });
    // Who may: owners and managers (managers not for owner); others 403; anonymous 403.
    expect((await put('3', { members: [{ type: 'user', id: '6' }], role: 'owner' })).status).toBe(403);
    for (const who of ['4', '5', '7', null]) {
      expect((await put(who, { members: [{ type: 'user', id: '6' }], role: 'reader' })).status, `as ${who}`).toBe(403);
    }
    expect((await h.db.db('members').where({ id: row.id }).first()).role).toBe('curator');
    // Bad bodies and members that are not pending membership requests: 400.
    expect((await put('2', { members: [{ type: 'user', id: '6' }] })).body.errors).toEqual([
      { field: 'role', messages: ['Missing data for required field.'] },
    ]);
    expect((await put('2', { members: [{ type: 'user', id: '6' }], role: 'boss' })).status).toBe(400);
    expect((await put('2', { members: [{ type: 'user', id: '5' }], role: 'curator' })).body.errors).toEqual([
      { field: 'members', messages: ['Invalid member specified.'] },
    ]);
    await api()
      .post(`/api/communities/${c.id}/invitations`)
      .set(as('2'))
      .send({ members: [{ type: 'user', id: '7' }], role: 'reader' })
      .expect(204);
    expect((await put('2', { members: [{ type: 'user', id: '7' }], role: 'curator' })).status).toBe(400);
    expect((await api().put('/api/communities/mr-role/membership-requests').set(as('2')).send({})).status).toBe(400);
    // Accepting the request makes the requester a member with the changed role.
    await publish('rdm.requests.request.accepted', requestEvent(row.request_id, 'community-membership-request', c.id, '6'));
    await waitFor(async () => (await h.db.db('members').where({ id: row.id }).first())?.active === true, { timeoutMs: 15_000 });
    expect(await h.db.db('members').where({ id: row.id }).first()).toMatchObject({ role: 'curator', visible: false });
    // Once accepted it is a member, no longer a pending request.
    expect((await put('2', { members: [{ type: 'user', id: '6' }], role: 'reader' })).status).toBe(400);
  });
});

describe('statistics', () => {
  it('should count each parent once with its latest files, from record.published and inclusion events', async () => {
    const c = await create('stats');
    const other = await create('stats-other');
    await publish('rdm.records.record.published', {
      id: 'r1',
      parent_id: 'p1',
      index: 1,
      is_latest: true,
      access_status: 'open',
      bucket_id: 'b1',
      communities: [c.id],
      files_count: 2,
      files_bytes: 100,
    });
    await publish('rdm.records.record.published', {
      id: 'r2',
      parent_id: 'p1',
      index: 2,
      is_latest: true,
      access_status: 'open',
      bucket_id: 'b2',
      communities: [c.id],
      files_count: 3,
      files_bytes: 150,
    });
    await publish('rdm.records.record.published', {
      id: 'r3',
      parent_id: 'p2',
      index: 1,
      is_latest: true,
      access_status: 'open',
      bucket_id: 'b3',
      files_count: 1,
      files_bytes: 10,
    });
    // p2's publication (in no community) is skipped; its first inclusion brings its latest files.
    const p2 = { parent_id: 'p2', record_id: 'r3', files_count: 1, files_bytes: 10 };
    const inc = await publish('rdm.records.inclusion.added', { ...p2, community_id: c.id });
    await publish('rdm.records.inclusion.added', { ...p2, community_id: c.id }, inc.id, `${inc.id}-again`);
    await publish('rdm.records.inclusion.added', { ...p2, community_id: other.id });
    const expected = { records: 2, files: 4, file_size: 160, record_views: 0, record_downloads: 0 };
    await waitFor(async () => JSON.stringify((await api().get(`/api/communities/${c.id}`)).body.statistics) === JSON.stringify(expected), {
      timeoutMs: 15_000,
    });
    await publish('rdm.records.inclusion.removed', { parent_id: 'p2', record_id: 'r3', community_id: other.id });
    await waitFor(async () => (await api().get(`/api/communities/${other.id}`)).body.statistics.records === 0, { timeoutMs: 15_000 });
    expect((await api().get(`/api/communities/${c.id}`)).body.statistics).toEqual(expected);
  });

  it('should skip publications of parents in no community (no inbox row) and keep the later of a publication and an inclusion', async () => {
    const c = await create('stats-order');
    const base = { parent_id: 'p9', index: 1, is_latest: true, access_status: 'open', bucket_id: 'b9' };
    const alone = await publish('rdm.records.record.published', { ...base, id: 'r9', files_count: 5, files_bytes: 500 });
    // A later version in the community, then (stream-wise later) an inclusion carrying newer files.
    const inCommunity = await publish('rdm.records.record.published', {
      ...base,
      id: 'r10',
      index: 2,
      communities: [c.id],
      files_count: 2,
      files_bytes: 20,
    });
    await publish('rdm.records.inclusion.added', {
      parent_id: 'p9',
      record_id: 'r11',
      community_id: c.id,
      files_count: 3,
      files_bytes: 30,
    });
    await waitFor(async () => (await api().get(`/api/communities/${c.id}`)).body.statistics.files === 3, { timeoutMs: 15_000 });
    expect((await api().get(`/api/communities/${c.id}`)).body.statistics).toMatchObject({ records: 1, files: 3, file_size: 30 });
    // Same durable, in stream order: once r10's publication is handled, r9's was skipped before it.
    await waitFor(async () => (await h.db.db('inbox').where({ message_id: inCommunity.id })).length === 1, { timeoutMs: 15_000 });
    expect(await h.db.db('inbox').where({ message_id: alone.id })).toEqual([]);
    expect((await api().get(`/api/communities/${c.id}`)).body.statistics).toMatchObject({ records: 1, files: 3, file_size: 30 });
    // An older event applied last (a redelivery of the r10 publication) changes nothing.
    const older = await h.db.db('record_parents').where({ parent_id: 'p9' }).first();
    await h.db.db.transaction((trx) =>
      upsertParent(trx, { parent_id: 'p9', record_id: 'r10', files: 2, file_size: 20, seq: Number(older.seq) - 1 }),
    );
    expect(await h.db.db('record_parents').where({ parent_id: 'p9' }).first()).toMatchObject({ record_id: 'r11', files: 3 });
  });
});
