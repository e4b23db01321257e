/**
 * A tombstone may have no removal reason: InvenioRDM 14 deletes a record with `{}` (issue 19,
 * item 2), so `tombstones.removal_reason` (NOT NULL since 20261123000000) becomes nullable; a
 * NULL reason is a deletion without one. Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Drop the NOT NULL. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tombstones ALTER COLUMN removal_reason DROP NOT NULL');
}
