/**
 * Review and communities (issue 8):
 * - `parents.review`: snapshot of the draft's community-submission request `{id, type, receiver,
 *   status}` (the request itself lives in the requests service); indexed by request id so the
 *   request-event consumers find the parent.
 * - `review_effects`: the effect of each accepted community-submission / community-inclusion
 *   request, keyed by request id — at most one publication per request, whatever is redelivered.
 * - `search_docs.community_ids`: the parent's community ids (GIN), filter of
 *   `GET /api/communities/<id>/records`, kept in sync with `doc.parent.communities.ids`.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Add the review snapshot, the effects table and the community ids of search documents. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE parents ADD COLUMN IF NOT EXISTS review jsonb NULL');
  await knex.raw("CREATE INDEX IF NOT EXISTS parents_review_idx ON parents ((review->>'id')) WHERE review IS NOT NULL");

  // outcome: pending (claimed by a running transaction), published (draft published into the community), included (record added to a
  // community), failed (refused; a later acceptance of the same request may retry).
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS review_effects (
      request_id text PRIMARY KEY,
      request_type text NOT NULL,
      record_id text NOT NULL,
      community_id text NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('pending', 'published', 'included', 'failed')),
      event_id uuid NULL,
      message text NULL,
      created timestamptz NOT NULL DEFAULT now(),
      updated timestamptz NOT NULL DEFAULT now()
    )`);

  await knex.raw("ALTER TABLE search_docs ADD COLUMN IF NOT EXISTS community_ids text[] NOT NULL DEFAULT '{}'");
  await knex.raw(`UPDATE search_docs SET community_ids = ARRAY(SELECT jsonb_array_elements_text(doc #> '{parent,communities,ids}'))
    WHERE jsonb_typeof(doc #> '{parent,communities,ids}') = 'array' AND community_ids = '{}'`);
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_community_ids_idx ON search_docs USING gin (community_ids)');
}
