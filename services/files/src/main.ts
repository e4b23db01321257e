/**
 * Entry point of the files service: HTTP + RPC, the outbox relay, the consumers and the storage
 * janitor (`tsx src/main.ts`); `tsx src/main.ts migrate` migrates and exits.
 */
import { serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { loadFilesConfig } from './config.js';
import { LocalAccessAuthorizer, type LocalAuthzMode } from './domain/record-access.js';
import { startFilesConsumers } from './events/consumers.js';
import { JetStreamFreshness } from './events/record-access.consumers.js';
import { findRecordAccess } from './repo/record-access.repo.js';
import { serveFilesRpc } from './rpc/files.rpc.js';
import { RpcFilesAuthorizer } from './rpc/records.client.js';
import { createStorage } from './storage/index.js';

await serviceMain({
  name: 'files',
  loadConfig: () => loadFilesConfig(process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  stream: { name: 'FILES', subjects: ['rdm.files.file.>'] },
  async start({ config, logger, db, nats }) {
    const storage = await createStorage(config);
    await storage.init();
    const authorizer = new LocalAccessAuthorizer({
      mode: config.FILES_LOCAL_AUTHZ as LocalAuthzMode,
      rpc: new RpcFilesAuthorizer(nats.nc, config.RPC_TIMEOUT_MS),
      find: (id) => findRecordAccess(db, id),
      freshness: new JetStreamFreshness(nats.jsm),
    });
    const { app, health, service, gc } = createApp({
      config,
      logger,
      db,
      storage,
      authorizer,
      nc: nats.nc,
      ...(config.STATS_ENABLED ? { js: nats.js } : {}),
    });
    return {
      app,
      health,
      rpc: serveFilesRpc(nats.nc, service, logger),
      consumers: startFilesConsumers({ db, nats, service, logger }),
      workers: [gc],
    };
  },
});
