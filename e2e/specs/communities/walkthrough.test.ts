/**
 * Issue "Communities and requests services", done-when walkthrough through the gateway: an
 * administrator creates a community, uploads its logo, finds it by search, invites a second
 * user, who accepts and appears in the members; the invitation is commented on, replied to, the
 * comment edited and deleted, and the timeline read. Shapes as spec + reference say.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { communityBody, createCommunity, uniqueSlug } from './support.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)$/;
const COMMENT_TS = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

describe('communities walkthrough: create, logo, search, invite, accept, comment', () => {
  let admin: TestUser;
  let invitee: TestUser;
  let slug: string;
  let cid: string;
  let requestId: string;
  let commentId: string;
  let api_: string;

  beforeAll(async () => {
    api_ = `${baseUrl()}/api`;
    admin = await createUser({ email: uniqueEmail('comm-admin'), admin: true, name: 'Ada Admin' });
    invitee = await createUser({ email: uniqueEmail('comm-invitee'), name: 'Ivan Invitee' });
    slug = uniqueSlug('walk');
  });

  it('POST /api/communities creates the community (201) with the spec shape', async () => {
    const res = await createCommunity(admin.token, communityBody(slug, 'Ocean Data Walkthrough'));
    expect(res.status, res.text).toBe(201);
    const c = res.body;
    cid = c.id;
    expect(cid).toMatch(UUID);
    expect(c).toMatchObject({
      slug,
      revision_id: expect.any(Number),
      metadata: { title: 'Ocean Data Walkthrough', type: { id: 'project', title: expect.objectContaining({ en: expect.any(String) }) } },
      access: {
        visibility: 'public',
        members_visibility: expect.any(String),
        member_policy: expect.any(String),
        record_submission_policy: 'open',
        review_policy: expect.any(String),
      },
      deletion_status: { is_deleted: false, status: 'P' },
      children: { allow: false },
      custom_fields: {},
      statistics: { records: 0, files: 0, file_size: 0, record_views: 0, record_downloads: 0 },
    });
    expect(c.created).toMatch(ISO);
    expect(c.links).toMatchObject({
      self: `${api_}/communities/${cid}`,
      logo: `${api_}/communities/${cid}/logo`,
      members: `${api_}/communities/${cid}/members`,
      public_members: `${api_}/communities/${cid}/members/public`,
      invitations: `${api_}/communities/${cid}/invitations`,
      requests: `${api_}/communities/${cid}/requests`,
      records: `${api_}/communities/${cid}/records`,
    });
  });

  it('GET /api/communities/<id or slug> reads it anonymously, with statistics', async () => {
    for (const key of [cid, slug]) {
      const res = await api(`/api/communities/${key}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.id).toBe(cid);
      expect(res.body.statistics).toEqual({ records: 0, files: 0, file_size: 0, record_views: 0, record_downloads: 0 });
    }
  });

  it('PUT/GET/DELETE …/logo stores, serves and removes the raw bytes', async () => {
    const put = await api(`/api/communities/${cid}/logo`, { method: 'PUT', token: admin.token, raw: PNG });
    expect(put.status, put.text).toBe(200);
    expect(put.body.size).toBe(PNG.length);
    const get = await api(`/api/communities/${cid}/logo`);
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toMatch(/^image\/png/);
    const bytes = Buffer.from(await (await fetch(`${api_}/communities/${cid}/logo`)).arrayBuffer());
    expect(bytes.equals(PNG)).toBe(true);
    const other = await api(`/api/communities/${cid}/logo`, { method: 'PUT', token: invitee.token, raw: PNG });
    expect(other.status).toBe(403);
  });

  it('GET /api/communities finds it by q, with type and visibility aggregations', async () => {
    const res = await api(`/api/communities?q=${encodeURIComponent(`slug:${slug}`)}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.hits.total).toBe(1);
    expect(res.body.hits.hits[0].id).toBe(cid);
    expect(Object.keys(res.body.aggregations).sort()).toEqual(['type', 'visibility']);
    const words = await api('/api/communities?q=Walkthrough&size=100');
    expect(words.body.hits.hits.map((h: any) => h.id)).toContain(cid);
    expect(res.body.links.self).toContain(`${api_}/communities?`);
  });

  it('POST …/invitations invites the second user (204); the invitation is a submitted request', async () => {
    const res = await api(`/api/communities/${cid}/invitations`, {
      method: 'POST',
      token: admin.token,
      body: { members: [{ id: invitee.id, type: 'user' }], role: 'curator', message: '<p>Welcome aboard</p>' },
    });
    expect(res.status, res.text).toBe(204);
    const dup = await api(`/api/communities/${cid}/invitations`, {
      method: 'POST',
      token: admin.token,
      body: { members: [{ id: invitee.id, type: 'user' }], role: 'reader' },
    });
    expect(dup.status).toBe(400);

    const list = await api(`/api/communities/${cid}/invitations`, { token: admin.token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.hits.total).toBe(1);
    const inv = list.body.hits.hits[0];
    expect(inv.role).toBe('curator');
    expect(inv.request).toMatchObject({ status: 'submitted', is_open: true, type: 'community-invitation' });
    requestId = inv.request.id;
    expect(Object.keys(list.body.aggregations).sort()).toEqual(['is_open', 'role', 'status']);

    const mine = await api('/api/user/requests', { token: invitee.token });
    expect(mine.status, mine.text).toBe(200);
    const req = mine.body.hits.hits.find((h: any) => h.id === requestId);
    expect(req).toMatchObject({
      type: 'community-invitation',
      status: 'submitted',
      is_open: true,
      is_closed: false,
      created_by: { community: cid },
      receiver: { user: invitee.id },
      topic: { community: cid },
      title: 'Invitation to join "Ocean Data Walkthrough"',
    });
    expect(Object.keys(req.links.actions).sort()).toEqual(['accept', 'decline']);
  });

  it('the invitee comments, the admin replies; the comment is edited then deleted', async () => {
    const c = await api(`/api/requests/${requestId}/comments`, {
      method: 'POST',
      token: invitee.token,
      body: { payload: { content: '<p>Thanks! <script>alert(1)</script></p>', format: 'html' } },
    });
    expect(c.status, c.text).toBe(201);
    commentId = c.body.id;
    expect(c.body).toMatchObject({ type: 'C', revision_id: 1, created_by: { user: invitee.id }, payload: { format: 'html' } });
    expect(c.body.payload.content).not.toContain('<script');
    expect(c.body.created).toMatch(COMMENT_TS);
    expect(c.body.links.self).toBe(`${api_}/requests/${requestId}/comments/${commentId}`);

    const reply = await api(`/api/requests/${requestId}/comments/${commentId}/reply`, {
      method: 'POST',
      token: admin.token,
      body: { payload: { content: 'You are welcome', format: 'html' } },
    });
    expect(reply.status, reply.text).toBe(201);
    const nested = await api(`/api/requests/${requestId}/comments/${reply.body.id}/reply`, {
      method: 'POST',
      token: invitee.token,
      body: { payload: { content: 'nested', format: 'html' } },
    });
    expect(nested.status).toBe(400);
    const replies = await api(`/api/requests/${requestId}/comments/${commentId}/replies`, { token: invitee.token });
    expect(replies.status).toBe(200);
    expect(replies.body.hits.hits.map((h: any) => h.id)).toEqual([reply.body.id]);

    const upd = await api(`/api/requests/${requestId}/comments/${commentId}`, {
      method: 'PUT',
      token: invitee.token,
      body: { payload: { content: '<p>Thanks a lot</p>', format: 'html' } },
    });
    expect(upd.status, upd.text).toBe(200);
    expect(upd.body.revision_id).toBe(2);
    expect(upd.body.payload.content).toBe('<p>Thanks a lot</p>');
    // Why a stranger: site administrators may edit any comment while locking is off (reference §1.8).
    const stranger = await createUser({ email: uniqueEmail('comm-stranger') });
    const notAuthor = await api(`/api/requests/${requestId}/comments/${commentId}`, {
      method: 'PUT',
      token: stranger.token,
      body: { payload: { content: 'hijack', format: 'html' } },
    });
    expect(notAuthor.status).toBe(403);

    const del = await api(`/api/requests/${requestId}/comments/${commentId}`, { method: 'DELETE', token: invitee.token });
    expect(del.status).toBe(204);
    const after = await api(`/api/requests/${requestId}/comments/${commentId}`, { token: invitee.token });
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ type: 'L', payload: { event: 'comment_deleted' } });
  });

  it('the invitee accepts (200); they are a member at once, with the invited role', async () => {
    const acc = await api(`/api/requests/${requestId}/actions/accept`, {
      method: 'POST',
      token: invitee.token,
      body: { payload: { content: 'Happy to join', format: 'html' } },
    });
    expect(acc.status, acc.text).toBe(200);
    expect(acc.body).toMatchObject({ status: 'accepted', is_closed: true, is_open: false });
    expect(acc.body.links.actions).toEqual({});

    const members = await api(`/api/communities/${cid}/members`, { token: admin.token });
    expect(members.status, members.text).toBe(200);
    const m = members.body.hits.hits.find((h: any) => h.member.id === invitee.id);
    expect(m).toMatchObject({ role: 'curator', member: { type: 'user', id: invitee.id, name: 'Ivan Invitee' }, is_current_user: false });
    expect(m.member.avatar).toBe(`${api_}/users/${invitee.id}/avatar.svg`);
    expect(m.permissions).toEqual(expect.objectContaining({ can_leave: false, can_delete: true, can_update_role: true }));
    expect(members.body.sortBy).toBe('name');
    expect(Object.keys(members.body.aggregations).sort()).toEqual(['role', 'visibility']);

    const mine = await api('/api/user/communities', { token: invitee.token });
    expect(mine.status).toBe(200);
    expect(mine.body.hits.hits.map((h: any) => h.id)).toContain(cid);

    const again = await api(`/api/requests/${requestId}/actions/accept`, { method: 'POST', token: invitee.token });
    expect(again.status).toBe(400);
  });

  it('GET …/timeline lists comment-deleted, accepted log and the accept comment, oldest first', async () => {
    const tl = await api(`/api/requests/${requestId}/timeline`, { token: invitee.token });
    expect(tl.status, tl.text).toBe(200);
    expect(tl.body.sortBy).toBe('oldest');
    expect(tl.body.links.self).toBe(`${api_}/requests/${requestId}/timeline?page=1&size=25&sort=oldest`);
    const kinds = tl.body.hits.hits.map((h: any) => [h.type, h.payload.event ?? null]);
    // The invite message (C), the deleted comment (L comment_deleted), the accept log, the accept comment.
    expect(kinds).toEqual([
      ['C', null],
      ['L', 'comment_deleted'],
      ['L', 'accepted'],
      ['C', null],
    ]);
    for (const h of tl.body.hits.hits) {
      expect(h.created).toMatch(ISO);
      expect(h.permissions).toEqual(
        expect.objectContaining({ can_update_comment: expect.any(Boolean), can_delete_comment: expect.any(Boolean) }),
      );
    }
    const last = tl.body.hits.hits[3];
    expect(last.permissions).toMatchObject({ can_update_comment: true, can_delete_comment: true });
  });
});
