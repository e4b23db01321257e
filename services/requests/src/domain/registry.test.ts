import type { Identity } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import type { RequestRow, Status } from './model.js';
import { availableActions, canDelete, canRead, canUpdate, mayRunAction } from './policy.js';
import { AUTO_ACCEPT_COMMENT, MEMBERS_ONLY_MESSAGE } from './types/community.types.js';
import { effectSubjects, requestType, requestTypes } from './types/registry.js';

const user = (sub: string, roles: string[] = []): Identity => ({ sub, roles });
const SYSTEM: Identity = { sub: 'system', roles: ['system'] };
const ADMIN = user('9', ['admin']);
const C = 'c0000000-0000-4000-8000-000000000001';

function req(type: string, status: Status, over: Partial<RequestRow> = {}): RequestRow {
  const t = requestType(type)!;
  const community = { type: 'community' as const, id: C };
  const u = (id: string) => ({ type: 'user' as const, id });
  const refs = {
    created_by: t.refs.created_by[0] === 'community' ? community : u('1'),
    receiver: t.refs.receiver[0] === 'community' ? community : u('2'),
  };
  return {
    id: 'r',
    number: 1,
    type,
    status,
    title: '',
    description: null,
    payload: null,
    ...refs,
    topic: t.refs.topic?.[0] === 'record' ? { type: 'record', id: 'rec' } : community,
    expires_at: null,
    is_locked: false,
    accept_actor: null,
    accept_comment: null,
    created: new Date(),
    updated: new Date(),
    last_activity_at: new Date(),
    revision_id: 1,
    ...over,
  };
}

describe('request type registry', () => {
  it('should register the four community types, the two access request types, the record deletion, file modification and quota increase types as data', () => {
    expect(
      requestTypes()
        .map((t) => t.id)
        .sort(),
    ).toEqual([
      'community-inclusion',
      'community-invitation',
      'community-membership-request',
      'community-submission',
      'file-modification',
      'guest-access-request',
      'quota-increase',
      'record-deletion',
      'user-access-request',
    ]);
    expect(requestType('community-invitation')).toMatchObject({
      initialStatus: 'submitted',
      expiresInDays: 30,
      effect: { mode: 'direct' },
    });
    expect(requestType('community-submission')).toMatchObject({ initialStatus: 'created', expiresInDays: null, effect: { mode: 'saga' } });
    expect(requestType('community-invitation')?.actions.submit).toBeUndefined();
    expect(effectSubjects()).toEqual([
      'rdm.communities.member.added',
      'rdm.files.bucket.quota-changed',
      'rdm.records.access-request.failed',
      'rdm.records.access-request.granted',
      'rdm.records.inclusion.added',
      'rdm.records.record.deleted',
      'rdm.records.record.deletion-failed',
      'rdm.records.record.files-unlock-failed',
      'rdm.records.record.files-unlocked',
      'rdm.records.record.published',
      'rdm.records.review.failed',
    ]);
  });

  it('should give each actor the reference actions (submission)', () => {
    const t = requestType('community-submission')!;
    const created = req(t.id, 'created');
    expect(availableActions(user('1'), created, t, {})).toEqual(['submit']);
    expect(availableActions(user('5'), created, t, { [C]: 'curator' })).toEqual([]);
    const submitted = req(t.id, 'submitted');
    expect(availableActions(user('1'), submitted, t, {})).toEqual(['cancel']);
    expect(availableActions(user('5'), submitted, t, { [C]: 'curator' })).toEqual(['accept', 'decline']);
    expect(availableActions(user('5'), submitted, t, { [C]: 'reader' })).toEqual([]);
    expect(availableActions(user('1'), req(t.id, 'accepting'), t, {})).toEqual([]);
    expect(mayRunAction('expire', ADMIN, submitted, t, {})).toBe(false);
    expect(mayRunAction('expire', SYSTEM, submitted, t, {})).toBe(true);
  });

  it('should let only the invitee accept an invitation and owners/managers cancel it', () => {
    const t = requestType('community-invitation')!;
    const r = req(t.id, 'submitted');
    expect(availableActions(user('2'), r, t, {})).toEqual(['accept', 'decline']);
    expect(availableActions(user('3'), r, t, { [C]: 'owner' })).toEqual(['cancel']);
    expect(availableActions(user('3'), r, t, { [C]: 'curator' })).toEqual([]);
    expect(mayRunAction('accept', ADMIN, r, t, {})).toBe(false);
  });

  it('should read created requests by their creator only, others by creator and receiver', () => {
    const t = requestType('community-submission')!;
    expect(canRead(user('1'), req(t.id, 'created'), t, {})).toBe(true);
    expect(canRead(user('5'), req(t.id, 'created'), t, { [C]: 'owner' })).toBe(false);
    expect(canRead(user('5'), req(t.id, 'submitted'), t, { [C]: 'curator' })).toBe(true);
    expect(canRead(user('7'), req(t.id, 'submitted'), t, {})).toBe(false);
    expect(canRead(ADMIN, req(t.id, 'created'), t, {})).toBe(true);
    expect(canUpdate(user('1'), req(t.id, 'accepted'), t, {})).toBe(false);
    expect(canUpdate(ADMIN, req(t.id, 'accepted'), t, {})).toBe(true);
    expect(canDelete(user('1'), req(t.id, 'created'), t, {})).toBe(true);
    expect(canDelete(ADMIN, req(t.id, 'submitted'), t, {})).toBe(false);
    expect(canDelete(user('2'), req('community-invitation', 'submitted'), requestType('community-invitation')!, {})).toBe(false);
  });

  it('should decide submission and auto-accept by the community policies', () => {
    const t = requestType('community-submission')!;
    const g = (community: Record<string, string>, role?: 'owner' | 'curator' | 'reader') => ({
      userId: '1',
      request: req(t.id, 'created'),
      community: { id: C, slug: 's', title: 'T', visibility: 'public', is_deleted: false, ...community },
      role,
    });
    expect(() => t.guards?.submit?.(g({ record_submission_policy: 'closed' }))).toThrow(MEMBERS_ONLY_MESSAGE);
    expect(() => t.guards?.submit?.(g({ visibility: 'restricted' }))).toThrow(MEMBERS_ONLY_MESSAGE);
    expect(() => t.guards?.submit?.(g({ record_submission_policy: 'closed' }, 'reader'))).not.toThrow();
    expect(() => t.guards?.submit?.(g({ record_submission_policy: 'open' }))).not.toThrow();
    expect(t.autoAcceptOnSubmit?.(g({ review_policy: 'closed' }, 'owner'))).toBe(false);
    expect(t.autoAcceptOnSubmit?.(g({ review_policy: 'open' }, 'curator'))).toBe(true);
    expect(t.autoAcceptOnSubmit?.(g({ review_policy: 'open' }, 'reader'))).toBe(false);
    expect(t.autoAcceptOnSubmit?.(g({ review_policy: 'members' }, 'reader'))).toBe(true);
    expect(t.autoAcceptOnSubmit?.(g({ review_policy: 'members' }))).toBe(false);
    expect(t.autoAcceptComment).toBe(AUTO_ACCEPT_COMMENT);
  });
});
