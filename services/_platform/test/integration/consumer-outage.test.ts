/**
 * Consumers through a database outage and their inbox upkeep (issue 10, defect 11): an outage
 * longer than every back-off sends no good message to the dead-letter queue, and old inbox rows
 * are pruned. A consumer started before its stream exists waits for it with warnings that carry
 * no stack (formatting one loads the bundle's source map into a production process for good).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DLQ_STREAM, runConsumer } from '../../src/consumer.js';
import { createDb } from '../../src/db.js';
import { ensureStream, OutboxRelay } from '../../src/outbox.js';
import { TEST_DATABASE_URL, testDb, testLogger, testNats, waitFor } from '../../src/testing/index.js';
import { effectCounts, MIGRATIONS, namespace, writeEvents } from './fixtures/events.js';
import { tcpProxy } from './fixtures/tcp-proxy.js';

const logger = testLogger('consumer-outage');
let nats: Awaited<ReturnType<typeof testNats>>;
const cleanups: (() => Promise<unknown> | unknown)[] = [];

beforeAll(async () => {
  nats = await testNats();
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  await nats.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function setup() {
  const t = await testDb('cout', { migrationsDir: MIGRATIONS });
  const ns = namespace();
  await ensureStream(nats.jsm, { name: ns.stream, subjects: [ns.subject] });
  cleanups.push(t.destroy, () => nats.jsm.streams.delete(ns.stream));
  return { t, ns };
}

const dlqCount = async (subject: string) =>
  (await nats.jsm.streams.info(DLQ_STREAM, { subjects_filter: subject })).state.subjects?.[subject] ?? 0;

describe('consumer through a database outage', () => {
  it(
    'should pause while the database is unreachable and dead-letter nothing, then handle every event once',
    { timeout: 60_000 },
    async () => {
      const { t, ns } = await setup();
      cleanups.push(() => nats.jsm.streams.purge(DLQ_STREAM, { filter: ns.dlqSubject }));
      const pg = new URL(TEST_DATABASE_URL);
      const proxy = await tcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
      cleanups.push(() => proxy.stop());
      const via = new URL(TEST_DATABASE_URL);
      via.port = String(proxy.port);
      const consumerDb = createDb({ url: via.toString(), service: t.schema, pool: { max: 2 }, acquireTimeoutMs: 1000 });
      cleanups.push(() => consumerDb.destroy());

      const handle = runConsumer({
        db: consumerDb,
        js: nats.js,
        jsm: nats.jsm,
        stream: ns.stream,
        durable: 'outage',
        filterSubject: ns.subject,
        logger,
        dlqSubject: ns.dlqSubject,
        // A tiny budget: without the outage rule every event would be dead-lettered within a second.
        maxDeliver: 2,
        backoffMs: [100],
        outageRetryMs: 200,
        handler: async (trx, env) => {
          await trx('effects').insert({ event_id: env.id, consumer: 'outage', n: env.data.n });
        },
      });
      cleanups.push(() => handle.stop());
      await handle.ready;
      const relay = new OutboxRelay({ db: t.db, js: nats.js, logger, pollMs: 50 });
      relay.start();
      cleanups.push(() => relay.stop());

      const before = await writeEvents(t.db, ns.subject, 3);
      await waitFor(async () => (await effectCounts(t.db)).size === 3, { timeoutMs: 15_000 });

      await proxy.stop();
      const during = await writeEvents(t.db, ns.subject, 10, 3);
      // Many deliveries (every 200 ms) while the database is away: far beyond maxDeliver.
      await sleep(4000);
      expect(await dlqCount(ns.dlqSubject)).toBe(0);
      expect((await effectCounts(t.db)).size).toBe(3);

      await proxy.start();
      await waitFor(async () => (await effectCounts(t.db)).size === 13, { timeoutMs: 20_000, message: 'events after the outage' });
      const counts = await effectCounts(t.db);
      expect([...counts.keys()].sort()).toEqual([...before, ...during].sort());
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
      expect(await dlqCount(ns.dlqSubject)).toBe(0);
      await waitFor(async () => {
        const info = await nats.jsm.consumers.info(ns.stream, 'outage');
        return info.num_pending === 0 && info.num_ack_pending === 0;
      });
    },
  );

  it('should still dead-letter a poison message after maxDeliver deliveries', async () => {
    const { t, ns } = await setup();
    cleanups.push(() => nats.jsm.streams.purge(DLQ_STREAM, { filter: ns.dlqSubject }));
    let attempts = 0;
    const handle = runConsumer({
      db: t.db,
      js: nats.js,
      jsm: nats.jsm,
      stream: ns.stream,
      durable: 'poison',
      filterSubject: ns.subject,
      logger,
      dlqSubject: ns.dlqSubject,
      maxDeliver: 3,
      backoffMs: [50],
      handler: async () => {
        attempts++;
        throw new Error('poison');
      },
    });
    cleanups.push(() => handle.stop());
    await handle.ready;
    const relay = new OutboxRelay({ db: t.db, js: nats.js, logger, pollMs: 50 });
    relay.start();
    cleanups.push(() => relay.stop());
    await writeEvents(t.db, ns.subject, 1);
    await waitFor(async () => (await dlqCount(ns.dlqSubject)) === 1, { timeoutMs: 15_000 });
    expect(attempts).toBe(3);
  });
});

describe('inbox pruning', () => {
  it("should delete this consumer's inbox rows older than the retention, keeping recent ones and other consumers'", async () => {
    const { t, ns } = await setup();
    const old = (id: string, consumer: string) => ({
      message_id: id,
      consumer,
      subject: ns.subject,
      processed_at: t.db.raw("now() - interval '10 days'"),
    });
    await t
      .db('inbox')
      .insert([
        old('old-1', 'pruner'),
        old('old-2', 'pruner'),
        old('old-other', 'other'),
        { message_id: 'recent', consumer: 'pruner', subject: ns.subject },
      ]);
    const handle = runConsumer({
      db: t.db,
      js: nats.js,
      jsm: nats.jsm,
      stream: ns.stream,
      durable: 'pruner',
      filterSubject: ns.subject,
      logger,
      dlqSubject: ns.dlqSubject,
      inboxRetentionMs: 24 * 3600 * 1000,
      inboxPruneIntervalMs: 100,
      handler: async () => undefined,
    });
    cleanups.push(() => handle.stop());
    await waitFor(async () => (await t.db('inbox').where({ consumer: 'pruner' }).count('* as c'))[0].c === '1', {
      timeoutMs: 10_000,
    });
    const left = await t.db('inbox').orderBy('message_id').select('message_id', 'consumer');
    expect(left).toEqual([
      { message_id: 'old-other', consumer: 'other' },
      { message_id: 'recent', consumer: 'pruner' },
    ]);
  });
});

describe('events a consumer skips', () => {
  it('should ack them without running the handler or writing an inbox row, and handle the others once', { timeout: 30_000 }, async () => {
    const { t, ns } = await setup();
    const handle = runConsumer({
      db: t.db,
      js: nats.js,
      jsm: nats.jsm,
      stream: ns.stream,
      durable: 'skipper',
      filterSubject: ns.subject,
      logger,
      dlqSubject: ns.dlqSubject,
      skip: (env) => (env.data.n as number) % 2 === 1,
      handler: async (trx, env) => {
        await trx('effects').insert({ event_id: env.id, consumer: 'skipper', n: env.data.n });
      },
    });
    cleanups.push(() => handle.stop());
    await handle.ready;
    const relay = new OutboxRelay({ db: t.db, js: nats.js, logger, pollMs: 50 });
    relay.start();
    cleanups.push(() => relay.stop());
    const ids = await writeEvents(t.db, ns.subject, 6);
    // Every message acked: nothing left pending for the durable.
    await waitFor(
      async () => (await nats.jsm.consumers.info(ns.stream, 'skipper')).num_ack_pending === 0 && (await effectCounts(t.db)).size === 3,
      {
        timeoutMs: 15_000,
      },
    );
    const info = await nats.jsm.consumers.info(ns.stream, 'skipper');
    expect(info.num_pending).toBe(0);
    expect(info.delivered.stream_seq).toBeGreaterThanOrEqual(6);
    expect([...(await effectCounts(t.db, 'skipper')).entries()].sort()).toEqual([ids[0], ids[2], ids[4]].map((id) => [id, 1]).sort());
    const inbox = await t.db('inbox').where({ consumer: 'skipper' }).orderBy('message_id').pluck('message_id');
    expect(inbox).toEqual([ids[0], ids[2], ids[4]].sort());
  });
});

describe('a consumer started before its stream exists', () => {
  it(
    'should warn without an error or a stack while waiting, then handle the events once the stream appears',
    { timeout: 30_000 },
    async () => {
      const t = await testDb('cout', { migrationsDir: MIGRATIONS });
      const ns = namespace();
      cleanups.push(t.destroy, () => nats.jsm.streams.delete(ns.stream).catch(() => undefined));
      const lines: { level: number; msg: string; err?: unknown; reason?: string }[] = [];
      const captured = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
      const handle = runConsumer({
        db: t.db,
        js: nats.js,
        jsm: nats.jsm,
        stream: ns.stream,
        durable: 'early',
        filterSubject: ns.subject,
        logger: captured,
        dlqSubject: ns.dlqSubject,
        handler: async (trx, env) => {
          await trx('effects').insert({ event_id: env.id, consumer: 'early', n: env.data.n });
        },
      });
      cleanups.push(() => handle.stop());
      await waitFor(async () => lines.some((l) => l.msg === 'stream not there yet; retrying'), { timeoutMs: 10_000 });
      await ensureStream(nats.jsm, { name: ns.stream, subjects: [ns.subject] });
      await handle.ready;
      const relay = new OutboxRelay({ db: t.db, js: nats.js, logger, pollMs: 50 });
      relay.start();
      cleanups.push(() => relay.stop());
      const ids = await writeEvents(t.db, ns.subject, 2);
      await waitFor(async () => (await effectCounts(t.db, 'early')).size === 2, { timeoutMs: 15_000 });
      expect([...(await effectCounts(t.db, 'early')).entries()].sort()).toEqual(ids.map((id) => [id, 1]).sort());
      const waiting = lines.filter((l) => l.msg === 'stream not there yet; retrying');
      expect(waiting.length).toBeGreaterThan(0);
      for (const l of waiting) {
        expect(l.level).toBe(40);
        expect(l.err).toBeUndefined();
        expect(l.reason).toMatch(/stream not found/i);
      }
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    },
  );
});
