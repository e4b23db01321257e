/**
 * Vocabulary types and their entries. One `entries` table holds every vocabulary, the special
 * ones (affiliations, funders, awards, names, subjects) included: their own fields live in
 * columns when they are searched or sorted on (acronym, name, scheme, subject, number, country,
 * identifiers) and in `extra` otherwise. `search_vector` is `to_tsvector('simple', foldText(…))`
 * of every searchable text (GIN index); `suggest_vector` covers the fields InvenioRDM's
 * `suggest` looks at; `search_fields` holds the folded text of each searchable field for fielded
 * queries (`title.en:photo`, `props.type:image`). Idempotent DDL.
 */
import type { Knex } from '@rdm/platform';

/** Create the tables and indexes (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS vocabulary_types (
      id text PRIMARY KEY,
      pid_type text NOT NULL,
      is_custom boolean NOT NULL DEFAULT false,
      revision_id integer NOT NULL DEFAULT 1,
      created timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT vocabulary_types_pid_type_key UNIQUE (pid_type)
    )`);
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS entries (
      type text NOT NULL REFERENCES vocabulary_types (id),
      id text NOT NULL,
      pid text NOT NULL,
      title jsonb NOT NULL DEFAULT '{}'::jsonb,
      description jsonb NULL,
      icon text NULL,
      tags text[] NOT NULL DEFAULT '{}',
      props jsonb NULL,
      acronym text NULL,
      name text NULL,
      scheme text NULL,
      subject text NULL,
      number text NULL,
      country text NULL,
      identifiers jsonb NULL,
      extra jsonb NOT NULL DEFAULT '{}'::jsonb,
      sort_key text NULL,
      search_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
      search_vector tsvector NOT NULL,
      suggest_vector tsvector NOT NULL,
      content_hash text NOT NULL,
      created timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated timestamptz NOT NULL DEFAULT clock_timestamp(),
      revision_id integer NOT NULL DEFAULT 1,
      PRIMARY KEY (type, id)
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS entries_search_vector_idx ON entries USING gin (search_vector)');
  await knex.raw('CREATE INDEX IF NOT EXISTS entries_suggest_vector_idx ON entries USING gin (suggest_vector)');
  await knex.raw('CREATE INDEX IF NOT EXISTS entries_tags_idx ON entries USING gin (tags)');
  await knex.raw('CREATE INDEX IF NOT EXISTS entries_type_sort_idx ON entries (type, sort_key COLLATE "C", id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS entries_type_created_idx ON entries (type, created, id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS entries_type_pid_idx ON entries (type, pid)');
}
