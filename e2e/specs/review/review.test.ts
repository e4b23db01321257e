/**
 * Issue "Review and inclusion", done-when walkthrough through the gateway (spec walkthrough
 * steps 1–5 with a reviewed and an open community): a depositor attaches a community-submission
 * review to a draft with a file and submits it; a curator finds it in the community's requests,
 * comments and accepts; the record is readable as published at once and listed under the
 * community. A submission by the owner of an open-review community is accepted at once, with
 * the automatic comment. Then inclusion of a published record into another community.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, publish, uploadFiles } from '../records/support.js';
import { addMember, makeCommunity } from '../communities/support.js';

const AUTO_COMMENT = 'This request has been automatically accepted, as the uploader can submit to community directly without review.';

describe('review: community submission accepted by a curator, or at once on an open community', () => {
  let admin: TestUser;
  let depositor: TestUser;
  let curator: TestUser;
  let stranger: TestUser;
  let reviewed: any;
  let open: any;
  let draftId: string;
  let requestId: string;
  let api_: string;

  beforeAll(async () => {
    api_ = `${baseUrl()}/api`;
    [admin, depositor, curator, stranger] = await Promise.all([
      createUser({ email: uniqueEmail('rev-admin'), admin: true, name: 'Owner Admin' }),
      createUser({ email: uniqueEmail('rev-dep'), name: 'Dee Positor' }),
      createUser({ email: uniqueEmail('rev-cur'), name: 'Cura Tor' }),
      createUser({ email: uniqueEmail('rev-str'), name: 'Stran Ger' }),
    ]);
    reviewed = await makeCommunity(admin.token, 'Reviewed Community', { review_policy: 'closed' });
    open = await makeCommunity(admin.token, 'Open Review Community', { review_policy: 'open' });
    await addMember(admin.token, reviewed.id, curator, 'curator');
  });

  it('PUT …/draft/review attaches a community-submission request (status created, submit action)', async () => {
    const d = await createDraft(depositor.token);
    expect(d.status, d.text).toBe(201);
    draftId = d.body.id;
    await uploadFiles(depositor.token, draftId, { 'data.csv': 'a,b\n1,2\n' });

    const none = await api(`/api/records/${draftId}/draft/review`, { token: depositor.token });
    expect(none.status).toBe(404);
    expect(none.body.message).toBe('Review for draft not found');

    const bad = await api(`/api/records/${draftId}/draft/review`, {
      method: 'PUT',
      token: depositor.token,
      body: { type: 'no-such-type', receiver: { community: reviewed.id } },
    });
    expect(bad.status).toBe(400);
    const other = await api(`/api/records/${draftId}/draft/review`, {
      method: 'PUT',
      token: stranger.token,
      body: { type: 'community-submission', receiver: { community: reviewed.id } },
    });
    expect(other.status).toBe(403);

    const put = await api(`/api/records/${draftId}/draft/review`, {
      method: 'PUT',
      token: depositor.token,
      body: { type: 'community-submission', receiver: { community: reviewed.id } },
    });
    expect(put.status, put.text).toBe(200);
    requestId = put.body.id;
    expect(put.body).toMatchObject({
      type: 'community-submission',
      status: 'created',
      is_open: false,
      is_closed: false,
      receiver: { community: reviewed.id },
      topic: { record: draftId },
      created_by: { user: depositor.id },
    });
    expect(put.body.links.actions).toEqual({ submit: `${api_}/requests/${requestId}/actions/submit` });

    const got = await api(`/api/records/${draftId}/draft/review`, { token: depositor.token });
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(requestId);
    const draft = await api(`/api/records/${draftId}/draft`, { token: depositor.token });
    expect(draft.body.parent.review).toMatchObject({ id: requestId, type: 'community-submission', receiver: { community: reviewed.id } });
  });

  it('a draft with a review cannot be published directly', async () => {
    const res = await publish(depositor.token, draftId);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('You cannot publish a draft with an open review request. Please cancel the review request first.');
  });

  it('POST …/draft/actions/submit-review submits it (202); the draft is in review', async () => {
    const res = await api(`/api/records/${draftId}/draft/actions/submit-review`, {
      method: 'POST',
      token: depositor.token,
      body: { payload: { content: '<p>Please review</p>', format: 'html' } },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ id: requestId, status: 'submitted', is_open: true, title: expect.any(String) });
    const draft = await api(`/api/records/${draftId}/draft`, { token: depositor.token });
    expect(draft.body.status).toBe('in_review');
    const del = await api(`/api/records/${draftId}/draft`, { method: 'DELETE', token: depositor.token });
    expect(del.status).toBe(400);
    expect(del.body.message).toBe('You cannot delete a draft with an open review. Please cancel the review first.');
  });

  it("the curator finds it in the community's requests, reads the draft and its files", async () => {
    const list = await api(`/api/communities/${reviewed.id}/requests`, { token: curator.token });
    expect(list.status, list.text).toBe(200);
    const hit = list.body.hits.hits.find((h: any) => h.id === requestId);
    expect(hit).toBeDefined();
    expect(Object.keys(hit.links.actions).sort()).toEqual(['accept', 'decline']);
    expect((await api(`/api/communities/${reviewed.id}/requests`, { token: stranger.token })).status).toBe(403);

    expect((await api(`/api/records/${draftId}/draft`, { token: curator.token })).status).toBe(200);
    expect((await api(`/api/records/${draftId}/draft/files`, { token: curator.token })).status).toBe(200);
    expect((await api(`/api/records/${draftId}/draft`, { token: stranger.token })).status).toBe(403);
  });

  it('only the receiver may accept; the curator comments and accepts (200); the record is published at once', async () => {
    const denied = await api(`/api/requests/${requestId}/actions/accept`, { method: 'POST', token: stranger.token });
    expect(denied.status).toBe(403);
    const self = await api(`/api/requests/${requestId}/actions/accept`, { method: 'POST', token: depositor.token });
    expect(self.status).toBe(403);

    const c = await api(`/api/requests/${requestId}/comments`, {
      method: 'POST',
      token: curator.token,
      body: { payload: { content: 'Looks good', format: 'html' } },
    });
    expect(c.status, c.text).toBe(201);
    const acc = await api(`/api/requests/${requestId}/actions/accept`, {
      method: 'POST',
      token: curator.token,
      body: { payload: { content: 'Welcome to the community', format: 'html' } },
    });
    expect(acc.status, acc.text).toBe(200);
    expect(acc.body).toMatchObject({ status: 'accepted', is_closed: true, is_open: false });

    const rec = await api(`/api/records/${draftId}`);
    expect(rec.status, rec.text).toBe(200);
    expect(rec.body).toMatchObject({ is_published: true, status: 'published' });
    expect(rec.body.parent.communities.ids).toEqual([reviewed.id]);
    expect(rec.body.parent.communities.default).toBe(reviewed.id);
    expect(rec.body.parent.review ?? null).toBeNull();

    const inCommunity = await api(`/api/communities/${reviewed.slug}/records`);
    expect(inCommunity.status, inCommunity.text).toBe(200);
    expect(inCommunity.body.hits.hits.map((h: any) => h.id)).toContain(draftId);
    const comms = await api(`/api/records/${draftId}/communities`);
    expect(comms.status, comms.text).toBe(200);
    expect(comms.body.hits.hits.map((h: any) => h.id)).toEqual([reviewed.id]);
  });

  it('the timeline holds the submit comment, the curator comment, the accepted log and the accept comment', async () => {
    const tl = await api(`/api/requests/${requestId}/timeline`, { token: depositor.token });
    expect(tl.status).toBe(200);
    const kinds = tl.body.hits.hits.map((h: any) => [h.type, h.payload.event ?? h.payload.content]);
    expect(kinds).toEqual([
      ['C', '<p>Please review</p>'],
      ['C', 'Looks good'],
      ['L', 'accepted'],
      ['C', 'Welcome to the community'],
    ]);
  });

  it('community statistics count the published record', async () => {
    const c = await api(`/api/communities/${reviewed.id}`);
    expect(c.body.statistics).toMatchObject({ records: 1, files: 1 });
  });

  it('the owner of an open-review community is accepted at once, with the automatic comment', async () => {
    const d = await createDraft(admin.token);
    expect(d.status).toBe(201);
    const id = d.body.id;
    await uploadFiles(admin.token, id, { 'a.txt': 'hello' });
    const put = await api(`/api/records/${id}/draft/review`, {
      method: 'PUT',
      token: admin.token,
      body: { type: 'community-submission', receiver: { community: open.id } },
    });
    expect(put.status, put.text).toBe(200);
    const sub = await api(`/api/records/${id}/draft/actions/submit-review`, { method: 'POST', token: admin.token });
    expect(sub.status, sub.text).toBe(202);
    expect(sub.body.status).toBe('accepted');
    const rec = await api(`/api/records/${id}`);
    expect(rec.status).toBe(200);
    expect(rec.body.parent.communities.ids).toEqual([open.id]);
    const tl = await api(`/api/requests/${sub.body.id}/timeline`, { token: admin.token });
    const texts = tl.body.hits.hits.map((h: any) => h.payload.content ?? h.payload.event);
    expect(texts).toContain(AUTO_COMMENT);
    expect(tl.body.hits.hits.find((h: any) => h.payload.event === 'accepted').created_by).toEqual({ user: 'system' });
  });

  it('a non-member cannot submit to a community with a closed submission policy (403)', async () => {
    const closed = await makeCommunity(admin.token, 'Closed Submissions', { record_policy: 'closed', record_submission_policy: 'closed' });
    const d = await createDraft(stranger.token);
    await uploadFiles(stranger.token, d.body.id, { 'x.txt': 'x' });
    const put = await api(`/api/records/${d.body.id}/draft/review`, {
      method: 'PUT',
      token: stranger.token,
      body: { type: 'community-submission', receiver: { community: closed.id } },
    });
    if (put.status === 200) {
      const sub = await api(`/api/records/${d.body.id}/draft/actions/submit-review`, { method: 'POST', token: stranger.token });
      expect(sub.status, sub.text).toBe(403);
      expect(sub.body.message).toBe('Submission to this community is only allowed to community members.');
    } else {
      expect(put.status, put.text).toBe(403);
      expect(put.body.message).toBe('Submission to this community is only allowed to community members.');
    }
  });

  it('POST /api/records/<id>/communities asks to include a published record; the curator accepts', async () => {
    const other = await makeCommunity(admin.token, 'Inclusion Target', { review_policy: 'closed' });
    const res = await api(`/api/records/${draftId}/communities`, {
      method: 'POST',
      token: depositor.token,
      body: { communities: [{ id: other.id }] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.processed).toHaveLength(1);
    expect(res.body.processed[0].community_id).toBe(other.id);
    const rid = res.body.processed[0].request_id;
    const acc = await api(`/api/requests/${rid}/actions/accept`, { method: 'POST', token: admin.token });
    expect(acc.status, acc.text).toBe(200);
    expect(acc.body.status).toBe('accepted');
    const rec = await api(`/api/records/${draftId}`);
    expect(rec.body.parent.communities.ids.sort()).toEqual([reviewed.id, other.id].sort());
    expect(rec.body.parent.communities.default).toBe(reviewed.id);
  });
});
