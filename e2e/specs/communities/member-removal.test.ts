/**
 * Issue 18, finding 6, through the gateway: a member removed from a community stops reading the
 * community's restricted records with the very next read. Before the fix, `GET /api/records/<id>`
 * answered from records' read cache (keyed by record and caller, the community role not in the
 * key, a hit skipping the permission check) and the removed member kept reading.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, uploadFiles, walkthroughMetadata } from '../records/support.js';
import { addMember, makeCommunity } from './support.js';

describe('a removed community member loses the community role at once', () => {
  let owner: TestUser;
  let member: TestUser;
  let community: any;
  let recordId: string;

  beforeAll(async () => {
    [owner, member] = await Promise.all([
      createUser({ email: uniqueEmail('rm-owner'), admin: true, name: 'Ona Owner' }),
      createUser({ email: uniqueEmail('rm-member'), name: 'Mem Ber' }),
    ]);
    community = await makeCommunity(owner.token, 'Member Removal Community', { review_policy: 'open' });
    // A restricted record of the community (its owner submits to an open-review community: accepted at once).
    const d = await createDraft(owner.token, {
      access: { record: 'restricted', files: 'restricted' },
      files: { enabled: true },
      metadata: walkthroughMetadata(),
    });
    expect(d.status, d.text).toBe(201);
    recordId = d.body.id;
    await uploadFiles(owner.token, recordId, { 'a.txt': 'restricted content' });
    const put = await api(`/api/records/${recordId}/draft/review`, {
      method: 'PUT',
      token: owner.token,
      body: { type: 'community-submission', receiver: { community: community.id } },
    });
    expect(put.status, put.text).toBe(200);
    const sub = await api(`/api/records/${recordId}/draft/actions/submit-review`, { method: 'POST', token: owner.token });
    expect(sub.status, sub.text).toBe(202);
    expect(sub.body.status).toBe('accepted');
    await addMember(owner.token, community.id, member, 'reader');
  });

  it('GET /api/records/<id> admits the member, then refuses them on the first read after their removal', async () => {
    expect((await api(`/api/records/${recordId}`)).status).toBe(403);
    // Read more than once: the later reads are the ones a cache would answer.
    for (let i = 0; i < 3; i++) {
      const res = await api(`/api/records/${recordId}`, { token: member.token });
      expect(res.status, res.text).toBe(200);
      expect(res.body.parent.communities.ids).toEqual([community.id]);
    }
    const removed = await api(`/api/communities/${community.id}/members`, {
      method: 'DELETE',
      token: owner.token,
      body: { members: [{ type: 'user', id: member.id }] },
    });
    expect(removed.status, removed.text).toBe(204);
    const after = await api(`/api/records/${recordId}`, { token: member.token });
    expect(after.status).toBe(403);
    expect(after.body).toEqual({ status: 403, message: 'Permission denied.' });
    expect((await api(`/api/records/${recordId}`, { token: owner.token })).status).toBe(200);
  });
});
