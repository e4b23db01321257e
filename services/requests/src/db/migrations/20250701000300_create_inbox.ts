/** The inbox of the requests service (platform table, see `inboxMigration`): effect events of other services. */
import { inboxMigration, type Knex } from '@rdm/platform';

/** Create the inbox table (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await inboxMigration(knex);
}
