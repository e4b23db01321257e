/**
 * The embargo lifter: a periodic job that opens published records whose embargo has passed
 * (reference §3.3: record and files become public, `embargo.active` false, `access.status`
 * recomputed), updates their search documents and writes `rdm.records.record.embargo-lifted`
 * to the outbox — all in one transaction per batch.
 *
 * Safe on several replicas at once: each batch claims its rows with `FOR UPDATE SKIP LOCKED`, so
 * two runners never lift the same record (one wins, the other skips it), and a record lifted by
 * one is no longer selected by the next. It catches up after downtime: it selects every record
 * whose `until` is today or earlier (not only those that expired since the last run), and runs
 * once at start.
 *
 * When to use: started as a worker by main.ts (`EMBARGO_LIFT_INTERVAL_MS`, 0 disables); tests
 * call `runOnce`.
 */
import { type Knex, type MsgLogger, withTransaction, writeOutbox } from '@rdm/platform';
import * as embargoRepo from '../repo/embargo.repo.js';
import { getParent } from '../repo/records.repo.js';
import { accessStatus } from '../domain/access.js';
import { recordDoc } from '../domain/builders.js';
import type { RecordRow } from '../domain/model.js';
import type { SearchIndexPort } from '../domain/ports.js';

/** Subject of the lift event. */
export const EMBARGO_LIFTED = 'rdm.records.record.embargo-lifted';
const BATCH = 100;

/** What the lifter needs. */
export interface EmbargoJobDeps {
  db: Knex;
  index: SearchIndexPort;
  logger: MsgLogger;
}

/** Lifts expired embargoes, batch by batch. */
export class EmbargoLifter {
  constructor(private readonly d: EmbargoJobDeps) {}

  /** Lift every embargo that ended on or before `now`'s UTC day; returns how many this runner lifted. */
  async runOnce(now = new Date()): Promise<number> {
    const today = now.toISOString().slice(0, 10);
    let total = 0;
    for (;;) {
      const n = await this.batch(today, now);
      total += n;
      if (n < BATCH) return total;
    }
  }

  /** One transaction: claim up to BATCH expired records (skipping those another runner holds) and lift them. */
  private batch(today: string, now: Date): Promise<number> {
    return withTransaction(this.d.db, async (trx) => {
      const rows = await embargoRepo.claimExpired(trx, today, BATCH);
      for (const record of rows) await this.lift(trx, record, now);
      return rows.length;
    });
  }

  private async lift(trx: Knex.Transaction, record: RecordRow, now: Date): Promise<void> {
    const until = record.access.embargo?.until;
    const access = {
      ...record.access,
      record: 'public' as const,
      files: 'public' as const,
      embargo: { ...record.access.embargo, active: false },
    };
    const revision = await embargoRepo.setRecordAccess(trx, record.id, access, now);
    const row: RecordRow = { ...record, access, updated: now, revision_id: revision };
    // An edit draft of the record would otherwise publish the expired embargo back (and fail validation).
    await embargoRepo.liftDraftEmbargo(trx, record.id, now.toISOString().slice(0, 10));
    const parent = await getParent(trx, record.parent_id);
    if (parent) await this.d.index.index(trx, { kind: 'record', row, doc: recordDoc(row, parent) });
    const status = accessStatus(access, row.files?.enabled !== false);
    await writeOutbox(trx, {
      subject: EMBARGO_LIFTED,
      aggregate: { type: 'record', id: record.id, revision: row.revision_id },
      data: { id: record.id, parent_id: record.parent_id, access_status: status, ...(until ? { until } : {}) },
    });
    this.d.logger.info({ record: record.id }, 'embargo lifted');
  }

  /** A worker running `runOnce` at start and then every `intervalMs` (never two runs at once in a process). */
  worker(intervalMs: number): { name: string; start(): void; stop(): Promise<void> } {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<unknown> = Promise.resolve();
    let busy = false;
    const tick = () => {
      if (busy) return;
      busy = true;
      running = this.runOnce()
        .catch((err: Error) => this.d.logger.error({ err: err.message }, 'embargo lift failed; retried next run'))
        .finally(() => {
          busy = false;
        });
    };
    return {
      name: 'embargo-lifter',
      start: () => {
        if (intervalMs <= 0) return;
        tick();
        timer = setInterval(tick, intervalMs);
        timer.unref();
      },
      stop: async () => {
        if (timer) clearInterval(timer);
        await running;
      },
    };
  }
}
