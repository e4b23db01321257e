/**
 * RPC `rdm.vocabularies.rpc.resolve` (queue group `vocabularies`): other services validate
 * record metadata with it. Request `{items:[{type,id}]}` → `{items:[{type,id,found,entry?}]}`,
 * answered from the entry cache and ONE SQL query for all misses (see `VocabulariesService.resolve`).
 */
import { type MsgLogger, type NatsHandle, type RpcServer, serveRpc } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/platform/contracts';
import { MAX_RESOLVE_ITEMS, type ResolveItem, type VocabulariesService } from '../domain/vocabularies.service.js';

/** Subject of the resolve RPC. */
export const RESOLVE_SUBJECT = RPC_SUBJECTS.vocabularies.resolve;

/** JSON Schema of the request. */
export const resolveRequestSchema = {
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      maxItems: MAX_RESOLVE_ITEMS,
      items: {
        type: 'object',
        required: ['type', 'id'],
        properties: { type: { type: 'string', minLength: 1, maxLength: 200 }, id: { type: 'string', minLength: 1, maxLength: 1000 } },
      },
    },
  },
} as const;

/** Serve the resolve RPC until `stop()`. */
export function serveResolveRpc(nc: NatsHandle['nc'], service: VocabulariesService, logger: MsgLogger): RpcServer {
  return serveRpc<{ items: ResolveItem[] }>(
    nc,
    RESOLVE_SUBJECT,
    async (req) => service.resolve(req.items.map((i) => ({ type: i.type, id: i.id }))),
    { queue: 'vocabularies', logger, validate: resolveRequestSchema as unknown as Record<string, unknown> },
  );
}
