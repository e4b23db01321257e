/**
 * RPC `rdm.records.rpc.import-record` (queue group `records`): the administrator-only import of a
 * record family with its ids, dates and PIDs (services/migration, issue 26; import/import.service.ts).
 * Internal: the gateway routes nothing to it; only a process holding the NATS credentials calls it.
 */
import { type MsgLogger, type NatsHandle, type RpcServer, serveContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { RecordImportService } from '../import/import.service.js';

/** Serve the import-record RPC until `stop()`. */
export function serveImportRecordRpc(nc: NatsHandle['nc'], imports: RecordImportService, logger: MsgLogger): RpcServer {
  return serveContract(nc, RPC_SUBJECTS.records.importRecord, (req) => imports.importRecord(req), { queue: 'records', logger });
}
