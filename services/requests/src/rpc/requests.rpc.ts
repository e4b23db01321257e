/**
 * The requests RPC endpoints (proto/README): `rdm.requests.rpc.create|get|action|comment|delete|count-open`,
 * queue group `requests`. Each applies the same rules and answers the same shapes as HTTP,
 * with the caller's `identity` as the calling service forwarded it.
 */
import { Errors, type Identity, type MsgLogger, type NatsHandle, type RpcServer, serveRpc } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/platform/contracts';
import type { ActionsService } from '../domain/actions.service.js';
import type { CommentsService } from '../domain/comments.service.js';
import { parseRef } from '../domain/model.js';
import { countOpen } from '../repo/requests.repo.js';
import type { CreateInput, RequestsService } from '../domain/requests.service.js';

const identitySchema = {
  type: 'object',
  required: ['sub', 'roles'],
  properties: { sub: { type: ['string', 'null'] }, roles: { type: 'array', items: { type: 'string' } } },
};
const withId = (extra: Record<string, unknown> = {}, required: string[] = []) => ({
  type: 'object',
  required: ['id', 'identity', ...required],
  properties: { id: { type: 'string' }, identity: identitySchema, ...extra },
});

const asIdentity = (i: { sub: string | null; roles: string[] }): Identity => ({ sub: i.sub, roles: i.roles });

/** Serve the requests RPCs on `nc`. */
export function serveRequestsRpc(
  nc: NatsHandle['nc'],
  deps: { requests: RequestsService; actions: ActionsService; comments: CommentsService; logger: MsgLogger },
): RpcServer[] {
  const opts = { queue: 'requests', logger: deps.logger };
  return [
    serveRpc<CreateInput & { identity: Identity }, unknown>(
      nc,
      RPC_SUBJECTS.requests.create,
      async (req) => ({ request: await deps.requests.create(asIdentity(req.identity), req) }),
      {
        ...opts,
        validate: { type: 'object', required: ['identity', 'type', 'created_by', 'receiver'], properties: { identity: identitySchema } },
      },
    ),
    serveRpc<{ id: string; identity: Identity }, unknown>(
      nc,
      RPC_SUBJECTS.requests.get,
      async (req) => ({ request: await deps.requests.read(asIdentity(req.identity), req.id) }),
      { ...opts, validate: withId() },
    ),
    serveRpc<
      { id: string; identity: Identity; action: string; payload?: unknown; data?: { require_review?: boolean; title?: string } },
      unknown
    >(
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
      {
        ...opts,
        validate: withId(
          {
            action: { type: 'string' },
            data: {
              type: 'object',
              properties: { require_review: { type: 'boolean' }, title: { type: 'string' } },
            },
          },
          ['action'],
        ),
      },
    ),
    // A comment another service adds to a request (e.g. communities, when the role of a pending
    // invitation changes); same checks and shape as `POST /api/requests/<id>/comments`.
    serveRpc<{ id: string; identity: Identity; payload: unknown }, unknown>(
      nc,
      RPC_SUBJECTS.requests.comment,
      async (req) => ({ comment: await deps.comments.create(asIdentity(req.identity), req.id, { payload: req.payload }) }),
      { ...opts, validate: withId({ payload: { type: 'object' } }, ['payload']) },
    ),
    serveRpc<{ id: string; identity: Identity }, unknown>(
      nc,
      RPC_SUBJECTS.requests.delete,
      async (req) => {
        await deps.requests.delete(asIdentity(req.identity), req.id);
        return { deleted: true };
      },
      { ...opts, validate: withId() },
    ),
    serveRpc<{ receiver: unknown }, unknown>(
      nc,
      RPC_SUBJECTS.requests.countOpen,
      async (req) => {
        const ref = parseRef(req.receiver);
        if (!ref) throw Errors.validation([{ field: 'receiver', messages: ['Invalid reference.'] }]);
        return { count: await countOpen(deps.requests.deps.db, ref) };
      },
      { ...opts, validate: { type: 'object', required: ['receiver'] } },
    ),
  ];
}
