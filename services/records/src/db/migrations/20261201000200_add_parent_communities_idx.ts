/**
 * GIN index on the parents' community ids: community usage totals (`rdm.records.rpc.community-usage`)
 * find a community's parents without scanning every parent. Idempotent DDL, forward-only.
 */
import type { Knex } from '@rdm/platform';

/** Add the index. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("CREATE INDEX IF NOT EXISTS parents_community_ids_idx ON parents USING gin ((communities->'ids'))");
}
