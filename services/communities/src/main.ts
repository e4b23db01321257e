/**
 * Entry point of the communities service: HTTP + RPC, the outbox relay and the consumers
 * (`tsx src/main.ts`); `tsx src/main.ts migrate` migrates and exits.
 */
import { createObjectStorage, createSearchEngine, serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { loadCommunitiesConfig } from './config.js';
import { startCommunitiesConsumers } from './events/consumers.js';
import { RpcRequestsClient, RpcUsersClient, RpcVocabulariesClient } from './rpc/clients.js';
import { serveCommunitiesRpc } from './rpc/communities.rpc.js';
import { CommunitySearchIndex } from './search/community-index.js';

await serviceMain({
  name: 'communities',
  loadConfig: () => loadCommunitiesConfig(process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  async start({ config, logger, db, nats }) {
    const storage = await createObjectStorage({
      engine: config.COMMUNITIES_STORAGE === 's3' ? 's3' : 'local',
      path: config.COMMUNITIES_STORAGE_PATH,
      s3: {
        endpoint: config.S3_ENDPOINT,
        accessKey: config.S3_ACCESS_KEY,
        secretKey: config.S3_SECRET_KEY,
        bucket: config.COMMUNITIES_S3_BUCKET,
        region: config.S3_REGION,
        partSize: 5 * 1024 * 1024,
      },
    });
    await storage.init();
    const t = config.RPC_TIMEOUT_MS;
    // SEARCH_ENGINE=opensearch|elasticsearch: the index (created when missing), inline indexing and
    // the outbox indexer; postgres (default): nothing here, the SQL path serves searches.
    const engine = await createSearchEngine(config);
    const search = engine ? new CommunitySearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX) : undefined;
    await search
      ?.ensureIndex()
      .catch((err) => logger.warn({ err }, 'search index not ensured yet (engine down?); retried on the next write'));
    const { app, health, communities, members, extensions } = createApp({
      config,
      logger,
      db,
      storage,
      users: new RpcUsersClient(nats.nc, t),
      vocabularies: new RpcVocabulariesClient(nats.nc, t),
      requests: new RpcRequestsClient(nats.nc, t),
      nc: nats.nc,
      search,
    });
    return {
      app,
      health,
      rpc: serveCommunitiesRpc(nats.nc, { communities, members, extensions, logger }),
      consumers: [...startCommunitiesConsumers({ db, nats, members, logger }), ...(search ? [search.startIndexer(nats, logger)] : [])],
      closers: engine ? [() => engine.close()] : [],
    };
  },
  commands: {
    /** `tsx src/main.ts reindex`: rebuild the communities index from PostgreSQL and swap the alias. */
    async reindex({ config, db, logger }) {
      const engine = await createSearchEngine(config);
      if (!engine) {
        logger.info('SEARCH_ENGINE=postgres: search documents live in PostgreSQL, nothing to reindex');
        return;
      }
      const res = await new CommunitySearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX).reindex();
      logger.info(res, 'communities index rebuilt and swapped');
      await engine.close();
    },
  },
});
