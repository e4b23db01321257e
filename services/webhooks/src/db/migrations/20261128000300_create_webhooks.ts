/**
 * Webhook subscriptions, their deliveries and the record parents projection:
 * - `subscriptions`: one target per row; the signing secret (and the previous one during a
 *   rotation's overlap) encrypted at rest (domain/secrets.ts), never in clear.
 * - `deliveries`: one row per (subscription, event), unique so a redelivered event adds nothing;
 *   its id is the `webhook-id`, stable across attempts; the worker claims due rows with
 *   `FOR UPDATE SKIP LOCKED` and a lease (`lease_until`).
 * - `record_parents`: owner, communities and published record ids of each record parent, from
 *   `draft.created`, `record.published` and `inclusion.*` events, to match events to subscriptions
 *   (and to tell a new version's first publication from a re-publication).
 */
import type { Knex } from '@rdm/platform';

/** Create the tables and their indexes (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS subscriptions (
      id uuid PRIMARY KEY,
      owner_id text NOT NULL,
      owner_roles text[] NOT NULL DEFAULT '{}',
      scope text NOT NULL CHECK (scope IN ('user', 'community', 'all')),
      community_id uuid NULL,
      url text NOT NULL,
      events text[] NOT NULL,
      description text NOT NULL DEFAULT '',
      active boolean NOT NULL DEFAULT true,
      disabled_reason text NULL,
      secret_enc text NOT NULL,
      previous_secret_enc text NULL,
      previous_secret_until timestamptz NULL,
      consecutive_failures integer NOT NULL DEFAULT 0,
      revision_id integer NOT NULL DEFAULT 1,
      created timestamptz NOT NULL DEFAULT now(),
      updated timestamptz NOT NULL DEFAULT now(),
      CHECK ((scope = 'community') = (community_id IS NOT NULL))
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS subscriptions_owner_idx ON subscriptions (owner_id, created)');
  await knex.raw('CREATE INDEX IF NOT EXISTS subscriptions_match_idx ON subscriptions USING gin (events) WHERE active');
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS deliveries (
      id uuid PRIMARY KEY,
      subscription_id uuid NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
      event_id text NOT NULL,
      event_type text NOT NULL,
      occurred_at timestamptz NOT NULL,
      data jsonb NOT NULL,
      body text NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed', 'skipped')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      first_attempt_at timestamptz NULL,
      lease_until timestamptz NULL,
      response_status integer NULL,
      response_body_prefix text NULL,
      latency_ms integer NULL,
      error text NULL,
      created timestamptz NOT NULL DEFAULT now(),
      updated timestamptz NOT NULL DEFAULT now(),
      UNIQUE (subscription_id, event_id)
    )`);
  await knex.raw(`CREATE INDEX IF NOT EXISTS deliveries_due_idx ON deliveries (next_attempt_at) WHERE status IN ('pending', 'delivering')`);
  await knex.raw('CREATE INDEX IF NOT EXISTS deliveries_log_idx ON deliveries (subscription_id, created DESC)');
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS record_parents (
      parent_id text PRIMARY KEY,
      owner_id text NULL,
      communities text[] NOT NULL DEFAULT '{}',
      published text[] NOT NULL DEFAULT '{}'
    )`);
}
