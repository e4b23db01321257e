/**
 * `@rdm/contracts`: the contracts between services, kept in proto/ — event and RPC JSON Schemas,
 * the TypeScript generated from them (`pnpm gen:contracts`: `EventData` by subject, `RpcContract`,
 * `RPC_SUBJECTS`, the service registry with `STREAMS`, `DECLARED_SETTINGS`), and their checks
 * (`checkEvent`, `rpcRequestChecker`).
 *
 * When to use: every producer and consumer of an event or RPC imports its types and subjects from
 * here instead of declaring its own copy. No infrastructure lives here (no NATS, no database): the
 * platform (`@rdm/platform`) depends on this package for `writeOutbox`, `serveContract`,
 * `callContract` and `runConsumer`, never the reverse.
 */
export * from './gen/index.js';
export * from './lib/errors.js';
export * from './lib/events.js';
export * from './lib/rpc.js';
export * from './lib/subjects.js';
export * from './lib/citations.js';
