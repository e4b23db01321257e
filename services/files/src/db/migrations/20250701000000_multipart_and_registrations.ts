/**
 * Multipart transfers and edit-draft registrations (idempotent, forward-only):
 * - `files.multipart_key` / `multipart_upload_id` / `declared_size`: the storage upload a
 *   multipart entry assembles into, and the size announced at init;
 * - `file_parts`: one row per stored part (size, md5, the engine's tag);
 * - `storage_gc.upload_id`: a queued key with an upload id is a multipart upload to abort;
 * - `files.draft_only`: a key registered on an edit draft whose bucket (the published record's)
 *   is locked — shown to the draft only, never given content, dropped when the edit ends.
 */
import type { Knex } from '@rdm/platform';

/** Add the multipart columns and tables. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE files
    ADD COLUMN IF NOT EXISTS multipart_key text NULL,
    ADD COLUMN IF NOT EXISTS multipart_upload_id text NULL,
    ADD COLUMN IF NOT EXISTS declared_size bigint NULL,
    ADD COLUMN IF NOT EXISTS draft_only boolean NOT NULL DEFAULT false`);
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS file_parts (
      file_id uuid NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      part integer NOT NULL CHECK (part >= 1),
      size bigint NOT NULL CHECK (size >= 0),
      checksum text NOT NULL,
      etag text NOT NULL,
      updated timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (file_id, part)
    )`);
  await knex.raw('ALTER TABLE storage_gc ADD COLUMN IF NOT EXISTS upload_id text NULL');
}
