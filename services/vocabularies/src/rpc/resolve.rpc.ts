/**
 * RPC `rdm.vocabularies.rpc.resolve` (queue group `vocabularies`): other services validate
 * record metadata with it. Request `{items:[{type,id}]}` → `{items:[{type,id,found,entry?}]}`,
 * answered from the entry cache and ONE SQL query for all misses (see `VocabulariesService.resolve`).
 */
import { type MsgLogger, type NatsHandle, type RpcServer, serveContract } from '@rdm/platform';
import { RPC_SUBJECTS, type VocabulariesResolveReply, type VocabulariesResolveRequest } from '@rdm/contracts';
import type { VocabulariesService } from '../domain/vocabularies.service.js';

/** Subject of the resolve RPC. */
export const RESOLVE_SUBJECT = RPC_SUBJECTS.vocabularies.resolve;

/** Serve the resolve RPC until `stop()`. */
export function serveResolveRpc(nc: NatsHandle['nc'], service: VocabulariesService, logger: MsgLogger): RpcServer {
  // Why the cast: an entry's title/props/tags are JSON columns, typed unknown by the service; they hold what the contract says.
  const resolve = async (req: VocabulariesResolveRequest) =>
    (await service.resolve(req.items.map((i) => ({ type: i.type, id: i.id })))) as VocabulariesResolveReply;
  return serveContract(nc, RESOLVE_SUBJECT, resolve, {
    queue: 'vocabularies',
    logger,
  });
}
