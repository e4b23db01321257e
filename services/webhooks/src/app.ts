/**
 * The webhooks koa app (no listen, so tests drive it with supertest): the platform's base app
 * with identity checking, health checks on the database and NATS, and the webhook routes.
 */
import { addStandardHealth, createHttpApp, type Knex, type Logger, mountRouter, type NatsHandle, type ServiceHttp } from '@rdm/platform';
import type { WebhooksConfig } from './config.js';
import type { SubscriptionsService } from './domain/subscriptions.service.js';
import { webhooksRouter } from './http/webhooks.routes.js';

/** Dependencies of the app. */
export interface AppDeps {
  config: Pick<WebhooksConfig, 'IDENTITY_SECRET' | 'PUBLIC_BASE_URL'>;
  logger: Logger;
  db: Knex;
  nc?: NatsHandle['nc'];
  webhooks: SubscriptionsService;
}

/** Build the app and its health state. */
export function createApp(deps: AppDeps): ServiceHttp {
  const { app, health } = createHttpApp({ name: 'webhooks', logger: deps.logger, identitySecret: deps.config.IDENTITY_SECRET });
  addStandardHealth(health, { db: deps.db, nc: deps.nc });
  mountRouter(app, webhooksRouter({ webhooks: deps.webhooks, baseUrl: deps.config.PUBLIC_BASE_URL }));
  return { app, health };
}
