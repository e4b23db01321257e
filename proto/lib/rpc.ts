/**
 * RPC contracts at run time: the request of every RPC is checked against the `request` schema of
 * `proto/rpc/<svc>/<name>.json` (generated into `gen/rpc-schemas.ts`) by the server, before its
 * handler sees it.
 *
 * When to use: the platform's `serveContract` calls `rpcRequestChecker(subject)` once per
 * endpoint; nothing else needs it. There is no other copy of a request schema: a server never
 * declares its own. `fieldErrorsOf` turns ajv errors into the API's `{field, messages}` entries
 * (also for the platform's ad-hoc `serveRpc` validators).
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { RPC_REQUEST_SCHEMAS } from '../gen/rpc-schemas.js';
import type { RpcContract, RpcSubject } from '../gen/rpc.js';
import { ContractError, type ContractFieldError } from './errors.js';

type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats)) as AddFormats;

let ajv: Ajv2020 | undefined;

/** The ajv instance of RPC requests (draft 2020-12, formats, every error). */
export function rpcAjv(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
  }
  return ajv;
}

/** ajv errors as `{field, messages}` entries: `a.b` paths, `_schema` for the root. */
export function fieldErrorsOf(errors: ErrorObject[] | null | undefined): ContractFieldError[] {
  const byField = new Map<string, string[]>();
  for (const e of errors ?? []) {
    const path = e.instancePath.split('/').filter(Boolean);
    if (e.keyword === 'required') path.push(String((e.params as { missingProperty: string }).missingProperty));
    if (e.keyword === 'additionalProperties') path.push(String((e.params as { additionalProperty: string }).additionalProperty));
    const field = path.join('.') || '_schema';
    const msg =
      e.keyword === 'required'
        ? 'Missing data for required field.'
        : e.keyword === 'additionalProperties'
          ? 'Unknown field.'
          : (e.message ?? 'Invalid value.');
    byField.set(field, [...(byField.get(field) ?? []), msg]);
  }
  return [...byField].map(([field, messages]) => ({ field, messages }));
}

/** The request schema of `subject` (a copy of `RPC_REQUEST_SCHEMAS[subject]`). */
export function rpcRequestSchema(subject: RpcSubject): Record<string, unknown> {
  const schema = RPC_REQUEST_SCHEMAS[subject];
  if (!schema) throw new Error(`No RPC contract for ${subject} under proto/rpc.`);
  return structuredClone(schema) as Record<string, unknown>;
}

/**
 * A function checking a request of `subject` against its proto schema: returns it typed as the
 * contract's request, or throws a `ContractError` (`invalid_rpc_request`) with the field errors.
 */
export function rpcRequestChecker<S extends RpcSubject>(subject: S): (payload: unknown) => RpcContract[S]['request'] {
  const validate = rpcAjv().compile(rpcRequestSchema(subject));
  return (payload) => {
    if (validate(payload)) return payload as RpcContract[S]['request'];
    throw new ContractError('invalid_rpc_request', `Invalid request of ${subject}.`, fieldErrorsOf(validate.errors));
  };
}
