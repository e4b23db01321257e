/**
 * Owners' file-modification requests (`file-modification/file-modification-request.service.ts`):
 * `file_modification_requests` is records' side of every `file-modification` request it created —
 * which record, who asked, its state (`open` while it waits, `unlocked` once accepted and until a
 * publication of the edit draft consumes it, then `consumed`; `declined`, `cancelled`, `failed`
 * close it), whether it was accepted at once (grace period), and `mailed_at` of the outcome
 * e-mail. One active (open or unlocked) request per record: the partial unique index.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the table. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE IF NOT EXISTS file_modification_requests (
    id uuid PRIMARY KEY,
    request_id uuid UNIQUE,
    record_id text NOT NULL,
    parent_id text NOT NULL,
    requester text NOT NULL,
    state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'unlocked', 'consumed', 'declined', 'cancelled', 'failed')),
    immediate boolean NOT NULL DEFAULT false,
    mailed_at timestamptz,
    created timestamptz NOT NULL DEFAULT now(),
    updated timestamptz NOT NULL DEFAULT now()
  )`);
  await knex.raw(
    `CREATE UNIQUE INDEX IF NOT EXISTS file_modification_requests_active_uidx ON file_modification_requests (record_id) WHERE state IN ('open', 'unlocked')`,
  );
}
