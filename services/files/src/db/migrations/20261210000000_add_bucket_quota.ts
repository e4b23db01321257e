/**
 * `buckets.quota_bytes`: a bucket's own byte quota, set when an administrator accepts a
 * `quota-increase` request (events/quota.consumer.ts); null means the configured default
 * (`FILES_MAX_RECORD_BYTES`).
 */
import type { Knex } from '@rdm/platform';

/** Add the column (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE buckets ADD COLUMN IF NOT EXISTS quota_bytes bigint');
}
