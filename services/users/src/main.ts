/**
 * Entry point of the users service: HTTP + RPC and the outbox relay (`tsx src/main.ts`);
 * `tsx src/main.ts migrate` creates the schema, migrates and exits.
 */
import { loadConfig, serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { configProperties } from './config.js';
import { TokensService } from './domain/tokens.service.js';
import { UsersService } from './domain/users.service.js';
import { USERS_STREAM, USERS_STREAM_SUBJECTS } from './events/streams.js';
import { serveUsersRpc } from './rpc/users.rpc.js';

await serviceMain({
  name: 'users',
  loadConfig: () => loadConfig(configProperties, process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  stream: { name: USERS_STREAM, subjects: USERS_STREAM_SUBJECTS },
  start({ config, logger, db, nats }) {
    const users = new UsersService(db);
    const tokens = new TokensService(db, { lastUsedIntervalS: config.TOKEN_LAST_USED_INTERVAL_S, logger });
    const { app, health } = createApp({ config, logger, db, nc: nats.nc, users });
    return { app, health, rpc: serveUsersRpc(nats.nc, { users, tokens, logger }) };
  },
});
