/**
 * One error type for every service (rendered by `errorMiddleware` and `errorAnswer` of request-steps.ts).
 *
 * Domain code throws `AppError`s made by the `Errors` catalog; it never builds HTTP responses
 * for failures. The error step (request-steps.ts) renders InvenioRDM's body
 * `{status, message, errors?: [{field, messages}]}`. Anything that is not an `AppError` is a
 * bug: it becomes a 500 with a generic message, and the stack goes to the log only.
 */

/** One field-level validation message group, as InvenioRDM renders it. */
export interface FieldError {
  field: string;
  messages: string[];
}

/** The single domain error: a stable code, an HTTP status, a message and optional field errors. */
export class AppError extends Error {
  /** Stable snake_case identifier of the failure. */
  readonly code: string;
  /** HTTP status the error renders with. */
  readonly status: number;
  /** Field errors, rendered as `errors`. */
  readonly fieldErrors?: FieldError[];
  /** Extra top-level keys merged into the body (e.g. `tombstone`, `location`). */
  readonly extra?: Record<string, unknown>;
  /** Extra response headers (e.g. `Retry-After`, `Allow`). */
  readonly headers?: Record<string, string>;

  constructor(
    code: string,
    status: number,
    message: string,
    opts: { fieldErrors?: FieldError[]; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    if (opts.fieldErrors && opts.fieldErrors.length > 0) this.fieldErrors = opts.fieldErrors;
    if (opts.extra) this.extra = opts.extra;
    if (opts.headers) this.headers = opts.headers;
  }

  /** The JSON body of this error. */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { status: this.status, message: this.message };
    if (this.fieldErrors) body.errors = this.fieldErrors;
    if (this.extra) Object.assign(body, this.extra);
    return body;
  }
}

/** True when `e` is an AppError (also across module copies). */
export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError || (typeof e === 'object' && e !== null && (e as { name?: string }).name === 'AppError');
}

/** Catalog of errors shared by all services; services add their own next to their domain. */
/** Seconds a client is asked to wait (`Retry-After`) when a dependency is unreachable. */
export const RETRY_AFTER_SECONDS = 5;

export const Errors = {
  /** 400 with field errors (marshmallow-style validation failure). */
  validation: (fieldErrors: FieldError[], message = 'A validation error occurred.') =>
    new AppError('validation_error', 400, message, { fieldErrors }),
  /** 400 with a free message. */
  badRequest: (message: string, fieldErrors?: FieldError[], code = 'bad_request') => new AppError(code, 400, message, { fieldErrors }),
  /** 400 for a body that is not JSON. */
  invalidJson: () => new AppError('invalid_json', 400, 'Unable to decode JSON data in request body.'),
  /** 400 for bad page/size and similar query parameters. */
  invalidQuerystring: (fieldErrors?: FieldError[]) =>
    new AppError('invalid_querystring', 400, 'Invalid querystring parameters.', { fieldErrors }),
  /**
   * 400 for an unparsable `q`. Pass the parser's error: a `q` over a limit (a `QueryLimitError`:
   * length, nesting, regex or wildcard terms, costly regex) says which limit, in the message
   * (`Invalid query string syntax: query is longer than 2000 characters.`) and as a field error on
   * `q`; any other syntax error keeps InvenioRDM's bare text.
   */
  invalidQuerySyntax: (cause?: unknown) => {
    const c = cause as { name?: string; message?: string } | undefined;
    if (c?.name !== 'QueryLimitError' || !c.message) return new AppError('invalid_query_syntax', 400, 'Invalid query string syntax.');
    return new AppError(
      'invalid_query_syntax',
      400,
      `Invalid query string syntax: ${c.message.charAt(0).toLowerCase()}${c.message.slice(1)}`,
      {
        fieldErrors: [{ field: 'q', messages: [c.message] }],
      },
    );
  },
  /** 403, for anonymous and authenticated callers alike (InvenioRDM never sends 401). */
  permissionDenied: (message = 'Permission denied.') => new AppError('permission_denied', 403, message),
  /** 404 for an unknown persistent identifier. */
  pidDoesNotExist: () => new AppError('pid_does_not_exist', 404, 'The persistent identifier does not exist.'),
  /** 404 for an id that exists but is not registered (an unpublished draft read as a record). */
  pidNotRegistered: () => new AppError('pid_not_registered', 404, 'The persistent identifier is not registered.'),
  /** Generic 404. */
  notFound: (message = 'Not found.', code = 'not_found') => new AppError(code, 404, message),
  /** 404 for a route that does not exist. */
  routeNotFound: () =>
    new AppError(
      'route_not_found',
      404,
      'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.',
    ),
  /** 405 for a known path with the wrong method. */
  methodNotAllowed: (allow: string[]) =>
    new AppError('method_not_allowed', 405, 'The method is not allowed for the requested URL.', {
      headers: { Allow: allow.join(', ') },
    }),
  /** 406 for an unsupported Accept header. */
  notAcceptable: (expected: string[]) =>
    new AppError('not_acceptable', 406, `Invalid 'Accept' header. Expected one of: ${expected.join(', ')}`),
  /** 409 for a state conflict. */
  conflict: (message: string) => new AppError('conflict', 409, message),
  /** 410 for a deleted resource. */
  gone: (message = 'The record has been deleted.', extra?: Record<string, unknown>) => new AppError('gone', 410, message, { extra }),
  /** 412 for an If-Match mismatch. */
  revisionMismatch: (given: number, actual: number) =>
    new AppError('revision_mismatch', 412, `Revision id provided(${given}) doesn't match record's one(${actual})`),
  /** 413 for a body over the limit. */
  payloadTooLarge: (message = 'Request entity too large.') => new AppError('payload_too_large', 413, message),
  /** 415 for an unsupported Content-Type. */
  unsupportedMediaType: (expected: string[]) =>
    new AppError('unsupported_media_type', 415, `Invalid 'Content-Type' header. Expected one of: ${expected.join(', ')}`),
  /** 429 with rate-limit headers. */
  tooManyRequests: (headers: Record<string, string>) =>
    new AppError('rate_limited', 429, 'Too many requests. Please slow down.', { headers }),
  /** 503 when a dependency cannot be reached in time; always with `Retry-After` (clients and ingresses back off by it). */
  serviceUnavailable: (message = 'Service unavailable.', retryAfterSeconds = RETRY_AFTER_SECONDS) =>
    new AppError('service_unavailable', 503, message, { headers: { 'Retry-After': String(retryAfterSeconds) } }),
  /** 500 for a bug; the message is never shown to clients. */
  internal: (message = 'Internal error.') => new AppError('internal_error', 500, message),
} as const;

