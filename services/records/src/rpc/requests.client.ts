/**
 * Client of the requests service's RPCs (proto/README.md): create, get, action, delete.
 * `RpcRequestsClient` implements the domain's `RequestsPort` over NATS; an error reply comes
 * back as the same AppError (status, message, field errors), no answer as 503.
 */
import { injectTraceHeaders, type NatsHandle, callContract } from '@rdm/platform';
import { RPC_SUBJECTS, type RpcContract, type RpcSubject } from '@rdm/contracts';
import type { CreateRequestInput, RequestActionInput, RequestsPort, RequestView, RpcIdentity } from '../domain/ports.js';

/** RPC subjects of the requests service. */
export const REQUESTS_SUBJECTS = {
  create: RPC_SUBJECTS.requests.create,
  get: RPC_SUBJECTS.requests.get,
  action: RPC_SUBJECTS.requests.action,
  delete: RPC_SUBJECTS.requests.delete,
} as const;

/** RequestsPort over NATS request-reply. */
export class RpcRequestsClient implements RequestsPort {
  /**
   * @param timeoutMs timeout of create/get/delete.
   * @param actionTimeoutMs timeout of `action`, which may wait (bounded) for the publication: keep
   *   it above the requests service's `REQUEST_EFFECT_WAIT_MS`.
   */
  constructor(
    private readonly nc: NatsHandle['nc'],
    private readonly timeoutMs: number,
    private readonly actionTimeoutMs: number,
  ) {}

  private call<S extends RpcSubject>(subject: S, payload: RpcContract[S]['request'], timeoutMs = this.timeoutMs) {
    return callContract(this.nc, subject, payload, { timeoutMs, headers: injectTraceHeaders() });
  }

  // Why the casts: the contract types a request as an open object; RequestView names the fields
  // records reads of it (the API shape of services/requests).
  async create(input: CreateRequestInput): Promise<RequestView> {
    return (await this.call(REQUESTS_SUBJECTS.create, input)).request as RequestView;
  }

  async get(id: string, identity: RpcIdentity): Promise<RequestView> {
    return (await this.call(REQUESTS_SUBJECTS.get, { id, identity })).request as RequestView;
  }

  async action(input: RequestActionInput): Promise<RequestView> {
    return (await this.call(REQUESTS_SUBJECTS.action, input, this.actionTimeoutMs)).request as RequestView;
  }

  async delete(id: string, identity: RpcIdentity): Promise<void> {
    await this.call(REQUESTS_SUBJECTS.delete, { id, identity });
  }
}
