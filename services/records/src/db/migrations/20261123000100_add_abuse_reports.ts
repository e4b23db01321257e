/**
 * Abuse reports (`domain/abuse.component.ts`): one row per accepted `POST …/report-abuse`, written
 * in the transaction of its `rdm.records.abuse.reported` outbox event; `mailed_at` is set by the
 * mailer consumer once the e-mail was handed to SMTP. Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the table. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE IF NOT EXISTS abuse_reports (
    id uuid PRIMARY KEY,
    record_id text NOT NULL,
    abuse_type text NOT NULL,
    name text NOT NULL,
    email text NOT NULL,
    affiliation text NOT NULL DEFAULT '',
    phone text NOT NULL DEFAULT '',
    address text NOT NULL DEFAULT '',
    city text NOT NULL DEFAULT '',
    zip text NOT NULL DEFAULT '',
    country text NOT NULL DEFAULT '',
    message text NOT NULL,
    created timestamptz NOT NULL DEFAULT now(),
    mailed_at timestamptz
  )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS abuse_reports_record_idx ON abuse_reports (record_id)');
}
