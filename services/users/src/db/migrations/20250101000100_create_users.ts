/**
 * Users: integer ids exposed as strings (InvenioRDM), e-mail unique case-insensitively, optional
 * username unique case-insensitively, profile/preferences as jsonb, roles as text[], and the
 * postgres search document (folded with the platform's `foldText`, written by the repo).
 */
import type { Knex } from '@rdm/platform';

/** Create the users table and its indexes (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS users (
      id bigserial PRIMARY KEY,
      email text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
      username text NULL CHECK (username IS NULL OR length(username) BETWEEN 1 AND 255),
      active boolean NOT NULL DEFAULT true,
      confirmed_at timestamptz NULL,
      profile jsonb NOT NULL DEFAULT '{"full_name": "", "affiliations": ""}'::jsonb,
      preferences jsonb NOT NULL DEFAULT '{"visibility": "restricted", "email_visibility": "restricted", "locale": "en", "timezone": "Europe/Zurich"}'::jsonb,
      roles text[] NOT NULL DEFAULT '{}',
      created timestamptz NOT NULL DEFAULT now(),
      updated timestamptz NOT NULL DEFAULT now(),
      revision_id integer NOT NULL DEFAULT 1,
      -- Search document: folded texts (foldText), e-mail only while its visibility is public.
      search_vector tsvector NOT NULL DEFAULT ''::tsvector,
      sx_full_name text NOT NULL DEFAULT '',
      sx_affiliations text NOT NULL DEFAULT '',
      sx_email text NULL,
      CONSTRAINT users_visibility_check CHECK (preferences->>'visibility' IN ('public', 'restricted')),
      CONSTRAINT users_email_visibility_check CHECK (preferences->>'email_visibility' IN ('public', 'restricted'))
    )`);
  await knex.raw('CREATE UNIQUE INDEX IF NOT EXISTS users_email_lower_key ON users (lower(email))');
  await knex.raw('CREATE UNIQUE INDEX IF NOT EXISTS users_username_lower_key ON users (lower(username)) WHERE username IS NOT NULL');
  await knex.raw('CREATE INDEX IF NOT EXISTS users_search_vector_idx ON users USING gin (search_vector)');
  await knex.raw('CREATE INDEX IF NOT EXISTS users_created_idx ON users (created, id)');
}
