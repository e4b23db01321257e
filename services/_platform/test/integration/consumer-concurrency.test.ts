/**
 * runConsumer's concurrent mode (`concurrency`, per-key order) on real NATS JetStream and
 * PostgreSQL: two keys interleaved keep their own order while a slow key does not hold the other,
 * and a consumer that dies with messages in hand (one committed but not acked) loses nothing and
 * has no effect twice once a new process consumes the same durable.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConsumer } from '../../src/consumer.js';
import { ensureStream, OutboxRelay, writeOutboxUnchecked } from '../../src/outbox.js';
import { testDb, testLogger, testNats, waitFor } from '../../src/testing/index.js';
import { effectCounts, MIGRATIONS, namespace } from './fixtures/events.js';

const logger = testLogger('consumer-concurrency');
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
  const t = await testDb('ccon', { migrationsDir: MIGRATIONS });
  const ns = namespace();
  await ensureStream(nats.jsm, { name: ns.stream, subjects: [ns.subject] });
  cleanups.push(t.destroy, () => nats.jsm.streams.delete(ns.stream));
  const relay = new OutboxRelay({ db: t.db, js: nats.js, logger, pollMs: 50 });
  relay.start();
  cleanups.push(() => relay.stop());
  return { t, ns };
}

/** Write events 0..count-1, event n about aggregate `keyOf(n)`, one transaction each, in order. */
async function writeKeyed(db: Knex, subject: string, count: number, keyOf: (n: number) => string): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const env = await db.transaction((trx) =>
      writeOutboxUnchecked(trx, { subject, aggregate: { type: 'thing', id: keyOf(n), revision: n }, data: { n } }),
    );
    ids.push(env.id);
  }
  return ids;
}

const effectsInOrder = async (db: Knex) => (await db('effects').orderBy('id').select('n')).map((r) => r.n as number);

describe('runConsumer with concurrency', () => {
  it('should keep each key in order while a slow key does not hold the other', { timeout: 60_000 }, async () => {
    const { t, ns } = await setup();
    const key = (n: number) => (n % 2 === 0 ? 'slow' : 'fast');
    const h = runConsumer({
      db: t.db,
      js: nats.js,
      jsm: nats.jsm,
      stream: ns.stream,
      durable: 'cc1',
      filterSubject: ns.subject,
      logger,
      dlqSubject: ns.dlqSubject,
      concurrency: 4,
      handler: async (trx, env) => {
        const n = (env.data as { n: number }).n;
        if (key(n) === 'slow') await sleep(400);
        await trx('effects').insert({ event_id: env.id, consumer: 'cc1', n });
      },
    });
    cleanups.push(() => h.stop());
    await h.ready;
    // Written before they are consumed, so both keys are in the stream interleaved.
    const ids = await writeKeyed(t.db, ns.subject, 20, key);

    // Every fast event is handled while most slow ones (400 ms each, one at a time) still wait.
    await waitFor(async () => (await effectsInOrder(t.db)).filter((n) => key(n) === 'fast').length === 10, { timeoutMs: 30_000 });
    const slowDone = (await effectsInOrder(t.db)).filter((n) => key(n) === 'slow').length;
    expect(slowDone).toBeLessThan(6);

    await waitFor(async () => (await effectCounts(t.db)).size === 20, { timeoutMs: 30_000 });
    const order = await effectsInOrder(t.db);
    expect(order.filter((n) => key(n) === 'slow')).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    expect(order.filter((n) => key(n) === 'fast')).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    const counts = await effectCounts(t.db);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  });

  it('should lose nothing and repeat no effect when the consuming process dies with messages in hand', { timeout: 60_000 }, async () => {
    const { t, ns } = await setup();
    const key = (n: number) => (n % 2 === 0 ? 'stuck' : 'ok');
    // The dying process: its own NATS connection; 'stuck' events hang until it dies; event 9's
    // transaction commits but the connection is gone before its ack.
    const dying = await testNats(undefined, 'dying');
    cleanups.push(() => dying.close());
    let die!: () => void;
    const dead = new Promise<void>((r) => {
      die = r;
    });
    const first = runConsumer({
      db: t.db,
      js: dying.js,
      jsm: dying.jsm,
      stream: ns.stream,
      durable: 'cc2',
      filterSubject: ns.subject,
      logger,
      dlqSubject: ns.dlqSubject,
      concurrency: 4,
      ackWaitMs: 1500,
      handler: async (trx, env) => {
        const n = (env.data as { n: number }).n;
        if (key(n) === 'stuck') {
          await dead;
          throw new Error('process gone');
        }
        await trx('effects').insert({ event_id: env.id, consumer: 'first', n });
        if (n === 9) {
          await dying.nc.close();
          die();
        }
      },
    });
    await first.ready;
    const ids = await writeKeyed(t.db, ns.subject, 10, key);
    await dead;
    await first.stop();
    const before = await effectsInOrder(t.db);
    expect(before).toEqual([1, 3, 5, 7, 9]);

    // A new process on the same durable: redeliveries after ack_wait, the inbox absorbs event 9.
    const second = runConsumer({
      db: t.db,
      js: nats.js,
      jsm: nats.jsm,
      stream: ns.stream,
      durable: 'cc2',
      filterSubject: ns.subject,
      logger,
      dlqSubject: ns.dlqSubject,
      concurrency: 4,
      ackWaitMs: 1500,
      handler: async (trx, env) => {
        await trx('effects').insert({ event_id: env.id, consumer: 'second', n: (env.data as { n: number }).n });
      },
    });
    cleanups.push(() => second.stop());
    await waitFor(async () => (await effectCounts(t.db)).size === 10, { timeoutMs: 30_000 });
    await sleep(2000); // a late duplicate would show up here
    const counts = await effectCounts(t.db);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    // Not asserted: the order of the redelivered 'stuck' events. The server redelivers each when its
    // own ack wait runs out, and the one the dead process was working on had its wait renewed
    // (`working()`), so it may come back after later ones — with or without concurrency.
    expect((await effectsInOrder(t.db)).filter((n) => key(n) === 'stuck').sort((a, b) => a - b)).toEqual([0, 2, 4, 6, 8]);
    const info = await nats.jsm.consumers.info(ns.stream, 'cc2');
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });
});
