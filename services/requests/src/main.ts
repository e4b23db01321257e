/**
 * Entry point of the requests service: HTTP + RPC, the outbox relay, the effect consumers and
 * waiter, and the expiry job (`tsx src/main.ts`); `tsx src/main.ts migrate` migrates and exits.
 */
import { loadConfig, serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { configProperties } from './config.js';
import { ExpiryJob } from './domain/expiry.js';
import { startEffectConsumers } from './events/consumers.js';
import { REQUESTS_STREAM, REQUESTS_STREAM_SUBJECTS } from './events/streams.js';
import { NatsCommunitiesClient } from './rpc/communities.client.js';
import { serveRequestsRpc } from './rpc/requests.rpc.js';

await serviceMain({
  name: 'requests',
  loadConfig: () => loadConfig(configProperties, process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  stream: { name: REQUESTS_STREAM, subjects: REQUESTS_STREAM_SUBJECTS },
  async start({ config, logger, db, nats }) {
    const communities = new NatsCommunitiesClient(nats.nc, {
      ttlMs: config.COMMUNITIES_CACHE_TTL_MS,
      timeoutMs: config.RPC_TIMEOUT_MS,
      logger,
    });
    await communities.start();
    const { app, health, requests, actions, comments, waiter } = createApp({ config, logger, db, communities, nc: nats.nc });
    await waiter.start();
    return {
      app,
      health,
      rpc: serveRequestsRpc(nats.nc, { requests, actions, comments, logger }),
      consumers: startEffectConsumers({ db, nats, logger }),
      workers: [
        new ExpiryJob({ actions, intervalMs: config.REQUESTS_EXPIRY_INTERVAL_MS, logger }),
        { name: 'effect-waiter', start: () => undefined, stop: () => waiter.stop() },
      ],
      closers: [() => communities.stop()],
    };
  },
});
