/**
 * Secret access links of record parents (`domain/access-links.component.ts`): one row per link.
 * The token itself is never stored: `token_hash` (sha256) finds the link of a presented token,
 * and `nonce` lets the service re-derive the token (HMAC with the service secret) for reads.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the table. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE IF NOT EXISTS access_links (
    id uuid PRIMARY KEY,
    parent_id text NOT NULL,
    permission text NOT NULL CHECK (permission IN ('view', 'preview', 'edit')),
    description text NOT NULL DEFAULT '',
    expires_at date,
    origin text,
    nonce text NOT NULL,
    token_hash text NOT NULL UNIQUE,
    created_by text,
    created_at timestamptz NOT NULL DEFAULT now()
  )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS access_links_parent_idx ON access_links (parent_id, created_at)');
}
