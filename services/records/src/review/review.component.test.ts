import { describe, expect, it } from 'vitest';
import type { DraftRow, ParentRow } from '../domain/model.js';
import type { CommunitiesPort, CommunitySummary, RequestsPort } from '../domain/ports.js';
import { ctxOf } from '../domain/access.component.js';
import { can } from '../domain/records.policy.js';
import { REVIEW_MESSAGES } from '../domain/errors.js';
import { ReviewService } from './review.service.js';
import { withCommunity } from '../events/review-saga.js';
import { draftStatus } from '../domain/serializers.js';
import { CommunitiesComponent } from '../communities/communities.component.js';
import { ReviewComponent } from './review.component.js';

const C1: CommunitySummary = { id: 'c1', slug: 'one', title: 'One', visibility: 'public', is_deleted: false };
const C2: CommunitySummary = { id: 'c2', slug: 'two', title: 'Two', visibility: 'restricted', is_deleted: false };
const GONE: CommunitySummary = { id: 'c3', slug: 'gone', title: 'Gone', visibility: 'public', is_deleted: true };

class FakeCommunities implements CommunitiesPort {
  rolesCalls = 0;
  constructor(private readonly roleMap: Record<string, Record<string, 'owner' | 'manager' | 'curator' | 'reader'>> = {}) {}
  async get(ids: string[]) {
    return [C1, C2, GONE].filter((c) => ids.includes(c.id) || ids.includes(c.slug));
  }
  async roles(user: string, ids?: string[]) {
    this.rolesCalls++;
    const all = this.roleMap[user] ?? {};
    return Object.fromEntries(Object.entries(all).filter(([c]) => !ids || ids.includes(c)));
  }
  async validateExtension() {
    return { valid: true };
  }
}
const noRequests = {} as RequestsPort;

function parent(over: Partial<ParentRow> = {}): ParentRow {
  return {
    id: 'p',
    owner_id: '1',
    created: new Date(),
    updated: new Date(),
    revision_id: 1,
    access: { owned_by: { user: '1' }, settings: {} as ParentRow['access']['settings'], grants: [], links: [] },
    communities: {},
    pids: {},
    latest_id: null,
    latest_index: 0,
    next_draft_id: 'd',
    review: null,
    ...over,
  };
}
const review = (status: NonNullable<ParentRow['review']>['status']) => ({
  id: 'r',
  type: 'community-submission',
  receiver: { community: 'c1' },
  status,
});
const row = { access: { record: 'public', files: 'public' } } as never;

describe(ReviewService.name, () => {
  const sut = new ReviewService({
    db: {} as never,
    records: {} as never,
    index: {} as never,
    requests: noRequests,
    communities: new FakeCommunities(),
    logger: console,
    baseUrl: 'x',
  });

  it('should refuse a direct publish while the review is created or submitted, not once closed', () => {
    const lifecycle = new ReviewComponent({ requests: noRequests, logger: console });
    const beforePublish = (p: ParentRow) => lifecycle.beforePublish(p);
    for (const s of ['created', 'submitted'] as const) {
      expect(() => beforePublish!(parent({ review: review(s) }))).toThrow(REVIEW_MESSAGES.publishOpen);
    }
    for (const s of ['declined', 'expired'] as const) expect(() => beforePublish!(parent({ review: review(s) }))).not.toThrow();
    expect(() => beforePublish!(parent())).not.toThrow();
  });

  it('should refuse deleting a draft only while its review is open', () => {
    const lifecycle = new ReviewComponent({ requests: noRequests, logger: console });
    const beforeDeleteDraft = (p: ParentRow) => lifecycle.beforeDeleteDraft({ draft: {} as DraftRow, parent: p, kind: 'new' });
    expect(() => beforeDeleteDraft!(parent({ review: review('submitted') }))).toThrow(REVIEW_MESSAGES.deleteOpen);
    expect(() => beforeDeleteDraft!(parent({ review: review('created') }))).not.toThrow();
  });

  it('should validate the review body: type, receiver, unknown or deleted community', async () => {
    const user = { sub: '8', roles: [] };
    await expect(sut.validateBody(user, { type: 'community-submission', receiver: { community: 'one' } })).resolves.toEqual(C1);
    await expect(sut.validateBody(user, { type: 'x', receiver: { community: 'one' } })).rejects.toMatchObject({
      status: 400,
      fieldErrors: [{ field: 'type', messages: [REVIEW_MESSAGES.invalidType] }],
    });
    for (const c of ['nope', 'gone']) {
      await expect(sut.validateBody(user, { type: 'community-submission', receiver: { community: c } })).rejects.toMatchObject({
        status: 400,
        fieldErrors: [{ field: 'receiver.community', messages: [REVIEW_MESSAGES.communityNotFound] }],
      });
    }
  });

  it('should answer for a restricted community the caller may not read exactly as for an unknown one', async () => {
    const withMember = new ReviewService({
      db: {} as never,
      records: {} as never,
      index: {} as never,
      requests: noRequests,
      communities: new FakeCommunities({ '5': { c2: 'reader' } }),
      logger: console,
      baseUrl: 'x',
    });
    const body = (community: string) => ({ type: 'community-submission', receiver: { community } });
    const refusal = async (who: { sub: string | null; roles: string[] }, community: string) => {
      const err = await withMember.validateBody(who, body(community)).then(
        () => undefined,
        (e: unknown) => e as { status: number; message: string; fieldErrors: unknown },
      );
      return err && { status: err.status, message: err.message, fieldErrors: err.fieldErrors };
    };
    const unknown = await refusal({ sub: '8', roles: [] }, 'nope');
    expect(unknown).toMatchObject({ status: 400 });
    for (const id of ['two', 'c2']) {
      expect(await refusal({ sub: '8', roles: [] }, id)).toEqual(unknown);
      expect(await refusal({ sub: null, roles: [] }, id)).toEqual(unknown);
      await expect(withMember.validateBody({ sub: '5', roles: [] }, body(id))).resolves.toEqual(C2);
      await expect(withMember.validateBody({ sub: '9', roles: ['admin'] }, body(id))).resolves.toEqual(C2);
    }
  });

  it('should derive the draft status from the review', () => {
    expect(draftStatus(false, parent({ review: review('created') }))).toBe('draft_with_review');
    expect(draftStatus(false, parent({ review: review('submitted') }))).toBe('in_review');
    expect(draftStatus(false, parent({ review: review('declined') }))).toBe('declined');
    expect(draftStatus(false, parent({ review: review('expired') }))).toBe('expired');
    expect(draftStatus(false, parent())).toBe('draft');
    expect(draftStatus(true, parent({ review: review('submitted') }))).toBe('published');
  });
});

