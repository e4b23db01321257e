/**
 * RPC over NATS typed by the contracts of `@rdm/contracts` (proto/rpc): `callContract` on the
 * calling side, `serveContract` on the serving side.
 *
 * When to use: every RPC client calls `callContract` and every RPC server `serveContract`, so a
 * change of proto/rpc/ breaks the build of both sides instead of their runtime. The server checks
 * each request against the proto schema itself (`rpcRequestChecker`: 400 `validation_error` with
 * the field errors on mismatch); no service declares its own copy of a request schema.
 * `serveRpc`/`callRpc` stay for the platform's own tests and tools with private subjects.
 */
import { isContractError, type RpcContract, rpcRequestChecker, type RpcSubject } from '@rdm/contracts';
import { Errors } from './errors.js';
import { type CallRpcOptions, callRpc, type RpcContext, type RpcServer, serveRpc, type ServeRpcOptions } from './nats.js';

/** Request type of the RPC `S`. */
export type RpcRequestOf<S extends RpcSubject> = RpcContract[S]['request'];
/** Reply data type of the RPC `S`. */
export type RpcReplyOf<S extends RpcSubject> = RpcContract[S]['reply'];

/**
 * `callRpc` checked against the generated contract of `subject`: the payload must be the RPC's
 * request type and the answer is typed as its reply. Use it in every RPC client.
 */
export function callContract<S extends RpcSubject>(
  nc: Parameters<typeof callRpc>[0],
  subject: S,
  payload: RpcRequestOf<S>,
  opts?: CallRpcOptions,
): Promise<RpcReplyOf<S>> {
  return callRpc<RpcReplyOf<S>>(nc, subject, payload, opts);
}

/** Options of serveContract. */
export interface ServeContractOptions extends Omit<ServeRpcOptions<unknown>, 'validate'> {
  /** Serve the contract on this subject instead (tests on a shared NATS use private ones). */
  subject?: string;
}

/**
 * Serve the RPC `subject` with `handler`, typed by its contract: every request is checked against
 * the proto schema of `subject` first (400 with the field errors when it does not match), and the
 * handler must answer the contract's reply type.
 */
export function serveContract<S extends RpcSubject>(
  nc: Parameters<typeof serveRpc>[0],
  subject: S,
  handler: (req: RpcRequestOf<S>, ctx: RpcContext) => Promise<RpcReplyOf<S>>,
  opts: ServeContractOptions,
): RpcServer {
  const check = rpcRequestChecker(subject);
  const validate = (payload: unknown): RpcRequestOf<S> => {
    try {
      return check(payload);
    } catch (err) {
      if (isContractError(err)) throw Errors.validation(err.fieldErrors ?? []);
      throw err;
    }
  };
  return serveRpc<RpcRequestOf<S>, RpcReplyOf<S>>(nc, opts.subject ?? subject, handler, {
    queue: opts.queue,
    logger: opts.logger,
    validate,
  });
}
