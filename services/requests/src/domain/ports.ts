/**
 * What the requests service needs from other services, as ports: implemented over NATS in
 * `rpc/communities.client.ts`, faked in unit tests. Domain code depends only on these.
 */
import type { CommunitySummary as ContractCommunitySummary } from '@rdm/contracts';
import type { CommunityRole } from './model.js';

/** A community summary: the contract's type (`rdm.communities.rpc.get`, proto/rpc/communities/get.json). */
export type CommunitySummary = ContractCommunitySummary;

/** Community roles and summaries, owned by the communities service. */
export interface CommunitiesPort {
  /** The user's active roles, by community id (only the given communities; all without `communityIds`). */
  roles(userId: string, communityIds?: string[]): Promise<Record<string, CommunityRole>>;
  /** Summaries of the given communities (unknown ids left out). */
  get(ids: string[]): Promise<Map<string, CommunitySummary>>;
}
