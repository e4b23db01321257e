/**
 * Fire-and-forget publisher of usage events to JetStream (stream `STATS`, subjects `rdm.stats.record.viewed`, `rdm.stats.file.downloaded`).
 *
 * When to use: on a counted request (a view, a download), after the response is decided; the
 * request never waits. Why not the outbox: a write per read is what counting must not cost.
 * Loss is bounded: at most `maxInFlight` (default 1000) unacknowledged publishes exist at once —
 * beyond that (NATS slow or down) events are dropped and counted in `dropped` — so a crash or a
 * NATS outage loses at most the in-flight events and those dropped, which the log reports. Each
 * event carries a `Nats-Msg-Id` (the envelope id), so a retried publish is stored once.
 */
import { STREAMS } from '@rdm/contracts';
import { randomUUID } from 'node:crypto';
import type { NatsHandle } from '@rdm/platform';

type JetStreamClient = NatsHandle['js'];

/** Stream holding usage events (created by the records service at start). */
export const STATS_STREAM = STREAMS.STATS;

/** Publishes usage events without blocking. */
export class StatsPublisher {
  private inFlight = 0;
  /** Events dropped because too many publishes were pending or one failed. */
  dropped = 0;

  constructor(
    private readonly js: JetStreamClient,
    private readonly maxInFlight = 1000,
  ) {}

  /** Publish `data` on `subject` (`rdm.stats.record.viewed` / `rdm.stats.file.downloaded`). */
  publish(subject: string, data: { record_id: string; visitor: string; at: string; size?: number }): void {
    if (this.inFlight >= this.maxInFlight) {
      this.dropped += 1;
      return;
    }
    const id = randomUUID();
    const envelope = {
      id,
      type: subject,
      version: 1,
      occurred_at: data.at,
      aggregate: { type: 'record', id: data.record_id, revision: 0 },
      data,
    };
    this.inFlight += 1;
    this.js
      .publish(subject, JSON.stringify(envelope), { msgID: id })
      .catch(() => {
        this.dropped += 1;
      })
      .finally(() => {
        this.inFlight -= 1;
      });
  }
}
