/**
 * The migration's own state (issue 26):
 * - `runs`: one row per run (source URL, `since`, dry run, status, counts, the final JSON report).
 * - `checkpoints`: one row per source entity and source (`entity` `record` = a parent with all its
 *   versions): `copied` with the source's `updated` of what was copied and the version ids, or
 *   `failed`/`skipped` with the reason. A rerun skips what is `copied` and unchanged; a killed run
 *   resumes from them (a record is imported all-or-nothing, so there is no half state to keep).
 */
import type { Knex } from '@rdm/platform';

/** Create the tables (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS runs (
      id uuid PRIMARY KEY,
      source_url text NOT NULL,
      since timestamptz NULL,
      dry_run boolean NOT NULL DEFAULT false,
      status text NOT NULL CHECK (status IN ('running', 'finished', 'failed')),
      started timestamptz NOT NULL DEFAULT now(),
      finished timestamptz NULL,
      report jsonb NULL
    );
    CREATE TABLE IF NOT EXISTS checkpoints (
      source_url text NOT NULL,
      entity text NOT NULL,
      source_id text NOT NULL,
      status text NOT NULL CHECK (status IN ('copied', 'failed', 'skipped')),
      source_updated text NULL,
      versions text[] NOT NULL DEFAULT '{}',
      reason text NULL,
      run_id uuid NULL,
      updated timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (source_url, entity, source_id)
    );
  `);
}
