/**
 * Entry point of the vocabularies service: HTTP, the resolve RPC, the outbox relay, the reload
 * listener and (SEARCH_ENGINE≠postgres) the search indexer (`tsx src/main.ts`); `… migrate`
 * migrates and loads the fixtures (idempotently); `… reindex` rebuilds the search index.
 */
import { loadConfig, serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { loadFixtures, reindexVocabularies, vocabulariesSearch } from './bootstrap.js';
import { configProperties } from './config.js';
import { reloadListener } from './events/reload-listener.js';
import { serveResolveRpc } from './rpc/resolve.rpc.js';

await serviceMain({
  name: 'vocabularies',
  loadConfig: () => loadConfig(configProperties, process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  afterMigrate: loadFixtures,
  async start({ config, logger, db, nats }) {
    const indexed = await vocabulariesSearch(config, db, logger);
    const search = indexed?.search;
    const { app, health, service } = createApp({ config, logger, db, nc: nats.nc, search });
    return {
      app,
      health,
      rpc: [serveResolveRpc(nats.nc, service, logger)],
      workers: [reloadListener(nats.nc, () => service.invalidate(), logger)],
      consumers: indexed?.indexers(nats, logger) ?? [],
      closers: indexed ? [indexed.close] : [],
    };
  },
  commands: { reindex: reindexVocabularies },
});
