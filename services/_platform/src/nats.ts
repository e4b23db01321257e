/**
 * NATS connection and request-reply RPC between services.
 *
 * When to use: `connectNats` once per process (it reconnects forever; JetStream clients come
 * with it). RPC only for questions that need an answer now (verify a token, resolve vocabulary
 * ids); anything that merely reports a change is an event (outbox.ts). Services serve and call
 * RPCs through `serveContract`/`callContract` (contracts.ts), typed and checked by proto/rpc;
 * `serveRpc`/`callRpc` are their untyped base (tests and tools with private subjects).
 *
 * Wire format: request = JSON; reply = `{ok:true, data}` or
 * `{ok:false, error:{code, status, message, errors?}}`. A handler throwing an `AppError` replies
 * with that error, so the caller re-throws the same status (404/403/410 cross services intact);
 * any other throw is a bug: logged, replied as a generic 500. A timeout or no responder becomes
 * `RpcError` (503 `Service unavailable.`). Headers (e.g. W3C `traceparent`) travel as NATS
 * headers and reach the handler as a plain record.
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { fieldErrorsOf, rpcAjv } from '@rdm/contracts';
import { AppError, Errors, type FieldError, isAppError, RETRY_AFTER_SECONDS, toAppError } from './errors.js';
import type { Logger } from './logger.js';

/** Minimal logger shape used by the messaging modules (pino fits). */
export type MsgLogger = Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;

/** A connected NATS client with its JetStream client and manager. */
export interface NatsHandle {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

/** Options of connectNats. */
export interface ConnectNatsOptions {
  /** `nats://host:port` (comma-separated for several servers). */
  url: string;
  /** Connection name shown by the server (the service name). */
  name: string;
  logger?: MsgLogger;
  /** Wait for the server when it is down at start-up instead of failing (default false). */
  waitOnFirstConnect?: boolean;
  /** Time between reconnect attempts (default 1000 ms). */
  reconnectTimeWaitMs?: number;
}

/** Connect to NATS, reconnecting forever, and create the JetStream client and manager. */
export async function connectNats(opts: ConnectNatsOptions): Promise<NatsHandle> {
  const nc = await connect({
    servers: opts.url.split(',').map((s) => s.trim()),
    name: opts.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: opts.reconnectTimeWaitMs ?? 1000,
    waitOnFirstConnect: opts.waitOnFirstConnect ?? false,
    // Why: with async traces on, every request() builds two Error objects (a stack capture each)
    // just in case it times out; RpcError already names the subject, and services make several
    // requests per HTTP request.
    noAsyncTraces: true,
  });
  const log = opts.logger;
  if (log) {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'error')
          log.warn({ nats: s.type, server: 'server' in s ? s.server : undefined }, 'nats connection problem');
        else if (s.type === 'reconnect') log.info({ nats: s.type }, 'nats reconnected');
        else if (s.type === 'reconnecting') log.debug({ nats: s.type }, 'nats reconnecting');
      }
    })().catch(() => undefined);
  }
  // Track disconnections from the start, for natsHealthCheck.
  connectionTracker(nc);
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  return { nc, js, jsm };
}

/** Convert a plain header record into NATS headers (undefined when empty). */
export function toNatsHeaders(h?: Record<string, string | undefined>): MsgHdrs | undefined {
  if (!h) return undefined;
  const entries = Object.entries(h).filter((e): e is [string, string] => typeof e[1] === 'string');
  if (entries.length === 0) return undefined;
  const out = natsHeaders();
  for (const [k, v] of entries) out.set(k, v);
  return out;
}

/** Convert NATS headers into a plain record (first value of each key). */
export function fromNatsHeaders(h?: MsgHdrs): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  for (const k of h.keys()) out[k] = h.get(k);
  return out;
}

/** Context given to an RPC handler. */
export interface RpcContext {
  /** Request headers (trace context and the like). */
  headers: Record<string, string>;
  /** The subject the request arrived on. */
  subject: string;
}

/** Validator of an RPC request: a JSON Schema (400 `validation_error` on mismatch) or a function that returns the typed request or throws an AppError. */
export type RpcValidator<Req> = Record<string, unknown> | ((payload: unknown) => Req);

/** Options of serveRpc. */
export interface ServeRpcOptions<Req> {
  /** Queue group, normally the service name, so replicas share requests. */
  queue: string;
  logger: MsgLogger;
  validate?: RpcValidator<Req>;
}

/** A running RPC endpoint. */
export interface RpcServer {
  subject: string;
  /** Resolves once the NATS server has the subscription (a flush round trip): from then on callers find a responder. */
  ready: Promise<void>;
  /** Stop receiving requests and wait for in-flight handlers. */
  stop(): Promise<void>;
}

