/**
 * Partial index of the public records whose files are not public (owned by `src/search/`): a
 * signed-in caller's search counts the file types of those it may read itself beside the cached
 * public counts (pg-indexer.ts `aggregate`, files-guard.ts `filesExtra`). Without it that count
 * scanned the whole table on every authenticated search (about 50 ms of two workers at 100,000
 * records); the index holds only these rare records, with what the caller's read filter needs.
 * The predicate repeats the query's condition byte for byte so that the planner matches it.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the index. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX IF NOT EXISTS search_docs_pub_closed_files_idx ON search_docs (is_latest)
    INCLUDE (owner_id, id, parent_id, file_types, community_ids)
    WHERE kind = 'record' AND deletion_status = 'P' AND access_record = 'public' AND (access_files = 'public') IS NOT TRUE`);
}
