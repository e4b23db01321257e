/**
 * Tombstones of deleted records (`domain/deletion.component.ts`): one row per deleted record,
 * removed again by a restore. The record's `deletion_status` column stays the marker every read
 * checks (`D` = deleted); this table only keeps what the 410 body shows.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the table. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE IF NOT EXISTS tombstones (
    record_id text PRIMARY KEY,
    removal_reason jsonb NOT NULL,
    note text NOT NULL DEFAULT '',
    citation_text text NOT NULL DEFAULT '',
    is_visible boolean NOT NULL DEFAULT true,
    removed_by jsonb NOT NULL,
    removal_date timestamptz NOT NULL DEFAULT now()
  )`);
}