function compileValidator<Req>(validate: RpcValidator<Req> | undefined): (payload: unknown) => Req {
  if (!validate) return (p) => p as Req;
  if (typeof validate === 'function') return validate;
  const fn = rpcAjv().compile(validate);
  return (payload) => {
    if (fn(payload)) return payload as Req;
    throw Errors.validation(fieldErrorsOf(fn.errors));
  };
}

const enc = new TextEncoder();

function errorReply(err: AppError): Uint8Array {
  const error: Record<string, unknown> = { code: err.code, status: err.status, message: err.message };
  if (err.fieldErrors) error.errors = err.fieldErrors;
  return enc.encode(JSON.stringify({ ok: false, error }));
}

/**
 * Serve `subject` in queue group `queue`: each request is parsed, validated, handed to
 * `handler`, and answered with `{ok, data|error}`. Requests are handled concurrently.
 */
export function serveRpc<Req = unknown, Res = unknown>(
  nc: NatsConnection,
  subject: string,
  handler: (req: Req, ctx: RpcContext) => Promise<Res>,
  opts: ServeRpcOptions<Req>,
): RpcServer {
  const validate = compileValidator(opts.validate);
  const inflight = new Set<Promise<void>>();

  const handle = async (msg: Msg): Promise<void> => {
    let reply: Uint8Array;
    try {
      let payload: unknown;
      try {
        payload = msg.data.length === 0 ? null : JSON.parse(new TextDecoder().decode(msg.data));
      } catch {
        throw Errors.invalidJson();
      }
      const req = validate(payload);
      const data = await handler(req, { headers: fromNatsHeaders(msg.headers), subject: msg.subject });
      reply = enc.encode(JSON.stringify({ ok: true, data: data === undefined ? null : data }));
    } catch (err) {
      if (isAppError(err)) {
        if (err.status >= 500) opts.logger.error({ err, subject }, 'rpc handler failed');
        reply = errorReply(err);
      } else {
        // Why toAppError: a lost database connection is an outage (503, the caller may retry), not
        // a bug; anything else unknown is a bug whose text may leak internals, so only the log sees it.
        const appErr = toAppError(err);
        opts.logger.error({ err, subject }, appErr.status === 503 ? 'rpc handler: dependency unavailable' : 'rpc handler crashed');
        reply = errorReply(appErr);
      }
    }
    if (msg.reply) msg.respond(reply);
  };

  const sub: Subscription = nc.subscribe(subject, {
    queue: opts.queue,
    callback: (err, msg) => {
      if (err) {
        opts.logger.warn({ err, subject }, 'rpc subscription error');
        return;
      }
      const p = handle(msg).catch((e) => opts.logger.error({ err: e, subject }, 'rpc reply failed'));
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    },
  });

  // Why flush: the SUB is only buffered by the client; until the server has it, a request
  // (from another connection) finds no responder and the caller gets a 503.
  const ready = trackFlush(nc.flush());

  return {
    subject,
    ready,
    async stop() {
      if (!sub.isClosed()) await sub.drain().catch(() => undefined);
      await Promise.allSettled([...inflight]);
    },
  };
}

const pendingFlushes = new Set<Promise<void>>();

function trackFlush(p: Promise<void>): Promise<void> {
  const tracked = p.catch(() => undefined);
  pendingFlushes.add(tracked);
  void tracked.finally(() => pendingFlushes.delete(tracked));
  return p;
}

/**
 * Resolves once every RPC subscription made so far in this process reached its NATS server (or
 * failed to). `runService` awaits it before `/readyz` turns ready, so a service is never ready
 * before it is reachable over RPC.
 */
export async function rpcSubscriptionsFlushed(): Promise<void> {
  await Promise.allSettled([...pendingFlushes]);
}

/** Options of natsHealthCheck. */
export interface NatsHealthOptions {
  /** How long a disconnection may last before readiness fails (default 2000 ms): a blip is not an outage. */
  graceMs?: number;
  /** Round trip to the server while connected (default true): catches a connection that is open but dead. */
  ping?: boolean;
}

/** Longest wait for the server's answer to a readiness ping. */
const PING_TIMEOUT_MS = 1000;

const trackers = new WeakMap<NatsConnection, { disconnectedAt: number | undefined }>();

/** The connection's disconnect/reconnect tracker (one per connection, started on first use). */
function connectionTracker(nc: NatsConnection): { disconnectedAt: number | undefined } {
  let t = trackers.get(nc);
  if (t) return t;
  const tracker: { disconnectedAt: number | undefined } = { disconnectedAt: undefined };
  t = tracker;
  trackers.set(nc, tracker);
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') tracker.disconnectedAt ??= Date.now();
      else if (s.type === 'reconnect') tracker.disconnectedAt = undefined;
    }
  })().catch(() => undefined);
  return tracker;
}

