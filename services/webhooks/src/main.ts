/**
 * Entry point of the webhooks service: HTTP (`/api/webhooks`), the stream consumers turning
 * events into deliveries, the delivery worker and the outbox relay (`tsx src/main.ts`);
 * `tsx src/main.ts migrate` creates the schema, migrates and exits.
 */
import { loadConfig, serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { wire } from './bootstrap.js';
import { configProperties } from './config.js';
import { startWebhookConsumers } from './delivery/consumer.js';

await serviceMain({
  name: 'webhooks',
  loadConfig: () => loadConfig(configProperties, process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  async start({ config, logger, db, nats }) {
    const { webhooks, worker, sender } = wire(config, { db, logger, nc: nats.nc });
    const { app, health } = createApp({ config, logger, db, nc: nats.nc, webhooks });
    const consumers = startWebhookConsumers({ db, nats, logger, baseUrl: config.PUBLIC_BASE_URL, onDeliveries: () => worker.kick() });
    return { app, health, consumers, workers: [worker], closers: [() => sender.close()] };
  },
});
