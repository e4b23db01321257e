/**
 * The requests RPC endpoints (proto/README): `rdm.requests.rpc.create|get|action|comment|delete|count-open`,
 * queue group `requests`. Each applies the same rules and answers the same shapes as HTTP,
 * with the caller's `identity` as the calling service forwarded it.
 */
import { Errors, type Identity, type MsgLogger, type NatsHandle, type RpcServer, serveContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { ActionsService } from '../domain/actions.service.js';
import type { CommentsService } from '../domain/comments.service.js';
import { parseRef } from '../domain/model.js';
import { countOpen } from '../repo/requests.repo.js';
import type { CreateInput, RequestsService } from '../domain/requests.service.js';

const asIdentity = (i: { sub: string | null; roles: string[] }): Identity => ({ sub: i.sub, roles: i.roles });

/** Serve the requests RPCs on `nc`. */
export function serveRequestsRpc(
  nc: NatsHandle['nc'],
  deps: { requests: RequestsService; actions: ActionsService; comments: CommentsService; logger: MsgLogger },
): RpcServer[] {
  const opts = { queue: 'requests', logger: deps.logger };
  return [
    serveContract(
      nc,
      RPC_SUBJECTS.requests.create,
      async (req) => ({ request: await deps.requests.create(asIdentity(req.identity), req as CreateInput) }),
      opts,
    ),
    serveContract(
      nc,
      RPC_SUBJECTS.requests.get,
      async (req) => ({ request: await deps.requests.read(asIdentity(req.identity), req.id) }),
      opts,
    ),
    serveContract(
      nc,
      RPC_SUBJECTS.requests.action,
      async (req) => ({
        request: await deps.actions.run(
          asIdentity(req.identity),
          req.id,
          req.action,
          req.payload !== undefined && req.payload !== null ? { payload: req.payload } : undefined,
          req.data ?? {},
        ),
      }),
      opts,
    ),
    // A comment another service adds to a request (e.g. communities, when the role of a pending
    // invitation changes); same checks and shape as `POST /api/requests/<id>/comments`.
    serveContract(
      nc,
      RPC_SUBJECTS.requests.comment,
      async (req) => ({ comment: await deps.comments.create(asIdentity(req.identity), req.id, { payload: req.payload }) }),
      opts,
    ),
    serveContract(
      nc,
      RPC_SUBJECTS.requests.delete,
      async (req) => {
        await deps.requests.delete(asIdentity(req.identity), req.id);
        return { deleted: true as const };
      },
      opts,
    ),
    serveContract(
      nc,
      RPC_SUBJECTS.requests.countOpen,
      async (req) => {
        const ref = parseRef(req.receiver);
        if (!ref) throw Errors.validation([{ field: 'receiver', messages: ['Invalid reference.'] }]);
        return { count: await countOpen(deps.requests.deps.db, ref) };
      },
      opts,
    ),
  ];
}
