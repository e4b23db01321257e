/**
 * NATS request-reply endpoints of the communities service (queue group `communities`):
 * - `rdm.communities.rpc.get` `{ids:[uuid or slug]}` → `{communities:[summary]}` (unknown left out);
 * - `rdm.communities.rpc.roles` `{user_id, community_ids?}` → `{roles:{<id>: role}}` (active memberships);
 * - `rdm.communities.rpc.validate-extension` `{schema_id, community_extension}` → `{valid, errors?}`;
 * - `rdm.communities.rpc.owners` `{community_ids}` → `{owners:{<id>: [user id]}}` (active owners).
 */
import { type MsgLogger, type NatsHandle, type RpcServer, serveRpc } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/platform/contracts';
import type { CommunitiesService } from '../domain/communities.service.js';
import { isUuid } from '../domain/community-input.js';
import type { ExtensionsService } from '../domain/extensions.service.js';
import type { MembersService } from '../domain/members.service.js';

const getSchema = {
  type: 'object',
  required: ['ids'],
  properties: { ids: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 200 } } },
};
const rolesSchema = {
  type: 'object',
  required: ['user_id'],
  properties: {
    user_id: { type: 'string', minLength: 1, maxLength: 64 },
    community_ids: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 64 } },
  },
};
const validateSchema = {
  type: 'object',
  required: ['schema_id', 'community_extension'],
  properties: { schema_id: { type: 'string', minLength: 1, maxLength: 64 } },
};

/** Dependencies of the RPC endpoints. */
export interface CommunitiesRpcDeps {
  communities: CommunitiesService;
  members: MembersService;
  extensions: ExtensionsService;
  logger: MsgLogger;
}

/** Start the four endpoints. */
export function serveCommunitiesRpc(nc: NatsHandle['nc'], deps: CommunitiesRpcDeps): RpcServer[] {
  const opts = { queue: 'communities', logger: deps.logger };
  return [
    serveRpc<{ ids: string[] }>(
      nc,
      RPC_SUBJECTS.communities.get,
      async (req) => ({ communities: await deps.communities.summaries(req.ids) }),
      {
        ...opts,
        validate: getSchema,
      },
    ),
    serveRpc<{ user_id: string; community_ids?: string[] }>(
      nc,
      RPC_SUBJECTS.communities.roles,
      async (req) => ({
        roles: await deps.members.roles(
          req.user_id,
          req.community_ids?.filter(isUuid).map((s) => s.toLowerCase()),
        ),
      }),
      { ...opts, validate: rolesSchema },
    ),
    serveRpc<{ community_ids: string[] }>(
      nc,
      RPC_SUBJECTS.communities.owners,
      async (req) => ({ owners: await deps.members.owners(req.community_ids.filter(isUuid).map((s) => s.toLowerCase())) }),
      {
        ...opts,
        validate: {
          type: 'object',
          required: ['community_ids'],
          properties: { community_ids: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 64 } } },
        },
      },
    ),
    serveRpc<{ schema_id: string; community_extension: unknown }>(
      nc,
      RPC_SUBJECTS.communities.validateExtension,
      (req) => deps.extensions.validate(req.schema_id, req.community_extension),
      { ...opts, validate: validateSchema },
    ),
  ];
}
