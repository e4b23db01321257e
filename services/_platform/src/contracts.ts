/**
 * The contracts between services, generated from proto/ (`pnpm gen:contracts`): event data types
 * (`EventData` by subject), RPC request/reply types (`RpcContract`, `RPC_SUBJECTS`) and the
 * service registry (`SERVICE_REGISTRY`, `DEFAULT_PORTS`).
 *
 * When to use: every producer and consumer of an event or RPC imports its types and subjects
 * from `@rdm/platform/contracts` instead of declaring its own copy. Not part of the main barrel:
 * contracts are not infrastructure, and this keeps their names out of the platform's namespace.
 */
import type { RpcContract, RpcSubject } from '../../../proto/gen/index.js';
import { type CallRpcOptions, callRpc } from './nats.js';

export * from '../../../proto/gen/index.js';

/**
 * `callRpc` checked against the generated contract of `subject`: the payload must be the RPC's
 * request type and the answer is typed as its reply. Use it in every RPC client, so a change of
 * proto/rpc/ breaks the build of the callers instead of their runtime.
 */
export function callContract<S extends RpcSubject>(
  nc: Parameters<typeof callRpc>[0],
  subject: S,
  payload: RpcContract[S]['request'],
  opts?: CallRpcOptions,
): Promise<RpcContract[S]['reply']> {
  return callRpc<RpcContract[S]['reply']>(nc, subject, payload, opts);
}