/**
 * A readiness check (`health.add('nats', natsHealthCheck(nc))`) that fails while the connection
 * is closed or has been disconnected for longer than `graceMs`. Why not `nc.isClosed()`: a
 * connection that reconnects forever is never closed, only disconnected; services must say "not
 * ready" during a NATS outage and "ready" again after it without a restart. Create it right after
 * connecting: disconnections before its creation are not seen.
 */
export function natsHealthCheck(nc: NatsConnection, opts: NatsHealthOptions = {}): () => Promise<void> {
  const graceMs = opts.graceMs ?? 2000;
  const ping = opts.ping ?? true;
  const tracker = connectionTracker(nc);
  let unansweredSince: number | undefined;
  return async () => {
    if (nc.isClosed()) throw new Error('nats connection closed');
    const since = tracker.disconnectedAt;
    if (since !== undefined) {
      const ms = Date.now() - since;
      if (ms > graceMs) throw new Error(`nats disconnected for ${Math.round(ms / 1000)} s`);
      return;
    }
    if (!ping) return;
    // Why bounded: a flush started just before the client notices a disconnection waits for the
    // reconnect; then the grace period decides.
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      nc.flush().then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(resolve, PING_TIMEOUT_MS, false);
      }),
    ]).finally(() => clearTimeout(timer));
    if (answered) {
      unansweredSince = undefined;
      return;
    }
    const after = tracker.disconnectedAt;
    if (after !== undefined && Date.now() - after <= graceMs) return;
    // Why a grace for pings too: on a loaded machine the client may notice a lost server only
    // seconds later; until then an unanswered ping is the first sign, and a blip is no outage.
    unansweredSince ??= Date.now() - PING_TIMEOUT_MS;
    if (Date.now() - unansweredSince <= graceMs) return;
    throw new Error('nats ping timeout');
  };
}

/** Thrown by callRpc when no service answered (timeout, no responders, connection closed): 503 with `Retry-After`. */
export class RpcError extends AppError {
  /** The subject that was called. */
  readonly subject: string;
  constructor(subject: string, options?: { cause?: unknown }) {
    super('service_unavailable', 503, 'Service unavailable.', { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
    this.subject = subject;
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** Options of callRpc. */
export interface CallRpcOptions {
  /** Default 2000 ms. */
  timeoutMs?: number;
  /** Extra NATS headers (e.g. `traceparent`). */
  headers?: Record<string, string | undefined>;
}

/**
 * Send a JSON request and return the reply's `data`. An `{ok:false}` reply is re-thrown as an
 * `AppError` with the same code/status/message/field errors; no answer throws `RpcError`.
 */
export async function callRpc<T = unknown>(nc: NatsConnection, subject: string, payload: unknown, opts: CallRpcOptions = {}): Promise<T> {
  let msg: Msg;
  try {
    msg = await nc.request(subject, enc.encode(JSON.stringify(payload ?? null)), {
      timeout: opts.timeoutMs ?? 2000,
      headers: toNatsHeaders(opts.headers),
    });
  } catch (err) {
    throw new RpcError(subject, { cause: err });
  }
  let body: { ok?: unknown; data?: unknown; error?: { code?: unknown; status?: unknown; message?: unknown; errors?: unknown } };
  try {
    body = JSON.parse(new TextDecoder().decode(msg.data));
  } catch {
    throw new AppError('internal_error', 500, `Malformed reply from ${subject}.`);
  }
  if (body?.ok === true) return body.data as T;
  const e = body?.error;
  if (body?.ok === false && e && typeof e.status === 'number') {
    const fieldErrors = Array.isArray(e.errors) ? (e.errors as FieldError[]) : undefined;
    // A 503 passed on keeps its Retry-After, as the service that answered it would have sent it.
    const headers = e.status === 503 ? { 'Retry-After': String(RETRY_AFTER_SECONDS) } : undefined;
    throw new AppError(String(e.code ?? 'error'), e.status, String(e.message ?? ''), { fieldErrors, headers });
  }
  throw new AppError('internal_error', 500, `Malformed reply from ${subject}.`);
}

/** What every service's readiness watches: its database and, when it has one, its NATS connection. */
export interface StandardHealthDeps {
  db: { raw(sql: string): PromiseLike<unknown> };
  nc?: NatsConnection;
  /** Grace period of the NATS check (natsHealthCheck). */
  natsGraceMs?: number;
}

/**
 * Register the checks every service has: `db` (`select 1`) and `nats` (natsHealthCheck, not
 * ready while disconnected beyond the grace). Add service-specific checks (storage…) beside it.
 */
export function addStandardHealth(health: { add(name: string, check: () => unknown): void }, deps: StandardHealthDeps): void {
  health.add('db', () => deps.db.raw('select 1'));
  if (deps.nc) health.add('nats', natsHealthCheck(deps.nc, { graceMs: deps.natsGraceMs }));
}
