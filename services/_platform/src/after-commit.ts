/**
 * Run work once a transaction has really committed: storage garbage collection after the rows
 * releasing the bytes are durable, waking the outbox relay after the event row is visible.
 *
 * When to use: for side effects outside the database that must not happen if the transaction
 * rolls back (deleting blobs, in-process notifications). Never for work that must survive a
 * crash (that goes through the outbox). Nested transactions (savepoints) defer to the outermost
 * one: a savepoint's release is no commit.
 */
import type { Knex } from 'knex';

// Why knex internals here and only here: knex exposes no commit hook; its transaction object
// carries the promise of the whole transaction (`executionPromise`) and the enclosing one
// (`parentTransaction`). Keeping the access in one function means one place to change.
type Transactor = Knex.Transaction & { executionPromise?: Promise<unknown>; parentTransaction?: Transactor };

/** The outermost transaction of `trx` (itself when it is not a savepoint). */
export function outermostTransaction(trx: Knex.Transaction): Knex.Transaction {
  let top = trx as Transactor;
  while (top.parentTransaction) top = top.parentTransaction;
  return top;
}

/**
 * Call `fn` after the outermost transaction of `trx` commits; never when it rolls back. Errors of
 * `fn` go to `onError` (default: ignored), never to the transaction's caller. Without a knex
 * transaction object (no commit to observe) nothing runs.
 */
export function afterCommit(trx: Knex.Transaction, fn: () => unknown, onError: (err: unknown) => void = () => undefined): void {
  const top = outermostTransaction(trx) as Transactor;
  // Not a knex transaction (a test double): there is no commit to wait for, so nothing runs.
  void top.executionPromise?.then(
    async () => {
      try {
        await fn();
      } catch (err) {
        onError(err);
      }
    },
    () => undefined,
  );
}

/**
 * Call `fn` once the outermost transaction of `trx` has rolled back (never after a commit): the
 * counterpart of `afterCommit` for work that waits on either outcome.
 */
export function afterRollback(trx: Knex.Transaction, fn: () => unknown): void {
  const top = outermostTransaction(trx) as Transactor;
  void top.executionPromise?.then(
    () => undefined,
    async () => {
      try {
        await fn();
      } catch {
        // the transaction's caller already has its error
      }
    },
  );
}
