/**
 * Harness of the webhooks integration tests: a fresh schema (real PostgreSQL), a private
 * nats-server with the event streams, a stand-in communities `roles` RPC on it (answers from a
 * map), the app, the consumers and the delivery worker wired as main.ts wires them, and helpers
 * to publish domain events into the streams.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { STREAMS } from '@rdm/contracts';
import { ensureStream, type Identity, loadConfig, type NatsHandle, type RpcServer, serveRpc } from '@rdm/platform';
import {
  gatewayFront,
  type NatsServerProcess,
  spawnNatsServer,
  type TestDb,
  testDb,
  testIdentityHeader,
  testLogger,
  testNats,
} from '@rdm/platform/testing';
import { createApp } from '../../src/app.js';
import { wire, type Wiring } from '../../src/bootstrap.js';
import { configProperties, type WebhooksConfig } from '../../src/config.js';
import { startWebhookConsumers } from '../../src/delivery/consumer.js';
import type { RecordReaderPort } from '../../src/domain/ports.js';

/** Identity secret of the tests. */
export const SECRET = 'webhooks-integration-secret';
/** Public base URL of the tests. */
export const BASE = 'https://repo.test';

/** Headers carrying a signed identity. */
export function as(sub: string, roles: string[] = []): Record<string, string> {
  return testIdentityHeader({ sub, roles } as Identity, SECRET);
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The running harness. */
export interface Harness extends Wiring {
  t: TestDb;
  config: WebhooksConfig;
  server: NatsServerProcess;
  nats: NatsHandle & { close(): Promise<void> };
  app: ReturnType<typeof createApp>['app'];
  /** The app behind the gateway's identity signing (supertest target). */
  front: import('node:http').RequestListener;
  /** community id → user id → role, answered by the stand-in roles RPC. */
  roles: Map<string, Map<string, string>>;
  /** user id → {active, roles} answered by the stand-in get-users RPC (absent: an active user without roles; e-mail `user<id>@example.org`). */
  users: Map<string, { active: boolean; roles: string[] }>;
  /** The `ids` of every get-users call the stand-in answered, in order. */
  usersCalls: string[][];
  /** Publish a domain event (envelope built here); returns its id. */
  publish(subject: string, data: Record<string, unknown>, id?: string): Promise<string>;
  stop(): Promise<void>;
}

/** Start everything (`env`: settings over the test defaults; `run: false` leaves consumers and worker stopped). */
export async function startHarness(
  env: Record<string, string> = {},
  o: { run?: boolean; records?: RecordReaderPort } = {},
): Promise<Harness> {
  const t = await testDb('webhooks');
  const server = spawnNatsServer({ port: await freePort() });
  await server.start();
  const nats = await testNats(server.url, 'webhooks-test');
  for (const name of ['RECORDS', 'REQUESTS', 'COMMUNITIES', 'FILES', 'WEBHOOKS'] as const) await ensureStream(nats.jsm, STREAMS[name]);
  const config = loadConfig(configProperties, {
    IDENTITY_SECRET: SECRET,
    PUBLIC_BASE_URL: BASE,
    WEBHOOKS_ALLOW_HTTP: 'true',
    WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOKS_BACKOFF_BASE_MS: '50',
    WEBHOOKS_BACKOFF_MAX_MS: '200',
    WEBHOOKS_TIMEOUT_MS: '1000',
    WEBHOOKS_POLL_MS: '50',
    WEBHOOKS_LEASE_MS: '3000',
    ...env,
  });
  const roles = new Map<string, Map<string, string>>();
  const rpc: RpcServer = serveRpc(
    nats.nc,
    'rdm.communities.rpc.roles',
    async (req: { user_id: string; community_ids?: string[] }) => {
      const out: Record<string, string> = {};
      for (const c of req.community_ids ?? []) {
        const r = roles.get(c)?.get(req.user_id);
        if (r) out[c] = r;
      }
      return { roles: out };
    },
    { queue: 'communities', logger: testLogger('communities-stand-in') },
  );
  await rpc.ready;
  const users = new Map<string, { active: boolean; roles: string[] }>();
  const usersCalls: string[][] = [];
  const usersRpc: RpcServer = serveRpc(
    nats.nc,
    'rdm.users.rpc.get-users',
    async (req: { ids: string[] }) => {
      usersCalls.push(req.ids);
      return {
        users: req.ids.map((id) => ({
          id,
          username: null,
          full_name: '',
          email: `user${id}@example.org`,
          ...(users.get(id) ?? { active: true, roles: [] }),
        })),
      };
    },
    { queue: 'users', logger: testLogger('users-stand-in') },
  );
  await usersRpc.ready;
  const logger = testLogger('webhooks');
  const w = wire(config, { db: t.db, logger, nc: nats.nc, records: o.records });
  const { app } = createApp({ config, logger, db: t.db, nc: nats.nc, webhooks: w.webhooks });
  const consumers =
    o.run === false
      ? []
      : startWebhookConsumers({
          db: t.db,
          nats,
          logger,
          baseUrl: BASE,
          concurrency: config.WEBHOOKS_CONSUMER_CONCURRENCY,
          onDeliveries: () => w.worker.kick(),
        });
  if (o.run !== false) w.worker.start();
  await Promise.all(consumers.map((c) => c.ready));
  return {
    ...w,
    t,
    config,
    server,
    nats,
    app,
    front: gatewayFront(app.callback(), SECRET),
    roles,
    users,
    usersCalls,
    async publish(subject, data, id = randomUUID()) {
      const envelope = {
        id,
        type: subject,
        version: 1,
        occurred_at: new Date().toISOString(),
        aggregate: { type: 'x', id: String(data.id ?? id), revision: 1 },
        data,
      };
      await nats.js.publish(subject, JSON.stringify(envelope), { msgID: id });
      return id;
    },
    async stop() {
      await w.worker.stop();
      await Promise.all(consumers.map((c) => c.stop()));
      await rpc.stop();
      await usersRpc.stop();
      await w.sender.close();
      await nats.close();
      await server.dispose();
      await t.destroy();
    },
  };
}

/** A request event's data (`verb` in the subject). */
export function requestData(
  o: { receiverCommunity?: string; createdByUser?: string; receiverUser?: string } = {},
): Record<string, unknown> {
  return {
    id: randomUUID(),
    number: '1',
    type: 'community-submission',
    created_by: o.createdByUser ? { user: o.createdByUser } : { user: '999' },
    receiver: o.receiverCommunity ? { community: o.receiverCommunity } : { user: o.receiverUser ?? '998' },
    topic: { record: 'abcde-12345' },
    actor: { user: '999' },
  };
}