describe(CommunitiesComponent.name, () => {
  it('should give curators of the open review community the review level, and nothing before submission', async () => {
    const communities = new FakeCommunities({ '5': { c1: 'curator' }, '6': { c1: 'reader' } });
    const sut = new CommunitiesComponent({ communities });
    const p = parent({ review: review('submitted') });
    const curator = await sut.accessCtx({ sub: '5', roles: [] }, ctxOf(row, p), p);
    expect(can('read_draft', { sub: '5', roles: [] }, curator)).toBe(true);
    expect(can('update_draft', { sub: '5', roles: [] }, curator)).toBe(true);
    expect(can('delete_draft', { sub: '5', roles: [] }, curator)).toBe(false);
    const reader = await sut.accessCtx({ sub: '6', roles: [] }, ctxOf(row, p), p);
    expect(can('read_draft', { sub: '6', roles: [] }, reader)).toBe(false);
    const created = parent({ review: review('created') });
    const before = await sut.accessCtx({ sub: '5', roles: [] }, ctxOf(row, created), created);
    expect(can('read_draft', { sub: '5', roles: [] }, before)).toBe(false);
    expect(communities.rolesCalls).toBe(2);
  });

  it("should give members view of the record's communities and curators manage", async () => {
    const communities = new FakeCommunities({ '5': { c1: 'curator' }, '6': { c1: 'reader' } });
    const sut = new CommunitiesComponent({ communities });
    const p = parent({ communities: { ids: ['c1'], default: 'c1' } });
    const restricted = { access: { record: 'restricted', files: 'restricted' } } as never;
    const reader = await sut.accessCtx({ sub: '6', roles: [] }, ctxOf(restricted, p), p);
    expect(can('read', { sub: '6', roles: [] }, reader)).toBe(true);
    expect(can('manage', { sub: '6', roles: [] }, reader)).toBe(false);
    const curator = await sut.accessCtx({ sub: '5', roles: [] }, ctxOf(restricted, p), p);
    expect(can('manage', { sub: '5', roles: [] }, curator)).toBe(true);
    expect(can('read', { sub: '7', roles: [] }, ctxOf(restricted, p))).toBe(false);
  });
});

describe('withCommunity', () => {
  it('should add the community as default for a first version, keep the default otherwise, never twice', () => {
    expect(withCommunity({}, C1, true)).toEqual({ ids: ['c1'], default: 'c1', entries: [C1] });
    const both = withCommunity({ ids: ['c1'], default: 'c1', entries: [C1] }, C2, false);
    expect(both).toEqual({ ids: ['c1', 'c2'], default: 'c1', entries: [C1, C2] });
    expect(withCommunity(both as Record<string, unknown>, C2, false)).toEqual(both);
  });
});
