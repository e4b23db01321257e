/**
 * Personal access tokens: only the sha256 hex digest of the clear token is stored (the clear
 * token is shown once by the CLI). Lookups go through the unique hash index.
 */
import type { Knex } from '@rdm/platform';

/** Create the tokens table and its indexes (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS tokens (
      id uuid PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL DEFAULT '',
      token_hash char(64) NOT NULL CHECK (token_hash ~ '^[0-9a-f]{64}$'),
      created timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz NULL,
      revoked_at timestamptz NULL,
      expires_at timestamptz NULL
    )`);
  await knex.raw('CREATE UNIQUE INDEX IF NOT EXISTS tokens_token_hash_key ON tokens (token_hash)');
  await knex.raw('CREATE INDEX IF NOT EXISTS tokens_user_id_idx ON tokens (user_id, created)');
}
