/**
 * Communities and members through the gateway: validation errors, who may do what (anonymous,
 * plain user, reader, curator, manager, owner, administrator), deletion (410, blocked by an open
 * request), rename and restore, the owner invariant and membership rules.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { addMember, communityBody, createCommunity, makeCommunity, uniqueSlug } from './support.js';

describe('communities: validation, permissions, lifecycle', () => {
  let admin: TestUser;
  let user: TestUser;
  let reader: TestUser;
  let curator: TestUser;
  let manager: TestUser;
  let c: any;

  beforeAll(async () => {
    [admin, user, reader, curator, manager] = await Promise.all([
      createUser({ email: uniqueEmail('ce-admin'), admin: true, name: 'Admin' }),
      createUser({ email: uniqueEmail('ce-user'), name: 'Plain User' }),
      createUser({ email: uniqueEmail('ce-reader'), name: 'Reader' }),
      createUser({ email: uniqueEmail('ce-curator'), name: 'Curator' }),
      createUser({ email: uniqueEmail('ce-manager'), name: 'Manager' }),
    ]);
    c = await makeCommunity(admin.token, 'Permissions Community');
    await addMember(admin.token, c.id, reader, 'reader');
    await addMember(admin.token, c.id, curator, 'curator');
    await addMember(admin.token, c.id, manager, 'manager');
  });

  it('POST /api/communities: anonymous 403, plain user 403 (COMMUNITY_CREATORS=admins)', async () => {
    expect((await createCommunity(undefined, communityBody(uniqueSlug(), 'x'))).status).toBe(403);
    const res = await createCommunity(user.token, communityBody(uniqueSlug(), 'x'));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: 403, message: 'Permission denied.' });
  });

  it('POST /api/communities: field errors as InvenioRDM', async () => {
    const bad = await createCommunity(admin.token, {
      slug: 'Not a slug!',
      access: { visibility: 'secret' },
      metadata: { title: '', type: { id: 'no-such-type' } },
    });
    expect(bad.status).toBe(400);
    const fields = bad.body.errors.map((e: any) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['slug', 'access.visibility', 'metadata.title']));
    const slugErr = bad.body.errors.find((e: any) => e.field === 'slug');
    expect(slugErr.messages).toContain('The identifier should contain only letters, numbers, or dashes.');

    const taken = await createCommunity(admin.token, communityBody(c.slug, 'Again'));
    expect(taken.status).toBe(400);
    expect(taken.body.errors).toEqual([{ field: 'slug', messages: ['A community with this identifier already exists.'] }]);

    const uuid = await createCommunity(admin.token, communityBody('1b4e28ba-2fa1-11d2-883f-0016d3cca427', 'U'));
    expect(uuid.status).toBe(400);
    const badJson = await api('/api/communities', {
      method: 'POST',
      token: admin.token,
      raw: '{"slug":',
      headers: { 'content-type': 'application/json' },
    });
    expect(badJson.status).toBe(400);
  });

  it('GET: unknown 404, restricted community hidden from non-members (403) and from search', async () => {
    const unknown = await api('/api/communities/no-such-community-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('The persistent identifier does not exist.');
    const r = await makeCommunity(admin.token, 'Secret Society', { visibility: 'restricted' });
    expect((await api(`/api/communities/${r.id}`)).status).toBe(403);
    expect((await api(`/api/communities/${r.id}`, { token: user.token })).status).toBe(403);
    expect((await api(`/api/communities/${r.id}`, { token: admin.token })).status).toBe(200);
    const search = await api(`/api/communities?q=${encodeURIComponent(`id:${r.id}`)}`, { token: user.token });
    expect(search.body.hits.total).toBe(0);
  });

  it('PUT: owners update (revision +1); manager, curator, reader, user 403 (InvenioRDM can_update); anonymous 403', async () => {
    const body = communityBody(c.slug, 'Permissions Community, renamed title');
    for (const who of [undefined, user.token, reader.token, curator.token, manager.token]) {
      expect((await api(`/api/communities/${c.id}`, { method: 'PUT', token: who, body })).status).toBe(403);
    }
    const before = (await api(`/api/communities/${c.id}`)).body.revision_id;
    // The administrator created the community, so is its owner.
    const ok = await api(`/api/communities/${c.id}`, { method: 'PUT', token: admin.token, body });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.revision_id).toBe(before + 1);
    expect(ok.body.metadata.title).toBe('Permissions Community, renamed title');
    const slugChange = await api(`/api/communities/${c.id}`, { method: 'PUT', token: admin.token, body: communityBody(uniqueSlug(), 'x') });
    expect(slugChange.status).toBe(400);
  });

  it('members: readers may list, non-members 403; nobody changes their own role; last owner stays', async () => {
    expect((await api(`/api/communities/${c.id}/members`, { token: reader.token })).status).toBe(200);
    expect((await api(`/api/communities/${c.id}/members`, { token: user.token })).status).toBe(403);
    expect((await api(`/api/communities/${c.id}/members`)).status).toBe(403);
    const pub = await api(`/api/communities/${c.id}/members/public`);
    expect(pub.status).toBe(200);
    expect(pub.body.aggregations).toBeUndefined();

    const own = await api(`/api/communities/${c.id}/members`, {
      method: 'PUT',
      token: manager.token,
      body: { members: [{ type: 'user', id: manager.id }], role: 'owner' },
    });
    expect(own.status).toBe(400);
    expect(JSON.stringify(own.body)).toContain('You cannot change your own role.');

    const byCurator = await api(`/api/communities/${c.id}/members`, {
      method: 'PUT',
      token: curator.token,
      body: { members: [{ type: 'user', id: reader.id }], role: 'curator' },
    });
    expect(byCurator.status).toBe(403);

    const promote = await api(`/api/communities/${c.id}/members`, {
      method: 'PUT',
      token: manager.token,
      body: { members: [{ type: 'user', id: reader.id }], role: 'curator' },
    });
    expect(promote.status, promote.text).toBe(204);

    const admins = await api(`/api/communities/${c.id}/members?role=owner`, { token: admin.token });
    const ownerIds = admins.body.hits.hits.filter((h: any) => h.role === 'owner').map((h: any) => h.member.id);
    expect(ownerIds).toEqual([admin.id]);
    const leave = await api(`/api/communities/${c.id}/members`, {
      method: 'DELETE',
      token: admin.token,
      body: { members: [{ type: 'user', id: admin.id }] },
    });
    expect(leave.status).toBe(400);
    expect(JSON.stringify(leave.body)).toContain('A community must have at least one owner.');
  });

  it('a member may leave (204) and is then gone from the members', async () => {
    const m = await createUser({ email: uniqueEmail('ce-leaver'), name: 'Leaver' });
    await addMember(admin.token, c.id, m, 'reader');
    const res = await api(`/api/communities/${c.id}/members`, {
      method: 'DELETE',
      token: m.token,
      body: { members: [{ type: 'user', id: m.id }] },
    });
    expect(res.status, res.text).toBe(204);
    const list = await api(`/api/communities/${c.id}/members?size=100`, { token: admin.token });
    expect(list.body.hits.hits.map((h: any) => h.member.id)).not.toContain(m.id);
  });

  it('invitations: managers may invite, curators may not; an existing member cannot be invited', async () => {
    const x = await createUser({ email: uniqueEmail('ce-x'), name: 'X' });
    const byCurator = await api(`/api/communities/${c.id}/invitations`, {
      method: 'POST',
      token: curator.token,
      body: { members: [{ type: 'user', id: x.id }], role: 'reader' },
    });
    expect(byCurator.status).toBe(403);
    const member = await api(`/api/communities/${c.id}/invitations`, {
      method: 'POST',
      token: manager.token,
      body: { members: [{ type: 'user', id: curator.id }], role: 'reader' },
    });
    expect(member.status).toBe(400);
    const group = await api(`/api/communities/${c.id}/invitations`, {
      method: 'POST',
      token: manager.token,
      body: { members: [{ type: 'group', id: 'admins' }], role: 'reader' },
    });
    expect(group.status).toBe(400);
    expect((await api(`/api/communities/${c.id}/invitations`, { token: reader.token })).status).toBe(403);
  });

  it('rename: owners only; the new slug works, same slug 400', async () => {
    const d = await makeCommunity(admin.token, 'Rename Me');
    const newSlug = uniqueSlug('renamed');
    expect((await api(`/api/communities/${d.id}/rename`, { method: 'POST', token: user.token, body: { slug: newSlug } })).status).toBe(403);
    const same = await api(`/api/communities/${d.id}/rename`, { method: 'POST', token: admin.token, body: { slug: d.slug } });
    expect(same.status).toBe(400);
    const ok = await api(`/api/communities/${d.id}/rename`, { method: 'POST', token: admin.token, body: { slug: newSlug } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.slug).toBe(newSlug);
    expect((await api(`/api/communities/${newSlug}`)).body.id).toBe(d.id);
  });

  it('delete: blocked by an open request (400); then 204, reads 410, slug still taken; restore', async () => {
    const d = await makeCommunity(admin.token, 'Delete Me');
    // A membership request is received by the community (an invitation is received by the invitee).
    const x = await createUser({ email: uniqueEmail('ce-del'), name: 'Pending' });
    const mr = await api(`/api/communities/${d.id}/membership-requests`, {
      method: 'POST',
      token: x.token,
      body: { message: 'Let me in' },
    });
    expect(mr.status, mr.text).toBe(201);
    expect(mr.body).toMatchObject({ type: 'community-membership-request', status: 'submitted', receiver: { community: d.id } });
    const blocked = await api(`/api/communities/${d.id}`, { method: 'DELETE', token: admin.token });
    expect(blocked.status).toBe(400);
    expect(blocked.body.message).toBe('There is 1 request open for this community. Please, resolve it before deleting this community.');
    expect((await api(`/api/requests/${mr.body.id}/actions/decline`, { method: 'POST', token: admin.token })).status).toBe(200);

    expect((await api(`/api/communities/${d.id}`, { method: 'DELETE', token: user.token })).status).toBe(403);
    const del = await api(`/api/communities/${d.id}`, { method: 'DELETE', token: admin.token });
    expect(del.status, del.text).toBe(204);
    const gone = await api(`/api/communities/${d.id}`);
    expect(gone.status).toBe(410);
    expect(gone.body.message).toBe('The record has been deleted.');
    const again = await createCommunity(admin.token, communityBody(d.slug, 'Squatter'));
    expect(again.status).toBe(400);
    const restore = await api(`/api/communities/${d.id}/restore`, { method: 'POST', token: admin.token });
    expect(restore.status, restore.text).toBe(200);
    expect((await api(`/api/communities/${d.id}`)).status).toBe(200);
  });

  // Issue 19, item 6: `custom_fields` and `children` are validated, not silently replaced by constants.
  it('custom_fields: only configured keys (none by default: 400 Unknown field.); children.allow changes 403', async () => {
    const cf = await createCommunity(admin.token, { ...communityBody(uniqueSlug(), 'CF'), custom_fields: { 'ns:x': 1 } });
    expect(cf.status, cf.text).toBe(400);
    expect(cf.body.errors).toEqual([{ field: 'custom_fields.ns:x', messages: ['Unknown field.'] }]);
    const kids = await createCommunity(admin.token, { ...communityBody(uniqueSlug(), 'Kids'), children: { allow: true } });
    expect(kids.status, kids.text).toBe(403);
    const ok = await createCommunity(admin.token, {
      ...communityBody(uniqueSlug(), 'Plain'),
      custom_fields: {},
      children: { allow: false },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({ custom_fields: {}, children: { allow: false } });
  });

  // Issue 19, item 4: InvenioRDM serves PUT …/membership-requests (change the role a pending request will grant).
  it('PUT …/membership-requests: managers change the role a pending request will grant; others 403; accept grants it', async () => {
    const d = await makeCommunity(admin.token, 'Role Of A Request');
    await addMember(admin.token, d.id, manager, 'manager');
    await addMember(admin.token, d.id, reader, 'reader');
    const x = await createUser({ email: uniqueEmail('ce-mr'), name: 'Requester' });
    const mr = await api(`/api/communities/${d.id}/membership-requests`, { method: 'POST', token: x.token, body: {} });
    expect(mr.status, mr.text).toBe(201);
    const put = (token: string | undefined, role: string) =>
      api(`/api/communities/${d.id}/membership-requests`, { method: 'PUT', token, body: { members: [{ type: 'user', id: x.id }], role } });
    for (const token of [undefined, user.token, reader.token, x.token]) expect((await put(token, 'curator')).status).toBe(403);
    expect((await put(manager.token, 'owner')).status).toBe(403);
    // Errors: a body without a role or members, an unknown community, a member with no pending request.
    const bad = await api(`/api/communities/${d.id}/membership-requests`, { method: 'PUT', token: manager.token, body: { members: [] } });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('role');
    const unknown = await api('/api/communities/00000000-0000-4000-8000-000000000000/membership-requests', {
      method: 'PUT',
      token: admin.token,
      body: { members: [{ type: 'user', id: x.id }], role: 'curator' },
    });
    expect(unknown.status, unknown.text).toBe(404);
    const notPending = await api(`/api/communities/${d.id}/membership-requests`, {
      method: 'PUT',
      token: manager.token,
      body: { members: [{ type: 'user', id: reader.id }], role: 'curator' },
    });
    expect(notPending.status, notPending.text).toBe(400);
    expect(notPending.body).toMatchObject({ errors: [{ field: 'members', messages: ['Invalid member specified.'] }] });
    const ok = await put(manager.token, 'curator');
    expect(ok.status, ok.text).toBe(204);
    const list = await api(`/api/communities/${d.id}/membership-requests`, { token: manager.token });
    expect(list.body.hits.hits).toEqual([expect.objectContaining({ role: 'curator', member: expect.objectContaining({ id: x.id }) })]);
    const timeline = await api(`/api/requests/${mr.body.id}/timeline`, { token: manager.token });
    expect(timeline.body.hits.hits.map((e: any) => e.payload?.content)).toContain('You will join as "Curator" (changed from: "reader").');
    const accept = await api(`/api/requests/${mr.body.id}/actions/accept`, { method: 'POST', token: manager.token });
    expect(accept.status, accept.text).toBe(200);
    const members = await api(`/api/communities/${d.id}/members?size=50`, { token: admin.token });
    expect(members.body.hits.hits).toContainEqual(
      expect.objectContaining({ role: 'curator', member: expect.objectContaining({ id: x.id }) }),
    );
  });

  it('requests: anonymous search 403; an invitation decline by someone else 403; unknown request 404', async () => {
    expect((await api('/api/requests')).status).toBe(403);
    expect((await api('/api/requests/00000000-0000-4000-8000-000000000000', { token: user.token })).status).toBe(404);
    const x = await createUser({ email: uniqueEmail('ce-y'), name: 'Y' });
    await api(`/api/communities/${c.id}/invitations`, {
      method: 'POST',
      token: admin.token,
      body: { members: [{ type: 'user', id: x.id }], role: 'reader' },
    });
    const mine = await api('/api/user/requests', { token: x.token });
    const rid = mine.body.hits.hits.find((h: any) => h.topic?.community === c.id).id;
    expect((await api(`/api/requests/${rid}/actions/decline`, { method: 'POST', token: user.token })).status).toBe(403);
    expect((await api(`/api/requests/${rid}/actions/submit`, { method: 'POST', token: x.token })).status).toBe(400);
    expect((await api(`/api/requests/${rid}/actions/nope`, { method: 'POST', token: x.token })).status).toBe(400);
    const cancel = await api(`/api/requests/${rid}/actions/cancel`, { method: 'POST', token: admin.token });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.status).toBe('cancelled');
  });
});
