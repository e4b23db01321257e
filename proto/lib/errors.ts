/**
 * The one error the contracts package throws: a payload that does not match its contract.
 *
 * When to use: thrown by `checkEvent` and `checkRpcRequest`; the platform turns it into its
 * `AppError` (an invalid event is a bug: 500; an invalid RPC request is the caller's: 400 with
 * the field errors). Nothing here knows about HTTP or NATS.
 */

/** One field and what is wrong with it (the shape of the API's `errors` entries). */
export interface ContractFieldError {
  field: string;
  messages: string[];
}

/** A payload that does not match its contract. */
export class ContractError extends Error {
  /** `invalid_event` (an event built by this service) or `invalid_rpc_request` (a request received). */
  readonly code: 'invalid_event' | 'invalid_rpc_request';
  /** Field errors of an invalid RPC request. */
  readonly fieldErrors?: ContractFieldError[];

  constructor(code: ContractError['code'], message: string, fieldErrors?: ContractFieldError[]) {
    super(message);
    this.name = 'ContractError';
    this.code = code;
    if (fieldErrors) this.fieldErrors = fieldErrors;
  }
}

/** True for a `ContractError` (also across duplicated module copies). */
export function isContractError(err: unknown): err is ContractError {
  return err instanceof ContractError || (err as { name?: unknown } | null)?.name === 'ContractError';
}
