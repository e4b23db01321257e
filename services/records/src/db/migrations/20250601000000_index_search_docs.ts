/**
 * Search indexes of `search_docs` (owned by the record-search code in `src/search/`).
 *
 * - `rdm_fold(text)`: SQL twin of the platform's `foldText` (NFKD, marks dropped, ß/æ/ø/ł…
 *   folded, lower-cased), so fielded text queries (`metadata.title:romans`) match the stored,
 *   unfolded document text the way the JS-folded `search_vector` does.
 * - GIN expression indexes for the two hot fielded text searches (title, creator names); the
 *   expressions must stay byte-identical to `src/search/fields.ts`.
 * - Partial btree indexes for the sorts of the published-records search (`created`, `updated`
 *   over latest, non-deleted records) and a covering index that lets the one-pass facet query
 *   run as an index-only scan.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Marks removed after NFKD (combining diacritics, extended, supplement, for symbols, half marks). */
const MARKS = '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]';

/** Create the fold function and the search indexes. */
export async function up(knex: Knex): Promise<void> {
  // Same order as foldText: NFKD, drop marks, fold special letters, lower-case.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION rdm_fold(t text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
      SELECT lower(
        translate(
          replace(replace(replace(replace(replace(replace(replace(replace(
            regexp_replace(normalize(t, NFKD), '${MARKS}', '', 'g'),
            'ß', 'ss'), 'ẞ', 'ss'), 'æ', 'ae'), 'Æ', 'ae'), 'œ', 'oe'), 'Œ', 'oe'), 'þ', 'th'), 'Þ', 'th'),
          'øØđĐðÐłŁıħĦŧŦ', 'ooddddllihhtt'))
    $fn$`);

  await knex.raw(`CREATE INDEX IF NOT EXISTS search_docs_title_fts_idx ON search_docs
    USING gin (to_tsvector('simple'::regconfig, rdm_fold(doc #>> '{metadata,title}')))`);
  await knex.raw(`CREATE INDEX IF NOT EXISTS search_docs_creators_fts_idx ON search_docs
    USING gin (to_tsvector('simple'::regconfig, rdm_fold(jsonb_path_query_array(doc, '$.metadata.creators[*].person_or_org.name')::text)))`);

  const published = `kind = 'record' AND deletion_status = 'P'`;
  await knex.raw(`CREATE INDEX IF NOT EXISTS search_docs_pub_created_idx ON search_docs (created, id) WHERE ${published} AND is_latest`);
  await knex.raw(`CREATE INDEX IF NOT EXISTS search_docs_pub_updated_idx ON search_docs (updated, id) WHERE ${published} AND is_latest`);
  // Everything the facet pass and the permission filter read, so that it never touches the heap.
  await knex.raw(`CREATE INDEX IF NOT EXISTS search_docs_pub_facets_idx ON search_docs (is_latest, access_record)
    INCLUDE (owner_id, id, access_status, resource_type_type, resource_type_subtype, file_types, publication_date_start, publication_date_end)
    WHERE ${published}`);
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_rt_idx ON search_docs (resource_type_type, resource_type_subtype)');
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_rt_id_idx ON search_docs (resource_type_id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_file_types_idx ON search_docs USING gin (file_types)');
}
