import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { AckPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { Knex } from 'knex';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db.js';
import type { EventEnvelope } from '../../src/events.js';
import { type ConsumerHandle, DLQ_STREAM, runConsumer } from '../../src/consumer.js';
import { ensureStream, OutboxRelay, writeOutboxUnchecked } from '../../src/outbox.js';
import { testDb, testLogger, testNats, type TestDb, waitFor, withParams } from '../../src/testing/index.js';
import { effectCounts, MIGRATIONS, namespace, writeEvents } from './fixtures/events.js';

const logger = testLogger('outbox');
let nats: Awaited<ReturnType<typeof testNats>>;
let cleanups: (() => Promise<unknown> | unknown)[] = [];

beforeAll(async () => {
  nats = await testNats();
});
afterAll(async () => {
  await nats.close();
});
afterEach(async () => {
  for (const c of cleanups.reverse()) {
    try {
      await c();
    } catch {
      // keep cleaning up
    }
  }
  cleanups = [];
});

async function setup() {
  const t = await testDb('msg', { migrationsDir: MIGRATIONS });
  const ns = namespace();
  await ensureStream(nats.jsm, { name: ns.stream, subjects: [ns.subject] });
  cleanups.push(t.destroy, () => nats.jsm.streams.delete(ns.stream));
  return { t, ns };
}

function relay(db: Knex, js: JetStreamClient = nats.js): OutboxRelay {
  const r = new OutboxRelay({ db, js, logger, pollMs: 50 });
  r.start();
  cleanups.push(() => r.stop());
  return r;
}

function consumer(
  t: TestDb,
  ns: ReturnType<typeof namespace>,
  opts: {
    durable?: string;
    onEvent?: (env: EventEnvelope<{ n: number }>, msg: JsMsg) => void | Promise<void>;
    maxDeliver?: number;
    backoffMs?: number[];
    ackWaitMs?: number;
  } = {},
): ConsumerHandle {
  const durable = opts.durable ?? 'c1';
  const h = runConsumer({
    db: t.db,
    js: nats.js,
    jsm: nats.jsm,
    stream: ns.stream,
    durable,
    filterSubject: ns.subject,
    logger,
    dlqSubject: ns.dlqSubject,
    maxDeliver: opts.maxDeliver,
    backoffMs: opts.backoffMs,
    ackWaitMs: opts.ackWaitMs,
    handler: async (trx, env, msg) => {
      await opts.onEvent?.(env as EventEnvelope<{ n: number }>, msg);
      await trx('effects').insert({ event_id: env.id, consumer: durable, n: env.data.n });
    },
  });
  cleanups.push(() => h.stop());
  return h;
}

const streamCount = async (stream: string) => (await nats.jsm.streams.info(stream)).state.messages;
const unpublished = async (db: Knex) => Number((await db('outbox').whereNull('published_at').count('* as c'))[0].c);

describe(OutboxRelay.name, () => {
  it('should deliver each outbox event once, in write order, to a consumer', async () => {
    const { t, ns } = await setup();
    await consumer(t, ns).ready;
    relay(t.db);

    const ids = [...(await writeEvents(t.db, ns.subject, 10)), ...(await writeEvents(t.db, ns.subject, 10, 10, true))];

    await waitFor(async () => (await effectCounts(t.db)).size === 20, { timeoutMs: 15_000 });
    const counts = await effectCounts(t.db);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    const order = (await t.db('effects').orderBy('id').select('n')).map((r) => r.n);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(await streamCount(ns.stream)).toBe(20);
    expect(await unpublished(t.db)).toBe(0);
    expect(Number((await t.db('inbox').count('* as c'))[0].c)).toBe(20);
  });

  it('should publish the full envelope with Nats-Msg-Id = outbox id', async () => {
    const { t, ns } = await setup();
    const env = await t.db.transaction((trx) =>
      writeOutboxUnchecked(trx, { subject: ns.subject, aggregate: { type: 'thing', id: 7, revision: 2 }, data: { n: 1 } }),
    );
    relay(t.db);
    await waitFor(async () => (await streamCount(ns.stream)) === 1);
    const stored = await nats.jsm.streams.getMessage(ns.stream, { last_by_subj: ns.subject });
    expect(stored?.json()).toEqual(env);
    expect(stored?.header.get('Nats-Msg-Id')).toBe(env.id);
    expect(env).toMatchObject({ type: ns.subject, version: 1, aggregate: { type: 'thing', id: '7', revision: 2 }, data: { n: 1 } });
  });

  it('should refuse to write an event that does not match its schema, and roll back with the change', async () => {
    const { t, ns } = await setup();
    await expect(
      t.db.transaction(async (trx) => {
        await trx('effects').insert({ event_id: 'change', consumer: 'x' });
        await writeOutboxUnchecked(trx, {
          subject: ns.subject,
          aggregate: { type: 'thing', id: 'a', revision: 1 },
          data: { n: 'one' } as never,
        });
      }),
    ).rejects.toMatchObject({ status: 500, code: 'invalid_event' });
    expect(await t.db('effects').count('* as c')).toEqual([{ c: '0' }]);
    expect(await t.db('outbox').count('* as c')).toEqual([{ c: '0' }]);
  });

  it('should lose no event when nothing was published between commit and a crash', async () => {
    const { t, ns } = await setup();
    // Committed, but no relay ran (the process died right after COMMIT).
    const ids = await writeEvents(t.db, ns.subject, 10);
    await new Promise((r) => setTimeout(r, 300));
    expect(await streamCount(ns.stream)).toBe(0);
    expect(await unpublished(t.db)).toBe(10);

    // The restarted process starts its relay and consumer.
    await consumer(t, ns).ready;
    relay(t.db);
    await waitFor(async () => (await effectCounts(t.db)).size === 10, { timeoutMs: 15_000 });
    const counts = await effectCounts(t.db);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(await streamCount(ns.stream)).toBe(10);
  });

  it('should lose and duplicate nothing when a relay dies mid-batch after publishing part of it', async () => {
    const { t, ns } = await setup();
    const appName = `relay_a_${ns.id}`;
    const dbA = createDb({ url: withParams(t.url, { application_name: appName }), service: t.schema });
    cleanups.push(() => dbA.destroy());
    let calls = 0;
    let release!: () => void;
    const hung = new Promise<never>((_, reject) => {
      release = () => reject(new Error('process died'));
    });
    hung.catch(() => undefined);
    const dyingJs = {
      publish: async (...args: Parameters<JetStreamClient['publish']>) => {
        calls++;
        if (calls >= 5) return hung;
        return nats.js.publish(...args);
      },
    } as unknown as JetStreamClient;

    const ids = await writeEvents(t.db, ns.subject, 10, 0, true);
    const relayA = new OutboxRelay({ db: dbA, js: dyingJs, logger, pollMs: 50 });
    relayA.start();
    await waitFor(() => calls >= 5);
    expect(await streamCount(ns.stream)).toBe(4);

    // Kill relay A's database session mid-transaction: its marks are rolled back.
    const sessions = await t.db.raw('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ?', [appName]);
    expect(sessions.rows[0].n).toBeGreaterThan(0);
    await terminate(appName);
    release();
    await relayA.stop();
    expect(await unpublished(t.db)).toBe(10);

    await consumer(t, ns).ready;
    relay(t.db);
    await waitFor(async () => (await unpublished(t.db)) === 0, { timeoutMs: 15_000 });
    await waitFor(async () => (await effectCounts(t.db)).size === 10, { timeoutMs: 15_000 });
    expect(await streamCount(ns.stream)).toBe(10);
    const counts = await effectCounts(t.db);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  });

  it('should publish events committed by this process at once, without waiting for a poll (fast path)', async () => {
    const { t, ns } = await setup();
    const r = new OutboxRelay({ db: t.db, js: nats.js, logger, pollMs: 60_000 });
    r.start();
    cleanups.push(() => r.stop());
    // The first loop round runs at start; afterwards only the fast path can publish within the poll interval.
    await new Promise((res) => setTimeout(res, 200));
    const ids = await writeEvents(t.db, ns.subject, 5);
    await waitFor(async () => (await streamCount(ns.stream)) === 5, { timeoutMs: 5_000 });
    await waitFor(async () => (await unpublished(t.db)) === 0, { timeoutMs: 5_000 });
    const stored = await Promise.all([1, 2, 3, 4, 5].map((seq) => nats.jsm.streams.getMessage(ns.stream, { seq })));
    expect(stored.map((m) => m?.header.get('Nats-Msg-Id'))).toEqual(ids);
  });

  it('should publish an event written in a savepoint only once the outer transaction commits, and never after a rollback', async () => {
    const { t, ns } = await setup();
    relay(t.db);
    await expect(
      t.db.transaction(async (trx) => {
        await trx.transaction((sp) =>
          writeOutboxUnchecked(sp, { subject: ns.subject, aggregate: { type: 'thing', id: 'a', revision: 1 }, data: { n: 1 } }),
        );
        throw new Error('roll back the outer transaction');
      }),
    ).rejects.toThrow('roll back');
    let env!: Awaited<ReturnType<typeof writeOutboxUnchecked>>;
    await t.db.transaction(async (trx) => {
      env = await trx.transaction((sp) =>
        writeOutboxUnchecked(sp, { subject: ns.subject, aggregate: { type: 'thing', id: 'b', revision: 1 }, data: { n: 2 } }),
      );
      // The savepoint is released; the outer transaction is still open.
      await new Promise((res) => setTimeout(res, 300));
      expect(await streamCount(ns.stream)).toBe(0);
    });
    await waitFor(async () => (await streamCount(ns.stream)) === 1);
    const stored = await nats.jsm.streams.getMessage(ns.stream, { last_by_subj: ns.subject });
    expect(stored?.header.get('Nats-Msg-Id')).toBe(env.id);
    await new Promise((res) => setTimeout(res, 200));
    expect(await streamCount(ns.stream)).toBe(1);
    expect(await t.db('outbox').count('* as c')).toEqual([{ c: '1' }]);
  });

  it('should fall back to ordered locking rounds after a failed fast-path publish, losing and reordering nothing', async () => {
    const { t, ns } = await setup();
    await consumer(t, ns).ready;
    let failNext = true;
    const flakyJs = {
      publish: async (...args: Parameters<JetStreamClient['publish']>) => {
        if (failNext) {
          failNext = false;
          throw new Error('broker hiccup');
        }
        return nats.js.publish(...args);
      },
    } as unknown as JetStreamClient;
    relay(t.db, flakyJs);
    const ids = await writeEvents(t.db, ns.subject, 10);
    await waitFor(async () => (await effectCounts(t.db)).size === 10, { timeoutMs: 15_000 });
    const counts = await effectCounts(t.db);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    const order = (await t.db('effects').orderBy('id').select('n')).map((r) => r.n);
    expect(order).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(await streamCount(ns.stream)).toBe(10);
    expect(await unpublished(t.db)).toBe(0);
  });

  it('should keep rows, count attempts and record the error while no stream captures the subject', async () => {
    const { t, ns } = await setup();
    await nats.jsm.streams.delete(ns.stream);
    await writeEvents(t.db, ns.subject, 3);
    relay(t.db);
    await waitFor(async () => {
      const row = await t.db('outbox').orderBy('seq').first();
      return row.attempts >= 2 && row.last_error;
    });
    expect(await unpublished(t.db)).toBe(3);
    await ensureStream(nats.jsm, { name: ns.stream, subjects: [ns.subject] });
    await waitFor(async () => (await unpublished(t.db)) === 0, { timeoutMs: 15_000 });
    expect(await streamCount(ns.stream)).toBe(3);
  });
});

describe(ensureStream.name, () => {
  it('should create a stream once, update its subjects, and refuse subjects that capture RPC', async () => {
    const ns = namespace();
    cleanups.push(() => nats.jsm.streams.delete(ns.stream));
    const first = await ensureStream(nats.jsm, { name: ns.stream, subjects: [ns.subject] });
    const again = await ensureStream(nats.jsm, { name: ns.stream, subjects: [ns.subject] });
    expect(again.created).toEqual(first.created);
    const other = `rdmtest.${ns.id}.other.happened`;
    const updated = await ensureStream(nats.jsm, { name: ns.stream, subjects: [ns.subject, other] });
    expect([...(updated.config.subjects ?? [])].sort()).toEqual([ns.subject, other].sort());
    await expect(ensureStream(nats.jsm, { name: `${ns.stream}_RPC`, subjects: ['rdm.records.>'] })).rejects.toThrow(/RPC/);
    await expect(ensureStream(nats.jsm, { name: `${ns.stream}_RPC`, subjects: ['rdm.records.*.*'] })).rejects.toThrow(/RPC/);
  });
});

/** Terminate every session of `appName` as the superuser (not as a service role). */
async function terminate(appName: string) {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm' });
  await c.connect();
  try {
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [appName]);
  } finally {
    await c.end();
  }
}

