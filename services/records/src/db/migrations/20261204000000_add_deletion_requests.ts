/**
 * Owners' record-deletion requests (`deletion/deletion-request.service.ts`): `deletion_requests`
 * is records' side of every `record-deletion` request it created — which record, who asked,
 * whether it is still open (one open deletion request per record: the partial unique index),
 * whether it was accepted at once (grace period), and `mailed_at` of the outcome e-mail.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the table. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE IF NOT EXISTS deletion_requests (
    id uuid PRIMARY KEY,
    request_id uuid UNIQUE,
    record_id text NOT NULL,
    parent_id text NOT NULL,
    requester text NOT NULL,
    is_open boolean NOT NULL DEFAULT true,
    immediate boolean NOT NULL DEFAULT false,
    outcome text CHECK (outcome IN ('deleted', 'declined', 'cancelled', 'failed')),
    mailed_at timestamptz,
    created timestamptz NOT NULL DEFAULT now(),
    updated timestamptz NOT NULL DEFAULT now()
  )`);
  await knex.raw('CREATE UNIQUE INDEX IF NOT EXISTS deletion_requests_open_uidx ON deletion_requests (record_id) WHERE is_open');
}
