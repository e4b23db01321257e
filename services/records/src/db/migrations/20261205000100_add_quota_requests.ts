/**
 * Owners' quota-increase requests (`quota/quota-request.service.ts`): `quota_requests` is records'
 * side of every `quota-increase` request it created — which draft, and whether it is still open.
 * One open request per draft: the partial unique index (a second ask is a 400, as InvenioRDM
 * refuses duplicate open requests). Closed by `events/quota-requests.consumer.ts` when the request
 * is accepted, declined, cancelled, expired or deleted. Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the table. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE IF NOT EXISTS quota_requests (
    id uuid PRIMARY KEY,
    request_id uuid UNIQUE,
    draft_id text NOT NULL,
    is_open boolean NOT NULL DEFAULT true,
    created timestamptz NOT NULL DEFAULT now(),
    updated timestamptz NOT NULL DEFAULT now()
  )`);
  await knex.raw('CREATE UNIQUE INDEX IF NOT EXISTS quota_requests_open_uidx ON quota_requests (draft_id) WHERE is_open');
}
