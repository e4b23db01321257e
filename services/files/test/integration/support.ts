/**
 * Test support for the files service integration tests: a private nats-server (so neither a dev
 * stack nor another test run answers our RPCs), a stub of `rdm.records.rpc.authorize-files`, the
 * two storage engines against real servers (local folder, MinIO/S3), and a harness that builds the
 * real app on a fresh schema.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, Errors, type Identity, type RpcServer, SYSTEM, serveRpc } from '@rdm/platform';
import {
  type NatsServerProcess,
  type TestDb,
  spawnNatsServer,
  testDb,
  testLogger,
  testNats,
  uniqueId,
  testIdentityHeader,
} from '@rdm/platform/testing';
import { createApp, type FilesApp } from '../../src/app.js';
import type { AuthorizeFilesRequest, BucketGrant } from '../../src/domain/authorizer.js';
import { GrantCache } from '../../src/domain/grant-cache.js';
import { RpcFilesAuthorizer } from '../../src/rpc/records.client.js';
import { LocalStorage, type ObjectStorage } from '../../src/storage/index.js';
import { S3Storage } from '@rdm/platform/storage/s3';
import { describe } from 'vitest';

/** True under CI: a missing S3 server must fail, not skip. */
export const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

/** Identity secret of the tests. */
export const SECRET = 'files-integration-test-secret';

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

/** Start a private nats-server with JetStream on a free port. */
export async function privateNats(): Promise<NatsServerProcess> {
  const server = spawnNatsServer({ port: await freePort() });
  await server.start();
  return server;
}

/** Signed identity header of a user (or anonymous when `sub` is null). */
export function identityHeader(sub: string | null, roles: string[] = []): Record<string, string> {
  if (sub === null && roles.length === 0) return {};
  return testIdentityHeader({ sub, roles } as Identity, SECRET);
}

/** A record as the stub records service knows it. */
export interface StubRecord {
  /** Draft bucket and record bucket (a published record's files live in `recordBucket`). */
  draftBucket?: string;
  recordBucket?: string;
  owner: string | null;
  enabled?: boolean;
  /** Draft files locked by records (edit draft of a published record). */
  draftLocked?: boolean;
  /** Published record files readable by anyone. */
  publicFiles?: boolean;
  default_preview?: string | null;
  order?: string[];
  deleted?: boolean;
  /** Media-files buckets of the draft and the record, and whether media files are enabled (default: enabled). */
  mediaDraftBucket?: string;
  mediaRecordBucket?: string;
  mediaEnabled?: boolean;
  /** Answer media grants like a records service that predates them (the files grant, no echo). */
  noMediaSupport?: boolean;
  /** Descriptive metadata answered to `with_metadata` (IIIF manifests). */
  metadata?: BucketGrant['metadata'];
}

/** Stub of the records service's authorize-files RPC, with the records' permission rules reduced to owner/public. */
export class StubRecords {
  readonly records = new Map<string, StubRecord>();
  readonly calls: AuthorizeFilesRequest[] = [];
  private server?: RpcServer;

  /** Serve the stub on `nc`. */
  serve(nc: Parameters<typeof serveRpc>[0]): void {
    this.server = serveRpc<AuthorizeFilesRequest, BucketGrant>(nc, 'rdm.records.rpc.authorize-files', async (req) => this.answer(req), {
      queue: 'records',
      logger: testLogger('stub-records'),
    });
  }

  /** Add a record with a fresh draft bucket. */
  add(id: string, r: Partial<StubRecord> & { owner: string | null }): StubRecord {
    const rec: StubRecord = { draftBucket: `bkt-${uniqueId()}`, enabled: true, publicFiles: true, ...r };
    this.records.set(id, rec);
    return rec;
  }

  private answer(req: AuthorizeFilesRequest): BucketGrant {
    this.calls.push(req);
    const rec = this.records.get(req.record_id);
    if (!rec) throw Errors.pidDoesNotExist();
    if (rec.deleted) throw Errors.gone();
    const isSystem = req.identity.roles.includes('system') || req.identity.roles.includes('admin');
    const isOwner = req.identity.sub !== null && req.identity.sub === rec.owner;
    const media = req.bucket === 'media' && !rec.noMediaSupport;
    let bucket: string | undefined;
    let locked = false;
    if (req.scope === 'draft') {
      if (!rec.draftBucket) throw Errors.pidDoesNotExist();
      if (!isSystem && !isOwner) throw Errors.permissionDenied();
      bucket = media ? rec.mediaDraftBucket : rec.draftBucket;
      // An edit draft's media bucket is its own copy: never locked (InvenioRDM).
      locked = media ? false : !!rec.draftLocked;
    } else {
      if (!rec.recordBucket) throw Errors.pidNotRegistered();
      if (req.action === 'update' && !isSystem) throw Errors.permissionDenied();
      if (!rec.publicFiles && !isSystem && !isOwner) throw Errors.permissionDenied();
      bucket = media ? rec.mediaRecordBucket : rec.recordBucket;
      locked = true;
    }
    if (!bucket) throw Errors.pidDoesNotExist();
    return {
      ...(media ? { bucket: 'media' as const } : {}),
      bucket_id: bucket,
      record_id: req.record_id,
      enabled: media ? rec.mediaEnabled !== false : rec.enabled !== false,
      locked,
      default_preview: rec.default_preview ?? null,
      order: rec.order ?? [],
      ...(req.with_metadata ? { metadata: rec.metadata ?? {} } : {}),
    };
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }
}

/** Connection settings of the S3 server of the tests (MinIO from scripts/infra/minio.sh by default). */
export const S3_SETTINGS = {
  endpoint: process.env.S3_ENDPOINT ?? 'http://127.0.0.1:9000',
  accessKey: process.env.S3_ACCESS_KEY ?? 'rdmminio',
  secretKey: process.env.S3_SECRET_KEY ?? 'rdmminiosecret',
  region: process.env.S3_REGION ?? 'us-east-1',
};

