/**
 * Entry point of the vocabularies service: HTTP, the resolve RPC, the outbox relay, the reload
 * listener and (SEARCH_ENGINE≠postgres) the search indexer (`tsx src/main.ts`); `… migrate`
 * migrates and loads the fixtures (idempotently); `… reindex` rebuilds the search index; `… import
 * --type <type> --source <file> [--format ror-v2]` runs a vocabulary import job in this process,
 * with progress. Serving also runs the jobs worker (queued import runs).
 */
import { loadConfig, serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { loadFixtures, reindexVocabularies, vocabulariesSearch } from './bootstrap.js';
import { configProperties, importDirOf } from './config.js';
import { importCommand } from './jobs/import-command.js';
import { jobsWorker } from './jobs/jobs-worker.js';
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
    const jobs = jobsWorker({
      db,
      logger,
      importDir: importDirOf(config),
      batchSize: config.VOCABULARIES_JOBS_BATCH_SIZE,
      leaseMs: config.VOCABULARIES_JOBS_LEASE_MS,
      yamlMaxBytes: config.VOCABULARIES_IMPORT_YAML_MAX_BYTES,
      pollMs: config.VOCABULARIES_JOBS_POLL_MS,
    });
    const { app, health, service } = createApp({ config, logger, db, nc: nats.nc, search, wakeJobs: () => jobs.wake() });
    return {
      app,
      health,
      rpc: [serveResolveRpc(nats.nc, service, logger)],
      workers: [reloadListener(nats.nc, () => service.invalidate(), logger), jobs],
      consumers: indexed?.indexers(nats, logger) ?? [],
      closers: indexed ? [indexed.close] : [],
    };
  },
  commands: { reindex: reindexVocabularies, import: importCommand },
});
