/**
 * Entry point of the requests service: HTTP + RPC, the outbox relay, the effect consumers and
 * waiter, the expiry job and the search indexer (`tsx src/main.ts`); `tsx src/main.ts migrate`
 * migrates and exits, `… reindex` rebuilds the search index.
 */
import { loadConfig, serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { communitiesClient, reindexRequests, requestsSearch } from './bootstrap.js';
import { configProperties } from './config.js';
import { ExpiryJob } from './domain/expiry.js';
import { startEffectConsumers } from './events/consumers.js';
import { NatsRecordsClient } from './rpc/records.client.js';
import { serveRequestsRpc } from './rpc/requests.rpc.js';

await serviceMain({
  name: 'requests',
  loadConfig: () => loadConfig(configProperties, process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  async start({ config, logger, db, nats }) {
    const communities = await communitiesClient(config, nats.nc, logger);
    const indexed = await requestsSearch(config, db, nats, logger);
    const records = new NatsRecordsClient(nats.nc, { timeoutMs: config.RPC_TIMEOUT_MS });
    const deps = { config, logger, db, communities, records, nc: nats.nc, search: indexed.search };
    const { app, health, requests, actions, comments, waiter } = createApp(deps);
    await waiter.start();
    return {
      app,
      health,
      rpc: serveRequestsRpc(nats.nc, { requests, actions, comments, logger }),
      consumers: [...startEffectConsumers({ db, nats, logger }), ...indexed.consumers],
      workers: [
        new ExpiryJob({ actions, intervalMs: config.REQUESTS_EXPIRY_INTERVAL_MS, logger }),
        { name: 'effect-waiter', start: () => undefined, stop: () => waiter.stop() },
      ],
      closers: [() => communities.stop(), ...indexed.closers],
    };
  },
  commands: { reindex: reindexRequests },
});
