/**
 * Entry point of the communities service: HTTP + RPC, the outbox relay and the consumers
 * (`tsx src/main.ts`); `tsx src/main.ts migrate` migrates and `… reindex` rebuilds the search indices.
 */
import { serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { communitiesClients, communitiesSearch, communitiesStorage, reindexCommunities } from './bootstrap.js';
import { loadCommunitiesConfig } from './config.js';
import { startCommunitiesConsumers } from './events/consumers.js';
import { serveCommunitiesRpc } from './rpc/communities.rpc.js';

await serviceMain({
  name: 'communities',
  loadConfig: () => loadCommunitiesConfig(process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  async start({ config, logger, db, nats }) {
    const storage = await communitiesStorage(config);
    const indexed = await communitiesSearch(config, db, logger);
    const clients = communitiesClients(nats.nc, config.RPC_TIMEOUT_MS);
    const { search, memberSearch } = indexed ?? {};
    const { app, health, communities, members, extensions } = createApp({
      config,
      logger,
      db,
      nc: nats.nc,
      storage,
      search,
      memberSearch,
      ...clients,
    });
    const indexer = indexed?.indexers(nats) ?? [];
    return {
      app,
      health,
      rpc: serveCommunitiesRpc(nats.nc, { communities, members, extensions, logger }),
      consumers: [...startCommunitiesConsumers({ db, nats, members, logger }), ...indexer],
      closers: indexed ? [indexed.close] : [],
    };
  },
  commands: { reindex: reindexCommunities },
});
