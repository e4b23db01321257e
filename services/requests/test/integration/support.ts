/**
 * Integration-test environment of the requests service: a fresh migrated schema on the real
 * PostgreSQL, a PRIVATE nats-server (so the fake communities responder and fake effect events
 * never meet a running stack), a fake `rdm.communities.rpc.roles|get` responder served with the
 * platform's real `serveRpc`, the real app under supertest, its effect waiter, outbox relay and
 * durable effect consumers.
 */
import { createServer } from 'node:net';
import { AppError, type ConsumerHandle, ensureStream, type EventEnvelope, OutboxRelay, type RpcServer, serveRpc } from '@rdm/platform';
import {
  type NatsServerProcess,
  spawnNatsServer,
  type TestDb,
  testDb,
  testLogger,
  testNats,
  testIdentityHeader,
} from '@rdm/platform/testing';
import { randomUUID } from 'node:crypto';
import supertest from 'supertest';
import { type AppDeps, createApp, type RequestsApp } from '../../src/app.js';
import { ExpiryJob } from '../../src/domain/expiry.js';
import type { CommunityRole } from '../../src/domain/model.js';
import type { CommunitySummary } from '../../src/domain/ports.js';
import { startEffectConsumers } from '../../src/events/consumers.js';
import { REQUESTS_STREAM, REQUESTS_STREAM_SUBJECTS } from '../../src/events/streams.js';
import { NatsCommunitiesClient } from '../../src/rpc/communities.client.js';
import { NatsRecordsClient } from '../../src/rpc/records.client.js';
import { serveRequestsRpc } from '../../src/rpc/requests.rpc.js';
import { gatewayFront } from '@rdm/platform/testing';

/** Identity secret of the tests. */
export const SECRET = 'requests-integration-secret';
/** PUBLIC_BASE_URL of the tests. */
export const BASE = 'https://rdm.example.org';

/** Signed identity header of a user (none for anonymous). */
export function as(user: string | null, roles: string[] = []): Record<string, string> {
  if (user === null && roles.length === 0) return {};
  return testIdentityHeader({ sub: user, roles }, SECRET);
}

/** A free TCP port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Fake communities service: memberships and summaries in memory behind the real RPC subjects. */
export class FakeCommunities {
  readonly members = new Map<string, Map<string, CommunityRole>>();
  readonly communities = new Map<string, CommunitySummary>();
  calls = 0;
  private servers: RpcServer[] = [];

  /** Add a community (defaults: public, open policies). */
  add(c: Partial<CommunitySummary> = {}): CommunitySummary {
    const id = c.id ?? randomUUID();
    const full: CommunitySummary = {
      id,
      slug: c.slug ?? `c-${id.slice(0, 8)}`,
      title: c.title ?? 'A community',
      visibility: 'public',
      members_visibility: 'public',
      member_policy: 'open',
      record_submission_policy: 'open',
      review_policy: 'closed',
      is_deleted: false,
      ...c,
    };
    this.communities.set(id, full);
    return full;
  }

  /** Give `user` a role in `community`. */
  setRole(community: string, user: string, role: CommunityRole): void {
    let m = this.members.get(community);
    if (!m) {
      m = new Map();
      this.members.set(community, m);
    }
    m.set(user, role);
  }

  /** Serve the two RPCs. */
  serve(nc: Parameters<typeof serveRpc>[0]): void {
    const logger = testLogger('fake-communities');
    this.servers.push(
      serveRpc<{ user_id: string; community_ids?: string[] }, unknown>(
        nc,
        'rdm.communities.rpc.roles',
        async (req) => {
          this.calls++;
          const roles: Record<string, CommunityRole> = {};
          for (const [cid, m] of this.members) {
            if (req.community_ids && !req.community_ids.includes(cid)) continue;
            const r = m.get(req.user_id);
            if (r) roles[cid] = r;
          }
          return { roles };
        },
        { queue: 'communities', logger },
      ),
      serveRpc<{ ids: string[] }, unknown>(
        nc,
        'rdm.communities.rpc.get',
        async (req) => ({ communities: req.ids.map((i) => this.communities.get(i)).filter(Boolean) }),
        { queue: 'communities', logger },
      ),
    );
  }

  /** Stop serving. */
  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
  }
}

/** Fake records service: published records (id → parent and who may read them) behind the real authorize-record subject. */
export class FakeRecords {
  /** record id → parent id, readers (user ids; `*` everyone), deleted. */
  readonly records = new Map<string, { parent: string; readers: string[]; deleted?: boolean }>();
  private servers: RpcServer[] = [];

  /** Serve `rdm.records.rpc.authorize-record` with the records service's answers (404, 410, 403). */
  serve(nc: Parameters<typeof serveRpc>[0]): void {
    this.servers.push(
      serveRpc<{ record_id: string; identity: { sub: string | null; roles: string[] } }, unknown>(
        nc,
        'rdm.records.rpc.authorize-record',
        async (req) => {
          const r = this.records.get(req.record_id);
          if (!r) throw new AppError('not_found', 404, 'The persistent identifier does not exist.');
          if (r.deleted) throw new AppError('gone', 410, 'Record deleted');
          const admin = req.identity.roles.includes('admin');
          if (!admin && !r.readers.includes('*') && !(req.identity.sub && r.readers.includes(req.identity.sub)))
            throw new AppError('permission_denied', 403, 'Permission denied.');
          return { record_id: req.record_id, parent_id: r.parent };
        },
        { queue: 'records', logger: testLogger('fake-records') },
      ),
    );
  }

