/**
 * The DataCite DOI provider (`src/datacite/`): a pid may be `K` (reserved: published, registration
 * at DataCite pending) besides `N` (new) and `R` (registered), and each DOI remembers what DataCite
 * last said (`datacite_state`: draft, registered, findable), when, and the last failure.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Widen the status check and add the sync columns. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE pids DROP CONSTRAINT IF EXISTS pids_status_check');
  await knex.raw(`ALTER TABLE pids ADD CONSTRAINT pids_status_check CHECK (status IN ('N', 'K', 'R'))`);
  await knex.raw('ALTER TABLE pids ADD COLUMN IF NOT EXISTS datacite_state text NULL');
  await knex.raw('ALTER TABLE pids ADD COLUMN IF NOT EXISTS synced_at timestamptz NULL');
  await knex.raw('ALTER TABLE pids ADD COLUMN IF NOT EXISTS sync_error text NULL');
}
