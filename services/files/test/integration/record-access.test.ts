/**
 * The local, event-fed copy of records' file access against a real (private) nats-server and
 * PostgreSQL: records' events fill `record_access`; a published public file downloads while the
 * records service is stopped (no responder); restricted, deleted, listed or draft files never come
 * from the copy; `first` mode serves public downloads without asking records.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type ConsumerHandle, ensureStream, SYSTEM, validateEvent } from '@rdm/platform';
import { testLogger, testNats, waitFor } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { FilesTarget } from '../../src/domain/authorizer.js';
import { LocalAccessAuthorizer, type LocalAuthzMode } from '../../src/domain/record-access.js';
import { startFilesConsumers } from '../../src/events/consumers.js';
import { JetStreamFreshness } from '../../src/events/record-access.consumers.js';
import { findRecordAccess } from '../../src/repo/record-access.repo.js';
import { RpcFilesAuthorizer } from '../../src/rpc/records.client.js';
import { createHarness, type Harness, makeEngine, SECRET } from './support.js';
import { gatewayFront } from '@rdm/platform/testing';

describe('files authorize public downloads from the copy of records access', () => {
  let h: Harness;
  let conn: Awaited<ReturnType<typeof testNats>>;
  let consumers: ConsumerHandle[] = [];

  /** An app over the harness's database and storage whose authorizer uses the copy in `mode`. */
  function appIn(mode: LocalAuthzMode) {
    const authorizer = new LocalAccessAuthorizer({
      mode,
      rpc: new RpcFilesAuthorizer(conn.nc, 1000),
      find: (id) => findRecordAccess(h.tdb.db, id),
      freshness: new JetStreamFreshness(conn.jsm, { cacheMs: 0 }),
    });
    const config = {
      IDENTITY_SECRET: SECRET,
      PUBLIC_BASE_URL: 'https://rdm.example.org',
      FILES_MAX_COUNT: 100,
      FILES_MAX_RECORD_BYTES: 1_000_000,
      FILES_MAX_FILE_BYTES: 1_000_000,
      FILES_UPLOAD_STALE_MS: 3_600_000,
      FILES_JANITOR_INTERVAL_MS: 60_000,
    };
    return gatewayFront(
      createApp({ config, logger: testLogger('files-copy'), db: h.tdb.db, storage: h.engine.storage, authorizer }).app.callback(),
      SECRET,
    );
  }

  const envelope = (type: string, data: Record<string, unknown>) => ({
    id: randomUUID(),
    type,
    version: 1,
    occurred_at: new Date().toISOString(),
    aggregate: { type: 'record', id: String(data.id), revision: 1 },
    data,
  });
  async function emit(type: string, data: Record<string, unknown>): Promise<void> {
    const e = envelope(type, data);
    // As records' outbox would: only an event its schema admits is ever published.
    validateEvent(type, e);
    await conn.js.publish(type, JSON.stringify(e), { msgID: e.id });
    await waitFor(async () => (await h.tdb.db('inbox').where({ message_id: e.id }).first()) !== undefined, {
      message: `${type} not applied`,
    });
  }

  /** A record published by the stub records service, announced with `access_status`. */
  async function published(accessStatus: 'open' | 'restricted' | 'embargoed'): Promise<string> {
    const id = `rec${randomUUID().slice(0, 2)}-${randomUUID().slice(0, 5)}`;
    const rec = h.records.add(id, {
      owner: 'owner-1',
      publicFiles: accessStatus === 'open',
      order: ['data.csv'],
      default_preview: 'data.csv',
    });
    const t: FilesTarget = { identity: SYSTEM, recordId: id, scope: 'draft' };
    await h.service.init(t, [{ key: 'data.csv' }]);
    const buf = Buffer.from(`a,b\n1,${id}\n`);
    await h.service.upload(t, 'data.csv', Readable.from([buf]), buf.length);
    await h.service.commit(t, 'data.csv');
    rec.recordBucket = rec.draftBucket;
    await emit('rdm.records.record.published', {
      id,
      parent_id: `par-${id}`,
      index: 1,
      is_latest: true,
      access_status: accessStatus,
      bucket_id: rec.draftBucket,
    });
    return id;
  }
  const content = (app: ReturnType<typeof appIn>, id: string) => request(app).get(`/api/records/${id}/files/data.csv/content`);

  beforeAll(async () => {
    h = await createHarness(await makeEngine('local'));
    conn = await testNats(h.nats.url, 'files-copy');
    await ensureStream(conn.jsm, { name: 'RECORDS', subjects: ['rdm.records.draft.>', 'rdm.records.record.>'] });
    // The quota-increase consumer follows the requests service's stream.
    await ensureStream(conn.jsm, { name: 'REQUESTS', subjects: ['rdm.requests.request.>'] });
    consumers = startFilesConsumers({ db: h.tdb.db, nats: conn, service: h.service, logger: testLogger('consumers') });
    await Promise.all(consumers.map((c) => c.ready));
  });

  afterAll(async () => {
    for (const c of consumers) await c.stop();
    await conn?.close();
    await h?.close();
    await h?.engine.dispose();
  });

  it('should keep each published version in the copy, deletions and embargo lifts applied in stream order', async () => {
    const id = await published('embargoed');
    expect(await findRecordAccess(h.tdb.db, id)).toMatchObject({ access_status: 'embargoed', deleted: false });
    await emit('rdm.records.record.embargo-lifted', { id, parent_id: `par-${id}`, access_status: 'open' });
    expect(await findRecordAccess(h.tdb.db, id)).toMatchObject({ access_status: 'open', deleted: false });
    const bucket = (await findRecordAccess(h.tdb.db, id))!.bucket_id;
    await emit('rdm.records.record.deleted', { id, parent_id: `par-${id}`, bucket_id: bucket, removal_reason: 'spam', is_visible: true });
    expect((await findRecordAccess(h.tdb.db, id))?.deleted).toBe(true);
    await emit('rdm.records.record.restored', { id, parent_id: `par-${id}`, bucket_id: bucket });
    const row = await findRecordAccess(h.tdb.db, id);
    expect(row?.deleted).toBe(false);
    // An older event (lower stream sequence) changes nothing.
    await h.tdb.db.raw('UPDATE record_access SET seq = seq + 1000000 WHERE record_id = ?', [id]);
    await emit('rdm.records.record.deleted', { id, parent_id: `par-${id}`, bucket_id: bucket, removal_reason: 'spam', is_visible: true });
    expect((await findRecordAccess(h.tdb.db, id))?.deleted).toBe(false);
  });

  // Issue 19, item 2: `removal_reason` became optional (a deletion with `{}`); the consumer must not need it.
  it('should apply a deletion that carries no removal reason', async () => {
    const id = await published('open');
    const bucket = (await findRecordAccess(h.tdb.db, id))!.bucket_id;
    await emit('rdm.records.record.deleted', { id, parent_id: `par-${id}`, bucket_id: bucket, is_visible: true });
    expect((await findRecordAccess(h.tdb.db, id))?.deleted).toBe(true);
  });

  it('first: a public download asks records nothing; restricted files are still decided by records', async () => {
    const app = appIn('first');
    const open = await published('open');
    const before = h.records.calls.length;
    const res = await content(app, open);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain(open);
    expect(h.records.calls.length).toBe(before);
    const restricted = await published('restricted');
    expect((await content(app, restricted)).status).toBe(403);
    expect(h.records.calls.length).toBeGreaterThan(before);
  });

  it('fallback: a published public file downloads while records is stopped; nothing else comes from the copy', async () => {
    const app = appIn('fallback');
    const open = await published('open');
    const restricted = await published('restricted');
    const deleted = await published('open');
    await emit('rdm.records.record.deleted', {
      id: deleted,
      parent_id: `par-${deleted}`,
      bucket_id: 'x',
      removal_reason: 'spam',
      is_visible: true,
    });
    h.records.records.get(deleted)!.deleted = true;
    const draft = await published('open');

    // Records up: its answers, as before (410 for the deleted one).
    const calls = h.records.calls.length;
    expect((await content(app, open)).status).toBe(200);
    expect(h.records.calls.length).toBe(calls + 1);
    expect((await content(app, deleted)).status).toBe(410);

    // Records stopped: no responder on authorize-files.
    await h.records.stop();
    const res = await content(app, open);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain(open);
    expect((await request(app).get(`/api/records/${open}/files/data.csv`)).status).toBe(200);
    expect((await content(app, restricted)).status).toBe(503);
    expect((await content(app, deleted)).status).toBe(503);
    expect((await request(app).get(`/api/records/${open}/files`)).status).toBe(503);
    expect((await request(app).get(`/api/records/${draft}/draft/files/data.csv/content`)).status).toBe(503);
    expect((await request(app).get(`/api/records/${open}/files/data.csv/content?token=abc`)).status).toBe(503);
  });
});
