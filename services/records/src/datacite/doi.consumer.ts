/**
 * The DataCite DOI provider's consumers (DOI_PROVIDER=datacite): durable consumers of the RECORDS
 * stream that run the convergent DOI sync (`doi-sync.ts`) in their inbox transaction.
 *
 * - `records-datacite-doi` ← `rdm.records.doi.changed` (reserve, discard, publish, concept DOI);
 * - `records-datacite-deleted` ← `rdm.records.record.deleted` (tombstone → DataCite `registered`);
 * - `records-datacite-restored` ← `rdm.records.record.restored` (→ `findable` again).
 *
 * When to use: started by main.ts when DOI_PROVIDER=datacite. Delivery: DataCite down, slow
 * (timeout), rate-limiting or refusing the credentials → the handler throws, the transaction rolls
 * back and the message is redelivered with growing delays (1 s … 60 s, 2000 deliveries ≈ 33 h),
 * so a publication never waits for DataCite and an outage only delays the registration. An
 * answer a retry cannot fix (422 invalid metadata, 400) is logged and kept on the pid row
 * (`sync_error`); the next change of the DOI tries again.
 */
import { consumerWorker, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
import { DataCiteError } from './client.js';
import type { DoiSync } from './doi-sync.js';

/** Durable names. */
export const DATACITE_DURABLES = {
  changed: 'records-datacite-doi',
  deleted: 'records-datacite-deleted',
  restored: 'records-datacite-restored',
} as const;

/** What the consumers need. */
export interface DataCiteWorkerOptions {
  db: Knex;
  nats: NatsHandle;
  sync: DoiSync;
  logger: Logger;
  /** Nak delays (default 1 s, 5 s, 15 s, 30 s, then every 60 s). */
  backoffMs?: number[];
  maxDeliver?: number;
}

/** Final failures: a retry of the same call cannot succeed (credentials are retried: they get fixed). */
function isFinal(err: unknown): boolean {
  return err instanceof DataCiteError && !err.retryable && err.status !== 401 && err.status !== 403;
}

/** The three DataCite workers (for runService). */
export function dataciteWorkers(o: DataCiteWorkerOptions) {
  const run = async (trx: Knex.Transaction, doi: string | undefined, subject: string) => {
    if (!doi) return;
    try {
      const out = await o.sync.sync(trx, doi);
      o.logger.info({ ...out, subject }, 'DataCite DOI synced');
    } catch (err) {
      if (!isFinal(err)) {
        o.logger.warn({ err, doi, subject }, 'DataCite unavailable; the DOI sync will be retried');
        throw err;
      }
      o.logger.error({ err, doi, subject }, 'DataCite refused the DOI; kept as sync_error until its next change');
    }
  };
  const worker = (durable: string, subject: string, doiOf: (trx: Knex.Transaction, data: any) => Promise<string | undefined>) =>
    consumerWorker({
      db: o.db,
      js: o.nats.js,
      jsm: o.nats.jsm,
      stream: 'RECORDS',
      durable,
      filterSubject: subject,
      logger: o.logger,
      service: 'records',
      maxDeliver: o.maxDeliver ?? 2000,
      backoffMs: o.backoffMs ?? [1000, 5000, 15000, 30000, 60000],
      handler: async (trx, e) => run(trx, await doiOf(trx, e.data), subject),
    });
  return [
    worker(DATACITE_DURABLES.changed, 'rdm.records.doi.changed', async (_t, d) => d.doi),
    worker(DATACITE_DURABLES.deleted, 'rdm.records.record.deleted', (t, d) => o.sync.doiOfRecord(t, d.id)),
    worker(DATACITE_DURABLES.restored, 'rdm.records.record.restored', (t, d) => o.sync.doiOfRecord(t, d.id)),
  ];
}
