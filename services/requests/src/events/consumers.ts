/**
 * Durable consumers of the effect events of saga request types (registry `effect.mode: 'saga'`):
 * one per subject (e.g. `rdm.records.record.published` → `requests-record-published` on stream
 * `RECORDS`). They apply the outcome with `applyEffect` in the inbox transaction, so an outcome
 * the inline waiter missed (timeout, crash, another replica) is applied exactly once.
 * Direct types need no consumer: their request is `accepted` before the effect happens.
 */
import { type ConsumerHandle, type Knex, type MsgLogger, type NatsHandle, runConsumer } from '@rdm/platform';
import { applyEffect, effectDurable, effectStream, hasRequestId } from '../domain/effects.js';
import { requestTypes } from '../domain/types/registry.js';

/** Subjects the durable consumers follow (confirm and fail subjects of saga types). */
export function sagaEffectSubjects(): string[] {
  const s = new Set<string>();
  for (const t of requestTypes()) if (t.effect.mode === 'saga') for (const x of [...t.effect.confirm, ...t.effect.fail]) s.add(x);
  return [...s].sort();
}

/** Start one durable consumer per saga effect subject. */
export function startEffectConsumers(o: {
  db: Knex;
  nats: Pick<NatsHandle, 'js' | 'jsm'>;
  logger: MsgLogger;
  ackWaitMs?: number;
}): ConsumerHandle[] {
  return sagaEffectSubjects().map((subject) =>
    runConsumer({
      db: o.db,
      js: o.nats.js,
      jsm: o.nats.jsm,
      stream: effectStream(subject),
      durable: effectDurable(subject),
      filterSubject: subject,
      logger: o.logger,
      service: 'requests',
      ackWaitMs: o.ackWaitMs,
      // Why: most effect events concern no request (a direct publish has no `request_id`); applyEffect
      // would ignore them anyway, after a transaction and an inbox row per published record.
      skip: (envelope) => !hasRequestId(envelope.data),
      handler: async (trx, envelope) => {
        await applyEffect(trx, subject, envelope, { recordInbox: false });
      },
    }),
  );
}
