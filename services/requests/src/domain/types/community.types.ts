/**
 * Registry entries of the community request types: invitations and membership requests
 * (effect: a membership, applied by the communities service, cannot fail → `direct`) and
 * submissions / inclusions of records (effect: a publication or inclusion by the records
 * service, can fail → `saga`). Read by `registry.ts`; see its header.
 */
import { AppError } from '@rdm/platform';
import type { CommunityRole } from '../model.js';
import type { GuardContext, RequestType } from './request-type.js';

const MANAGERS: CommunityRole[] = ['owner', 'manager'];
const CURATORS: CommunityRole[] = ['owner', 'manager', 'curator'];
const MEMBER_EFFECT = { mode: 'direct', confirm: ['rdm.communities.member.added'], fail: [] } as const;
/** The flow both membership types share: submitted at creation, expiring after 30 days, never deleted. */
const MEMBERSHIP_FLOW: Pick<RequestType, 'actions' | 'effect' | 'expiresInDays' | 'deletable'> = {
  actions: {
    accept: { from: ['submitted'], to: 'accepted', who: ['receiver', 'system'], log: 'accepted' },
    decline: { from: ['submitted'], to: 'declined', who: ['receiver', 'system'], log: 'declined' },
    cancel: { from: ['submitted'], to: 'cancelled', who: ['creator', 'system'], log: 'cancelled' },
    expire: { from: ['submitted'], to: 'expired', who: ['system'], log: 'expired' },
  },
  effect: { ...MEMBER_EFFECT, confirm: [...MEMBER_EFFECT.confirm], fail: [] },
  expiresInDays: 30,
  deletable: false,
};
const RECORD_EFFECT = {
  mode: 'saga',
  confirm: ['rdm.records.record.published', 'rdm.records.inclusion.added'],
  fail: ['rdm.records.review.failed'],
} as const;

/** The automatic comment of an auto-accepted submission (InvenioRDM's text). */
export const AUTO_ACCEPT_COMMENT =
  'This request has been automatically accepted, as the uploader can submit to community directly without review.';

/** The 403 message when a non-member submits to a members-only community. */
export const MEMBERS_ONLY_MESSAGE = 'Submission to this community is only allowed to community members.';

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * `submit_record` on the receiving community: a closed submission policy or a restricted
 * community admits members only; otherwise any authenticated user.
 */
function submitRecordGuard(g: GuardContext): void {
  const c = g.community;
  if (!c || g.userId === null || g.userId === 'system') return;
  const membersOnly = c.record_submission_policy === 'closed' || c.visibility === 'restricted';
  if (membersOnly && !g.role) throw new AppError('submission_members_only', 403, MEMBERS_ONLY_MESSAGE);
}

/** `include_directly` by the community's review policy: closed → nobody; open → curators and up; members → any member. */
function includeDirectly(g: GuardContext): boolean {
  const policy = g.community?.review_policy ?? 'closed';
  if (!g.role) return false;
  if (policy === 'open') return CURATORS.includes(g.role);
  if (policy === 'members') return true;
  return false;
}

const recordType = (id: string, label: string): RequestType => ({
  id,
  label,
  initialStatus: 'created',
  refs: { created_by: ['user'], receiver: ['community'], topic: ['record'] },
  needsContext: { creator: [], receiver: CURATORS },
  actions: {
    submit: { from: ['created'], to: 'submitted', who: ['creator', 'system'] },
    accept: { from: ['submitted'], to: 'accepted', who: ['receiver', 'admin', 'system'], log: 'accepted' },
    decline: { from: ['submitted'], to: 'declined', who: ['receiver', 'admin', 'system'], log: 'declined' },
    cancel: { from: ['submitted'], to: 'cancelled', who: ['creator', 'system'], log: 'cancelled' },
    expire: { from: ['submitted'], to: 'expired', who: ['system'], log: 'expired' },
  },
  effect: { ...RECORD_EFFECT, confirm: [...RECORD_EFFECT.confirm], fail: [...RECORD_EFFECT.fail] },
  expiresInDays: null,
  deletable: true,
  defaultTitle: () => '',
  selfHtml: (req) => `/me/requests/${req.id}`,
  contextCommunity: 'receiver',
  guards: { submit: submitRecordGuard },
  autoAcceptOnSubmit: includeDirectly,
  autoAcceptComment: AUTO_ACCEPT_COMMENT,
});

/** The community request types. */
export const COMMUNITY_TYPES: RequestType[] = [
  {
    id: 'community-invitation',
    label: 'Member invitation',
    initialStatus: 'submitted',
    refs: { created_by: ['community'], receiver: ['user'], topic: ['community'] },
    needsContext: { creator: MANAGERS, receiver: [] },
    ...MEMBERSHIP_FLOW,
    defaultTitle: (ctx) => `Invitation to join "${ctx.community?.title ?? ''}"`,
    defaultDescription: (payload) => (typeof payload?.role === 'string' ? `You will join as "${capitalize(payload.role)}".` : undefined),
    selfHtml: (req, ctx) => `/communities/${ctx.community?.slug ?? 'unknown'}/requests/${req.id}`,
    contextCommunity: 'topic',
  },
  {
    id: 'community-membership-request',
    label: 'Membership request',
    initialStatus: 'submitted',
    refs: { created_by: ['user'], receiver: ['community'], topic: ['community'] },
    needsContext: { creator: [], receiver: MANAGERS },
    ...MEMBERSHIP_FLOW,
    defaultTitle: (ctx) => `Request to join "${ctx.community?.title ?? ''}"`,
    selfHtml: (req, ctx) =>
      ctx.callerIsCreator ? `/me/requests/${req.id}` : `/communities/${ctx.community?.slug ?? 'unknown'}/membership-requests/${req.id}`,
    contextCommunity: 'receiver',
  },
  recordType('community-submission', 'Draft review'),
  recordType('community-inclusion', 'Community inclusion'),
];
