/**
 * `index_version`: the external version of a request's search-engine document (OpenSearch /
 * Elasticsearch). It rises with every change of the row, `revision_id` changes and comment activity
 * (`last_activity_at`) alike; `revision_id` itself stays InvenioRDM's (a comment is no revision of
 * the request), so it cannot serve as the version of a document that holds `last_activity_at`.
 */
import type { Knex } from '@rdm/platform';

/** Add the column (idempotent); existing rows start at their revision. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE requests ADD COLUMN IF NOT EXISTS index_version bigint');
  await knex.raw('UPDATE requests SET index_version = revision_id WHERE index_version IS NULL');
  await knex.raw('ALTER TABLE requests ALTER COLUMN index_version SET DEFAULT 1, ALTER COLUMN index_version SET NOT NULL');
  // Reindex batches walk the table in number order; catch-up passes select rows changed since a time.
  await knex.raw('CREATE INDEX IF NOT EXISTS requests_updated_idx ON requests (greatest(updated, last_activity_at))');
}
