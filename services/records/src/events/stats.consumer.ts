/**
 * Aggregating consumer of usage events (stream STATS): `rdm.stats.record.viewed` (durable
 * `records-stats-views`) and `rdm.stats.file.downloaded` (`records-stats-downloads`, emitted by
 * the files service). Each event is counted in its inbox transaction, so a redelivery counts once.
 *
 * When to use: started by main.ts with the other workers.
 */
import { consumerWorker, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
import type { StatsService, UsageEvent } from '../stats/stats.service.js';

/** Durable names. */
export const STATS_DURABLES = { v: 'records-stats-views', d: 'records-stats-downloads' } as const;

/** Two background workers (views, downloads). */
export function statsWorkers(o: { db: Knex; nats: NatsHandle; stats: StatsService; logger: Logger }) {
  return (['v', 'd'] as const).map((kind) =>
    consumerWorker({
      db: o.db,
      js: o.nats.js,
      jsm: o.nats.jsm,
      stream: 'STATS',
      durable: STATS_DURABLES[kind],
      filterSubject: kind === 'v' ? 'rdm.stats.record.viewed' : 'rdm.stats.file.downloaded',
      logger: o.logger,
      service: 'records',
      handler: (trx, e) => o.stats.apply(trx, kind, e.data),
    }),
  );
}
