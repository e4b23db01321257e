/**
 * Narrow partial index of the public, latest, published records (owned by `src/search/`): the
 * default sort of anonymous searches walks it without a filter, and their exact totals count it
 * with an index-only scan (about half the cost of counting the wider facet index).
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the index. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX IF NOT EXISTS search_docs_public_created_idx ON search_docs (created, id)
    WHERE kind = 'record' AND deletion_status = 'P' AND is_latest AND access_record = 'public'`);
}
