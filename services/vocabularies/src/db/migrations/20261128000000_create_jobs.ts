/**
 * Jobs and their runs (InvenioRDM's invenio-jobs shape): a job names a task and its arguments
 * (a vocabulary import: type, format, source file); a run is one execution of it. A worker claims a
 * queued run (or one whose lease expired: its worker died) with `FOR UPDATE SKIP LOCKED`, applies
 * the source in batches and checkpoints `position` (source elements consumed) in the same
 * transaction as each batch, so a restart continues where the last committed batch ended.
 * `job_run_entries` remembers the ids a run wrote (duplicates in the dump, entries missing from it);
 * `job_run_errors` the rejected entries with their reasons. Idempotent DDL.
 */
import type { Knex } from '@rdm/platform';

/** Create the jobs tables (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS jobs (
      id uuid PRIMARY KEY,
      title text NOT NULL,
      description text NULL,
      task text NOT NULL,
      active boolean NOT NULL DEFAULT true,
      default_args jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_by text NULL,
      created timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS jobs_created_idx ON jobs (created, id)');
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS job_runs (
      id uuid PRIMARY KEY,
      job_id uuid NOT NULL REFERENCES jobs (id),
      title text NOT NULL DEFAULT 'Manual run',
      args jsonb NOT NULL DEFAULT '{}'::jsonb,
      status text NOT NULL DEFAULT 'QUEUED'
        CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCESS', 'PARTIAL_SUCCESS', 'FAILED', 'CANCELLED')),
      message text NULL,
      started_by_id text NULL,
      created timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated timestamptz NOT NULL DEFAULT clock_timestamp(),
      started_at timestamptz NULL,
      finished_at timestamptz NULL,
      worker text NULL,
      heartbeat_at timestamptz NULL,
      attempts integer NOT NULL DEFAULT 0,
      phase text NOT NULL DEFAULT 'entries' CHECK (phase IN ('entries', 'deprecate', 'done')),
      position bigint NOT NULL DEFAULT 0,
      bytes_read bigint NOT NULL DEFAULT 0,
      bytes_total bigint NULL,
      total_entries integer NOT NULL DEFAULT 0,
      errored_entries integer NOT NULL DEFAULT 0,
      counts jsonb NOT NULL DEFAULT '{}'::jsonb
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS job_runs_job_idx ON job_runs (job_id, created, id)');
  await knex.raw(`CREATE INDEX IF NOT EXISTS job_runs_claim_idx ON job_runs (created, id) WHERE status IN ('QUEUED', 'RUNNING')`);
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS job_run_entries (
      run_id uuid NOT NULL REFERENCES job_runs (id) ON DELETE CASCADE,
      type text NOT NULL,
      id text NOT NULL,
      content_hash text NOT NULL,
      position bigint NOT NULL,
      PRIMARY KEY (run_id, type, id)
    )`);
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS job_run_errors (
      run_id uuid NOT NULL REFERENCES job_runs (id) ON DELETE CASCADE,
      position bigint NOT NULL,
      entry_id text NULL,
      reason text NOT NULL,
      PRIMARY KEY (run_id, position)
    )`);
}
