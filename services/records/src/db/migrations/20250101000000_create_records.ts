/**
 * Records schema: parents (concepts with the versions state), drafts, published records,
 * persistent identifiers, the denormalized `search_docs` table, and the platform outbox/inbox.
 * Idempotent DDL, forward-only.
 */
import { inboxMigration, type Knex, outboxMigration } from '@rdm/platform';

/** Create every table of the records service. */
export async function up(knex: Knex): Promise<void> {
  // A parent is the concept shared by all versions; it keeps the versions state so that
  // publishing the n-th version never scans the others (latest_id/latest_index/next_draft_id).
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS parents (
      id text PRIMARY KEY,
      owner_id text NULL,
      created timestamptz NOT NULL DEFAULT now(),
      updated timestamptz NOT NULL DEFAULT now(),
      revision_id integer NOT NULL DEFAULT 1,
      access jsonb NOT NULL DEFAULT '{}'::jsonb,
      communities jsonb NOT NULL DEFAULT '{}'::jsonb,
      pids jsonb NOT NULL DEFAULT '{}'::jsonb,
      latest_id text NULL,
      latest_index integer NOT NULL DEFAULT 0,
      next_draft_id text NULL
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS parents_owner_idx ON parents (owner_id)');

  // Drafts: first-version drafts, edit drafts (same id as their record) and new-version drafts.
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS drafts (
      id text PRIMARY KEY,
      parent_id text NOT NULL REFERENCES parents(id) ON DELETE CASCADE,
      index integer NOT NULL,
      created timestamptz NOT NULL DEFAULT now(),
      updated timestamptz NOT NULL DEFAULT now(),
      revision_id integer NOT NULL DEFAULT 1,
      expires_at timestamptz NULL,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
      access jsonb NOT NULL,
      files jsonb NOT NULL,
      media_files jsonb NOT NULL,
      pids jsonb NOT NULL DEFAULT '{}'::jsonb,
      bucket_id text NOT NULL,
      resource_type_type text NULL,
      resource_type_subtype text NULL
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS drafts_parent_idx ON drafts (parent_id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS drafts_bucket_idx ON drafts (bucket_id)');

  // Published versions; immutable except metadata edits published from an edit draft.
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS records (
      id text PRIMARY KEY,
      parent_id text NOT NULL REFERENCES parents(id),
      index integer NOT NULL,
      created timestamptz NOT NULL DEFAULT now(),
      updated timestamptz NOT NULL DEFAULT now(),
      revision_id integer NOT NULL DEFAULT 1,
      draft_revision_id integer NOT NULL DEFAULT 0,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
      access jsonb NOT NULL,
      files jsonb NOT NULL,
      media_files jsonb NOT NULL,
      pids jsonb NOT NULL DEFAULT '{}'::jsonb,
      bucket_id text NOT NULL,
      deletion_status text NOT NULL DEFAULT 'P',
      resource_type_type text NULL,
      resource_type_subtype text NULL,
      CONSTRAINT records_parent_index_uq UNIQUE (parent_id, index)
    )`);

  // Persistent identifiers minted or reserved here (uniqueness across records).
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS pids (
      scheme text NOT NULL,
      identifier text NOT NULL,
      record_id text NOT NULL,
      provider text NOT NULL,
      status text NOT NULL CHECK (status IN ('N', 'R')),
      created timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (scheme, identifier)
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS pids_record_idx ON pids (record_id)');

  // Denormalized search documents, maintained in the same transaction as every write.
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS search_docs (
      id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('draft', 'record')),
      parent_id text NOT NULL,
      owner_id text NULL,
      is_published boolean NOT NULL,
      is_latest boolean NOT NULL DEFAULT false,
      is_latest_draft boolean NOT NULL DEFAULT false,
      has_draft boolean NOT NULL DEFAULT false,
      deletion_status text NOT NULL DEFAULT 'P',
      access_record text NOT NULL,
      access_files text NOT NULL,
      access_status text NOT NULL,
      resource_type_id text NULL,
      resource_type_type text NULL,
      resource_type_subtype text NULL,
      file_types text[] NOT NULL DEFAULT '{}',
      publication_date_start date NULL,
      publication_date_end date NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL,
      version_index integer NOT NULL,
      views integer NOT NULL DEFAULT 0,
      downloads integer NOT NULL DEFAULT 0,
      revision_id integer NOT NULL,
      doc jsonb NOT NULL,
      search_vector tsvector NOT NULL,
      PRIMARY KEY (id, kind)
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_vector_idx ON search_docs USING gin (search_vector)');
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_doc_idx ON search_docs USING gin (doc jsonb_path_ops)');
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_latest_idx ON search_docs (is_latest, access_record, created)');
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_owner_idx ON search_docs (owner_id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_parent_idx ON search_docs (parent_id)');

  await outboxMigration(knex);
  await inboxMigration(knex);
}
