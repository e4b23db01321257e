/**
 * Search engine support (SEARCH_ENGINE opensearch|elasticsearch). `index_version` is the external
 * version of an entry's index document: a global sequence value taken on every insert and update
 * while the type's row is locked, so within one type it grows in commit order and stays growing
 * across a delete and a re-create (which `revision_id`, restarting at 1, does not).
 * `deleted_entries` keeps the version of each hard delete, so the indexer deletes with it and a
 * reindex repeats the deletes that raced with it. Idempotent DDL.
 */
import type { Knex } from '@rdm/platform';

/** Add the sequence, the column (back-filled) and the tombstones table. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE SEQUENCE IF NOT EXISTS entries_index_version_seq');
  await knex.raw('ALTER TABLE entries ADD COLUMN IF NOT EXISTS index_version bigint');
  await knex.raw(`UPDATE entries SET index_version = nextval('entries_index_version_seq') WHERE index_version IS NULL`);
  await knex.raw(`ALTER TABLE entries ALTER COLUMN index_version SET DEFAULT nextval('entries_index_version_seq')`);
  await knex.raw('ALTER TABLE entries ALTER COLUMN index_version SET NOT NULL');
  await knex.raw('CREATE INDEX IF NOT EXISTS entries_type_updated_idx ON entries (type, updated)');
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS deleted_entries (
      type text NOT NULL,
      id text NOT NULL,
      index_version bigint NOT NULL,
      deleted timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (type, id)
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS deleted_entries_deleted_idx ON deleted_entries (deleted)');
}
