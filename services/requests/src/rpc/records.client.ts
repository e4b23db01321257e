/**
 * The `RecordsPort` over NATS RPC (`rdm.records.rpc.authorize-record`): the records service
 * decides whether a caller may read a record (the topic of `GET /api/records/<id>/requests`).
 * An error reply comes back as the same AppError (404/403/410), no answer as 503. No cache: a
 * record's permissions change with its access settings, grants and links.
 */
import { callContract, type Identity, injectTraceHeaders, type NatsHandle } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { RecordsPort } from '../domain/ports.js';

/** NATS implementation of the records port. */
export class NatsRecordsClient implements RecordsPort {
  constructor(
    private readonly nc: NatsHandle['nc'],
    private readonly o: { timeoutMs: number },
  ) {}

  async authorizeRecord(recordId: string, identity: Identity): Promise<{ record_id: string; parent_id: string }> {
    return callContract(
      this.nc,
      RPC_SUBJECTS.records.authorizeRecord,
      { record_id: recordId, identity: { sub: identity.sub, roles: [...identity.roles] } },
      { timeoutMs: this.o.timeoutMs, headers: injectTraceHeaders() },
    );
  }
}
