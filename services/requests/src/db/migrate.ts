/** Migrating the requests schema: used by `main.ts migrate` and tests. */
import { fileURLToPath } from 'node:url';
import { createDb, ensureServiceSchema, migrate } from '@rdm/platform';

/** Directory of the requests migrations. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));

/** Create schema and role `requests` when missing, run pending migrations, close the pool. */
export async function migrateRequestsOnce(url: string): Promise<string[]> {
  await ensureServiceSchema(url, 'requests');
  const db = createDb({ url, service: 'requests', pool: { max: 2 } });
  try {
    return await migrate(db, { service: 'requests', dir: MIGRATIONS_DIR });
  } finally {
    await db.destroy();
  }
}
