/**
 * Test support of the communities integration tests: a private nats-server (so no dev stack
 * answers our RPCs), fake responders of users (`get-users`), vocabularies (`resolve`) and
 * requests (`create`, `count-open`) on real NATS, a local storage folder, and a harness that
 * builds the real app with the real RPC clients on a fresh schema.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Identity, LocalStorage, type NatsHandle, type RpcServer, serveRpc } from '@rdm/platform';
import {
  type NatsServerProcess,
  spawnNatsServer,
  type TestDb,
  testDb,
  testLogger,
  testNats,
  testIdentityHeader,
} from '@rdm/platform/testing';
import { createApp, type CommunitiesApp } from '../../src/app.js';
import type { CreateRequestInput, UserInfo } from '../../src/domain/ports.js';
import type { Role } from '../../src/domain/roles.js';
import { insertMember } from '../../src/repo/members.repo.js';
import { RpcRecordsUsageClient, RpcRequestsClient, RpcUsersClient, RpcVocabulariesClient } from '../../src/rpc/clients.js';
import { serveCommunitiesRpc } from '../../src/rpc/communities.rpc.js';

/** Identity secret of the tests. */
export const SECRET = 'communities-integration-secret';
/** Public base URL of the tests. */
export const BASE = 'https://repo.test';

/** Headers carrying a signed identity (none for anonymous). */
export function as(sub: string | null, roles: string[] = []): Record<string, string> {
  if (sub === null) return {};
  return testIdentityHeader({ sub, roles } as Identity, SECRET);
}
/** An administrator. */
export const ADMIN = as('1', ['admin']);

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

/** Vocabulary entries the fake resolver knows. */
const VOCAB: Record<string, Record<string, unknown>> = {
  'communitytypes:project': { id: 'project', title: { en: 'Project' }, props: {}, tags: [], type: 'communitytypes' },
  'communitytypes:event': { id: 'event', title: { en: 'Event' }, props: {}, tags: [], type: 'communitytypes' },
  'affiliations:01ggx4157': {
    id: '01ggx4157',
    title: { en: 'CERN' },
    name: 'CERN',
    identifiers: [{ identifier: '01ggx4157', scheme: 'ror' }],
    props: {},
    tags: [],
    type: 'affiliations',
  },
  'funders:00k4n6c32': {
    id: '00k4n6c32',
    title: { en: 'European Commission' },
    name: 'European Commission',
    props: {},
    tags: [],
    type: 'funders',
  },
  'awards:00k4n6c32::755021': {
    id: '00k4n6c32::755021',
    title: { en: 'Personalised Treatment' },
    number: '755021',
    acronym: 'PT',
    identifiers: [{ identifier: 'https://cordis.europa.eu/project/id/755021', scheme: 'url' }],
    props: {},
    tags: [],
    type: 'awards',
  },
};

/** The running harness. */
export interface Harness {
  sut: CommunitiesApp;
  db: TestDb;
  nats: NatsHandle & { close(): Promise<void> };
  server: NatsServerProcess;
  users: Map<string, UserInfo>;
  /** Requests the fake requests service created, by key. */
  created: Map<string, { input: CreateRequestInput; request: Record<string, unknown> }>;
  /** Open requests per receiver community id (count-open). */
  open: Map<string, number>;
  /** Usage totals the stand-in records service answers per community id (community-usage). */
  usage: Map<string, { views: number; downloads: number }>;
  /** Comments sent with `rdm.requests.rpc.comment`, in order. */
  comments: { id: string; identity: unknown; payload: { content: string; format: string } }[];
  storageDir: string;
  /** Another app over the same database, storage and NATS with other settings. */
  appWith(config: Partial<Parameters<typeof createApp>[0]['config']>, deps?: Partial<Parameters<typeof createApp>[0]>): CommunitiesApp;
  /** Make users members with these roles (test fixture, straight into the table). */
  seed(communityId: string, roles: Record<string, Role>, visible?: boolean): Promise<void>;
  stop(): Promise<void>;
}

