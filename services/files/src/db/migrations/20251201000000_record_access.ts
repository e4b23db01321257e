/**
 * `record_access`: the files service's event-fed copy of what records decides about each
 * published record's files (idempotent, forward-only). One row per record version, written only
 * by the consumers of `rdm.records.record.{published,deleted,restored,embargo-lifted}`;
 * `seq` is the RECORDS stream sequence of the last event applied (an older one is ignored).
 */
import type { Knex } from '@rdm/platform';

/** Create the table. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS record_access (
      record_id text PRIMARY KEY,
      parent_id text NOT NULL,
      bucket_id text NOT NULL,
      access_status text NOT NULL,
      deleted boolean NOT NULL DEFAULT false,
      seq bigint NOT NULL,
      updated timestamptz NOT NULL DEFAULT now()
    )`);
}
