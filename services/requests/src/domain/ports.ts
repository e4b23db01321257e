/**
 * What the requests service needs from other services, as ports: implemented over NATS in
 * `rpc/communities.client.ts`, faked in unit tests. Domain code depends only on these.
 */
import type { CommunityRole } from './model.js';

/** The part of a community the requests service decides with (`rdm.communities.rpc.get`). */
export interface CommunitySummary {
  id: string;
  slug: string;
  title: string;
  visibility: string;
  members_visibility?: string;
  member_policy?: string;
  record_submission_policy?: string;
  review_policy?: string;
  is_deleted?: boolean;
}

/** Community roles and summaries, owned by the communities service. */
export interface CommunitiesPort {
  /** The user's active roles, by community id (only the given communities; all without `communityIds`). */
  roles(userId: string, communityIds?: string[]): Promise<Record<string, CommunityRole>>;
  /** Summaries of the given communities (unknown ids left out). */
  get(ids: string[]): Promise<Map<string, CommunitySummary>>;
}
