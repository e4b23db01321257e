/**
 * Bounded search statements on PostgreSQL: `searchRead(db, (on) => on(db.raw(…)))` runs the statements a
 * search makes in a short read-only transaction whose `statement_timeout` is the search timeout
 * (`SEARCH_STATEMENT_TIMEOUT_MS`, set once at start by `serviceMain`), and cancels them in
 * PostgreSQL when the client of the request goes away (`clientGoneSignal`), so an abandoned or
 * too costly search stops using a backend.
 *
 * When to use: every statement whose cost a caller's `q` or filters decide (search pages, counts,
 * facets), each in its own `searchRead` when they run side by side. Not for writes or for lookups by
 * key (their cost does not depend on the caller).
 *
 * Answers: the timeout → 503 `The search took too long; please refine it.` (the query is too costly
 * for this server now; a 4xx would say it is wrong); the client gone → 499 (nobody reads it; the
 * access log shows it). Never a 500.
 *
 * Why a connection of our own instead of `db.transaction`: the cancel must reach the backend while
 * our statement runs there, never after the connection went back to the pool and runs someone else's
 * statement, so the connection is released only once the cancel was delivered; and BEGIN with its
 * settings is one round trip (a search statement costs two more: BEGIN…SET, COMMIT).
 */
import type { Knex } from 'knex';
import { AppError, Errors } from '../errors.js';
import { clientGoneSignal } from '../request-scope.js';

/** Default longest search statement (ms), until `setSearchStatementTimeout` changes it. */
export const DEFAULT_SEARCH_STATEMENT_TIMEOUT_MS = 5000;

let statementTimeoutMs = DEFAULT_SEARCH_STATEMENT_TIMEOUT_MS;

/** Set the process's search statement timeout (`serviceMain` does, from `SEARCH_STATEMENT_TIMEOUT_MS`). */
export function setSearchStatementTimeout(ms: number): void {
  if (!Number.isInteger(ms) || ms < 1) throw new Error(`Invalid search statement timeout ${ms}`);
  statementTimeoutMs = ms;
}

/** The process's search statement timeout (ms). */
export function searchStatementTimeout(): number {
  return statementTimeoutMs;
}

/** Options of `searchRead`. */
export interface SearchReadOptions {
  /** Statement timeout (ms); default the process's (`SEARCH_STATEMENT_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** Cancels the statements when it aborts; default the current request's `clientGoneSignal()`, `null` for none. */
  signal?: AbortSignal | null;
  /** More `SET LOCAL …` statements for the transaction (e.g. `SET LOCAL jit = off`), trusted SQL only. */
  settings?: string[];
}

/** 503 for a search statement stopped by its timeout. */
export function searchTooLong(): AppError {
  return Errors.serviceUnavailable('The search took too long; please refine it.');
}

/** 499 for a search stopped because its client went away (logged, never seen). */
export function clientClosedRequest(): AppError {
  return new AppError('client_closed_request', 499, 'Client closed the request.');
}

/** PostgreSQL's `query_canceled`: a statement timeout or a cancel request. */
const QUERY_CANCELED = '57014';

/** Knex internals `searchRead` relies on (public in knex's own `.timeout(…, {cancel: true})`). */
interface KnexClientInternals {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(conn: PgConnection): Promise<unknown>;
  cancelQuery(conn: PgConnection): Promise<unknown>;
}
interface PgConnection {
  processID: number;
  __knex__disposed?: unknown;
}

/** A knex query builder or raw statement (both run on a given connection or transaction). */
export interface Runnable extends PromiseLike<unknown> {
  connection(conn: unknown): unknown;
  transacting(trx: Knex.Transaction): unknown;
}

/** Binds a query to the bounded transaction `searchRead` opened: `await on(db.raw(sql, b))`. */
export type OnSearch = <Q extends Runnable>(query: Q) => Q;

/**
 * Run a search's statements bounded in time and cancelled when the client goes away: `run` gets
 * `on`, which binds each query (built on `db` as usual) to the bounded transaction. Given a
 * transaction instead of the pool, runs in it unchanged: its owner decides its bounds (and owns
 * its connection).
 */
export async function searchRead<T>(
  db: Knex | Knex.Transaction,
  run: (on: OnSearch) => Promise<T>,
  opts: SearchReadOptions = {},
): Promise<T> {
  if (db.isTransaction) return run((q) => q.transacting(db as Knex.Transaction) as typeof q);
  const signal = opts.signal === undefined ? clientGoneSignal() : (opts.signal ?? undefined);
  if (signal?.aborted) throw clientClosedRequest();
  const timeout = opts.timeoutMs ?? statementTimeoutMs;
  if (!Number.isInteger(timeout) || timeout < 1) throw new Error(`Invalid search statement timeout ${timeout}`);
  const client = db.client as unknown as KnexClientInternals;
  const conn = await client.acquireConnection();
  let cancel: Promise<unknown> | undefined;
  const onAbort = () => {
    cancel ??= client.cancelQuery(conn).catch((err: unknown) => {
      // Why dispose: a backend that could not be cancelled may still run our statement.
      conn.__knex__disposed = err;
    });
  };
  const on: OnSearch = (q) => q.connection(conn) as typeof q;
  let open = false;
  try {
    // The client may have left while the statement waited for a pooled connection.
    if (signal?.aborted) throw clientClosedRequest();
    signal?.addEventListener('abort', onAbort, { once: true });
    // Why one statement: BEGIN and the settings in one round trip (knex's transaction would take two).
    await db.raw(['BEGIN READ ONLY', `SET LOCAL statement_timeout = ${timeout}`, ...(opts.settings ?? [])].join('; ')).connection(conn);
    open = true;
    const out = await run(on);
    open = false;
    await db.raw('COMMIT').connection(conn);
    return out;
  } catch (err) {
    if (open) {
      await db
        .raw('ROLLBACK')
        .connection(conn)
        .catch((e: unknown) => {
          conn.__knex__disposed = e; // a connection left inside a transaction must not go back to the pool
        });
    }
    if (signal?.aborted) throw clientClosedRequest();
    if ((err as { code?: string }).code === QUERY_CANCELED) throw searchTooLong();
    throw err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (cancel) await cancel;
    await client.releaseConnection(conn);
  }
}

/** One knex query (builder or raw) run by `searchRead`: `await searchQuery(db, db('t').where(…))`. */
export function searchQuery<Q extends Runnable>(db: Knex | Knex.Transaction, query: Q, opts: SearchReadOptions = {}): Promise<Awaited<Q>> {
  return searchRead(db, async (on): Promise<Awaited<Q>> => (await on(query)) as Awaited<Q>, opts);
}
