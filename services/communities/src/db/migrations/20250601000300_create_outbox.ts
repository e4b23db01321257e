/** The transactional outbox of the communities service (platform table, see `outboxMigration`). */
import { type Knex, outboxMigration } from '@rdm/platform';

/** Create the outbox table (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await outboxMigration(knex);
}
