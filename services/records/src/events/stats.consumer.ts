/**
 * Aggregating consumer of usage events (stream STATS): `rdm.stats.record.viewed` (durable
 * `records-stats-views`) and `rdm.stats.file.downloaded` (`records-stats-downloads`, emitted by
 * the files service). Each event is counted in its inbox transaction, so a redelivery counts once.
 *
 * When to use: started by main.ts with the other workers.
 */
import { type ConsumerHandle, type Knex, type Logger, type NatsHandle, runConsumer } from '@rdm/platform';
import type { StatsComponent, UsageEvent } from '../domain/stats.component.js';

/** Durable names. */
export const STATS_DURABLES = { v: 'records-stats-views', d: 'records-stats-downloads' } as const;

/** Two background workers (views, downloads). */
export function statsWorkers(o: { db: Knex; nats: NatsHandle; stats: StatsComponent; logger: Logger }) {
  return (['v', 'd'] as const).map((kind) => {
    let handle: ConsumerHandle | undefined;
    return {
      name: `consumer:${STATS_DURABLES[kind]}`,
      start() {
        handle = runConsumer({
          db: o.db,
          js: o.nats.js,
          jsm: o.nats.jsm,
          stream: 'STATS',
          durable: STATS_DURABLES[kind],
          filterSubject: kind === 'v' ? 'rdm.stats.record.viewed' : 'rdm.stats.file.downloaded',
          logger: o.logger,
          service: 'records',
          handler: (trx, e) => o.stats.apply(trx, kind, e.data),
        });
      },
      async stop() {
        await handle?.stop();
      },
    };
  });
}
