/**
 * Requests and their timeline events. `number` comes from one global sequence (never reused);
 * `status` is the stored state machine status, `shown_status` what clients see (`accepting`, the
 * internal status of a saga accept, is shown as `submitted`). Entity references are split into
 * type/id columns so searches and permission filters stay on btree indexes. The search document
 * (`search_vector`, folded with the platform's `foldText`) is written with the row.
 */
import type { Knex } from '@rdm/platform';

/** Create the tables, the sequence and the indexes (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE SEQUENCE IF NOT EXISTS request_number_seq START 1');
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS requests (
      id uuid PRIMARY KEY,
      number bigint NOT NULL UNIQUE,
      type text NOT NULL,
      status text NOT NULL CHECK (status IN ('created','submitted','accepting','accepted','declined','cancelled','expired','deleted')),
      shown_status text GENERATED ALWAYS AS (CASE WHEN status = 'accepting' THEN 'submitted' ELSE status END) STORED,
      title text NOT NULL DEFAULT '',
      description text NULL,
      payload jsonb NULL,
      created_by_type text NOT NULL,
      created_by_id text NOT NULL,
      receiver_type text NOT NULL,
      receiver_id text NOT NULL,
      topic_type text NULL,
      topic_id text NULL,
      expires_at timestamptz NULL,
      is_locked boolean NOT NULL DEFAULT false,
      idempotency_key text NULL,
      -- Saga accept: who accepted and the comment to add once the effect is confirmed.
      accept_actor jsonb NULL,
      accept_comment jsonb NULL,
      created timestamptz NOT NULL DEFAULT now(),
      updated timestamptz NOT NULL DEFAULT now(),
      last_activity_at timestamptz NOT NULL DEFAULT now(),
      revision_id integer NOT NULL DEFAULT 1,
      search_vector tsvector NOT NULL DEFAULT ''::tsvector
    )`);
  await knex.raw(
    'CREATE UNIQUE INDEX IF NOT EXISTS requests_idempotency_key ON requests (idempotency_key) WHERE idempotency_key IS NOT NULL',
  );
  await knex.raw('CREATE INDEX IF NOT EXISTS requests_created_by_idx ON requests (created_by_type, created_by_id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS requests_receiver_idx ON requests (receiver_type, receiver_id, shown_status)');
  await knex.raw('CREATE INDEX IF NOT EXISTS requests_topic_idx ON requests (topic_type, topic_id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS requests_created_idx ON requests (created, id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS requests_activity_idx ON requests (last_activity_at, id)');
  await knex.raw("CREATE INDEX IF NOT EXISTS requests_expiry_idx ON requests (expires_at) WHERE status = 'submitted'");
  await knex.raw('CREATE INDEX IF NOT EXISTS requests_search_vector_idx ON requests USING gin (search_vector)');
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS request_events (
      id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      request_id uuid NOT NULL REFERENCES requests (id),
      type char(1) NOT NULL CHECK (type IN ('C', 'L')),
      created_by jsonb NOT NULL,
      payload jsonb NOT NULL,
      parent_id uuid NULL REFERENCES request_events (id),
      created timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated timestamptz NOT NULL DEFAULT clock_timestamp(),
      revision_id integer NOT NULL DEFAULT 1
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS request_events_timeline_idx ON request_events (request_id, seq) WHERE parent_id IS NULL');
  await knex.raw('CREATE INDEX IF NOT EXISTS request_events_children_idx ON request_events (parent_id, seq) WHERE parent_id IS NOT NULL');
  await knex.raw("CREATE INDEX IF NOT EXISTS request_events_last_reply_idx ON request_events (request_id, seq) WHERE type = 'C'");
}
