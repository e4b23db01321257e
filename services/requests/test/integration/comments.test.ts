import { randomUUID } from 'node:crypto';
import { callRpc } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, BASE, createRequest, type Env, startEnv } from './support.js';

let env: Env;
const CREATOR = '50';
const RECEIVER = '51';
const OTHER = '52';
const COMMENT_TS = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;
const ISO_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
let community: { id: string };

/** An open (submitted) membership request of CREATOR, received by the community where RECEIVER manages. */
const openRequest = () =>
  createRequest(env, {
    type: 'community-membership-request',
    created_by: { user: CREATOR },
    receiver: { community: community.id },
    topic: { community: community.id },
  });
const comment = (id: string, user: string, content: string) =>
  env.http
    .post(`/api/requests/${id}/comments`)
    .set(as(user))
    .send({ payload: { content, format: 'html' } });

beforeAll(async () => {
  env = await startEnv({ effectWaitMs: 200 });
  community = env.fake.add({ slug: 'cmt' });
  env.fake.setRole(community.id, RECEIVER, 'manager');
});
afterAll(async () => {
  await env?.close();
});

describe('comments', () => {
  it('should create (201), sanitize, read, update with If-Match and delete into a comment_deleted log', async () => {
    const r = await openRequest();
    const created = await comment(
      r.id,
      CREATOR,
      '<p onclick="x()">Hi <b>there</b></p><script>bad()</script><img src="javascript:x" alt="a">',
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: 'C',
      created_by: { user: CREATOR },
      payload: { content: '<p>Hi <b>there</b></p><img alt="a">', format: 'html' },
      parent_id: null,
      revision_id: 1,
    });
    expect(created.body.created).toMatch(COMMENT_TS);
    // Every event answer carries the caller's permissions on it, as InvenioRDM's event JSON does.
    expect(created.body.permissions).toEqual({ can_update_comment: true, can_delete_comment: true, can_reply_comment: true });
    const cid = created.body.id;
    const readByReceiver = await env.http.get(`/api/requests/${r.id}/comments/${cid}`).set(as(RECEIVER));
    expect(readByReceiver.body.permissions).toEqual({ can_update_comment: false, can_delete_comment: false, can_reply_comment: true });
    const reply = await env.http
      .post(`/api/requests/${r.id}/comments/${cid}/reply`)
      .set(as(RECEIVER))
      .send({ payload: { content: 'answer', format: 'html' } });
    expect(reply.status).toBe(201);
    // A reply cannot be replied to (nested children are refused).
    expect(reply.body.permissions).toEqual({ can_update_comment: true, can_delete_comment: true, can_reply_comment: false });
    expect(created.body.links).toEqual({
      self: `${BASE}/api/requests/${r.id}/comments/${cid}`,
      self_html: `${BASE}/communities/cmt/membership-requests/${r.id}#commentevent-${cid}`,
      reply: `${BASE}/api/requests/${r.id}/comments/${cid}/reply`,
      replies: `${BASE}/api/requests/${r.id}/comments/${cid}/replies`,
      replies_focused: `${BASE}/api/requests/${r.id}/comments/${cid}/replies_focused`,
    });
    await env.http.get(`/api/requests/${r.id}/comments/${cid}`).set(as(RECEIVER)).expect(200);
    expect(
      (
        await env.http
          .put(`/api/requests/${r.id}/comments/${cid}`)
          .set(as(RECEIVER))
          .send({ payload: { content: 'x' } })
      ).body,
    ).toEqual({
      status: 403,
      message: 'You do not have permission to update this comment.',
    });
    expect(
      (
        await env.http
          .put(`/api/requests/${r.id}/comments/${cid}`)
          .set(as(CREATOR))
          .set('If-Match', '7')
          .send({ payload: { content: 'x' } })
      ).status,
    ).toBe(412);
    const upd = await env.http
      .put(`/api/requests/${r.id}/comments/${cid}`)
      .set(as(CREATOR))
      .set('If-Match', '1')
      .send({ payload: { content: 'Edited' } })
      .expect(200);
    expect(upd.body).toMatchObject({ revision_id: 2, payload: { content: 'Edited', format: 'html' } });
    expect((await env.http.delete(`/api/requests/${r.id}/comments/${cid}`).set(as(RECEIVER))).body).toEqual({
      status: 403,
      message: 'Permission denied.',
    });
    expect((await env.http.delete(`/api/requests/${r.id}/comments/${cid}`).set(as('1', ['admin']))).status).toBe(403);
    const del = await env.http.delete(`/api/requests/${r.id}/comments/${cid}`).set(as(CREATOR)).expect(204);
    expect(del.text).toBe('');
    const after = await env.http.get(`/api/requests/${r.id}/comments/${cid}`).set(as(CREATOR)).expect(200);
    expect(after.body).toMatchObject({ type: 'L', payload: { event: 'comment_deleted', content: 'comment was deleted', format: 'html' } });
    expect(
      (
        await env.http
          .put(`/api/requests/${r.id}/comments/${cid}`)
          .set(as(CREATOR))
          .send({ payload: { content: 'x' } })
      ).body,
    ).toEqual({
      status: 403,
      message: 'You cannot update/delete this event.',
    });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(CREATOR)).expect(200);
    expect(tl.body.hits.total).toBe(1);
  });

  it('should validate bodies with the reference messages and the size limit', async () => {
    const r = await openRequest();
    const missing = await env.http.post(`/api/requests/${r.id}/comments`).set(as(CREATOR)).send({});
    expect(missing.body).toEqual({
      status: 400,
      message: 'A validation error occurred.',
      errors: [{ field: 'payload', messages: ['Missing data for required field.'] }],
    });
    const empty = await comment(r.id, CREATOR, '');
    expect(empty.body.errors).toEqual([{ field: 'payload.content', messages: ['Shorter than minimum length 1.'] }]);
    const long = await comment(r.id, CREATOR, 'x'.repeat(1001));
    expect(long.body.errors).toEqual([{ field: 'payload.content', messages: ['Longer than maximum length 1000.'] }]);
    const unknown = await env.http
      .post(`/api/requests/${r.id}/comments`)
      .set(as(CREATOR))
      .send({ payload: { content: 'a', extra: 1 } });
    expect(unknown.body.errors).toEqual([{ field: 'payload.extra', messages: ['Unknown field.'] }]);
    const fmt = await env.http
      .post(`/api/requests/${r.id}/comments`)
      .set(as(CREATOR))
      .send({ payload: { content: 'a', format: 'md' } });
    expect(fmt.status).toBe(400);
    expect(
      (await env.http.post(`/api/requests/${r.id}/comments`).set(as(CREATOR)).set('Content-Type', 'application/json').send('{bad')).body,
    ).toEqual({
      status: 400,
      message: 'Unable to decode JSON data in request body.',
    });
    expect((await comment(r.id, OTHER, 'hi')).status).toBe(403);
    expect((await comment(r.id, null as never, 'hi')).status).toBe(403);
    expect((await comment(randomUUID(), CREATOR, 'hi')).status).toBe(404);
    expect((await env.http.get(`/api/requests/${r.id}/comments/${randomUUID()}`).set(as(CREATOR))).status).toBe(404);
  });

  it('should allow comments on closed requests and only the creator on created ones', async () => {
    const r = await openRequest();
    await env.http.post(`/api/requests/${r.id}/actions/decline`).set(as(RECEIVER)).expect(200);
    expect((await comment(r.id, CREATOR, 'still here')).status).toBe(201);
    const sub = await createRequest(env, {
      type: 'community-submission',
      created_by: { user: CREATOR },
      receiver: { community: community.id },
      topic: { record: 'r1' },
    });
    expect((await comment(sub.id, CREATOR, 'draft note')).status).toBe(201);
    expect((await comment(sub.id, RECEIVER, 'no')).status).toBe(403);
  });

  it('should reply one level deep, list replies and show children in the timeline', async () => {
    const r = await openRequest();
    const top = (await comment(r.id, CREATOR, 'top')).body;
    const replies = [];
    for (let i = 0; i < 7; i++) {
      const rep = await env.http
        .post(`/api/requests/${r.id}/comments/${top.id}/reply`)
        .set(as(RECEIVER))
        .send({ payload: { content: `r${i}` } });
      expect(rep.status).toBe(201);
      replies.push(rep.body);
    }
    expect(replies[0]).toMatchObject({ parent_id: top.id });
    expect(replies[0].links.self_html).toMatch(new RegExp(`#commentevent-${top.id}_${replies[0].id}$`));
    expect(replies[0].links.reply).toBeUndefined();
    const nested = await env.http
      .post(`/api/requests/${r.id}/comments/${replies[0].id}/reply`)
      .set(as(CREATOR))
      .send({ payload: { content: 'deep' } });
    expect(nested.body).toEqual({
      status: 400,
      message:
        'Nested children are not allowed. You cannot reply to a comment that is already a reply. Only one level of parent-child relationships is supported.',
    });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(CREATOR)).expect(200);
    expect(tl.body.hits.total).toBe(1);
    const hit = tl.body.hits.hits[0];
    expect(hit.created).toMatch(ISO_TS);
    expect(hit.children_count).toBe(7);
    expect(hit.children.map((c: any) => c.payload.content)).toEqual(['r6', 'r5', 'r4', 'r3', 'r2']);
    expect(hit.permissions).toEqual({ can_update_comment: true, can_delete_comment: true, can_reply_comment: true });
    const list = await env.http.get(`/api/requests/${r.id}/comments/${top.id}/replies?size=5`).set(as(CREATOR)).expect(200);
    expect(list.body.hits.total).toBe(7);
    expect(list.body.hits.hits.map((c: any) => c.payload.content)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(list.body.links.self).toBe(`${BASE}/api/requests/${r.id}/comments/${top.id}/replies?page=1&size=5&sort=oldest`);
    expect(list.body.links.next).toBeDefined();
    const recv = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(RECEIVER)).expect(200);
    expect(recv.body.hits.hits[0].permissions).toEqual({ can_update_comment: false, can_delete_comment: false, can_reply_comment: true });
  });

  it('should page the timeline and find the focused page', async () => {
    const r = await openRequest();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await comment(r.id, CREATOR, `c${i}`)).body.id);
    const p2 = await env.http.get(`/api/requests/${r.id}/timeline?size=2&page=2`).set(as(CREATOR)).expect(200);
    expect(p2.body.hits.hits.map((e: any) => e.payload.content)).toEqual(['c2', 'c3']);
    const f = await env.http.get(`/api/requests/${r.id}/timeline_focused?size=2&focus_event_id=${ids[4]}`).set(as(CREATOR)).expect(200);
    expect(f.body.page).toBe(3);
    expect(f.body.hits.hits.map((e: any) => e.id)).toEqual([ids[4]]);
    const unknown = await env.http
      .get(`/api/requests/${r.id}/timeline_focused?size=2&focus_event_id=${randomUUID()}`)
      .set(as(CREATOR))
      .expect(200);
    expect(unknown.body.page).toBe(1);
    const req = await env.http.get(`/api/requests/${r.id}`).set(as(CREATOR)).expect(200);
    expect(req.body.last_reply).toMatchObject({ id: ids[4], type: 'C' });
    expect(new Date(req.body.last_activity_at).getTime()).toBeGreaterThanOrEqual(new Date(req.body.updated).getTime());
    const byActivity = await env.http.get('/api/requests?sort=newestactivity').set(as(CREATOR)).expect(200);
    expect(byActivity.body.hits.hits[0].id).toBe(r.id);
  });
});

