/** The inbox of the users service (platform table, see `inboxMigration`); ready for consumers. */
import { inboxMigration, type Knex } from '@rdm/platform';

/** Create the inbox table (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await inboxMigration(knex);
}
