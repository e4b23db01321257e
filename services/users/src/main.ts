/**
 * Entry point of the users service: HTTP + RPC, the outbox relay and the search indexer
 * (`tsx src/main.ts`); `tsx src/main.ts migrate` creates the schema, migrates and exits,
 * `… reindex` rebuilds the search index.
 */
import { loadConfig, serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { reindexUsers, usersSearch } from './bootstrap.js';
import { configProperties } from './config.js';
import { TokensService } from './domain/tokens.service.js';
import { UsersService } from './domain/users.service.js';
import { serveUsersRpc } from './rpc/users.rpc.js';

await serviceMain({
  name: 'users',
  loadConfig: () => loadConfig(configProperties, process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  async start({ config, logger, db, nats }) {
    const search = await usersSearch(config, db, logger);
    const users = new UsersService(db, search.index);
    const tokens = new TokensService(db, { lastUsedIntervalS: config.TOKEN_LAST_USED_INTERVAL_S, logger });
    const { app, health } = createApp({ config, logger, db, nc: nats.nc, users });
    const rpc = serveUsersRpc(nats.nc, { users, tokens, logger });
    return { app, health, rpc, consumers: search.indexers(nats, logger), closers: search.closers };
  },
  commands: { reindex: reindexUsers },
});
