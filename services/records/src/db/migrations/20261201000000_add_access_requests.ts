/**
 * Access requests of records (`domain/access-request.component.ts`):
 * - `access_request_tokens`: a guest's pending e-mail verification (6 hours); the token itself is
 *   never stored: `token_hash` (sha256) finds the row of a presented token and `nonce` lets the
 *   mailer re-derive it (HMAC with the service secret), as for access links.
 * - `access_requests`: records' side of every access request it created: who asked for which
 *   parent, whether it is still open (one open request per requester and parent: the partial
 *   unique index), and the effect of its accept, applied at most once (`effect`, `link_id`), and
 *   `mailed_at` for the guest's link e-mail.
 * Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the tables. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE IF NOT EXISTS access_request_tokens (
    id uuid PRIMARY KEY,
    record_id text NOT NULL,
    parent_id text NOT NULL,
    email text NOT NULL,
    full_name text NOT NULL,
    message text NOT NULL DEFAULT '',
    consent text NOT NULL DEFAULT 'false',
    nonce text NOT NULL,
    token_hash text NOT NULL UNIQUE,
    expires_at timestamptz NOT NULL,
    created timestamptz NOT NULL DEFAULT now(),
    mailed_at timestamptz
  )`);
  await knex.raw(`CREATE TABLE IF NOT EXISTS access_requests (
    id uuid PRIMARY KEY,
    request_id uuid UNIQUE,
    type text NOT NULL CHECK (type IN ('user-access-request', 'guest-access-request')),
    parent_id text NOT NULL,
    record_id text NOT NULL,
    requester text NOT NULL,
    is_open boolean NOT NULL DEFAULT true,
    effect text CHECK (effect IN ('grant', 'link', 'failed')),
    link_id uuid,
    email text,
    mailed_at timestamptz,
    created timestamptz NOT NULL DEFAULT now(),
    updated timestamptz NOT NULL DEFAULT now()
  )`);
  await knex.raw(
    'CREATE UNIQUE INDEX IF NOT EXISTS access_requests_open_uidx ON access_requests (parent_id, type, requester) WHERE is_open',
  );
}
