/** The transactional outbox of the webhooks service (platform table, see `outboxMigration`). */
import { type Knex, outboxMigration } from '@rdm/platform';

/** Create the outbox table. */
export async function up(knex: Knex): Promise<void> {
  await outboxMigration(knex);
}
