import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommunitySummary } from '../../src/domain/ports.js';
import { REVIEW_MESSAGES } from '../../src/domain/errors.js';
import { as, type Env, fullMetadata, startEnv } from './support.js';
import { community } from './review-support.js';

const OWNER = '901';
const OTHER = '902';
const CURATOR = '903';
const READER = '904';

/** The review endpoints of drafts against stand-ins of the requests and communities services. */
describe('draft review (/draft/review, /draft/actions/submit-review)', () => {
  let env: Env;
  let open: CommunitySummary;
  let other: CommunitySummary;
  let closed: CommunitySummary;

  beforeAll(async () => {
    env = await startEnv();
    open = env.fakeCommunities.add(community('open-one'));
    other = env.fakeCommunities.add(community('other-one'));
    closed = env.fakeCommunities.add(community('closed-one', { record_submission_policy: 'closed' }));
    env.fakeCommunities.add(community('gone-one', { is_deleted: true }));
    env.fakeCommunities.setRole(CURATOR, open.id, 'curator');
    env.fakeCommunities.setRole(READER, open.id, 'reader');
  });
  afterAll(async () => {
    await env?.close();
  });

  async function draft(body: Record<string, unknown> = {}): Promise<any> {
    const d = (
      await env.request
        .post('/api/records')
        .set(as(OWNER))
        .send({ metadata: fullMetadata(), ...body })
        .expect(201)
    ).body;
    env.files.addFile(d.id, 'data.csv');
    return d;
  }
  const putReview = (id: string, c: string, user = OWNER) =>
    env.request
      .put(`/api/records/${id}/draft/review`)
      .set(as(user))
      .send({ type: 'community-submission', receiver: { community: c } });

  it('should create the review with the draft from parent.review (slug accepted)', async () => {
    const d = await draft({ parent: { review: { type: 'community-submission', receiver: { community: 'open-one' } } } });
    expect(d.parent.review).toEqual({ id: expect.any(String), type: 'community-submission', receiver: { community: open.id } });
    expect(d.status).toBe('draft_with_review');
    expect(d.parent.communities).toEqual({});
    expect(d.links['submit-review']).toBe(`${d.links.self.replace('/draft', '')}/draft/actions/submit-review`);
    const create = env.fakeRequests.calls.find((c) => c.subject === 'create' && c.payload.topic.record === d.id)!.payload;
    expect(create).toMatchObject({
      identity: { sub: OWNER, roles: [] },
      type: 'community-submission',
      created_by: { user: OWNER },
      receiver: { community: open.id },
      topic: { record: d.id },
      key: `${d.id}:${open.id}`,
    });
  });

  it('should refuse an invalid review type or an unknown or deleted community at creation, creating nothing', async () => {
    const before = Number((await env.db('drafts').count({ n: '*' }))[0].n);
    const bad = await env.request
      .post('/api/records')
      .set(as(OWNER))
      .send({ metadata: fullMetadata(), parent: { review: { type: 'community-inclusion', receiver: { community: open.id } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'type', messages: [REVIEW_MESSAGES.invalidType] }]);
    for (const c of ['nope', 'gone-one']) {
      const res = await env.request
        .post('/api/records')
        .set(as(OWNER))
        .send({ metadata: fullMetadata(), parent: { review: { type: 'community-submission', receiver: { community: c } } } });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'receiver.community', messages: [REVIEW_MESSAGES.communityNotFound] }]);
    }
    expect(Number((await env.db('drafts').count({ n: '*' }))[0].n)).toBe(before);
  });

  it('should answer PUT review for a restricted community the caller may not read exactly as for an unknown one', async () => {
    const hidden = env.fakeCommunities.add(community('hidden-one', { visibility: 'restricted' }));
    const d = await draft();
    const unknown = await putReview(d.id, 'no-such-community');
    expect(unknown.status).toBe(400);
    for (const c of ['hidden-one', hidden.id]) {
      const res = await putReview(d.id, c);
      expect({ status: res.status, body: res.body }).toEqual({ status: unknown.status, body: unknown.body });
    }
    const created = env.fakeRequests.calls.filter((c) => c.subject === 'create' && c.payload.topic.record === d.id);
    expect(created).toEqual([]);
    // A member reads it, so may aim a review at it.
    env.fakeCommunities.setRole(OWNER, hidden.id, 'reader');
    try {
      expect((await putReview(d.id, 'hidden-one')).status).toBe(200);
    } finally {
      env.fakeCommunities.roles.delete(OWNER);
    }
  });

  it('should answer 404 without a review, and create, read and replace one with PUT', async () => {
    const d = await draft();
    const none = await env.request.get(`/api/records/${d.id}/draft/review`).set(as(OWNER));
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ status: 404, message: REVIEW_MESSAGES.notFound });
    expect((await env.request.delete(`/api/records/${d.id}/draft/review`).set(as(OWNER))).status).toBe(404);

    const first = await putReview(d.id, open.id).expect(200);
    expect(first.body).toMatchObject({ status: 'created', is_open: false, is_closed: false, receiver: { community: open.id } });
    const got = await env.request.get(`/api/records/${d.id}/draft/review`).set(as(OWNER)).expect(200);
    expect(got.body.id).toBe(first.body.id);

    const second = await putReview(d.id, 'other-one').expect(200);
    expect(second.body.id).not.toBe(first.body.id);
    expect(env.fakeRequests.requests.get(first.body.id)!.status).toBe('deleted');
    const read = await env.request.get(`/api/records/${d.id}/draft`).set(as(OWNER)).expect(200);
    expect(read.body.parent.review).toEqual({ id: second.body.id, type: 'community-submission', receiver: { community: other.id } });
    expect(read.body.status).toBe('draft_with_review');
  });

  it('should refuse invalid review bodies and other users', async () => {
    const d = await draft();
    const type = await env.request
      .put(`/api/records/${d.id}/draft/review`)
      .set(as(OWNER))
      .send({ type: 'x', receiver: { community: open.id } });
    expect(type.status).toBe(400);
    expect(type.body.errors).toEqual([{ field: 'type', messages: [REVIEW_MESSAGES.invalidType] }]);
    expect((await putReview(d.id, 'nope')).status).toBe(400);
    expect((await putReview(d.id, open.id, OTHER)).status).toBe(403);
    expect((await putReview('nope0-00000', open.id)).status).toBe(404);
  });

  it('should refuse publishing a draft whose review is not closed, and delete a created review with 204', async () => {
    const d = await draft();
    const r = await putReview(d.id, open.id).expect(200);
    const pub = await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER));
    expect(pub.status).toBe(400);
    expect(pub.body.message).toBe(REVIEW_MESSAGES.publishOpen);
    expect(env.files.bucket(d.id).locked).toBe(false);
    await env.request.delete(`/api/records/${d.id}/draft/review`).set(as(OWNER)).expect(204);
    expect(env.fakeRequests.requests.get(r.body.id)!.status).toBe('deleted');
    const read = await env.request.get(`/api/records/${d.id}/draft`).set(as(OWNER)).expect(200);
    expect(read.body.parent.review).toBeUndefined();
    expect(read.body.status).toBe('draft');
    expect(read.body.links['submit-review']).toBeUndefined();
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
  });

  it('should validate the draft before submitting (400 as publish) and require a boolean require_review', async () => {
    const d = (
      await env.request
        .post('/api/records')
        .set(as(OWNER))
        .send({ metadata: { title: 'Only a title' } })
        .expect(201)
    ).body;
    await putReview(d.id, open.id).expect(200);
    const invalid = await env.request.post(`/api/records/${d.id}/draft/actions/submit-review`).set(as(OWNER)).send({});
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((e: any) => e.field)).toEqual(expect.arrayContaining(['metadata.creators', 'files.enabled']));
    const flag = await env.request.post(`/api/records/${d.id}/draft/actions/submit-review`).set(as(OWNER)).send({ require_review: 'yes' });
    expect(flag.status).toBe(400);
    expect(flag.body.errors).toEqual([{ field: 'require_review', messages: ['Must be a boolean, true or false'] }]);
    expect(env.fakeRequests.calls.some((c) => c.subject === 'action' && c.payload.id === d.parent.review?.id)).toBe(false);
  });

  it('should submit (202 with next_html), then block deleting the review, deleting the draft and publishing', async () => {
    const d = await draft();
    const r = await putReview(d.id, open.id).expect(200);
    const other403 = await env.request.post(`/api/records/${d.id}/draft/actions/submit-review`).set(as(OTHER)).send({});
    expect(other403.status).toBe(403);
    const res = await env.request
      .post(`/api/records/${d.id}/draft/actions/submit-review`)
      .set(as(OWNER))
      .send({ payload: { content: '<p>please</p>', format: 'html' } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: r.body.id, status: 'submitted', is_open: true, title: fullMetadata().title });
    expect(res.body.links.next_html).toBe(`https://rdm.example.org/me/requests/${r.body.id}`);
    const action = env.fakeRequests.calls.find((c) => c.subject === 'action' && c.payload.id === r.body.id)!.payload;
    expect(action).toEqual({
      id: r.body.id,
      action: 'submit',
      identity: { sub: OWNER, roles: [] },
      payload: { content: '<p>please</p>', format: 'html' },
      data: { require_review: false, title: fullMetadata().title },
    });
    const read = await env.request.get(`/api/records/${d.id}/draft`).set(as(OWNER)).expect(200);
    expect(read.body.status).toBe('in_review');
    const del = await env.request.delete(`/api/records/${d.id}/draft/review`).set(as(OWNER));
    expect(del.status).toBe(400);
    expect(del.body.message).toBe(REVIEW_MESSAGES.deleteOpenReview);
    const delDraft = await env.request.delete(`/api/records/${d.id}/draft`).set(as(OWNER));
    expect(delDraft.status).toBe(400);
    expect(delDraft.body.message).toBe(REVIEW_MESSAGES.deleteOpen);
    expect((await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER))).body.message).toBe(
      REVIEW_MESSAGES.publishOpen,
    );
    expect((await putReview(d.id, other.id)).body.message).toBe(REVIEW_MESSAGES.exists);
  });

  it('should give curators of the review community read access to the draft under review and its files', async () => {
    const d = await draft();
    await putReview(d.id, open.id).expect(200);
    // Before submission the community has no access.
    expect((await env.request.get(`/api/records/${d.id}/draft`).set(as(CURATOR))).status).toBe(403);
    await env.request.post(`/api/records/${d.id}/draft/actions/submit-review`).set(as(OWNER)).send({}).expect(202);
    expect((await env.request.get(`/api/records/${d.id}/draft`).set(as(CURATOR))).status).toBe(200);
    expect((await env.request.get(`/api/records/${d.id}/draft`).set(as(READER))).status).toBe(403);
    expect((await env.request.get(`/api/records/${d.id}/draft`).set(as(OTHER))).status).toBe(403);
    const authz = (sub: string) =>
      env.rpc<any>('rdm.records.rpc.authorize-files', { record_id: d.id, scope: 'draft', action: 'read', identity: { sub, roles: [] } });
    expect((await authz(CURATOR)).bucket_id).toBe(d.id);
    await expect(authz(OTHER)).rejects.toMatchObject({ status: 403 });
  });

  it('should allow only members to submit to a closed community (403 with the reference message)', async () => {
    const d = await draft();
    await putReview(d.id, closed.id).expect(200);
    const res = await env.request.post(`/api/records/${d.id}/draft/actions/submit-review`).set(as(OWNER)).send({});
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: 403, message: REVIEW_MESSAGES.membersOnly });
    env.fakeCommunities.setRole(OWNER, closed.id, 'reader');
    await env.request.post(`/api/records/${d.id}/draft/actions/submit-review`).set(as(OWNER)).send({}).expect(202);
  });

  it('should refuse a review on a published record and on a new version', async () => {
    const d = await draft();
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    await env.request.post(`/api/records/${d.id}/draft`).set(as(OWNER)).expect(201);
    const res = await putReview(d.id, open.id);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(REVIEW_MESSAGES.published);
    const v2 = (await env.request.post(`/api/records/${d.id}/versions`).set(as(OWNER)).expect(201)).body;
    expect((await putReview(v2.id, open.id)).body.message).toBe(REVIEW_MESSAGES.newVersion);
  });
});
