/**
 * Entry point of the records service: HTTP, the authorize-files, authorize-record and community-usage RPCs, the
 * outbox relay and the workers of bootstrap.ts (`tsx src/main.ts`); `tsx src/main.ts migrate`
 * migrates and exits.
 */
import { serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import * as boot from './bootstrap.js';
import { serveAuthorizeFilesRpc } from './rpc/authorize-files.rpc.js';
import { serveAuthorizeRecordRpc } from './rpc/authorize-record.rpc.js';
import { serveImportRecordRpc } from './rpc/import-record.rpc.js';
import { serveCommunityUsageRpc } from './rpc/community-usage.rpc.js';
import { StatsPublisher } from './stats/publisher.js';

await serviceMain({
  name: 'records',
  loadConfig: boot.loadRecordsConfig,
  migrations: new URL('./db/migrations', import.meta.url),
  async start({ config, logger, db, nats }) {
    await boot.ensureRecordsStreams(nats.jsm);
    const clients = boot.recordsClients(nats.nc, config);
    const statsPublisher = config.STATS_ENABLED ? new StatsPublisher(nats.js) : undefined;
    const search = await boot.recordsSearchEngine(config, db, logger);
    const engineIndex = search?.engineIndex;
    const parts = createApp({ ...(statsPublisher ? { statsPublisher } : {}), engineIndex, config, logger, db, nc: nats.nc, ...clients });
    // The default style's engine compiled in a worker now, before the first landing page asks for it.
    parts.citations.warm();
    return {
      app: parts.app,
      health: parts.health,
      rpc: [
        serveAuthorizeFilesRpc(nats.nc, parts.service, logger),
        serveAuthorizeRecordRpc(nats.nc, parts.service, logger),
        serveCommunityUsageRpc(nats.nc, db, logger),
        serveImportRecordRpc(nats.nc, parts.imports, logger),
      ],
      workers: await boot.recordsWorkers({ config, logger, db, nats, parts, clients }),
      consumers: search?.indexers(nats, logger) ?? [],
      closers: [...(search ? [search.close] : []), () => parts.citations.close()],
    };
  },
  commands: { reindex: boot.reindexRecords },
});
