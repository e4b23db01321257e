/**
 * The search indexer: a durable JetStream consumer of a service's OWN outbox events that keeps its
 * OpenSearch/Elasticsearch index in step with PostgreSQL. Use one per index as a background worker
 * when `SEARCH_ENGINE` is not `postgres` (inline indexing after commit gives read-your-writes; this
 * repairs anything the inline path missed: a crash between commit and index, an engine outage).
 *
 * How it works: messages are pulled in batches (`batchSize`, default 200); the events only name the
 * aggregates (`aggregate.id`, `aggregate.revision`), and `load` reads their CURRENT state from the
 * database (rows as index operations, with `revision_id` as the external version), so the effect is
 * idempotent and order-independent: a redelivered or late event never overwrites a newer document.
 * One bulk request per batch, then every message is acked. Engine down (or the database): the batch
 * is nak'ed with `retryMs` and never dead-lettered; events wait in the stream until it returns.
 * No inbox table is needed (the write is idempotent by construction).
 */
import type { JsMsg } from '@nats-io/jetstream';
import { type ConsumerHandle, type DurableConsumerOptions, ensureDurableConsumer } from '../../consumer.js';
import { isConnectionError } from '../../errors.js';
import { isEngineDown } from './engine.js';
import type { BulkOp, SearchEngine } from './port.js';

/** An aggregate an event touched. */
export interface AggregateRef {
  id: string;
  revision: number;
  /** The event subject (e.g. `rdm.communities.community.deleted`). */
  subject: string;
  /** The event's `data` (an event may name several entities, e.g. a batch of vocabulary entries). */
  data?: unknown;
}

/** Options of runSearchIndexer: the service's own stream (`COMMUNITIES`), a durable (`communities-search-indexer`), one subject (wildcards allowed). */
export interface IndexerOptions extends DurableConsumerOptions {
  engine: SearchEngine;
  /** Index alias written to. */
  alias: string;
  /** Current state of the touched aggregates as bulk operations (index the row, or delete it). */
  load: (refs: AggregateRef[]) => Promise<BulkOp[]>;
  batchSize?: number;
  retryMs?: number;
}

/** A running indexer (`indexer:<durable>`): a worker as a consumer is. */
export type IndexerHandle = ConsumerHandle;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

/** Start the indexer (see the file header). */
export function runSearchIndexer(opts: IndexerOptions): IndexerHandle {
  const { js, engine, alias, stream, durable, load, logger } = opts;
  const batchSize = opts.batchSize ?? 200;
  const retryMs = opts.retryMs ?? 2000;
  const log = { stream, durable, alias };
  let stopped = false;
  let markReady!: () => void;
  const ready = new Promise<void>((r) => {
    markReady = r;
  });

  const ensure = () => ensureDurableConsumer(opts, { ackWaitMs: 60_000, maxAckPending: 5000 });

  const handle = async (msgs: JsMsg[]) => {
    const refs: AggregateRef[] = [];
    for (const m of msgs) {
      try {
        const env = m.json<{ aggregate?: { id?: string; revision?: number }; data?: unknown }>();
        if (env.aggregate?.id)
          refs.push({ id: String(env.aggregate.id), revision: Number(env.aggregate.revision ?? 0), subject: m.subject, data: env.data });
      } catch {
        // not JSON: nothing to index
      }
    }
    try {
      const ops = refs.length ? await load(refs) : [];
      const res = await engine.bulk(alias, ops);
      for (const f of res.failed)
        logger.error({ ...log, id: f.id, status: f.status, reason: f.reason }, 'document rejected by the search engine');
      for (const m of msgs) m.ack();
    } catch (err) {
      const outage = isEngineDown(err) || isConnectionError(err) || (err as { status?: number })?.status === 503;
      logger.warn({ ...log, err, outage, messages: msgs.length }, 'indexing batch failed; will retry');
      for (const m of msgs) m.nak(retryMs);
      await sleep(retryMs);
    }
  };

  const loop = async () => {
    let failures = 0;
    while (!stopped) {
      try {
        await ensure();
        const consumer = await js.consumers.get(stream, durable);
        markReady();
        failures = 0;
        while (!stopped) {
          const batch: JsMsg[] = [];
          const iter = await consumer.fetch({ max_messages: batchSize, expires: 1000 });
          for await (const m of iter) batch.push(m);
          if (batch.length) await handle(batch);
        }
      } catch (err) {
        if (stopped) break;
        failures++;
        logger.error({ ...log, err }, 'indexer loop failed; retrying');
        await sleep(Math.min(10_000, 500 * 2 ** Math.min(failures, 5)));
      }
    }
  };
  const running = loop();
  return {
    name: `indexer:${durable}`,
    ready,
    async stop() {
      stopped = true;
      await Promise.race([running, sleep(3000)]);
    },
  };
}
