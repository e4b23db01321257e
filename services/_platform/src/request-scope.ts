/**
 * The request a piece of code runs for, without passing it down: `requestScope()` (mounted by
 * `createHttpApp`) keeps the response of the current request in an AsyncLocalStorage, and
 * `clientGoneSignal()` gives an AbortSignal that fires when that request's client goes away before
 * its answer was sent (the connection closed: the client, or the gateway on its behalf, gave up).
 *
 * When to use: work that is only worth finishing for a waiting client and that can be stopped
 * (a search statement: `searchRead` cancels it in PostgreSQL). Not for writes: a write that began
 * must finish or roll back on its own terms, whoever is still listening.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { Middleware } from 'koa';

interface Scope {
  res: ServerResponse;
  /** Made on the first `clientGoneSignal()` of the request only (most requests never ask). */
  gone?: AbortController;
}

const scope = new AsyncLocalStorage<Scope>();

/** Koa middleware: the rest of the request runs in its scope. */
export function requestScope(): Middleware {
  return (ctx, next) => scope.run({ res: ctx.res }, next);
}

/** The reason of a `clientGoneSignal()` abort. */
export class ClientGoneError extends Error {
  constructor() {
    super('The client closed the connection before the answer was sent.');
    this.name = 'ClientGoneError';
  }
}

/**
 * Aborts when the client of the current request goes away before the answer was sent; undefined
 * outside a request (jobs, consumers, RPC handlers).
 */
export function clientGoneSignal(): AbortSignal | undefined {
  const s = scope.getStore();
  if (!s) return undefined;
  if (!s.gone) {
    const gone = new AbortController();
    s.gone = gone;
    const res = s.res;
    // Why `writableFinished`: 'close' also follows a complete answer; only one cut short means gone.
    const onClose = () => {
      if (!res.writableFinished) gone.abort(new ClientGoneError());
    };
    if (res.destroyed || res.socket?.destroyed) onClose();
    else res.once('close', onClose);
  }
  return s.gone.signal;
}
