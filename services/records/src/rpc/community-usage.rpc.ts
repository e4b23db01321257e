/**
 * RPC `rdm.records.rpc.community-usage` (queue group `records`): the communities service asks for
 * the usage totals (views, downloads over all versions) of the records in a community, for its
 * `statistics.record_views` / `record_downloads`. Records owns both the counters (stats
 * consumer) and which parents are in which community, so the sum is one query here.
 */
import { type Knex, type MsgLogger, type NatsHandle, type RpcServer, serveContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import { communityUsage } from '../repo/stats.repo.js';

/** Serve the community-usage RPC until `stop()`. */
export function serveCommunityUsageRpc(nc: NatsHandle['nc'], db: Knex, logger: MsgLogger): RpcServer {
  return serveContract(nc, RPC_SUBJECTS.records.communityUsage, (req) => communityUsage(db, req.community_id), {
    queue: 'records',
    logger,
  });
}