/** Generic body text of an unexpected failure. */
export const INTERNAL_MESSAGE = 'Internal server error.';

/** Socket error codes of a dependency that cannot be reached (refused, reset, unroutable, timed out). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** SQLSTATEs meaning "the database is not answering now", not "this statement is wrong". */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '53400']);

/**
 * node-postgres / knex failures that carry no code; knex prefixes the statement it ran
 * (`ROLLBACK - Client has encountered a connection error…`), hence the optional `<sql> - `.
 */
const CONNECTION_MESSAGES =
  /(^|\s-\s)(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Knex: Timeout acquiring a connection|Unable to acquire a connection)/i;

/**
 * True when `err` (or its `cause`, or one of an AggregateError's `errors`) says a dependency —
 * above all PostgreSQL — cannot be reached: a refused/reset/timed-out socket, SQLSTATE class 08
 * (connection exception), 57P01–57P03 (shutdown, cannot connect now), 53300 (too many
 * connections), a knex pool acquire timeout, a connection terminated mid-query. Such failures are
 * transient and the caller's fault is nil: HTTP answers 503 with `Retry-After`, consumers retry
 * without counting the delivery (consumer.ts). Anything else (a constraint, a bad statement) is not.
 */
export function isConnectionError(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') {
    if (CONNECTION_CODES.has(e.code) || UNAVAILABLE_SQLSTATES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code)) return true;
  }
  if (e.name === 'KnexTimeoutError') return true;
  if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isConnectionError(x, depth + 1))) return true;
  return e.cause !== undefined && e.cause !== err && isConnectionError(e.cause, depth + 1);
}

/** Convert any thrown value to an AppError (5xx for anything unknown). Koa/http-errors with
 * `expose` (bad JSON, too large bodies) keep their status. An unreachable database is 503
 * `Service unavailable.` with `Retry-After`; PostgreSQL's "program limit exceeded" (54000: a
 * value too large to store or index) is 413. */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (isConnectionError(err)) {
    return Errors.serviceUnavailable();
  }
  if ((err as { code?: unknown } | null)?.code === '54000') {
    return Errors.payloadTooLarge('The request is too large to be stored or indexed.');
  }
  const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string; type?: string };
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (e.type === 'entity.parse.failed') return Errors.invalidJson();
    if (status === 413) return Errors.payloadTooLarge();
    return new AppError('http_error', status, e.expose && e.message ? e.message : 'Bad request.');
  }
  return new AppError('internal_error', 500, INTERNAL_MESSAGE);
}

/**
 * InvenioRDM's (marshmallow's) message for a value of the wrong JSON type, by the JSON Schema type
 * expected: what every service's body validation answers on the field (records' metadata,
 * communities' custom fields).
 */
export const TYPE_MESSAGES: Readonly<Record<string, string>> = Object.freeze({
  string: 'Not a valid string.',
  array: 'Not a valid list.',
  boolean: 'Not a valid boolean.',
  integer: 'Not a valid integer.',
  number: 'Not a valid number.',
  object: 'Invalid input type.',
});
