/**
 * Usage statistics (`domain/stats.component.ts`): counters per record, and the last counted visit
 * per (kind, record, visitor hash) for COUNTER's 30-second double-click rule and per-day unique
 * counts. Visitors are only ever stored as hashes. Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Create the tables. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE IF NOT EXISTS stats_counts (
    record_id text PRIMARY KEY,
    parent_id text NOT NULL,
    views bigint NOT NULL DEFAULT 0,
    unique_views bigint NOT NULL DEFAULT 0,
    downloads bigint NOT NULL DEFAULT 0,
    unique_downloads bigint NOT NULL DEFAULT 0,
    data_volume bigint NOT NULL DEFAULT 0
  )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS stats_counts_parent_idx ON stats_counts (parent_id)');
  await knex.raw(`CREATE TABLE IF NOT EXISTS stats_seen (
    kind char(1) NOT NULL,
    record_id text NOT NULL,
    visitor text NOT NULL,
    last_counted timestamptz NOT NULL,
    day text NOT NULL,
    PRIMARY KEY (kind, record_id, visitor)
  )`);
}
