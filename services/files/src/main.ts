/**
 * Entry point of the files service: HTTP + RPC, the outbox relay, the consumers and the storage
 * janitor (`tsx src/main.ts`); `tsx src/main.ts migrate` migrates and exits.
 */
import { serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { filesAuthorizer } from './bootstrap.js';
import { loadFilesConfig } from './config.js';
import { startFilesConsumers } from './events/consumers.js';
import { serveFilesRpc } from './rpc/files.rpc.js';
import { createStorage } from './storage/index.js';

await serviceMain({
  name: 'files',
  loadConfig: () => loadFilesConfig(process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  async start({ config, logger, db, nats }) {
    const storage = await createStorage(config);
    await storage.init();
    const authorizer = filesAuthorizer(config, db, nats);
    const stats = config.STATS_ENABLED ? { js: nats.js } : {};
    const { app, health, service, gc } = createApp({ config, logger, db, storage, authorizer, nc: nats.nc, ...stats });
    return {
      app,
      health,
      rpc: serveFilesRpc(nats.nc, service, logger),
      consumers: startFilesConsumers({ db, nats, service, logger }),
      workers: [gc],
    };
  },
});
