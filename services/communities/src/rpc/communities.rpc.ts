/**
 * NATS request-reply endpoints of the communities service (queue group `communities`):
 * - `rdm.communities.rpc.get` `{ids:[uuid or slug]}` → `{communities:[summary]}` (unknown left out);
 * - `rdm.communities.rpc.roles` `{user_id, community_ids?}` → `{roles:{<id>: role}}` (active memberships);
 * - `rdm.communities.rpc.validate-extension` `{schema_id, community_extension}` → `{valid, errors?}`;
 * - `rdm.communities.rpc.owners` `{community_ids}` → `{owners:{<id>: [user id]}}` (active owners).
 */
import { type MsgLogger, type NatsHandle, type RpcServer, serveContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { CommunitiesService } from '../domain/communities.service.js';
import { isUuid } from '../domain/community-input.js';
import type { ExtensionsService } from '../domain/extensions.service.js';
import type { MembersService } from '../domain/members.service.js';

/** Dependencies of the RPC endpoints. */
export interface CommunitiesRpcDeps {
  communities: CommunitiesService;
  members: MembersService;
  extensions: ExtensionsService;
  logger: MsgLogger;
}

/** Start the four endpoints (requests checked against proto/rpc/communities by `serveContract`). */
export function serveCommunitiesRpc(nc: NatsHandle['nc'], deps: CommunitiesRpcDeps): RpcServer[] {
  const opts = { queue: 'communities', logger: deps.logger };
  return [
    serveContract(nc, RPC_SUBJECTS.communities.get, async (req) => ({ communities: await deps.communities.summaries(req.ids) }), opts),
    serveContract(
      nc,
      RPC_SUBJECTS.communities.roles,
      async (req) => ({
        roles: await deps.members.roles(
          req.user_id,
          req.community_ids?.filter(isUuid).map((s) => s.toLowerCase()),
        ),
      }),
      opts,
    ),
    serveContract(
      nc,
      RPC_SUBJECTS.communities.owners,
      async (req) => ({ owners: await deps.members.owners(req.community_ids.filter(isUuid).map((s) => s.toLowerCase())) }),
      opts,
    ),
    serveContract(
      nc,
      RPC_SUBJECTS.communities.validateExtension,
      (req) => deps.extensions.validate(req.schema_id, req.community_extension),
      opts,
    ),
  ];
}
