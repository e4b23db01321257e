/** Migrating the users schema: used by `main.ts migrate`, the CLI and tests. */
import { fileURLToPath } from 'node:url';
import { createDb, ensureServiceSchema, type Knex, migrate } from '@rdm/platform';

/** Directory of the users migrations. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));

/** Create schema and role `users` when missing, then run pending migrations with `db`. */
export async function migrateUsers(adminUrl: string, db: Knex, service = 'users'): Promise<string[]> {
  await ensureServiceSchema(adminUrl, service);
  return migrate(db, { service, dir: MIGRATIONS_DIR });
}

/** Open a pool, migrate, close it. */
export async function migrateUsersOnce(url: string): Promise<string[]> {
  const db = createDb({ url, service: 'users', pool: { max: 2 } });
  try {
    return await migrateUsers(url, db);
  } finally {
    await db.destroy();
  }
}
