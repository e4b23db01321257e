/**
 * The contracts between services, generated from proto/ (`pnpm gen:contracts`): event data types
 * (`EventData` by subject), RPC request/reply types (`RpcContract`, `RPC_SUBJECTS`) and the
 * service registry (`SERVICE_REGISTRY`, `DEFAULT_PORTS`).
 *
 * When to use: every producer and consumer of an event or RPC imports its types and subjects
 * from `@rdm/platform/contracts` instead of declaring its own copy. Not part of the main barrel:
 * contracts are not infrastructure, and this keeps their names out of the platform's namespace.
 */
export * from '../../../proto/gen/index.js';
