/**
 * The users koa app (no listen, so tests drive it with supertest): platform base app with
 * identity checking, health checks on the database (and NATS when given; the search engine, as
 * `degraded` only, when the users service has an index), and the user routes.
 */
import { addSearchHealth, addStandardHealth, createHttpApp, mountRouter } from '@rdm/platform';
import type { Knex, Logger, NatsHandle, ServiceHttp } from '@rdm/platform';
import type { UsersConfig } from './config.js';
import { UsersService } from './domain/users.service.js';
import { usersRouter } from './http/users.routes.js';

/** Dependencies of the app. */
export interface AppDeps {
  config: Pick<UsersConfig, 'IDENTITY_SECRET' | 'PUBLIC_BASE_URL'>;
  logger: Logger;
  db: Knex;
  nc?: NatsHandle['nc'];
  /** Defaults to a service over `db`. */
  users?: UsersService;
}

/** Build the app and its health state. */
export function createApp(deps: AppDeps): ServiceHttp {
  const { app, health } = createHttpApp({ name: 'users', logger: deps.logger, identitySecret: deps.config.IDENTITY_SECRET });
  addStandardHealth(health, { db: deps.db, nc: deps.nc });
  const users = deps.users ?? new UsersService(deps.db);
  // A search engine outage answers 503 on the user search only; reads by id and RPCs go on.
  addSearchHealth(health, users.index?.engine);
  mountRouter(app, usersRouter({ users, baseUrl: deps.config.PUBLIC_BASE_URL }));
  return { app, health };
}