describe('requests RPC', () => {
  it('should create, get, act, count open and delete exactly as HTTP', async () => {
    const identity = { sub: CREATOR, roles: [] };
    const created = await callRpc<any>(env.nats.nc, 'rdm.requests.rpc.create', {
      identity,
      type: 'community-submission',
      created_by: { user: CREATOR },
      receiver: { community: community.id },
      topic: { record: 'abc12-def34' },
      key: 'review:abc12-def34:1',
    });
    expect(created.request).toMatchObject({
      status: 'created',
      topic: { record: 'abc12-def34' },
      links: { actions: { submit: expect.any(String) } },
    });
    const again = await callRpc<any>(env.nats.nc, 'rdm.requests.rpc.create', {
      identity,
      type: 'community-submission',
      created_by: { user: CREATOR },
      receiver: { community: community.id },
      topic: { record: 'abc12-def34' },
      key: 'review:abc12-def34:1',
    });
    expect(again.request.id).toBe(created.request.id);
    const got = await callRpc<any>(env.nats.nc, 'rdm.requests.rpc.get', { id: created.request.id, identity });
    expect(got.request.id).toBe(created.request.id);
    await expect(
      callRpc(env.nats.nc, 'rdm.requests.rpc.get', { id: created.request.id, identity: { sub: OTHER, roles: [] } }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      callRpc(env.nats.nc, 'rdm.requests.rpc.action', { id: created.request.id, identity, action: 'nope' }),
    ).rejects.toMatchObject({
      status: 400,
      message: "Error for action 'nope': No such action available",
    });
    const sub = await callRpc<any>(env.nats.nc, 'rdm.requests.rpc.action', {
      id: created.request.id,
      identity,
      action: 'submit',
      payload: { content: 'please', format: 'html' },
      data: { require_review: true, title: 'Ocean data' },
    });
    expect(sub.request).toMatchObject({ status: 'submitted', title: 'Ocean data' });
    expect(await callRpc(env.nats.nc, 'rdm.requests.rpc.count-open', { receiver: { community: community.id } })).toMatchObject({
      count: expect.any(Number),
    });
    const count = (await callRpc<any>(env.nats.nc, 'rdm.requests.rpc.count-open', { receiver: { community: community.id } })).count;
    expect(count).toBeGreaterThanOrEqual(1);
    await expect(callRpc(env.nats.nc, 'rdm.requests.rpc.delete', { id: created.request.id, identity })).rejects.toMatchObject({
      status: 403,
    });
    await expect(
      callRpc(env.nats.nc, 'rdm.requests.rpc.delete', { id: created.request.id, identity: { sub: 'system', roles: ['system'] } }),
    ).rejects.toMatchObject({
      status: 400,
    });
    const draft = await callRpc<any>(env.nats.nc, 'rdm.requests.rpc.create', {
      identity,
      type: 'community-submission',
      created_by: { user: CREATOR },
      receiver: { community: community.id },
      topic: { record: 'zzz' },
    });
    expect(await callRpc(env.nats.nc, 'rdm.requests.rpc.delete', { id: draft.request.id, identity })).toEqual({ deleted: true });
    await expect(
      callRpc(env.nats.nc, 'rdm.requests.rpc.create', { identity, type: 'nope', created_by: { user: '1' }, receiver: { user: '2' } }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      callRpc(env.nats.nc, 'rdm.requests.rpc.create', {
        identity,
        type: 'community-invitation',
        created_by: { user: '1' },
        receiver: { user: '2' },
        topic: { community: community.id },
      }),
    ).rejects.toMatchObject({ status: 400, fieldErrors: [{ field: 'created_by', messages: ['Invalid reference.'] }] });
  });

  it('should add a comment as the system through rdm.requests.rpc.comment, with the HTTP checks', async () => {
    const r = await openRequest();
    const system = { sub: 'system', roles: ['system'] };
    const content = 'You will join as "Curator" (changed from: "reader").';
    const res = await callRpc<any>(env.nats.nc, 'rdm.requests.rpc.comment', {
      id: r.id,
      identity: system,
      payload: { content, format: 'html' },
    });
    expect(res.comment).toMatchObject({ type: 'C', created_by: { user: 'system' }, payload: { content, format: 'html' } });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(RECEIVER)).expect(200);
    expect(tl.body.hits.hits.map((e: any) => [e.type, e.created_by.user, e.payload.content])).toEqual([['C', 'system', content]]);
    await expect(
      callRpc(env.nats.nc, 'rdm.requests.rpc.comment', { id: r.id, identity: { sub: OTHER, roles: [] }, payload: { content: 'x' } }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      callRpc(env.nats.nc, 'rdm.requests.rpc.comment', { id: r.id, identity: system, payload: { content: '' } }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      callRpc(env.nats.nc, 'rdm.requests.rpc.comment', { id: randomUUID(), identity: system, payload: { content: 'x' } }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(callRpc(env.nats.nc, 'rdm.requests.rpc.comment', { id: r.id, identity: system })).rejects.toMatchObject({ status: 400 });
  });
});
