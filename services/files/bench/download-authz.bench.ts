/**
 * Benchmark: download latency of a published public file by how it is authorized.
 *
 *   cd services/files && ../../node_modules/.bin/tsx bench/download-authz.bench.ts
 *
 * One record with one committed file (BENCH_FILE_BYTES, default 64 KiB) on a throw-away schema and
 * a private nats-server; records' `authorize-files` is the in-memory stub of the integration tests
 * (so the RPC's cost here is NATS and serialisation only: the real records service adds its own
 * queries, ~2–3 statements, on top). Per `FILES_LOCAL_AUTHZ` mode, the files app listens on a free
 * port and autocannon runs BENCH_CONNECTIONS (10) connections for BENCH_SECONDS (10 s) after a 2 s
 * warm-up: `off` (before: an RPC per download), `fallback` (the default: the same RPC while records
 * answers), `first` (after: no RPC for public downloads). Prints rps, p50 and p99 per mode.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { ensureStream, SYSTEM } from '@rdm/platform';
import { testLogger, testNats, waitFor } from '@rdm/platform/testing';
import autocannon from 'autocannon';
import { createApp } from '../src/app.js';
import { LocalAccessAuthorizer, type LocalAuthzMode } from '../src/domain/record-access.js';
import { startFilesConsumers } from '../src/events/consumers.js';
import { JetStreamFreshness } from '../src/events/record-access.consumers.js';
import { findRecordAccess } from '../src/repo/record-access.repo.js';
import { RpcFilesAuthorizer } from '../src/rpc/records.client.js';
import { createHarness, makeEngine, SECRET } from '../test/integration/support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const BYTES = Number(process.env.BENCH_FILE_BYTES ?? 64 * 1024);

const h = await createHarness(await makeEngine('local'));
const conn = await testNats(h.nats.url, 'files-bench');
await ensureStream(conn.jsm, { name: 'RECORDS', subjects: ['rdm.records.draft.>', 'rdm.records.record.>'] });
const consumers = startFilesConsumers({ db: h.tdb.db, nats: conn, service: h.service, logger: testLogger('consumers') });
await Promise.all(consumers.map((c) => c.ready));

const id = 'bench-00001';
const rec = h.records.add(id, { owner: 'owner-1', publicFiles: true });
const t = { identity: SYSTEM, recordId: id, scope: 'draft' as const };
await h.service.init(t, [{ key: 'data.bin' }]);
const buf = Buffer.alloc(BYTES, 7);
await h.service.upload(t, 'data.bin', Readable.from([buf]), buf.length);
await h.service.commit(t, 'data.bin');
rec.recordBucket = rec.draftBucket;
const e = {
  id: randomUUID(),
  type: 'rdm.records.record.published',
  version: 1,
  occurred_at: new Date().toISOString(),
  aggregate: { type: 'record', id, revision: 1 },
  data: { id, parent_id: 'bench-parent', index: 1, is_latest: true, access_status: 'open', bucket_id: rec.draftBucket },
};
await conn.js.publish(e.type, JSON.stringify(e), { msgID: e.id });
await waitFor(async () => (await findRecordAccess(h.tdb.db, id)) !== undefined, { message: 'record.published not applied' });

const results: Record<string, { rps: number; p50: number; p99: number; bad: number; rpcCalls: number }> = {};
for (const mode of ['off', 'fallback', 'first'] as LocalAuthzMode[]) {
  const authorizer = new LocalAccessAuthorizer({
    mode,
    rpc: new RpcFilesAuthorizer(conn.nc, 2000),
    find: (rid) => findRecordAccess(h.tdb.db, rid),
    freshness: new JetStreamFreshness(conn.jsm),
  });
  const config = {
    IDENTITY_SECRET: SECRET,
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    FILES_MAX_COUNT: 100,
    FILES_MAX_RECORD_BYTES: 1e9,
    FILES_MAX_FILE_BYTES: 1e9,
    FILES_UPLOAD_STALE_MS: 3_600_000,
    FILES_JANITOR_INTERVAL_MS: 60_000,
  };
  const { app } = createApp({ config, logger: testLogger('files-bench'), db: h.tdb.db, storage: h.engine.storage, authorizer });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/records/${id}/files/data.bin/content`;
  await autocannon({ url, connections: CONNECTIONS, duration: 2 });
  const calls = h.records.calls.length;
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  results[mode] = {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors + r.timeouts,
    rpcCalls: h.records.calls.length - calls,
  };
  await new Promise((r) => server.close(r));
}

console.log(`\n=== files download-authz bench summary (${CONNECTIONS} connections, ${SECONDS} s, ${BYTES} B file) ===`);
for (const [mode, r] of Object.entries(results))
  console.log(
    `  ${mode.padEnd(9)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  non-2xx ${r.bad}  records RPCs ${r.rpcCalls}`,
  );
for (const c of consumers) await c.stop();
await conn.close();
await h.close();
await h.engine.dispose();