/** Is the S3 server up? (MinIO's liveness endpoint, else any HTTP answer.) */
export async function s3Available(): Promise<boolean> {
  try {
    const res = await fetch(`${S3_SETTINGS.endpoint}/minio/health/live`, { signal: AbortSignal.timeout(2000) });
    return res.status < 500;
  } catch {
    return false;
  }
}

/**
 * `describe.each` over both storage engines. The S3 cases are always declared: when the S3 server
 * is down outside CI they are skipped — counted and named as skipped by `make test`'s summary, not
 * left out of the run; under CI they run, and their beforeAll fails on the missing server.
 */
export function describeEngines(s3Up: boolean, name: string, body: (kind: 'local' | 's3') => void): void {
  describe.each(['local'] as const)(name, body);
  describe.skipIf(!s3Up && !CI).each(['s3'] as const)(name, body);
}

/** Message shown when S3 is missing. */
export const S3_MISSING = `S3 server not reachable at ${S3_SETTINGS.endpoint}: start it with \`bash scripts/infra/minio.sh start\` (under CI this fails the run).`;

/** A storage engine of the tests with its cleanup. */
export interface TestEngine {
  kind: 'local' | 's3';
  storage: ObjectStorage;
  /** Every key in storage (for "nothing left behind" checks), partial files and incomplete multipart uploads included. */
  leftovers(): Promise<string[]>;
  dispose(): Promise<void>;
}

/** Create a fresh engine: a temp folder, or a fresh S3 bucket. */
export async function makeEngine(kind: 'local' | 's3', opts: { partSize?: number } = {}): Promise<TestEngine> {
  if (kind === 'local') {
    const dir = mkdtempSync(join(tmpdir(), 'rdm-files-'));
    const storage = new LocalStorage(dir);
    await storage.init();
    return {
      kind,
      storage,
      async leftovers() {
        const out: string[] = [];
        for await (const k of storage.list('')) out.push(k);
        return out;
      },
      async dispose() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const bucket = `rdm-files-test-${uniqueId()}`;
  const storage = new S3Storage({ ...S3_SETTINGS, bucket, partSize: opts.partSize ?? 5 * 1024 * 1024 });
  await storage.init();
  return {
    kind,
    storage,
    async leftovers() {
      const out: string[] = [];
      for await (const k of storage.list('')) out.push(k);
      for (const k of await storage.incompleteUploads('')) out.push(`(incomplete multipart) ${k}`);
      return out;
    },
    async dispose() {
      const keys: string[] = [];
      for await (const k of storage.list('')) keys.push(k);
      if (keys.length > 0) await storage.client.removeObjects(bucket, keys);
      for (const k of await storage.incompleteUploads('')) await storage.client.removeIncompleteUpload(bucket, k).catch(() => undefined);
      await storage.client.removeBucket(bucket).catch(() => undefined);
    },
  };
}

/** Limits of a harness (defaults as in production but small enough to test). */
export interface HarnessLimits {
  FILES_MAX_COUNT?: number;
  FILES_MAX_RECORD_BYTES?: number;
  FILES_MAX_FILE_BYTES?: number;
}

/** Everything an HTTP test needs. */
export interface Harness extends FilesApp {
  tdb: TestDb;
  engine: TestEngine;
  records: StubRecords;
  nats: NatsServerProcess;
  close(): Promise<void>;
}

/** Build the real app over a fresh schema, a private NATS with the records stub, and `engine` (`grantCacheMs`: the authorizer wrapped as in production, domain/grant-cache.ts). */
export async function createHarness(
  engine: TestEngine,
  limits: HarnessLimits = {},
  o: { grantCacheMs?: number; iiif?: Partial<Record<`FILES_IIIF_${string}`, number>> } = {},
): Promise<Harness> {
  const nats = await privateNats();
  const tdb = await testDb('files');
  const stubConn = await testNats(nats.url, 'stub-records');
  const appConn = await testNats(nats.url, 'files-test');
  const records = new StubRecords();
  records.serve(stubConn.nc);
  // Why: the stub's SUB must reach the server before the app's first request, or NATS answers
  // "no responders" (a 503) — a race that showed under load.
  await stubConn.nc.flush();
  const built = createApp({
    config: {
      IDENTITY_SECRET: SECRET,
      PUBLIC_BASE_URL: 'https://rdm.example.org',
      FILES_MAX_COUNT: limits.FILES_MAX_COUNT ?? 100,
      FILES_MAX_RECORD_BYTES: limits.FILES_MAX_RECORD_BYTES ?? 50_000_000_000,
      FILES_MAX_FILE_BYTES: limits.FILES_MAX_FILE_BYTES as number,
      FILES_UPLOAD_STALE_MS: 24 * 3600 * 1000,
      FILES_JANITOR_INTERVAL_MS: 60_000,
      ...o.iiif,
    },
    logger: testLogger('files'),
    db: tdb.db,
    storage: engine.storage,
    authorizer: o.grantCacheMs
      ? new GrantCache(new RpcFilesAuthorizer(appConn.nc, 5000), { ttlMs: o.grantCacheMs })
      : new RpcFilesAuthorizer(appConn.nc, 5000),
    nc: appConn.nc,
  });
  return {
    ...built,
    tdb,
    engine,
    records,
    nats,
    async close() {
      await records.stop();
      await stubConn.close();
      await appConn.close();
      await tdb.destroy();
      await nats.dispose();
    },
  };
}

/** Re-export for tests that build errors. */
export { AppError, SYSTEM };