/** Start everything; `config` overrides the app configuration. */
export async function startHarness(config: Partial<Parameters<typeof createApp>[0]['config']> = {}): Promise<Harness> {
  const server = spawnNatsServer({ port: await freePort() });
  await server.start();
  const nats = await testNats(server.url);
  const db = await testDb('communities');
  const storageDir = mkdtempSync(join(tmpdir(), 'communities-logos-'));
  const storage = new LocalStorage(storageDir);
  await storage.init();
  const logger = testLogger('communities');
  const users = new Map<string, UserInfo>();
  for (const [id, name] of [
    ['1', 'Ada Admin'],
    ['2', 'Olga Owner'],
    ['3', 'Max Manager'],
    ['4', 'Cora Curator'],
    ['5', 'Rita Reader'],
    ['6', 'Otto Outsider'],
    ['7', 'Ivy Invitee'],
  ]) {
    users.set(id, {
      id,
      username: name.split(' ')[0].toLowerCase(),
      full_name: name,
      email: `${name.split(' ')[0].toLowerCase()}@example.org`,
      active: true,
    });
  }
  users.set('8', { id: '8', username: 'gone', full_name: 'Gone', email: 'gone@example.org', active: false });
  const created = new Map<string, { input: CreateRequestInput; request: Record<string, unknown> }>();
  const open = new Map<string, number>();
  const usage = new Map<string, { views: number; downloads: number }>();
  const comments: Harness['comments'] = [];
  const stubs: RpcServer[] = [
    serveRpc<{ ids: string[] }>(
      nats.nc,
      'rdm.users.rpc.get-users',
      async (req) => ({ users: req.ids.map((i) => users.get(i)).filter(Boolean) }),
      {
        queue: 'users',
        logger,
      },
    ),
    serveRpc<{ items: { type: string; id: string }[] }>(
      nats.nc,
      'rdm.vocabularies.rpc.resolve',
      async (req) => ({
        items: req.items.map((it) => {
          const e = VOCAB[`${it.type}:${it.id}`];
          return e ? { ...it, found: true, entry: e } : { ...it, found: false };
        }),
      }),
      { queue: 'vocabularies', logger },
    ),
    serveRpc<CreateRequestInput>(
      nats.nc,
      'rdm.requests.rpc.create',
      async (input) => {
        const key = input.key ?? randomUUID();
        const prior = created.get(key);
        if (prior) return { request: prior.request };
        const request = {
          id: randomUUID(),
          number: String(created.size + 1),
          type: input.type,
          status: 'submitted',
          is_open: true,
          title: input.title,
          expires_at: new Date(Date.now() + 30 * 86400_000).toISOString(),
          created_by: input.created_by,
          receiver: input.receiver,
          topic: input.topic,
        };
        created.set(key, { input, request });
        return { request };
      },
      { queue: 'requests', logger },
    ),
    serveRpc<Harness['comments'][number]>(
      nats.nc,
      'rdm.requests.rpc.comment',
      async (req) => {
        comments.push(req);
        return { comment: { id: randomUUID(), type: 'C', payload: req.payload } };
      },
      { queue: 'requests', logger },
    ),
    serveRpc<{ community_id: string }>(
      nats.nc,
      'rdm.records.rpc.community-usage',
      async (req) => usage.get(req.community_id) ?? { views: 0, downloads: 0 },
      { queue: 'records', logger },
    ),
    serveRpc<{ receiver: { community: string } }>(
      nats.nc,
      'rdm.requests.rpc.count-open',
      async (req) => ({ count: open.get(req.receiver.community) ?? 0 }),
      {
        queue: 'requests',
        logger,
      },
    ),
  ];
  // Why: the subscriptions must reach the server before the first request (no-responders race).
  await nats.nc.flush();
  const appWith = (over: Partial<Parameters<typeof createApp>[0]['config']>, deps: Partial<Parameters<typeof createApp>[0]> = {}) =>
    createApp({
      config: {
        IDENTITY_SECRET: SECRET,
        PUBLIC_BASE_URL: BASE,
        COMMUNITY_CREATORS: 'admins',
        COMMUNITIES_LOGO_MAX_BYTES: 1_000_000,
        COMMUNITIES_ALLOW_MEMBERSHIP_REQUESTS: true,
        ...config,
        ...over,
      },
      logger,
      db: db.db,
      storage,
      users: new RpcUsersClient(nats.nc, 5000),
      vocabularies: new RpcVocabulariesClient(nats.nc, 5000),
      requests: new RpcRequestsClient(nats.nc, 5000),
      // No cache in tests: each read asks the stand-in.
      usage: new RpcRecordsUsageClient(nats.nc, 5000, 0),
      ...deps,
    });
  const sut = appWith({});
  const seed = async (communityId: string, roles: Record<string, Role>, visible = false) => {
    await db.db.transaction(async (trx) => {
      for (const [uid, role] of Object.entries(roles)) {
        const u = users.get(uid);
        await insertMember(trx, {
          id: randomUUID(),
          community_id: communityId,
          member_type: 'user',
          member_id: uid,
          role,
          visible,
          active: true,
          name: u?.full_name ?? '',
          username: u?.username ?? null,
          email: u?.email ?? null,
          affiliations: '',
          request_id: null,
          request_type: null,
          request_status: null,
          request_expires_at: null,
        });
      }
    });
  };
  const rpcs = serveCommunitiesRpc(nats.nc, { communities: sut.communities, members: sut.members, extensions: sut.extensions, logger });
  await nats.nc.flush();
  return {
    sut,
    db,
    nats,
    server,
    users,
    created,
    open,
    usage,
    comments,
    storageDir,
    appWith,
    seed,
    async stop() {
      await Promise.all([...stubs, ...rpcs].map((s) => s.stop()));
      await nats.close();
      await db.destroy();
      await server.dispose();
      rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

/** A minimal valid create body. */
export function communityBody(slug: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    slug,
    metadata: { title: `Community ${slug}`, description: 'About oceans', type: { id: 'project' } },
    access: { visibility: 'public' },
    ...extra,
  };
}
