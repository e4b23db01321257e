/**
 * `iiif_derivatives` (idempotent, forward-only): the IIIF derivative cache's index. One row per
 * rendered image kept in the object store under `iiif/<md5 of the source>/<hash of the
 * normalised parameters>`; its size and when it was last served, so the cache can be bounded
 * (`FILES_IIIF_CACHE_BYTES`) by evicting the least recently served (src/iiif/derivatives.ts).
 */
import type { Knex } from '@rdm/platform';

/** Create the table. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS iiif_derivatives (
      storage_key text PRIMARY KEY,
      bytes bigint NOT NULL,
      last_used timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS iiif_derivatives_last_used ON iiif_derivatives (last_used)');
}
