/**
 * The consumers feeding `record_access` (domain/record-access.ts) from records' events, and the
 * freshness check of that copy.
 * - `rdm.records.record.published` → the version's row (bucket, access status), through the
 *   existing `files-record-published` consumer (events/consumers.ts calls `applyPublished`);
 * - `rdm.records.record.deleted` / `.restored` → the row's `deleted` flag;
 * - `rdm.records.record.embargo-lifted` → the row's access status.
 * Each write carries the message's RECORDS stream sequence, so an older event never overwrites
 * a newer one whichever consumer applies it last.
 *
 * When to use: started with the other consumers (`startFilesConsumers`); `JetStreamFreshness`
 * is the `CopyFreshness` given to `LocalAccessAuthorizer` in main.ts.
 */
import { type ConsumerHandle, type EventEnvelope, type Knex, type Logger, type NatsHandle, runConsumer } from '@rdm/platform';
import type { EventData } from '@rdm/contracts';
import type { CopyFreshness } from '../domain/record-access.js';
import * as access from '../repo/record-access.repo.js';

/** The part of rdm.records.record.published's data that the copy keeps. */
export type PublishedAccess = Pick<EventData['rdm.records.record.published'], 'id' | 'parent_id' | 'bucket_id' | 'access_status'>;

/** Durable names of every consumer that feeds the copy (the freshness check watches them all). */
export const ACCESS_DURABLES = ['files-record-published', 'files-record-deleted', 'files-record-restored', 'files-record-embargo-lifted'];

/** Apply rdm.records.record.published to the copy (inside the consumer's transaction). */
export function applyPublished(trx: Knex.Transaction, e: EventEnvelope<PublishedAccess>, seq: number): Promise<void> {
  const d = e.data;
  return access.upsertPublished(trx, {
    record_id: d.id,
    parent_id: d.parent_id,
    bucket_id: d.bucket_id,
    access_status: d.access_status,
    seq,
  });
}

/** Start the deleted / restored / embargo-lifted consumers. */
export function startRecordAccessConsumers(opts: { db: Knex; nats: NatsHandle; logger: Logger }): ConsumerHandle[] {
  const { db, nats, logger } = opts;
  const common = { db, js: nats.js, jsm: nats.jsm, stream: 'RECORDS', logger, service: 'files' };
  return [
    runConsumer({
      ...common,
      durable: 'files-record-deleted',
      filterSubject: 'rdm.records.record.deleted',
      handler: (trx, e, msg) => access.setDeleted(trx, e.data.id, true, msg.seq),
    }),
    runConsumer({
      ...common,
      durable: 'files-record-restored',
      filterSubject: 'rdm.records.record.restored',
      handler: (trx, e, msg) => access.setDeleted(trx, e.data.id, false, msg.seq),
    }),
    runConsumer({
      ...common,
      durable: 'files-record-embargo-lifted',
      filterSubject: 'rdm.records.record.embargo-lifted',
      handler: (trx, e, msg) => access.setAccessStatus(trx, e.data.id, e.data.access_status, msg.seq),
    }),
  ];
}

/**
 * The copy is caught up when none of its consumers has a message pending or unacknowledged on
 * the server. Answers are reused for `cacheMs` (default 500 ms); a failed check (NATS down, a
 * consumer not created yet) is "not caught up".
 */
export class JetStreamFreshness implements CopyFreshness {
  private last?: { at: number; value: Promise<boolean> };

  constructor(
    private readonly jsm: NatsHandle['jsm'],
    private readonly o: { stream?: string; durables?: string[]; cacheMs?: number } = {},
  ) {}

  caughtUp(): Promise<boolean> {
    const now = Date.now();
    if (this.last && now - this.last.at < (this.o.cacheMs ?? 500)) return this.last.value;
    const value = this.check();
    this.last = { at: now, value };
    return value;
  }

  private async check(): Promise<boolean> {
    try {
      const infos = await Promise.all(
        (this.o.durables ?? ACCESS_DURABLES).map((d) => this.jsm.consumers.info(this.o.stream ?? 'RECORDS', d)),
      );
      return infos.every((i) => i.num_pending === 0 && i.num_ack_pending === 0);
    } catch {
      return false;
    }
  }
}
