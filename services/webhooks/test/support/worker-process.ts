/**
 * The delivery side of the webhooks service as a child process for the kill test: the stream
 * consumers and the delivery worker, wired as main.ts wires them, over the test schema
 * (`WEBHOOKS_TEST_SCHEMA`) and NATS (`NATS_URL`); settings from the environment. Prints `ready`.
 */
import { connectNats, createDb, loadConfig } from '@rdm/platform';
import { testLogger } from '@rdm/platform/testing';
import { wire } from '../../src/bootstrap.js';
import { configProperties } from '../../src/config.js';
import { startWebhookConsumers } from '../../src/delivery/consumer.js';

const config = loadConfig(configProperties, process.env);
const db = createDb({ url: config.DATABASE_URL, service: process.env.WEBHOOKS_TEST_SCHEMA as string, pool: { max: 6 } });
const nats = await connectNats({ url: config.NATS_URL, name: 'webhooks-worker-process' });
const logger = testLogger('webhooks-worker');
const w = wire(config, { db, logger, nc: nats.nc });
const consumers = startWebhookConsumers({
  db,
  nats,
  logger,
  baseUrl: config.PUBLIC_BASE_URL,
  concurrency: config.WEBHOOKS_CONSUMER_CONCURRENCY,
  onDeliveries: () => w.worker.kick(),
});
w.worker.start();
await Promise.all(consumers.map((c) => c.ready));
process.stdout.write('ready\n');
