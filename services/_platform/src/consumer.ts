/**
 * Durable event consumers with exactly-once effects.
 *
 * When to use: a service reacting to another service's events (files locks a bucket on
 * `rdm.records.record.published`). Start one `runConsumer` per (stream, subject) as a
 * background worker; the service's migrations must include `inboxMigration`.
 *
 * How it works:
 * - A durable pull consumer (explicit ack, one filter subject because nats-server 2.9 lacks
 *   `filter_subjects`) is created or updated on start, and again after the server lost it.
 * - Each message is handled in ONE database transaction that first inserts
 *   `(message_id = envelope id, consumer = durable)` into `inbox` with `ON CONFLICT DO
 *   NOTHING`. When the row already existed the effect happened before (a redelivery, a
 *   duplicate publish, a lost ack): the message is only acked. Otherwise the handler runs in
 *   the same transaction; after COMMIT the message is acked. A crash before the ack means a
 *   redelivery, which the inbox turns into a no-op.
 * - A failing handler rolls back and the message is nak'ed with a delay from `backoffMs`
 *   (delivery n waits `backoffMs[n-1]`, the last value repeating). When the failing delivery is
 *   the `maxDeliver`-th, the message is copied to the dead-letter subject (default
 *   `rdm.dlq.<service>`, kept by the `DLQ` stream) with `Rdm-Dlq-*` headers describing the
 *   failure, then `term()`ed. A message that is not a JSON envelope goes there at once.
 * - A database outage is not a poison message: a failure that `isConnectionError` recognises
 *   (refused connection, terminated backend, pool timeout) pauses the consumer — until a probe
 *   (`select 1`) answers, every message is nak'ed with `outageRetryMs` delay without running the
 *   handler — and the deliveries it cost are not counted toward `maxDeliver` (deliveries lost
 *   to outages are remembered per stream sequence, in memory; the server's own `max_deliver` is
 *   unlimited so it never drops a message on its own). So an outage of any length sends no good
 *   message to the dead-letter queue.
 * - `inbox` rows older than `inboxRetentionMs` (default 7 days, never less than the stream's
 *   duplicate window) are pruned at start and every `inboxPruneIntervalMs` (default 1 h), in
 *   small batches. Trade-off: an event redelivered after its row was pruned (a consumer
 *   re-created from the start of the stream) has its effect again.
 * - The server-side `ack_wait` (default 30 s) only matters when a process dies mid-message; a
 *   long handler keeps its message with `working()` heartbeats. Server-side `backoff` is not
 *   set because nats-server 2.9 then replaces `ack_wait` by `backoff[0]`, which would redeliver
 *   messages still waiting in the client's buffer.
 * - Concurrency (opt-in, `concurrency: N`, default 1 = strictly one message after another): up to
 *   N messages are handled at once, each in its own inbox transaction and acked after its own
 *   COMMIT, while messages of the same `orderKey` (default: the envelope's aggregate) run one after
 *   another in delivery order. Back-pressure: the loop takes no message from the client's pull
 *   buffer (N messages by default) while 4·N are in hand (running, or waiting behind their key or
 *   for a handler slot), so at most 5·N are unacked in this process and a slow key delays the
 *   others only once it holds that many; a waiting message keeps its claim with `working()`;
 *   a `skip`ped message is acked at once, outside the lanes (it has no effect to order). After a
 *   crash, messages come back as their ack waits run out, the one in hand (its wait renewed by
 *   `working()`) possibly after later ones of its key: per-key order holds within one process's
 *   deliveries, as the stream order does in sequential mode. A failed message is nak'ed
 *   and comes back later, behind the later messages of its key — the same order guarantee as the
 *   sequential mode. Use it when the handler's latency (round trips), not the database, bounds
 *   the throughput and order only matters per entity (webhooks: per record parent).
 * - Reconnects are handled by the client; if the consumer or stream disappears (server store
 *   lost), the loop re-creates the consumer and continues.
 *
 * `consumerWorker(opts)` wraps one consumer as a runService `Worker` started after listen (the
 * workers of `serviceMain`); `serviceMain`'s `consumers` takes handles already running.
 */
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, nanos } from '@nats-io/nats-core';
import type { EnvelopeMatching } from '@rdm/contracts';
import type { Knex } from 'knex';
import { prepared, serviceOf } from './db.js';
import { isConnectionError } from './errors.js';
import type { EventEnvelope } from './events.js';
import type { MsgLogger } from './nats.js';
import { ensureStream, isStreamNotFound } from './outbox.js';
import type { Worker } from './service.js';

