/**
 * Members: one row per active member or pending invitation / membership request (`active`
 * false), names denormalised at join time; closed invitations and membership requests are kept
 * in `archived_requests` with their final status. Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the member tables. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS members (
      id uuid PRIMARY KEY,
      community_id uuid NOT NULL REFERENCES communities(id) ON DELETE CASCADE,
      member_type text NOT NULL DEFAULT 'user',
      member_id text NOT NULL,
      role text NOT NULL CHECK (role IN ('owner', 'manager', 'curator', 'reader')),
      visible boolean NOT NULL DEFAULT false,
      active boolean NOT NULL,
      name text NOT NULL DEFAULT '',
      username text NULL,
      email text NULL,
      affiliations text NOT NULL DEFAULT '',
      request_id text NULL,
      request_type text NULL,
      request_status text NULL,
      request_expires_at timestamptz NULL,
      search_vector tsvector NOT NULL,
      created timestamptz NOT NULL DEFAULT now(),
      updated timestamptz NOT NULL DEFAULT now(),
      revision_id integer NOT NULL DEFAULT 1,
      UNIQUE (community_id, member_type, member_id)
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS members_member_idx ON members (member_type, member_id) WHERE active');
  await knex.raw(
    'CREATE UNIQUE INDEX IF NOT EXISTS members_request_uq ON members (request_id) WHERE request_id IS NOT NULL AND NOT active',
  );
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS archived_requests (
      id uuid PRIMARY KEY,
      community_id uuid NOT NULL REFERENCES communities(id) ON DELETE CASCADE,
      member_type text NOT NULL,
      member_id text NOT NULL,
      role text NOT NULL,
      visible boolean NOT NULL DEFAULT false,
      name text NOT NULL DEFAULT '',
      username text NULL,
      email text NULL,
      affiliations text NOT NULL DEFAULT '',
      request_id text NOT NULL UNIQUE,
      request_type text NOT NULL,
      request_status text NOT NULL,
      request_expires_at timestamptz NULL,
      search_vector tsvector NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL DEFAULT now(),
      revision_id integer NOT NULL DEFAULT 1
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS archived_requests_community_idx ON archived_requests (community_id, request_type)');
}
