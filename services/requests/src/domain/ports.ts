/**
 * What the requests service needs from other services, as ports: implemented over NATS in
 * `rpc/communities.client.ts` and `rpc/records.client.ts`, faked in tests. Domain code depends
 * only on these.
 */
import type { CommunitySummary as ContractCommunitySummary } from '@rdm/contracts';
import type { Identity } from '@rdm/platform';
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

/** Published records, owned by the records service. */
export interface RecordsPort {
  /**
   * May `identity` read the published record `recordId` (as `GET /api/records/<id>` decides)?
   * Its id and its parent's id, or the read's AppError (404, 403, 410).
   */
  authorizeRecord(recordId: string, identity: Identity): Promise<{ record_id: string; parent_id: string }>;
}
