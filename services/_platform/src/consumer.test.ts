/**
 * runConsumer's concurrent mode against a fake JetStream (a pull buffer that refills only as the
 * loop takes messages) and a fake database (transactions that commit or roll back an in-memory
 * inbox): order per key, the bound on messages in hand, ack after COMMIT, nak on failure and the
 * redelivery that follows. The real NATS + PostgreSQL run is test/integration/consumer-concurrency.test.ts.
 */
import type { JsMsg } from '@nats-io/jetstream';
import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { type RunConsumerOptions, runConsumer } from './consumer.js';
import type { EventEnvelope } from './events.js';
import type { MsgLogger } from './nats.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const quiet = { info() {}, warn() {}, error() {}, debug() {} } as unknown as MsgLogger;

interface Fake {
  log: string[];
  /** Messages the loop took from the buffer and has not acked/nak'ed. */
  inHand: () => number;
  maxInHand: () => number;
  /** `max_messages` of the pull (how far the client fetches ahead). */
  pullSize: () => number;
  nakDelays: number[];
  opts: Omit<RunConsumerOptions, 'handler'>;
}

/** A fake stream of `envelopes` (redelivering nak'ed ones at the end) and a fake database. */
function fake(envelopes: EventEnvelope[]): Fake {
  const log: string[] = [];
  let pull = 0;
  const queue = envelopes.map((e, i) => ({ e, seq: i + 1, deliveries: 0 }));
  let inHand = 0;
  let maxInHand = 0;
  const nakDelays: number[] = [];
  const done = new Set<string>();
  let stopped = false;
  let wake: (() => void) | undefined;
  const msg = (q: (typeof queue)[number]): JsMsg => {
    q.deliveries++;
    let settled = false;
    const settle = (what: string) => {
      if (settled) return;
      settled = true;
      inHand--;
      log.push(`${what}:${(q.e.data as { n: number }).n}`);
    };
    return {
      subject: q.e.type,
      info: { streamSequence: q.seq, deliveryCount: q.deliveries, stream: 'S' },
      headers: undefined,
      data: new TextEncoder().encode(JSON.stringify(q.e)),
      json: () => JSON.parse(JSON.stringify(q.e)),
      ack: () => settle('ack'),
      nak: (delay?: number) => {
        nakDelays.push(delay ?? 0);
        settle('nak');
        // Redelivered after the others (the server's nak delay, shortened).
        setTimeout(() => {
          queue.push(q);
          wake?.();
        }, 5);
      },
      term: () => settle('term'),
      working: () => undefined,
    } as unknown as JsMsg;
  };
  const messages = {
    stop() {
      stopped = true;
      wake?.();
    },
    close: async () => undefined,
    status: async function* () {},
    async *[Symbol.asyncIterator]() {
      while (!stopped) {
        if (queue.length === 0) {
          await new Promise<void>((r) => {
            wake = r;
          });
          continue;
        }
        const q = queue.shift() as (typeof queue)[number];
        inHand++;
        maxInHand = Math.max(maxInHand, inHand);
        yield msg(q);
      }
    },
  };
  const js = {
    consumers: {
      get: async () => ({
        consume: async (o: { max_messages: number }) => {
          pull = o.max_messages;
          return messages;
        },
      }),
    },
  };
  const jsm = {
    streams: { info: async () => ({ config: { subjects: ['rdm.dlq.>'], duplicate_window: 120_000_000_000, max_age: 0 } }) },
    consumers: { info: async () => ({}), update: async () => ({}) },
  };
  const db = {
    raw: async () => ({ rows: [], rowCount: 0 }),
    async transaction(fn: (trx: Knex.Transaction) => Promise<void>) {
      const pending = new Set<string>();
      const trx = {
        raw: (_sql: string, b: string[]) => ({
          options: async () => {
            const id = b[0];
            if (done.has(id) || pending.has(id)) return { rows: [] };
            pending.add(id);
            return { rows: [{ message_id: id }] };
          },
        }),
      } as unknown as Knex.Transaction;
      await fn(trx);
      await sleep(1);
      for (const id of pending) done.add(id);
      log.push(`commit:${envelopes.find((e) => pending.has(e.id))?.data.n}`);
    },
  } as unknown as Knex;
  return {
    log,
    inHand: () => inHand,
    maxInHand: () => maxInHand,
    pullSize: () => pull,
    nakDelays,
    opts: {
      db,
      js: js as never,
      jsm: jsm as never,
      stream: 'S',
      durable: 'd',
      filterSubject: 'rdmtest.>',
      logger: quiet,
      service: 'test',
      inboxRetentionMs: 0,
    },
  };
}

const events = (keys: string[]): EventEnvelope[] =>
  keys.map((k, n) => ({
    id: `e${n}`,
    type: 'rdmtest.thing.happened',
    version: 1,
    occurred_at: new Date().toISOString(),
    aggregate: { type: 'thing', id: k, revision: n },
    data: { n, key: k },
  }));

const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(2);
  }
};

