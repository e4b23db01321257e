/**
 * Index of the OAI-PMH lists (owned by `src/oai/` + `src/repo/oai.repo.ts`): published records that
 * carry an OAI identifier, in harvest order `(updated, id)`, so a `ListRecords` page (and its
 * `from`/`until` window) is one index range scan however large the repository.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the index. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX IF NOT EXISTS search_docs_oai_updated_idx ON search_docs (updated, id)
    WHERE kind = 'record' AND (doc->'pids'->'oai'->>'identifier') IS NOT NULL`);
}
