/**
 * Entry point of the webhooks service: HTTP (`/api/webhooks`), the stream consumers turning
 * events into deliveries, the delivery worker, the mailer of disabled webhooks and the outbox
 * relay (`tsx src/main.ts`);
 * `tsx src/main.ts migrate` creates the schema, migrates and exits.
 */
import { serviceMain, type Worker } from '@rdm/platform';
import { createApp } from './app.js';
import { wire } from './bootstrap.js';
import { loadWebhooksConfig } from './config.js';
import { startWebhookConsumers } from './delivery/consumer.js';
import { mailerWorker, smtpSender, smtpUrlOf } from './delivery/mailer.js';

await serviceMain({
  name: 'webhooks',
  loadConfig: () => loadWebhooksConfig(process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  async start({ config, logger, db, nats }) {
    const { webhooks, worker, sender } = wire(config, { db, logger, nc: nats.nc });
    const { app, health } = createApp({ config, logger, db, nc: nats.nc, webhooks });
    const consumers = startWebhookConsumers({
      db,
      nats,
      logger,
      baseUrl: config.PUBLIC_BASE_URL,
      concurrency: config.WEBHOOKS_CONSUMER_CONCURRENCY,
      onDeliveries: () => worker.kick(),
    });
    const smtp = smtpUrlOf(config);
    const workers: Worker[] = [worker];
    const closers: (() => unknown)[] = [() => sender.close()];
    if (smtp) {
      const mail = smtpSender(smtp);
      const from = config.MAIL_FROM || `noreply@${new URL(config.PUBLIC_BASE_URL).hostname}`;
      workers.push(
        mailerWorker({ db, nats, sender: mail, logger, from, baseUrl: config.PUBLIC_BASE_URL, rpcTimeoutMs: config.RPC_TIMEOUT_MS }),
      );
      closers.push(() => mail.close());
    } else logger.warn('webhooks: neither SMTP_URL nor MAIL_SINK=true; owners of disabled webhooks get no e-mail');
    return { app, health, consumers, workers, closers };
  },
});
