/**
 * What the OpenSearch/Elasticsearch engines need from `search_docs` (search/engine-index.ts): an
 * external version per document that grows with EVERY change of its row (`index_version`, from one
 * sequence, set by a trigger on insert and update: version flags, parent and usage updates change a
 * row without changing its record's revision), the time of that change (`changed_at`, for the
 * catch-up passes of a reindex) and a tombstone per deleted row (`search_docs_gone`, with a version
 * above the row's last one, so a late index of the deleted row stays ignored and a re-inserted row
 * wins again). Maintained whatever SEARCH_ENGINE is, so switching engines needs only a reindex.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Add the columns, the tombstone table and the trigger. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE SEQUENCE IF NOT EXISTS search_docs_index_version_seq');
  await knex.raw(
    "ALTER TABLE search_docs ADD COLUMN IF NOT EXISTS index_version bigint NOT NULL DEFAULT nextval('search_docs_index_version_seq')",
  );
  await knex.raw('ALTER TABLE search_docs ADD COLUMN IF NOT EXISTS changed_at timestamptz NOT NULL DEFAULT clock_timestamp()');
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_changed_idx ON search_docs (changed_at)');
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS search_docs_gone (
      id text NOT NULL,
      kind text NOT NULL,
      parent_id text NOT NULL,
      index_version bigint NOT NULL,
      gone_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (id, kind)
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_gone_parent_idx ON search_docs_gone (parent_id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS search_docs_gone_at_idx ON search_docs_gone (gone_at)');
  // Why SET search_path FROM CURRENT: the body names the sequence and the table unqualified; they
  // must resolve to this service's schema whatever the caller's search_path.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION search_docs_versioned() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        INSERT INTO search_docs_gone (id, kind, parent_id, index_version)
             VALUES (OLD.id, OLD.kind, OLD.parent_id, nextval('search_docs_index_version_seq'))
        ON CONFLICT (id, kind) DO UPDATE
             SET parent_id = EXCLUDED.parent_id, index_version = EXCLUDED.index_version, gone_at = clock_timestamp();
        RETURN OLD;
      ELSIF TG_OP = 'INSERT' THEN
        DELETE FROM search_docs_gone WHERE id = NEW.id AND kind = NEW.kind;
      ELSE
        NEW.index_version := nextval('search_docs_index_version_seq');
        NEW.changed_at := clock_timestamp();
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw('DROP TRIGGER IF EXISTS search_docs_versioned ON search_docs');
  await knex.raw(
    'CREATE TRIGGER search_docs_versioned BEFORE INSERT OR UPDATE OR DELETE ON search_docs FOR EACH ROW EXECUTE FUNCTION search_docs_versioned()',
  );
}