/** Name of the stream keeping dead letters (`rdm.dlq.>`). */
export const DLQ_STREAM = 'DLQ';

/** Create the `inbox` table (idempotent); call from a service migration. */
export async function inboxMigration(knex: Knex): Promise<void> {
  // Why: the key includes the consumer so two durables of one service may both handle an event.
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS inbox (
      message_id text NOT NULL,
      consumer text NOT NULL,
      subject text NOT NULL,
      processed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (message_id, consumer)
    )`);
}

/** Handler of one event; runs inside the transaction that records the inbox row. */
export type EventHandler<T = Record<string, unknown>> = (trx: Knex.Transaction, envelope: EventEnvelope<T>, msg: JsMsg) => Promise<void>;

/** The durable pull consumer of a worker (`runConsumer`, the search indexer). */
export interface DurableConsumerOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Stream to consume (e.g. `RECORDS`). */
  stream: string;
  /** Durable consumer name, e.g. `files-record-published`. */
  durable: string;
  /** Exactly one subject (nats-server 2.9). */
  filterSubject: string;
  logger: MsgLogger;
}

/**
 * Creates the durable consumer (explicit ack, delivering from the start of the stream) or updates
 * its settings; called on start and again after the server lost it.
 */
export async function ensureDurableConsumer(
  o: Pick<DurableConsumerOptions, 'jsm' | 'stream' | 'durable' | 'filterSubject'>,
  settings: { ackWaitMs: number; maxAckPending: number },
): Promise<void> {
  const config = {
    ack_policy: AckPolicy.Explicit,
    // Why unlimited: redelivery and dead-lettering are the worker's decision; a server limit would
    // silently drop a good message nak'ed through a long outage.
    max_deliver: -1,
    ack_wait: nanos(settings.ackWaitMs),
    filter_subject: o.filterSubject,
    max_ack_pending: settings.maxAckPending,
  };
  try {
    await o.jsm.consumers.info(o.stream, o.durable);
    await o.jsm.consumers.update(o.stream, o.durable, config);
  } catch (err) {
    if ((err as { code?: number }).code !== 10014 && !/consumer not found/i.test((err as Error).message ?? '')) throw err;
    await o.jsm.consumers.add(o.stream, { ...config, durable_name: o.durable, deliver_policy: DeliverPolicy.All });
  }
}

/**
 * Options of runConsumer, typed by the filter: the handler gets `EnvelopeMatching<F>`, the envelope
 * of each contract subject `filterSubject` captures (`EventEnvelope<EventData[S]>`, discriminated by
 * `type`; `Record<string, unknown>` data for a filter naming none: tests' private subjects).
 */
export interface RunConsumerOptions<F extends string = string> extends DurableConsumerOptions {
  /** Exactly one subject or wildcard filter (nats-server 2.9); types the handler. */
  filterSubject: F;
  db: Knex;
  handler: (trx: Knex.Transaction, envelope: EnvelopeMatching<F>, msg: JsMsg) => Promise<void>;
  /** Deliveries before a failing message is dead-lettered (default 5). */
  maxDeliver?: number;
  /** Nak delays per delivery (default [1000, 5000, 15000]). */
  backoffMs?: number[];
  /** Redelivery timeout when a process dies mid-message (default 30000 ms). */
  ackWaitMs?: number;
  /** Dead-letter subject (default `rdm.dlq.<service>`). */
  dlqSubject?: string;
  /** Consuming service, for the default DLQ subject (default: the service of `db`, else the durable). */
  service?: string;
  /**
   * Events this consumer has nothing to do with, decided from the envelope alone (e.g. a
   * `record.published` without a `request_id` for the requests saga): acked without a transaction
   * or an inbox row, since there is no effect to make once. Keep it a pure function of the envelope.
   */
  skip?: (envelope: EnvelopeMatching<F>) => boolean;
  /** Messages pulled per request (default 10; `concurrency` when that is above 1). */
  batchSize?: number;
  /**
   * Handlers run at once (default 1: one message after another, in stream order). Above 1, up to
   * this many run in their own transactions at once while messages of the same `orderKey` still
   * run one after another, in delivery order; at most 4× this many messages are in hand.
   */
  concurrency?: number;
  /**
   * Key of the messages whose relative order matters (with `concurrency` > 1; default: the
   * envelope's aggregate `type:id`). A pure function of the envelope; a message that is not an
   * envelope gets the empty key.
   */
  orderKey?: (envelope: EnvelopeMatching<F>) => string;
  /** While the database is unreachable: nak delay and probe interval (default 2000 ms). */
  outageRetryMs?: number;
  /** Age after which this consumer's inbox rows are pruned (default 7 days; at least the stream's duplicate window; 0 = never). */
  inboxRetentionMs?: number;
  /** How often old inbox rows are pruned (default 1 h; also once at start). */
  inboxPruneIntervalMs?: number;
}

/** A running consumer. */
export interface ConsumerHandle {
  /** Worker name (`consumer:<durable>`). */
  readonly name: string;
  /** Resolves once the consumer exists and messages are being pulled. */
  readonly ready: Promise<void>;
  /** Stop pulling, finish the message in hand (bounded) and return. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

/** Bound on remembered outage deliveries (stream sequences); the oldest are forgotten first. */
const MAX_OUTAGE_ENTRIES = 100_000;
/** Concurrent mode: messages in hand (running or waiting behind their key) per handler slot. */
const IN_HAND_FACTOR = 4;
/** Inbox rows deleted per pruning statement (short locks, small WAL bursts). */
const PRUNE_BATCH = 5000;

function isEnvelope(v: unknown): v is EventEnvelope {
  const e = v as EventEnvelope | null;
  return (
    !!e &&
    typeof e === 'object' &&
    typeof e.id === 'string' &&
    e.id.length > 0 &&
    typeof e.type === 'string' &&
    typeof e.data === 'object' &&
    e.data !== null
  );
}

const errText = (err: unknown) =>
  String((err as Error)?.message ?? err)
    .slice(0, 1000)
    .replace(/[\r\n]+/g, ' ');

/** Start a durable consumer whose handler's effects happen once per event; see the file header. */
export function runConsumer<F extends string>(opts: RunConsumerOptions<F>): ConsumerHandle {
  const { db, js, jsm, stream, durable, filterSubject, handler, logger } = opts;
  const maxDeliver = Math.max(1, opts.maxDeliver ?? 5);
  const backoffMs = opts.backoffMs && opts.backoffMs.length > 0 ? opts.backoffMs : [1000, 5000, 15000];
  const ackWaitMs = opts.ackWaitMs ?? 30_000;
  const dlqSubject = opts.dlqSubject ?? `rdm.dlq.${opts.service ?? serviceOf(db) ?? durable}`;
  const outageRetryMs = opts.outageRetryMs ?? 2000;
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 1));
  const retentionMs = opts.inboxRetentionMs ?? 7 * 24 * 3600 * 1000;
  const pruneEveryMs = opts.inboxPruneIntervalMs ?? 3600 * 1000;
  const log = { stream, durable, subject: filterSubject };

  // Database outage state: while `dbDown`, messages are nak'ed unhandled; `outages` counts, per
  // stream sequence, the deliveries an outage cost (subtracted from the delivery count).
  let dbDown = false;
  let probing: Promise<void> | undefined;
  const outages = new Map<number, number>();
  const countOutage = (m: JsMsg) => {
    const seq = m.info.streamSequence;
    outages.delete(seq);
    outages.set(seq, (outages.get(seq) ?? 0) + 1);
    if (outages.size > MAX_OUTAGE_ENTRIES) outages.delete(outages.keys().next().value as number);
    m.nak(outageRetryMs);
  };
  const probeUntilUp = () => {
    probing ??= (async () => {
      while (!stopped) {
        await sleep(outageRetryMs);
        try {
          await db.raw('select 1');
          break;
        } catch {
          // still down
        }
      }
      dbDown = false;
      probing = undefined;
      logger.info(log, 'database reachable again; consuming');
    })();
  };

  let stopped = false;
  let current: { stop(err?: Error): void; close(): Promise<unknown> } | undefined;
  let wakeRetry: (() => void) | undefined;
  let markReady!: () => void;
  let failReady!: (e: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  ready.catch(() => undefined);

  const ensure = async () => {
    await ensureStream(jsm, { name: DLQ_STREAM, subjects: ['rdm.dlq.>'] });
    await ensureDurableConsumer(opts, { ackWaitMs, maxAckPending: 1000 });
  };

  const deadLetter = async (m: JsMsg, reason: string, err: unknown) => {
    const h = natsHeaders();
    if (m.headers) {
      for (const k of m.headers.keys()) {
        if (k.toLowerCase() === 'nats-msg-id' || k.toLowerCase().startsWith('nats-expected')) continue;
        for (const v of m.headers.values(k)) h.append(k, v);
      }
    }
    h.set('Rdm-Dlq-Reason', reason);
    h.set('Rdm-Dlq-Error', errText(err));
    h.set('Rdm-Dlq-Subject', m.subject);
    h.set('Rdm-Dlq-Stream', m.info.stream);
    h.set('Rdm-Dlq-Stream-Seq', String(m.info.streamSequence));
    h.set('Rdm-Dlq-Consumer', durable);
    h.set('Rdm-Dlq-Deliveries', String(m.info.deliveryCount));
    try {
      await js.publish(dlqSubject, m.data, { headers: h, msgID: `${durable}:${m.info.stream}:${m.info.streamSequence}` });
      m.term();
      logger.error(
        { ...log, err, reason, dlqSubject, seq: m.info.streamSequence, deliveries: m.info.deliveryCount },
        'event dead-lettered',
      );
    } catch (pubErr) {
      logger.error({ ...log, err: pubErr }, 'dead-lettering failed; will retry');
      m.nak(backoffMs[backoffMs.length - 1]);
    }
  };

  const parse = (m: JsMsg): { envelope: EnvelopeMatching<F> } | { err: unknown } => {
    try {
      const parsed: unknown = m.json();
      if (!isEnvelope(parsed)) throw new Error('not an event envelope {id, type, data}');
      return { envelope: parsed as EnvelopeMatching<F> };
    } catch (err) {
      return { err };
    }
  };

  const processOne = async (m: JsMsg, parsed = parse(m)) => {
    // Paused: the database is unreachable; the delivery does not count.
    if (dbDown) {
      countOutage(m);
      return;
    }
    const seq = m.info.streamSequence;
    const dc = m.info.deliveryCount - (outages.get(seq) ?? 0);
    if ('err' in parsed) {
      await deadLetter(m, 'invalid_envelope', parsed.err);
      return;
    }
    const { envelope } = parsed;
    if (opts.skip?.(envelope)) {
      m.ack();
      outages.delete(seq);
      return;
    }
    const heartbeat = setInterval(() => m.working(), Math.max(500, Math.floor(ackWaitMs / 3)));
    try {
      let duplicate = false;
      await db.transaction(async (trx) => {
        // Raw SQL: this runs for every event of every consumer (the builder costs a round trip's worth of CPU).
        const inserted = await prepared(
          trx,
          'INSERT INTO inbox (message_id, consumer, subject) VALUES (?, ?, ?) ON CONFLICT (message_id, consumer) DO NOTHING RETURNING message_id',
          [envelope.id, durable, m.subject],
        );
        if (inserted.rows.length === 0) {
          duplicate = true;
          return;
        }
        await handler(trx, envelope, m);
      });
      m.ack();
      outages.delete(seq);
      if (duplicate) logger.debug({ ...log, eventId: envelope.id }, 'duplicate event acked');
    } catch (err) {
      if (isConnectionError(err)) {
        if (!dbDown) logger.warn({ ...log, err }, 'database unreachable; pausing the consumer');
        dbDown = true;
        countOutage(m);
        probeUntilUp();
      } else if (dc >= maxDeliver) {
        outages.delete(seq);
        await deadLetter(m, 'handler_failed', err);
      } else {
        const delay = backoffMs[Math.min(dc - 1, backoffMs.length - 1)];
        logger.warn({ ...log, err, eventId: envelope.id, deliveries: dc, retryInMs: delay }, 'event handler failed; will retry');
        m.nak(delay);
      }
    } finally {
      clearInterval(heartbeat);
    }
  };

  // Concurrent mode: one promise chain ("lane") per order key; at most `concurrency` handlers run
  // (`running`, FIFO `slotWaiters`) and at most IN_HAND_FACTOR·`concurrency` messages are taken from
  // the iterator and not finished (`held`: running or waiting in their lane), so a slow key holds
  // its own lane without starving the others until that bound, and memory stays bounded.
  const keyOf = (parsed: ReturnType<typeof parse>) => {
    if ('err' in parsed) return '';
    if (opts.orderKey) return opts.orderKey(parsed.envelope);
    const a = (parsed.envelope as { aggregate?: EventEnvelope['aggregate'] }).aggregate;
    return a ? `${a.type}:${a.id}` : parsed.envelope.id;
  };
  const consumeConcurrently = async (messages: AsyncIterable<JsMsg>) => {
    const lanes = new Map<string, Promise<void>>();
    const maxHeld = concurrency * IN_HAND_FACTOR;
    let held = 0;
    let running = 0;
    const slotWaiters: (() => void)[] = [];
    let heldFreed: (() => void) | undefined;
    const acquire = async () => {
      if (running < concurrency) running++;
      else await new Promise<void>((resolve) => slotWaiters.push(resolve)); // the slot is handed over
    };
    const release = () => {
      const next = slotWaiters.shift();
      if (next) next();
      else running--;
    };
    for await (const m of messages) {
      const parsed = parse(m);
      if (!('err' in parsed) && opts.skip?.(parsed.envelope)) {
        // No effect to order: acked at once rather than behind its key.
        await processOne(m, parsed);
        if (stopped) break;
        continue;
      }
      held++;
      let key: string;
      try {
        key = keyOf(parsed);
      } catch {
        key = '';
      }
      const before = lanes.get(key);
      const lane = (async () => {
        // Waiting behind its key or for a slot: keep the message ours (no redelivery meanwhile).
        const waiting = setInterval(() => m.working(), Math.max(500, Math.floor(ackWaitMs / 3)));
        try {
          await before;
          await acquire();
        } finally {
          clearInterval(waiting);
        }
        try {
          await processOne(m, parsed);
        } finally {
          release();
        }
      })()
        .catch((err) => logger.error({ ...log, err }, 'event processing failed'))
        .finally(() => {
          held--;
          if (lanes.get(key) === lane) lanes.delete(key);
          heldFreed?.();
        });
      lanes.set(key, lane);
      while (held >= maxHeld && !stopped) {
        await new Promise<void>((resolve) => {
          heldFreed = resolve;
        });
        heldFreed = undefined;
      }
      if (stopped) break;
    }
    // Why wait: acks go out after each commit; the loop re-creates the consumer only once none is in hand.
    await Promise.allSettled([...lanes.values()]);
  };

  const loop = async () => {
    let failures = 0;
    while (!stopped) {
      try {
        await ensure();
        const consumer = await js.consumers.get(stream, durable);
        const messages = await consumer.consume({ max_messages: opts.batchSize ?? (concurrency > 1 ? concurrency : 10) });
        current = messages;
        if (stopped) {
          messages.stop();
          break;
        }
        failures = 0;
        markReady();
        void (async () => {
          for await (const s of messages.status()) {
            if (s.type === 'consumer_deleted' || s.type === 'consumer_not_found' || s.type === 'stream_not_found') {
              logger.warn({ ...log, status: s.type }, 'consumer lost; re-creating');
              // Why: ending the iterator sends the loop back to ensure().
              messages.stop();
              return;
            }
          }
        })().catch(() => undefined);
        if (concurrency > 1) await consumeConcurrently(messages);
        else {
          for await (const m of messages) {
            await processOne(m);
            if (stopped) break;
          }
        }
      } catch (err) {
        if (stopped) break;
        failures++;
        // Why no stack for a missing stream: it is the producer not being up yet (a fresh NATS), not a
        // fault, and formatting a stack makes node load and parse the bundle's source map (~30 MiB
        // kept for the life of a production-build process, see services/files/README.md).
        if (isStreamNotFound(err)) logger.warn({ ...log, reason: (err as Error).message }, 'stream not there yet; retrying');
        else logger.error({ ...log, err }, 'consumer loop failed; retrying');
      }
      current = undefined;
      if (!stopped) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(10_000, 500 * 2 ** Math.min(failures, 5)));
          wakeRetry = () => {
            clearTimeout(t);
            resolve();
          };
        });
        wakeRetry = undefined;
      }
    }
  };

  // Inbox pruning: this consumer's rows older than the retention (and the duplicate window).
  let pruneTimer: NodeJS.Timeout | undefined;
  const prune = async () => {
    if (retentionMs <= 0 || stopped) return;
    try {
      let keepMs = retentionMs;
      const info = await jsm.streams.info(stream).catch(() => undefined);
      const windowNanos = Number(info?.config.duplicate_window ?? 0);
      keepMs = Math.max(keepMs, Math.ceil(windowNanos / 1e6));
      let deleted = 0;
      for (;;) {
        const r = await db.raw(
          `DELETE FROM inbox WHERE ctid IN (
             SELECT ctid FROM inbox WHERE consumer = ? AND processed_at < now() - (? * interval '1 millisecond') LIMIT ${PRUNE_BATCH})`,
          [durable, keepMs],
        );
        deleted += r.rowCount ?? 0;
        if ((r.rowCount ?? 0) < PRUNE_BATCH || stopped) break;
      }
      if (deleted > 0) logger.info({ ...log, deleted, keepMs }, 'inbox pruned');
    } catch (err) {
      logger.warn({ ...log, err }, 'inbox pruning failed; will retry');
    }
  };
  const schedulePrune = () => {
    if (retentionMs <= 0 || stopped) return;
    pruneTimer = setTimeout(() => void prune().finally(schedulePrune), pruneEveryMs);
    pruneTimer.unref?.();
  };
  void prune().finally(schedulePrune);

  const done = loop();

  return {
    name: `consumer:${durable}`,
    ready,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (pruneTimer) clearTimeout(pruneTimer);
      failReady(new Error('consumer stopped'));
      const c = current;
      // Why: awaiting close() can hang (see ENVIRONMENT.md); stop the iterator and move on.
      if (c) {
        c.stop();
        void c.close().catch(() => undefined);
      }
      wakeRetry?.();
      await Promise.race([done, sleep(5000)]);
    },
  };
}

/** A consumer run as a background `Worker`: `runConsumer(opts)` on start, stopped on stop; `ready` once it pulls. */
export function consumerWorker<F extends string>(opts: RunConsumerOptions<F>): Worker & { readonly ready: Promise<void> } {
  let handle: ConsumerHandle | undefined;
  return {
    name: `consumer:${opts.durable}`,
    start() {
      handle = runConsumer(opts);
    },
    async stop() {
      await handle?.stop();
    },
    get ready() {
      return handle?.ready ?? Promise.resolve();
    },
  };
}