  /** Stop serving. */
  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
  }
}

/** A running test environment. */
export interface Env extends RequestsApp {
  http: ReturnType<typeof supertest>;
  tdb: TestDb;
  nats: Awaited<ReturnType<typeof testNats>>;
  server: NatsServerProcess;
  fake: FakeCommunities;
  /** Fake records (authorize-record). */
  records: FakeRecords;
  expiry: ExpiryJob;
  consumers: ConsumerHandle[];
  /** Publish a fake effect event (as records/communities would: JetStream with msg id = envelope id). */
  publishEffect(subject: string, data: Record<string, unknown>, id?: string): Promise<EventEnvelope>;
  /** Another app over the same database, NATS and communities client with other dependencies (its waiter is not started). */
  appWith(deps: Partial<AppDeps>): RequestsApp & { http: ReturnType<typeof supertest> };
  /** Start the durable effect consumers (not started by default, so tests see the inline waiter alone). */
  startConsumers(): Promise<void>;
  close(): Promise<void>;
}

/** Start an environment; `effectWaitMs` bounds accept waits. */
export async function startEnv(o: { effectWaitMs?: number; lockingEnabled?: boolean } = {}): Promise<Env> {
  const server = spawnNatsServer({ port: await freePort() });
  await server.start();
  const nats = await testNats(server.url, 'requests-test');
  await ensureStream(nats.jsm, { name: REQUESTS_STREAM, subjects: REQUESTS_STREAM_SUBJECTS });
  await ensureStream(nats.jsm, {
    name: 'RECORDS',
    subjects: ['rdm.records.record.>', 'rdm.records.inclusion.>', 'rdm.records.review.>', 'rdm.records.access-request.>'],
  });
  await ensureStream(nats.jsm, { name: 'COMMUNITIES', subjects: ['rdm.communities.member.>', 'rdm.communities.community.>'] });
  await ensureStream(nats.jsm, { name: 'FILES', subjects: ['rdm.files.bucket.>'] });
  const tdb = await testDb('requests', { pool: { max: 10 } });
  const fake = new FakeCommunities();
  fake.serve(nats.nc);
  const fakeRecords = new FakeRecords();
  fakeRecords.serve(nats.nc);
  await nats.nc.flush();
  const logger = testLogger('requests');
  const communities = new NatsCommunitiesClient(nats.nc, { ttlMs: 0, timeoutMs: 2000, logger });
  await communities.start();
  const appDeps: AppDeps = {
    config: {
      IDENTITY_SECRET: SECRET,
      PUBLIC_BASE_URL: BASE,
      REQUEST_EFFECT_WAIT_MS: o.effectWaitMs ?? 3000,
      REQUESTS_LOCKING_ENABLED: o.lockingEnabled ?? false,
      REQUESTS_COMMENT_MAX_LENGTH: 1000,
    },
    logger,
    db: tdb.db,
    communities,
    records: new NatsRecordsClient(nats.nc, { timeoutMs: 2000 }),
    nc: nats.nc,
  };
  const built = createApp(appDeps);
  await built.waiter.start();
  const relay = new OutboxRelay({ db: tdb.db, js: nats.js, logger });
  relay.start();
  const rpcs = serveRequestsRpc(nats.nc, { requests: built.requests, actions: built.actions, comments: built.comments, logger });
  await nats.nc.flush();
  const expiry = new ExpiryJob({ actions: built.actions, intervalMs: 60_000, logger });
  const env: Env = {
    ...built,
    http: supertest(gatewayFront(built.app.callback(), SECRET)),
    tdb,
    nats,
    server,
    fake,
    records: fakeRecords,
    expiry,
    consumers: [],
    async publishEffect(subject, data, id = randomUUID()) {
      const envelope: EventEnvelope = {
        id,
        type: subject,
        version: 1,
        occurred_at: new Date().toISOString(),
        aggregate: { type: subject.split('.')[2], id: String(data.id ?? data.record_id ?? data.community_id ?? 'x'), revision: 1 },
        data,
      };
      await nats.js.publish(subject, JSON.stringify(envelope), { msgID: id });
      return envelope;
    },
    appWith(deps) {
      const other = createApp({ ...appDeps, ...deps });
      return { ...other, http: supertest(gatewayFront(other.app.callback(), SECRET)) };
    },
    async startConsumers() {
      env.consumers = startEffectConsumers({ db: tdb.db, nats, logger, ackWaitMs: 5000 });
      await Promise.all(env.consumers.map((c) => c.ready));
    },
    async close() {
      await Promise.all(env.consumers.map((c) => c.stop()));
      await expiry.stop();
      await Promise.all(rpcs.map((r) => r.stop()));
      built.waiter.stop();
      communities.stop();
      await relay.stop();
      await fake.stop();
      await fakeRecords.stop();
      await nats.close();
      await server.stop();
      await tdb.destroy();
    },
  };
  return env;
}

/** Create a request through the real RPC handler (as communities/records would). */
export async function createRequest(env: Env, input: Record<string, unknown>, identity = { sub: 'system', roles: ['system'] }) {
  return (await env.requests.create(identity, input as never)) as Record<string, any>;
}
