/**
 * Wiring of the webhooks service from its configuration: the secret box, the ports, the
 * subscriptions service, the sender and the delivery worker. Used by main.ts and the integration
 * tests, so both run the same objects.
 */
import type { Knex, Logger, NatsHandle } from '@rdm/platform';
import type { WebhooksConfig } from './config.js';
import { Sender } from './delivery/sender.js';
import { DeliveryWorker } from './delivery/worker.js';
import type { CommunityRolesPort, RecordReaderPort, UsersPort } from './domain/ports.js';
import { SecretBox } from './domain/secrets.js';
import { parseCidrs } from './domain/ssrf.js';
import { SubscriptionsService } from './domain/subscriptions.service.js';
import { HttpRecordReader, RpcCommunityRoles, RpcUsers } from './rpc/clients.js';

/** Everything the service runs. */
export interface Wiring {
  webhooks: SubscriptionsService;
  worker: DeliveryWorker;
  sender: Sender;
}

/** Build the service's objects (ports default to the NATS/HTTP clients). */
export function wire(
  config: WebhooksConfig,
  o: { db: Knex; logger: Logger; nc: NatsHandle['nc']; communities?: CommunityRolesPort; records?: RecordReaderPort; users?: UsersPort },
): Wiring {
  const box = new SecretBox(config.WEBHOOKS_SECRET_KEY);
  const communities = o.communities ?? new RpcCommunityRoles(o.nc, config.RPC_TIMEOUT_MS);
  const users = o.users ?? new RpcUsers(o.nc, config.RPC_TIMEOUT_MS);
  const records = o.records ?? new HttpRecordReader(config.RECORDS_URL, config.IDENTITY_SECRET, config.RPC_TIMEOUT_MS);
  const sender = new Sender({
    allowedCidrs: config.WEBHOOKS_ALLOWED_CIDRS,
    timeoutMs: config.WEBHOOKS_TIMEOUT_MS,
    // Why the process-wide bound: many subscriptions may share one origin; the per-subscription bound is the worker's.
    connections: config.WEBHOOKS_CONCURRENCY,
  });
  const worker = new DeliveryWorker({
    db: o.db,
    logger: o.logger,
    box,
    sender,
    communities,
    records,
    users,
    settings: {
      concurrency: config.WEBHOOKS_CONCURRENCY,
      perSubscription: config.WEBHOOKS_SUBSCRIPTION_CONCURRENCY,
      pollMs: config.WEBHOOKS_POLL_MS,
      leaseMs: config.WEBHOOKS_LEASE_MS,
      backoffBaseMs: config.WEBHOOKS_BACKOFF_BASE_MS,
      backoffMaxMs: config.WEBHOOKS_BACKOFF_MAX_MS,
      retryPeriodS: config.WEBHOOKS_RETRY_PERIOD_S,
      disableAfterFailures: config.WEBHOOKS_DISABLE_AFTER_FAILURES,
    },
  });
  const webhooks = new SubscriptionsService({
    db: o.db,
    box,
    communities,
    target: { allowHttp: config.WEBHOOKS_ALLOW_HTTP, allowedCidrs: parseCidrs(config.WEBHOOKS_ALLOWED_CIDRS) },
    rotationOverlapS: config.WEBHOOKS_ROTATION_OVERLAP_S,
    onDue: () => worker.kick(),
  });
  return { webhooks, worker, sender };
}
