import { randomUUID } from 'node:crypto';
import { ensureStream } from '@rdm/platform';
import { testLogger, waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILES_COMMITTED_DURABLE, filesCommittedWorker } from '../../src/events/files-committed.consumer.js';
import { RecordsService } from '../../src/domain/records.service.js';
import { as, BASE, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '601';

describe('consumer of rdm.files.file.committed', () => {
  let env: Env;
  let worker: ReturnType<typeof filesCommittedWorker>;

  beforeAll(async () => {
    env = await startEnv();
    await ensureStream(env.nats.jsm, { name: 'FILES', subjects: ['rdm.files.file.committed'] });
    const service = new RecordsService({
      db: env.db,
      index: env.parts.index,
      files: env.deps.files,
      vocabularies: env.deps.vocabularies,
      logger: testLogger(),
      config: { baseUrl: BASE, doiPrefix: '10.1234', oaiPrefix: 'x', siteName: 'Invenio' },
    });
    worker = filesCommittedWorker({ db: env.db, nats: env.nats, service, logger: testLogger() as never });
    worker.start();
    await worker.ready;
  });
  afterAll(async () => {
    await worker?.stop();
    await env?.close();
  });

  it('should refresh the files summary of the draft document (once per event)', async () => {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    env.files.addFile(d.id, 'table.csv', { size: 42 });
    const envelope = {
      id: randomUUID(),
      type: 'rdm.files.file.committed',
      version: 1,
      occurred_at: new Date().toISOString(),
      aggregate: { type: 'bucket', id: d.id, revision: 1 },
      data: { bucket_id: d.id, key: 'table.csv', size: 42, checksum: 'md5:d41d8cd98f00b204e9800998ecf8427e' },
    };
    await env.nats.js.publish('rdm.files.file.committed', JSON.stringify(envelope), { msgID: envelope.id });
    const row = await waitFor(async () => {
      const r = await env.db('search_docs').where({ id: d.id, kind: 'draft' }).first();
      return r?.doc.files.count === 1 ? r : undefined;
    });
    expect(row.file_types).toEqual(['csv']);
    expect(row.doc.files.entries['table.csv'].size).toBe(42);
    expect(row.doc.files.total_bytes).toBe(42);
    await waitFor(async () => (await env.db('inbox').where({ message_id: envelope.id })).length === 1);
  });

  it('should ignore buckets that belong to no draft', async () => {
    // A draft whose summary an event for another bucket must not touch.
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    env.files.addFile(d.id, 'kept.csv', { size: 7 });
    /** Every table of the records schema but the inbox, row by row: any state an event could change, outbox included. */
    const state = async () => {
      const tables = (
        await env.db.raw<{ rows: { table_name: string }[] }>(
          `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'inbox' ORDER BY 1`,
        )
      ).rows.map((r) => r.table_name);
      const out: Record<string, string[]> = {};
      for (const t of tables) out[t] = (await env.db(t).select('*')).map((row) => JSON.stringify(row)).sort();
      return out;
    };
    const before = await state();
    const callsBefore = env.files.calls.length;
    const envelope = {
      id: randomUUID(),
      type: 'rdm.files.file.committed',
      version: 1,
      occurred_at: new Date().toISOString(),
      aggregate: { type: 'bucket', id: 'nobody', revision: 1 },
      data: { bucket_id: 'nobody', key: 'x', size: 1, checksum: 'md5:d41d8cd98f00b204e9800998ecf8427e' },
    };
    await env.nats.js.publish('rdm.files.file.committed', JSON.stringify(envelope), { msgID: envelope.id });
    // The inbox row is written in the transaction of the handler's effects: once it shows, they would too.
    await waitFor(async () => (await env.db('inbox').where({ message_id: envelope.id })).length === 1);
    // Nothing happened: no row of any table changed (no draft's summary, no outbox event), the
    // files service was not asked about the bucket, and the event was acked at once (no retry).
    expect(await state()).toEqual(before);
    expect(env.files.calls.slice(callsBefore)).toEqual([]);
    const acked = async () => {
      const info = await env.nats.jsm.consumers.info('FILES', FILES_COMMITTED_DURABLE);
      return info.num_pending === 0 && info.num_ack_pending === 0 ? info : undefined;
    };
    await waitFor(async () => (await acked()) !== undefined, { message: 'event left unacked' });
    expect((await acked())?.num_redelivered).toBe(0);
  });
});
