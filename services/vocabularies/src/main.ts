/**
 * Entry point of the vocabularies service: HTTP, the resolve RPC, the outbox relay and the
 * reload listener (`tsx src/main.ts`); `tsx src/main.ts migrate` migrates, loads the
 * vocabulary fixtures (idempotently) and exits.
 */
import { loadConfig, serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { configProperties } from './config.js';
import { readFixtures } from './domain/fixtures.js';
import { loadVocabularies } from './domain/loader.service.js';
import { reloadListener } from './events/reload-listener.js';
import { serveResolveRpc } from './rpc/resolve.rpc.js';

await serviceMain({
  name: 'vocabularies',
  loadConfig: () => loadConfig(configProperties, process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  async afterMigrate(db, config, logger) {
    if (!config.LOAD_FIXTURES) return;
    const { vocabularies, problems } = readFixtures();
    for (const p of problems) logger.warn(p, 'fixture row skipped');
    for (const r of await loadVocabularies(db, vocabularies)) logger.info(r, 'vocabulary loaded');
  },
  start({ config, logger, db, nats }) {
    const { app, health, service } = createApp({ config, logger, db, nc: nats.nc });
    return {
      app,
      health,
      rpc: [serveResolveRpc(nats.nc, service, logger)],
      workers: [reloadListener(nats.nc, () => service.invalidate(), logger)],
    };
  },
});