describe(runConsumer.name, () => {
  it('should handle an event delivered several times (duplicate publishes, two replicas) once', async () => {
    const { t, ns } = await setup();
    const envs = await t.db.transaction(async (trx) => {
      const out = [];
      for (let n = 0; n < 10; n++) {
        out.push(
          await writeOutboxUnchecked(trx, { subject: ns.subject, aggregate: { type: 'thing', id: `t${n}`, revision: 1 }, data: { n } }),
        );
      }
      return out;
    });
    // Bypass JetStream's de-duplication: each envelope is stored three times.
    for (let copy = 0; copy < 3; copy++) {
      for (const env of envs) await nats.js.publish(ns.subject, JSON.stringify(env), { msgID: `${env.id}-${copy}` });
    }
    expect(await streamCount(ns.stream)).toBe(30);

    const seen: string[] = [];
    await Promise.all([
      consumer(t, ns, { onEvent: (e) => void seen.push(e.id) }).ready,
      consumer(t, ns, { onEvent: (e) => void seen.push(e.id) }).ready,
    ]);
    await waitFor(
      async () =>
        (await nats.jsm.consumers.info(ns.stream, 'c1')).num_pending === 0 &&
        (await nats.jsm.consumers.info(ns.stream, 'c1')).num_ack_pending === 0,
      { timeoutMs: 15_000 },
    );

    const counts = await effectCounts(t.db);
    expect(counts.size).toBe(10);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(new Set(seen).size).toBe(10);
    expect(Number((await t.db('inbox').count('* as c'))[0].c)).toBe(10);
  });

  it('should not repeat the effect when the ack is lost after the commit', async () => {
    const { t, ns } = await setup();
    const [id] = await writeEvents(t.db, ns.subject, 1);
    let handled = 0;
    await consumer(t, ns, {
      ackWaitMs: 1000,
      onEvent: (_e, msg) => {
        handled++;
        // Why: drop the ack, as if the connection died right after COMMIT.
        (msg as { ack: () => void }).ack = () => undefined;
      },
    }).ready;
    relay(t.db);

    await waitFor(
      async () => {
        const info = await nats.jsm.consumers.info(ns.stream, 'c1');
        return info.delivered.consumer_seq >= 2 && info.num_ack_pending === 0;
      },
      { timeoutMs: 15_000 },
    );
    expect(handled).toBe(1);
    expect(Object.fromEntries(await effectCounts(t.db))).toEqual({ [id]: 1 });
  });

  it('should let two durables of one service each handle the same event once', async () => {
    const { t, ns } = await setup();
    const [id] = await writeEvents(t.db, ns.subject, 1);
    await Promise.all([consumer(t, ns, { durable: 'first' }).ready, consumer(t, ns, { durable: 'second' }).ready]);
    relay(t.db);
    await waitFor(async () => (await t.db('effects').count('* as c'))[0].c === '2', { timeoutMs: 15_000 });
    expect(Object.fromEntries(await effectCounts(t.db, 'first'))).toEqual({ [id]: 1 });
    expect(Object.fromEntries(await effectCounts(t.db, 'second'))).toEqual({ [id]: 1 });
  });

  it('should retry a failing handler, then dead-letter the message after maxDeliver deliveries', async () => {
    const { t, ns } = await setup();
    cleanups.push(() => nats.jsm.streams.purge(DLQ_STREAM, { filter: ns.dlqSubject }));
    const attempts = new Map<number, number>();
    let flaky = 0;
    await consumer(t, ns, {
      maxDeliver: 3,
      backoffMs: [100, 200],
      onEvent: (e) => {
        attempts.set(e.data.n, (attempts.get(e.data.n) ?? 0) + 1);
        if (e.data.n === 13) throw new Error('poison: cannot handle 13');
        if (e.data.n === 5 && flaky++ < 1) throw new Error('transient');
      },
    }).ready;
    relay(t.db);
    const ids = await writeEvents(t.db, ns.subject, 20);
    await nats.js.publish(ns.subject, '{not json');

    await waitFor(async () => (await effectCounts(t.db)).size === 19, { timeoutMs: 20_000 });
    await waitFor(
      async () => (await nats.jsm.streams.info(DLQ_STREAM, { subjects_filter: ns.dlqSubject })).state.subjects?.[ns.dlqSubject] === 2,
      { timeoutMs: 20_000 },
    );
    await waitFor(async () => {
      const info = await nats.jsm.consumers.info(ns.stream, 'c1');
      return info.num_pending === 0 && info.num_ack_pending === 0;
    });

    expect(attempts.get(13)).toBe(3);
    expect(attempts.get(5)).toBe(2);
    const counts = await effectCounts(t.db);
    expect(counts.has(ids[13])).toBe(false);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);

    const dead = await readDlq(ns.dlqSubject, 2);
    const poison = dead.find((m) => m.headers?.get('Rdm-Dlq-Reason') === 'handler_failed');
    expect(poison?.json<EventEnvelope<{ n: number }>>()).toMatchObject({ id: ids[13], data: { n: 13 } });
    expect(poison?.headers?.get('Rdm-Dlq-Deliveries')).toBe('3');
    expect(poison?.headers?.get('Rdm-Dlq-Error')).toContain('poison: cannot handle 13');
    expect(poison?.headers?.get('Rdm-Dlq-Subject')).toBe(ns.subject);
    expect(poison?.headers?.get('Rdm-Dlq-Stream')).toBe(ns.stream);
    expect(poison?.headers?.get('Rdm-Dlq-Consumer')).toBe('c1');
    const garbage = dead.find((m) => m.headers?.get('Rdm-Dlq-Reason') === 'invalid_envelope');
    expect(garbage?.string()).toBe('{not json');
    expect(garbage?.headers?.get('Rdm-Dlq-Deliveries')).toBe('1');
  });
});

/** Read up to `n` messages of a dead-letter subject through a throw-away consumer. */
async function readDlq(subject: string, n: number): Promise<JsMsg[]> {
  const name = `read_${Math.random().toString(36).slice(2)}`;
  await nats.jsm.consumers.add(DLQ_STREAM, {
    name,
    filter_subject: subject,
    ack_policy: AckPolicy.None,
    inactive_threshold: nanos(30_000),
  });
  try {
    const c = await nats.js.consumers.get(DLQ_STREAM, name);
    const out: JsMsg[] = [];
    const iter = await c.fetch({ max_messages: n, expires: 2000 });
    for await (const m of iter) out.push(m);
    return out;
  } finally {
    await nats.jsm.consumers.delete(DLQ_STREAM, name).catch(() => undefined);
  }
}
