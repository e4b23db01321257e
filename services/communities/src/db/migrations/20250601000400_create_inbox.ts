/** The inbox of the communities consumers (platform table, see `inboxMigration`). */
import { inboxMigration, type Knex } from '@rdm/platform';

/** Create the inbox table (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await inboxMigration(knex);
}
