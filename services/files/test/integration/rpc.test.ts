/**
 * The files service's NATS side against a real (private) nats-server and PostgreSQL: the
 * `rdm.files.rpc.*` handlers, the consumers of records' events (with inbox dedupe), and the
 * outbox relay publishing `rdm.files.file.committed` to the FILES stream.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type ConsumerHandle, OutboxRelay, type RpcServer, SYSTEM, callRpc, ensureStream } from '@rdm/platform';
import { testLogger, testNats, waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FilesTarget } from '../../src/domain/authorizer.js';
import { startFilesConsumers } from '../../src/events/consumers.js';
import { serveFilesRpc } from '../../src/rpc/files.rpc.js';
import { type Harness, createHarness, makeEngine } from './support.js';

describe('files RPC, consumers and outbox over NATS', () => {
  let h: Harness;
  let client: Awaited<ReturnType<typeof testNats>>;
  let server: Awaited<ReturnType<typeof testNats>>;
  let rpcs: RpcServer[];
  let consumers: ConsumerHandle[] = [];
  const rpc = <T = any>(name: string, payload: unknown) => callRpc<T>(client.nc, `rdm.files.rpc.${name}`, payload, { timeoutMs: 5000 });

  /** Create a draft with committed files through the service; returns its bucket. */
  async function draftWith(recordId: string, files: Record<string, string>): Promise<string> {
    const rec = h.records.add(recordId, { owner: 'owner' });
    const t: FilesTarget = { identity: SYSTEM, recordId, scope: 'draft' };
    await h.service.init(
      t,
      Object.keys(files).map((key) => ({ key })),
    );
    for (const [key, text] of Object.entries(files)) {
      const buf = Buffer.from(text);
      await h.service.upload(t, key, Readable.from([buf]), buf.length);
      await h.service.commit(t, key);
    }
    return rec.draftBucket!;
  }

  async function objectsInStorage(): Promise<string[]> {
    return (await h.engine.leftovers()).filter((k) => k.startsWith('objects/')).sort();
  }

  beforeAll(async () => {
    h = await createHarness(await makeEngine('local'));
    server = await testNats(h.nats.url, 'files-rpc');
    client = await testNats(h.nats.url, 'records-client');
    rpcs = serveFilesRpc(server.nc, h.service, testLogger('files-rpc'));
    // Why: a request sent before the server has the subscriptions finds no responder (503).
    await Promise.all(rpcs.map((r) => r.ready));
  });

  afterAll(async () => {
    for (const c of consumers) await c.stop();
    for (const r of rpcs ?? []) await r.stop();
    await client?.close();
    await server?.close();
    await h?.close();
    await h?.engine.dispose();
  });

  it('should answer an empty, unlocked manifest for an unknown bucket', async () => {
    expect(await rpc('manifest', { bucket_id: 'never-seen' })).toEqual({
      bucket_id: 'never-seen',
      locked: false,
      entries: [],
      count: 0,
      total_bytes: 0,
      pending: 0,
    });
  });

  it('should validate requests (400 with field errors)', async () => {
    await expect(rpc('manifest', {})).rejects.toMatchObject({
      status: 400,
      fieldErrors: [{ field: 'bucket_id', messages: ['Missing data for required field.'] }],
    });
    await expect(rpc('import', { from_bucket_id: 'a' })).rejects.toMatchObject({ status: 400 });
  });

  it('should describe every entry of a bucket in the manifest shape', async () => {
    const bucket = await draftWith('mani1-00001', { 'Paper.PDF': 'pdf bytes', 'data.csv': 'a,b' });
    await h.service.init({ identity: SYSTEM, recordId: 'mani1-00001', scope: 'draft' }, [{ key: 'later.txt' }]);
    const m = await rpc('manifest', { bucket_id: bucket });
    expect(m).toMatchObject({ bucket_id: bucket, locked: false, count: 3, total_bytes: 12, pending: 1 });
    expect(m.entries[0]).toEqual({
      id: expect.any(String),
      key: 'Paper.PDF',
      checksum: `md5:${createHash('md5').update('pdf bytes').digest('hex')}`,
      ext: 'pdf',
      size: 9,
      mimetype: 'application/pdf',
      storage_class: 'L',
      metadata: null,
      access: { hidden: false },
      status: 'completed',
      created: expect.stringMatching(/\+00:00$/),
      updated: expect.any(String),
      file_id: expect.any(String),
      version_id: expect.any(String),
      bucket_id: bucket,
    });
    expect(m.entries[2]).toMatchObject({ key: 'later.txt', status: 'pending', checksum: null, size: null, file_id: null, ext: 'txt' });
  });

  it('should lock with if_complete only a bucket whose entries are all committed, and never create one', async () => {
    const bucket = await draftWith('lock3-00003', { 'a.txt': 'a' });
    await h.service.init({ identity: SYSTEM, recordId: 'lock3-00003', scope: 'draft' }, [{ key: 'b.txt' }]);
    expect(await rpc('lock', { bucket_id: bucket, if_complete: true })).toMatchObject({ locked: false, count: 2, pending: 1 });
    expect((await h.tdb.db('buckets').where({ id: bucket }).first()).locked).toBe(false);
    await h.service.removeAll({ identity: SYSTEM, recordId: 'lock3-00003', scope: 'draft' });
    expect(await rpc('lock', { bucket_id: bucket, if_complete: true })).toMatchObject({ locked: false, count: 0 });
    expect(await rpc('lock', { bucket_id: 'never-seen-2', if_complete: true })).toEqual({
      bucket_id: 'never-seen-2',
      locked: false,
      entries: [],
      count: 0,
      total_bytes: 0,
      pending: 0,
    });
    expect(await h.tdb.db('buckets').where({ id: 'never-seen-2' }).first()).toBeUndefined();
    const full = await draftWith('lock4-00004', { 'c.txt': 'c' });
    const first = await rpc('lock', { bucket_id: full, if_complete: true });
    expect(first).toMatchObject({ bucket_id: full, locked: true, count: 1, pending: 0 });
    expect(await rpc('lock', { bucket_id: full, if_complete: true })).toEqual(first);
    await expect(rpc('lock', { bucket_id: full, if_complete: 'yes' })).rejects.toMatchObject({ status: 400 });
  });

  it('should lock idempotently and refuse writes afterwards', async () => {
    const bucket = await draftWith('lock1-00002', { 'a.txt': 'a' });
    const first = await rpc('lock', { bucket_id: bucket });
    expect(first).toMatchObject({ bucket_id: bucket, locked: true, count: 1 });
    expect(await rpc('lock', { bucket_id: bucket })).toEqual(first);
    await expect(h.service.init({ identity: SYSTEM, recordId: 'lock1-00002', scope: 'draft' }, [{ key: 'b.txt' }])).rejects.toMatchObject({
      status: 403,
      message: 'Bucket is locked for modifications.',
    });
    await expect(rpc('delete-bucket', { bucket_id: bucket })).rejects.toMatchObject({ status: 403 });
  });

  it('should import files by linking objects (no bytes copied) and keep them while any version uses them', async () => {
    const v1 = await draftWith('vers1-00003', { 'a.txt': 'version one a', 'b/c.txt': 'version one c' });
    await rpc('lock', { bucket_id: v1 });
    const before = await objectsInStorage();
    const v2 = `bkt-${randomUUID()}`;
    const m = await rpc('import', { from_bucket_id: v1, to_bucket_id: v2 });
    const src = await rpc('manifest', { bucket_id: v1 });
    expect(m).toMatchObject({ bucket_id: v2, locked: false, count: 2, total_bytes: 26, pending: 0 });
    expect(m.entries.map((e: any) => [e.key, e.file_id, e.checksum])).toEqual(src.entries.map((e: any) => [e.key, e.file_id, e.checksum]));
    expect(m.entries.every((e: any, i: number) => e.id !== src.entries[i].id && e.version_id !== src.entries[i].version_id)).toBe(true);
    expect(await objectsInStorage()).toEqual(before);
    const refs = await h.tdb
      .db('objects')
      .whereIn(
        'id',
        m.entries.map((e: any) => e.file_id),
      )
      .select('refcount');
    expect(refs.map((r: any) => r.refcount)).toEqual([2, 2]);

    // Importing again: the target is not empty any more.
    await expect(rpc('import', { from_bucket_id: v1, to_bucket_id: v2 })).rejects.toMatchObject({
      status: 400,
      fieldErrors: [{ field: 'files.enabled', messages: ['Please remove all files first.'] }],
    });
    // Deleting the new version's bucket keeps the objects of version 1.
    expect(await rpc('delete-bucket', { bucket_id: v2 })).toEqual({ deleted: true });
    expect(await rpc('delete-bucket', { bucket_id: v2 })).toEqual({ deleted: false });
    expect(await objectsInStorage()).toEqual(before);
    expect(
      (
        await h.tdb
          .db('objects')
          .whereIn(
            'id',
            m.entries.map((e: any) => e.file_id),
          )
          .select('refcount')
      ).map((r: any) => r.refcount),
    ).toEqual([1, 1]);
  });

  it('should refuse imports into a locked bucket and from a bucket without files', async () => {
    const locked = `bkt-${randomUUID()}`;
    await rpc('lock', { bucket_id: locked });
    const src = await draftWith('vers2-00004', { 'x.txt': 'x' });
    await expect(rpc('import', { from_bucket_id: src, to_bucket_id: locked })).rejects.toMatchObject({
      status: 403,
      message: 'Bucket is locked for modifications.',
    });
    await expect(rpc('import', { from_bucket_id: `bkt-${randomUUID()}`, to_bucket_id: `bkt-${randomUUID()}` })).rejects.toMatchObject({
      status: 400,
      fieldErrors: [{ field: 'files.enabled', messages: ['The record has no files.'] }],
    });
  });

  it('should delete a bucket with its objects when nothing else references them', async () => {
    const bucket = await draftWith('delb1-00005', { 'gone.txt': 'soon gone' });
    const m = await rpc('manifest', { bucket_id: bucket });
    const key = `objects/${m.entries[0].file_id.slice(0, 2)}/${m.entries[0].file_id.slice(2, 4)}/${m.entries[0].file_id}`;
    expect(await objectsInStorage()).toContain(key);
    expect(await rpc('delete-bucket', { bucket_id: bucket })).toEqual({ deleted: true });
    expect(await objectsInStorage()).not.toContain(key);
    expect(await h.tdb.db('objects').where({ id: m.entries[0].file_id }).first()).toBeUndefined();
  });

  describe('consumers of records events', () => {
    beforeAll(async () => {
      await ensureStream(server.jsm, { name: 'RECORDS', subjects: ['rdm.records.draft.deleted', 'rdm.records.record.>'] });
      // The quota-increase consumer follows the requests service's stream.
      await ensureStream(server.jsm, { name: 'REQUESTS', subjects: ['rdm.requests.request.>'] });
      consumers = startFilesConsumers({ db: h.tdb.db, nats: server, service: h.service, logger: testLogger('consumers') });
      await Promise.all(consumers.map((c) => c.ready));
    });

    const envelope = (type: string, data: Record<string, unknown>, id = randomUUID()) => ({
      id,
      type,
      version: 1,
      occurred_at: new Date().toISOString(),
      aggregate: { type: 'record', id: String(data.id), revision: 1 },
      data,
    });

    it('should lock the bucket of a published record, once per event', async () => {
      const bucket = await draftWith('pubev-00006', { 'p.txt': 'p' });
      const published = (id: string, bucketId: string) =>
        envelope('rdm.records.record.published', {
          id,
          parent_id: 'par00-00001',
          index: 1,
          is_latest: true,
          access_status: 'open',
          bucket_id: bucketId,
        });
      const e = published('pubev-00006', bucket);
      await client.js.publish('rdm.records.record.published', JSON.stringify(e), { msgID: e.id });
      await waitFor(async () => (await h.tdb.db('buckets').where({ id: bucket }).first())?.locked === true, {
        message: 'bucket not locked',
      });
      // An edit draft of the record registers a key in the locked bucket (for the draft only): what
      // handling the publication again would drop.
      h.records.records.get('pubev-00006')!.draftLocked = true;
      await h.service.init({ identity: SYSTEM, recordId: 'pubev-00006', scope: 'draft' }, [{ key: 'edit-only.txt' }]);
      const registered = () => h.tdb.db('files').where({ bucket_id: bucket, key: 'edit-only.txt', draft_only: true }).first();
      expect(await registered()).toBeDefined();
      // A redelivered/duplicated event (same id, new msg id), then a marker event after it: events
      // are handled one at a time in stream order, so once the marker's effect shows, the duplicate
      // was handled (or skipped) before it.
      await client.js.publish('rdm.records.record.published', JSON.stringify(e), { msgID: `${e.id}-again` });
      const markerBucket = await draftWith('pubev-00016', { 'm.txt': 'm' });
      const marker = published('pubev-00016', markerBucket);
      await client.js.publish('rdm.records.record.published', JSON.stringify(marker), { msgID: marker.id });
      await waitFor(async () => (await h.tdb.db('buckets').where({ id: markerBucket }).first())?.locked === true, {
        message: 'marker not handled',
      });
      // The duplicate had no second effect: the registration made after the first is still there,
      // the event has one inbox row, and it was acked (nothing left pending or redelivered).
      expect(await registered()).toBeDefined();
      expect(Number((await h.tdb.db('inbox').where({ message_id: e.id }).count({ n: '*' }).first())?.n)).toBe(1);
      const settled = async () => {
        const info = await server.jsm.consumers.info('RECORDS', 'files-record-published');
        return info.num_pending === 0 && info.num_ack_pending === 0 ? info : undefined;
      };
      await waitFor(async () => (await settled()) !== undefined, { message: 'events left unacked' });
      expect((await settled())?.num_redelivered).toBe(0);
    });

    it('should drop the bucket of a deleted draft with its objects, but keep a locked bucket', async () => {
      const bucket = await draftWith('delev-00007', { 'd.txt': 'draft only' });
      const e = envelope('rdm.records.draft.deleted', { id: 'delev-00007', parent_id: 'par00-00002', bucket_id: bucket, kind: 'new' });
      await client.js.publish('rdm.records.draft.deleted', JSON.stringify(e), { msgID: e.id });
      await waitFor(async () => !(await h.tdb.db('buckets').where({ id: bucket }).first()), { message: 'bucket not deleted' });
      await waitFor(async () => Number((await h.tdb.db('storage_gc').count({ n: '*' }).first())?.n) === 0, {
        message: 'storage not collected',
      });

      const kept = await draftWith('delev-00008', { 'k.txt': 'published' });
      await rpc('lock', { bucket_id: kept });
      const e2 = envelope('rdm.records.draft.deleted', { id: 'delev-00008', parent_id: 'par00-00003', bucket_id: kept, kind: 'edit' });
      await client.js.publish('rdm.records.draft.deleted', JSON.stringify(e2), { msgID: e2.id });
      await waitFor(async () => (await h.tdb.db('inbox').where({ message_id: e2.id }).first()) !== undefined);
      expect((await rpc('manifest', { bucket_id: kept })).count).toBe(1);
    });
  });

  it('should publish rdm.files.file.committed to the FILES stream through the outbox relay', async () => {
    await ensureStream(server.jsm, { name: 'FILES', subjects: ['rdm.files.file.>'] });
    const relay = new OutboxRelay({ db: h.tdb.db, js: server.js, logger: testLogger('relay') });
    relay.start();
    try {
      const bucket = await draftWith('outbx-00009', { 'o.txt': 'outbox' });
      await waitFor(async () => (await server.jsm.streams.info('FILES')).state.messages >= 1, { message: 'no event in FILES' });
      const msg = await server.jsm.streams.getMessage('FILES', { last_by_subj: 'rdm.files.file.committed' });
      const body = msg!.json<any>();
      expect(body.type).toBe('rdm.files.file.committed');
      expect(body.data).toMatchObject({ key: 'o.txt', size: 6, checksum: expect.stringMatching(/^md5:[0-9a-f]{32}$/) });
      expect(typeof body.data.bucket_id).toBe('string');
      expect(bucket).toBeTruthy();
    } finally {
      await relay.stop();
    }
  });
});
