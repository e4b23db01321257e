/** Shared helpers of the communities, requests and review e2e specs (black box: gateway only). */
import { randomBytes } from 'node:crypto';
import { api } from '../../support/client.js';

/** A unique, valid community slug. */
export function uniqueSlug(prefix = 'c'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** Access options of a create body (the spec's write form plus InvenioRDM's policy keys). */
export interface CommunityAccess {
  visibility?: 'public' | 'restricted';
  member_policy?: string;
  record_policy?: string;
  record_submission_policy?: string;
  review_policy?: string;
}

/** A create/update body in the spec's form. */
export function communityBody(slug: string, title: string, access: CommunityAccess = {}): Record<string, unknown> {
  return {
    slug,
    access: { visibility: 'public', member_policy: 'open', record_policy: 'open', ...access },
    metadata: {
      title,
      description: `${title}: a community made by the e2e suite`,
      type: { id: 'project' },
      curation_policy: '<p>We curate.</p>',
      page: '<p>About us</p>',
      website: 'https://example.org',
      organizations: [{ name: 'Mars Institute' }, { id: '01ggx4157' }],
    },
  };
}

/** POST /api/communities; returns the response. */
export function createCommunity(token: string | undefined, body: unknown) {
  return api('/api/communities', { method: 'POST', token, body });
}

/** Create a community or throw; returns its JSON. */
export async function makeCommunity(token: string, title: string, access: CommunityAccess = {}): Promise<any> {
  const res = await createCommunity(token, communityBody(uniqueSlug(), title, access));
  if (res.status !== 201) throw new Error(`create community ${res.status}: ${res.text}`);
  return res.body;
}

/** Invite a user with a role and have them accept; throws on any failure. */
export async function addMember(ownerToken: string, communityId: string, user: { id: string; token: string }, role: string): Promise<void> {
  const inv = await api(`/api/communities/${communityId}/invitations`, {
    method: 'POST',
    token: ownerToken,
    body: { members: [{ id: user.id, type: 'user' }], role },
  });
  if (inv.status !== 204) throw new Error(`invite ${inv.status}: ${inv.text}`);
  // Why a wait: the invitation is found through the requests search; on a search engine
  // (OpenSearch) it is there after the index refresh, not at the 204 (up to 10 s).
  const find = async () => {
    const mine = await api('/api/user/requests?size=100', { token: user.token });
    const hit = (mine.body?.hits?.hits ?? []).find(
      (h: any) => h.type === 'community-invitation' && h.topic?.community === communityId && h.status === 'submitted',
    );
    return { mine, hit };
  };
  let { mine, hit: req } = await find();
  for (let i = 0; !req && i < 40; i++) {
    await new Promise((r) => setTimeout(r, 250));
    ({ mine, hit: req } = await find());
  }
  if (!req) throw new Error(`invitation not found for ${user.id}: ${mine.text}`);
  const acc = await api(`/api/requests/${req.id}/actions/accept`, { method: 'POST', token: user.token });
  if (acc.status !== 200) throw new Error(`accept ${acc.status}: ${acc.text}`);
}