describe(runConsumer.name, () => {
  it('should run messages of different keys at once and those of one key in delivery order', async () => {
    const keys = ['a', 'b', 'a', 'c', 'b', 'a', 'd', 'c', 'a', 'b', 'e', 'a'];
    const f = fake(events(keys));
    const started: { n: number; key: string }[] = [];
    let running = 0;
    let maxRunning = 0;
    const runningKeys = new Set<string>();
    let sameKeyOverlap = false;
    const h = runConsumer({
      ...f.opts,
      concurrency: 4,
      handler: async (_trx, e) => {
        const d = e.data as { n: number; key: string };
        if (runningKeys.has(d.key)) sameKeyOverlap = true;
        runningKeys.add(d.key);
        started.push(d);
        maxRunning = Math.max(maxRunning, ++running);
        await sleep(d.key === 'a' ? 30 : 5);
        running--;
        runningKeys.delete(d.key);
      },
    });
    await until(() => f.log.filter((l) => l.startsWith('ack:')).length === keys.length);
    await h.stop();
    expect(sameKeyOverlap).toBe(false);
    expect(maxRunning).toBeGreaterThan(1);
    expect(maxRunning).toBeLessThanOrEqual(4);
    for (const k of new Set(keys)) {
      const ns = started.filter((s) => s.key === k).map((s) => s.n);
      expect(ns).toEqual([...ns].sort((x, y) => x - y));
    }
    // The slow key did not hold the others: every message of b..e was done before a's last one.
    const acks = f.log.filter((l) => l.startsWith('ack:')).map((l) => Number(l.slice(4)));
    expect(acks.at(-1)).toBe(11);
  });

  it('should run no more than `concurrency` handlers, hold no more than 4× that and pull no more than that ahead', async () => {
    const f = fake(events(Array.from({ length: 40 }, (_, i) => `k${i}`)));
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let running = 0;
    let maxRunning = 0;
    const h = runConsumer({
      ...f.opts,
      concurrency: 3,
      handler: async () => {
        maxRunning = Math.max(maxRunning, ++running);
        await gate;
        running--;
      },
    });
    await until(() => f.inHand() === 12);
    await sleep(50);
    expect(f.inHand()).toBe(12);
    expect(running).toBe(3);
    release();
    await until(() => f.log.filter((l) => l.startsWith('ack:')).length === 40);
    await h.stop();
    expect(f.maxInHand()).toBe(12);
    expect(maxRunning).toBe(3);
    expect(f.pullSize()).toBe(3);
  });

  it('should not let a key with many waiting messages hold the others', async () => {
    const keys = ['slow', 'slow', 'slow', 'slow', 'slow', 'slow', 'fast', 'fast'];
    const f = fake(events(keys));
    const h = runConsumer({
      ...f.opts,
      concurrency: 2,
      handler: async (_trx, e) => sleep((e.data as { key: string }).key === 'slow' ? 40 : 1),
    });
    await until(() => f.log.filter((l) => l.startsWith('ack:')).length === keys.length);
    await h.stop();
    const acks = f.log.filter((l) => l.startsWith('ack:'));
    expect(acks.indexOf('ack:7')).toBeLessThan(acks.indexOf('ack:2'));
  });

  it('should ack each message only after its transaction committed', async () => {
    const f = fake(events(['a', 'b', 'c', 'a', 'b', 'c']));
    const h = runConsumer({ ...f.opts, concurrency: 3, handler: async () => sleep(3) });
    await until(() => f.log.filter((l) => l.startsWith('ack:')).length === 6);
    await h.stop();
    for (let n = 0; n < 6; n++) expect(f.log.indexOf(`commit:${n}`)).toBeLessThan(f.log.indexOf(`ack:${n}`));
    expect(f.log.indexOf('commit:0')).toBeGreaterThanOrEqual(0);
  });

  it('should nak a failing message with its back-off, keep the others going and handle it once on redelivery', async () => {
    const f = fake(events(['a', 'b', 'c', 'd']));
    let failures = 0;
    const effects: number[] = [];
    const h = runConsumer({
      ...f.opts,
      concurrency: 2,
      backoffMs: [7],
      handler: async (_trx, e) => {
        const n = (e.data as { n: number }).n;
        if (n === 1 && failures++ < 2) throw new Error('boom');
        effects.push(n);
      },
    });
    await until(() => f.log.filter((l) => l.startsWith('ack:')).length === 4);
    await h.stop();
    expect(f.log.filter((l) => l === 'nak:1')).toHaveLength(2);
    expect(f.nakDelays).toEqual([7, 7]);
    expect(effects.sort()).toEqual([0, 1, 2, 3]);
    // The failure did not hold message 2 or 3 of other keys.
    expect(f.log.indexOf('ack:3')).toBeLessThan(f.log.indexOf('ack:1'));
  });

  it('should ack a skipped message at once, not behind a running message of its key', async () => {
    const f = fake(events(['a', 'a', 'b']));
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const h = runConsumer({
      ...f.opts,
      concurrency: 2,
      skip: (e) => (e.data as { n: number }).n === 1,
      handler: async (_trx, e) => {
        if ((e.data as { n: number }).n === 0) await gate;
      },
    });
    await until(() => f.log.includes('ack:1') && f.log.includes('ack:2'));
    expect(f.log).not.toContain('ack:0');
    release();
    await until(() => f.log.includes('ack:0'));
    await h.stop();
    expect(f.log).not.toContain('commit:1');
  });

  it('should stay strictly sequential without `concurrency`', async () => {
    const f = fake(events(['a', 'b', 'c', 'd', 'e']));
    let running = 0;
    let maxRunning = 0;
    const h = runConsumer({
      ...f.opts,
      handler: async () => {
        maxRunning = Math.max(maxRunning, ++running);
        await sleep(3);
        running--;
      },
    });
    await until(() => f.log.filter((l) => l.startsWith('ack:')).length === 5);
    await h.stop();
    expect(maxRunning).toBe(1);
    expect(f.log.filter((l) => l.startsWith('ack:'))).toEqual(['ack:0', 'ack:1', 'ack:2', 'ack:3', 'ack:4']);
  });
});
