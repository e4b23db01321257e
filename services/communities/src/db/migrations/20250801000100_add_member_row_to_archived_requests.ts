/**
 * `archived_requests.member_row_id`: the pending member row an archived invitation / membership
 * request came from. The member-list search index (OpenSearch / Elasticsearch) is driven by events
 * that name the member row; with this link the indexer finds the archived row that replaced it.
 * Rows archived before this column exist stay unlinked (they never change again; `reindex` covers them).
 */
import type { Knex } from '@rdm/platform';

/** Add the column and its index (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE archived_requests ADD COLUMN IF NOT EXISTS member_row_id uuid NULL');
  await knex.raw(
    'CREATE INDEX IF NOT EXISTS archived_requests_member_row_idx ON archived_requests (member_row_id) WHERE member_row_id IS NOT NULL',
  );
}
