import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConsumer } from '../../src/consumer.js';
import { ensureStream, OutboxRelay } from '../../src/outbox.js';
import { spawnNatsServer, testDb, testLogger, testNats, type TestDb, waitFor } from '../../src/testing/index.js';
import { effectCounts, MIGRATIONS, namespace, writeEvents } from './fixtures/events.js';

// A private nats-server (port 4333, own store) that this test stops for 10 s and restarts.
const server = spawnNatsServer({ port: Number(process.env.TEST_NATS_OUTAGE_PORT ?? 4333) });
const logger = testLogger('outage');
const stops: (() => Promise<unknown> | unknown)[] = [];
let t: TestDb;

beforeAll(async () => {
  await server.start();
  t = await testDb('outage', { migrationsDir: MIGRATIONS });
});

afterAll(async () => {
  for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => undefined);
  await t?.destroy();
  await server.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('NATS outage', () => {
  it('should lose and duplicate no event written while NATS is down for 10 s', { timeout: 90_000 }, async () => {
    const ns = namespace();
    const producer = await testNats(server.url, 'producer');
    const consumerConn = await testNats(server.url, 'consumer');
    stops.push(
      () => producer.close(),
      () => consumerConn.close(),
    );
    await ensureStream(producer.jsm, { name: ns.stream, subjects: [ns.subject] });

    const relay = new OutboxRelay({ db: t.db, js: producer.js, logger, pollMs: 50, publishTimeoutMs: 1000, maxBackoffMs: 1000 });
    relay.start();
    stops.push(() => relay.stop());
    const handle = runConsumer({
      db: t.db,
      js: consumerConn.js,
      jsm: consumerConn.jsm,
      stream: ns.stream,
      durable: 'outage',
      filterSubject: ns.subject,
      logger,
      dlqSubject: ns.dlqSubject,
      handler: async (trx, env) => {
        await trx('effects').insert({ event_id: env.id, consumer: 'outage', n: env.data.n });
      },
    });
    stops.push(() => handle.stop());
    await handle.ready;

    // A writer commits one event every 100 ms, before, during and after the outage.
    const ids: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        ids.push(...(await writeEvents(t.db, ns.subject, 1, n)));
        await sleep(100);
      }
    })();

    await sleep(2000);
    await waitFor(async () => (await effectCounts(t.db)).size > 0);
    await server.stop();
    const writtenAtStop = ids.length;
    await sleep(10_000);
    const unpublishedDuringOutage = await t.db('outbox').whereNull('published_at').count('* as c');
    const retried = await t.db('outbox').where('attempts', '>', 0).count('* as c');
    expect(ids.length - writtenAtStop).toBeGreaterThanOrEqual(50);
    expect(Number(unpublishedDuringOutage[0].c)).toBeGreaterThanOrEqual(ids.length - writtenAtStop);
    expect(Number(retried[0].c)).toBeGreaterThan(0);

    await server.start();
    await sleep(2000);
    writing = false;
    await writer;

    await waitFor(async () => (await effectCounts(t.db)).size === ids.length, {
      timeoutMs: 40_000,
      message: `expected ${ids.length} handled events`,
    });
    const counts = await effectCounts(t.db);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].filter((c) => c !== 1)).toEqual([]);
    expect((await t.db('outbox').whereNull('published_at').count('* as c'))[0].c).toBe('0');
    // JetStream de-duplicated the re-sent publishes: one stored message per event.
    expect((await producer.jsm.streams.info(ns.stream)).state.messages).toBe(ids.length);
    const order = (await t.db('effects').orderBy('id').select('n')).map((r) => r.n);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});
