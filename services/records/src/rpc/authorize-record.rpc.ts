/**
 * RPC `rdm.records.rpc.authorize-record` (queue group `records`): another service (requests, for
 * `GET /api/records/<id>/requests`) asks whether the identity may read a published record, and
 * learns its parent. Errors are exactly the HTTP read's (404/403/410), so callers pass them
 * through unchanged.
 */
import { type MsgLogger, type NatsHandle, type RpcServer, serveContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { RecordsService } from '../domain/records.service.js';

/** Serve the authorize-record RPC until `stop()`. */
export function serveAuthorizeRecordRpc(nc: NatsHandle['nc'], service: RecordsService, logger: MsgLogger): RpcServer {
  return serveContract(nc, RPC_SUBJECTS.records.authorizeRecord, (req) => service.authorizeRecord(req), { queue: 'records', logger });
}
