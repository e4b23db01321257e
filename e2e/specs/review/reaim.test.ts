/**
 * Issue 18, finding 2 (regression): a review request cannot be re-aimed at someone else's draft.
 *
 * The attack, through the gateway: user B curates a community whose review policy is open (B's
 * own submissions are accepted at once), attaches a review to a draft of their own, then changes the
 * request's `topic` with `PUT /api/requests/<id>` to user A's private draft — or to A's published
 * record that has pending edits — and submits it. The review saga used to publish whatever
 * `topic.record` named into `receiver.community`: A's private draft went online in B's community,
 * and A's unreviewed edits replaced A's published record. Now the PUT is refused (400 on `topic`
 * and `receiver`), and A's draft and record stay as A left them whatever B does next.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { addMember, makeCommunity } from '../communities/support.js';
import { createDraft, publishedRecord, uploadFiles, walkthroughMetadata } from '../records/support.js';

describe('PUT /api/requests/<id>: a review request cannot be re-aimed', () => {
  let admin: TestUser;
  let victim: TestUser;
  let attacker: TestUser;
  let own: any;

  beforeAll(async () => {
    [admin, victim, attacker] = await Promise.all([
      createUser({ email: uniqueEmail('reaim-admin'), admin: true }),
      createUser({ email: uniqueEmail('reaim-victim'), name: 'Vic Tim' }),
      createUser({ email: uniqueEmail('reaim-attacker'), name: 'At Tacker' }),
    ]);
    // The attacker's "own" community: they curate it and its review policy is open, so their
    // submissions are accepted at once (communities are created by administrators by default).
    own = await makeCommunity(admin.token, 'Attacker Open Review', { review_policy: 'open' });
    await addMember(admin.token, own.id, attacker, 'curator');
  });

  /** The attacker's own draft with a file and its review to the attacker's community (status created). */
  async function attackersReview(): Promise<{ draftId: string; requestId: string }> {
    const d = await createDraft(attacker.token);
    expect(d.status, d.text).toBe(201);
    await uploadFiles(attacker.token, d.body.id, { 'mine.csv': 'a\n1\n' });
    const put = await api(`/api/records/${d.body.id}/draft/review`, {
      method: 'PUT',
      token: attacker.token,
      body: { type: 'community-submission', receiver: { community: own.id } },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.status).toBe('created');
    return { draftId: d.body.id, requestId: put.body.id };
  }

  /** PUT the request's topic to `record`, then submit the request as its creator. */
  async function reaimAndSubmit(requestId: string, record: string) {
    const put = await api(`/api/requests/${requestId}`, {
      method: 'PUT',
      token: attacker.token,
      body: { topic: { record } },
    });
    const submit = await api(`/api/requests/${requestId}/actions/submit`, { method: 'POST', token: attacker.token });
    return { put, submit };
  }

  it("another user's private draft: the PUT is refused and the draft stays unpublished", async () => {
    const d = await createDraft(victim.token, {
      access: { record: 'restricted', files: 'restricted' },
      files: { enabled: true },
      metadata: { ...walkthroughMetadata(), title: 'Private work in progress' },
    });
    expect(d.status, d.text).toBe(201);
    const target = d.body.id as string;
    await uploadFiles(victim.token, target, { 'secret.csv': 'x\n42\n' });
    const { requestId } = await attackersReview();

    const { put, submit } = await reaimAndSubmit(requestId, target);
    expect(put.status, put.text).toBe(400);
    expect(put.body).toEqual({
      status: 400,
      message: 'A validation error occurred.',
      errors: [{ field: 'topic', messages: ['The topic of this request cannot be changed.'] }],
    });
    // The attacker's own request still works for the attacker's own draft.
    expect([200, 202], submit.text).toContain(submit.status);
    expect(submit.body.topic).not.toEqual({ record: target });

    const asRecord = await api(`/api/records/${target}`, { token: victim.token });
    expect(asRecord.status, asRecord.text).toBe(404);
    const draft = await api(`/api/records/${target}/draft`, { token: victim.token });
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({ is_published: false, status: 'draft' });
    expect(draft.body.parent.communities ?? {}).toEqual({});
    expect((await api(`/api/records/${target}/draft`, { token: attacker.token })).status).toBe(403);
    const listed = await api(`/api/communities/${own.id}/records?size=100`);
    expect(listed.body.hits.hits.map((h: any) => h.id)).not.toContain(target);
  });

  it("another user's published record with pending edits: the edits stay unpublished and the record out of the community", async () => {
    const rec = await publishedRecord(victim.token, { ...walkthroughMetadata(), title: 'Published as reviewed' });
    const target = rec.id as string;
    const edit = await api(`/api/records/${target}/draft`, { method: 'POST', token: victim.token });
    expect(edit.status, edit.text).toBe(201);
    const pending = await api(`/api/records/${target}/draft`, {
      method: 'PUT',
      token: victim.token,
      body: {
        access: edit.body.access,
        files: edit.body.files,
        metadata: { ...edit.body.metadata, title: 'Pending edit, not for publication' },
      },
    });
    expect(pending.status, pending.text).toBe(200);
    const { requestId } = await attackersReview();

    const { put } = await reaimAndSubmit(requestId, target);
    expect(put.status, put.text).toBe(400);

    const after = await api(`/api/records/${target}`);
    expect(after.status).toBe(200);
    expect(after.body.metadata.title).toBe('Published as reviewed');
    expect(after.body.parent.communities ?? {}).toEqual({});
    const stillDraft = await api(`/api/records/${target}/draft`, { token: victim.token });
    expect(stillDraft.status).toBe(200);
    expect(stillDraft.body.metadata.title).toBe('Pending edit, not for publication');
  });

  it('the receiver cannot be re-aimed either; echoing the current references is accepted', async () => {
    const other = await makeCommunity(admin.token, 'Victim Community', { review_policy: 'closed' });
    const { draftId, requestId } = await attackersReview();
    const res = await api(`/api/requests/${requestId}`, {
      method: 'PUT',
      token: attacker.token,
      body: { receiver: { community: other.id } },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'receiver', messages: ['The receiver of this request cannot be changed.'] }]);
    const echo = await api(`/api/requests/${requestId}`, {
      method: 'PUT',
      token: attacker.token,
      body: { title: 'Renamed', receiver: { community: own.id }, topic: { record: draftId } },
    });
    expect(echo.status, echo.text).toBe(200);
    expect(echo.body).toMatchObject({ title: 'Renamed', receiver: { community: own.id }, topic: { record: draftId } });
  });
});
