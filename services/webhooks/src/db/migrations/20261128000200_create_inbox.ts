/** The inbox of the webhooks consumers (platform table, see `inboxMigration`). */
import { inboxMigration, type Knex } from '@rdm/platform';

/** Create the inbox table. */
export async function up(knex: Knex): Promise<void> {
  await inboxMigration(knex);
}
