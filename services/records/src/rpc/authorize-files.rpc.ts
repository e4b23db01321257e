/**
 * RPC `rdm.records.rpc.authorize-files` (queue group `records`): the files service asks, for
 * every files request, whether the identity may read/update the draft's or record's files and
 * which bucket holds them. Errors are exactly the HTTP route's (404/403/410), so files can pass
 * them through unchanged.
 */
import { type MsgLogger, type NatsHandle, type RpcServer, serveContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { RecordsService } from '../domain/records.service.js';

/** Subject of the authorize-files RPC. */
export const AUTHORIZE_FILES_SUBJECT = RPC_SUBJECTS.records.authorizeFiles;

/** Serve the authorize-files RPC until `stop()`. */
export function serveAuthorizeFilesRpc(nc: NatsHandle['nc'], service: RecordsService, logger: MsgLogger): RpcServer {
  return serveContract(nc, AUTHORIZE_FILES_SUBJECT, (req) => service.authorizeFiles(req), { queue: 'records', logger });
}
