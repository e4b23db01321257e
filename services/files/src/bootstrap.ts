/**
 * Assembly helpers of the files service, so that main.ts stays a declaration.
 *
 * When to use: only from main.ts.
 */
import type { Knex, NatsHandle } from '@rdm/platform';
import type { FilesConfig } from './config.js';
import type { FilesAuthorizer } from './domain/authorizer.js';
import { GrantCache } from './domain/grant-cache.js';
import { LocalAccessAuthorizer, type LocalAuthzMode } from './domain/record-access.js';
import { JetStreamFreshness } from './events/record-access.consumers.js';
import { findRecordAccess } from './repo/record-access.repo.js';
import { RpcFilesAuthorizer } from './rpc/records.client.js';

/** Records' authorization over RPC, with the local event-fed copy as FILES_LOCAL_AUTHZ says and draft write grants remembered for FILES_GRANT_CACHE_MS. */
export function filesAuthorizer(config: FilesConfig, db: Knex, nats: NatsHandle): FilesAuthorizer {
  const local = new LocalAccessAuthorizer({
    mode: config.FILES_LOCAL_AUTHZ as LocalAuthzMode,
    rpc: new RpcFilesAuthorizer(nats.nc, config.RPC_TIMEOUT_MS),
    find: (id) => findRecordAccess(db, id),
    freshness: new JetStreamFreshness(nats.jsm),
  });
  return new GrantCache(local, { ttlMs: config.FILES_GRANT_CACHE_MS });
}
