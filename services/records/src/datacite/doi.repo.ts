/**
 * SQL of the DataCite DOI sync: the pid row of a DOI (with what DataCite last said) and the
 * bookkeeping after a call. Takes a `Knex` or a transaction; SQL only.
 */
import type { Knex } from '@rdm/platform';

type Db = Knex | Knex.Transaction;

/** A DOI row with its sync columns. */
export interface DoiRow {
  identifier: string;
  record_id: string;
  provider: string;
  status: 'N' | 'K' | 'R';
  datacite_state: string | null;
  synced_at: Date | null;
  sync_error: string | null;
}

/** The DOI row, locked when `forUpdate`. */
export async function getDoi(db: Db, doi: string, forUpdate = false): Promise<DoiRow | undefined> {
  const q = db('pids')
    .select('identifier', 'record_id', 'provider', 'status', 'datacite_state', 'synced_at', 'sync_error')
    .where({ scheme: 'doi', identifier: doi });
  if (forUpdate) q.forUpdate();
  return q.first();
}

/** Record a successful sync: DataCite's state and, when given, the local status. */
export async function markSynced(db: Db, doi: string, o: { state: string; status?: 'N' | 'K' | 'R' }): Promise<void> {
  await db('pids')
    .where({ scheme: 'doi', identifier: doi })
    .update({ datacite_state: o.state, synced_at: new Date(), sync_error: null, ...(o.status ? { status: o.status } : {}) });
}

/** Remember the last failure (outside the failed transaction, so it stays visible). */
export async function markFailed(db: Db, doi: string, error: string): Promise<void> {
  await db('pids')
    .where({ scheme: 'doi', identifier: doi })
    .update({ sync_error: error.slice(0, 1000) });
}
