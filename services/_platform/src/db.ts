/**
 * PostgreSQL access for a service: one knex pool per service, its own schema and role, and a
 * forward-only migrator.
 *
 * When to use: `main.ts` calls `ensureServiceSchema(adminUrl, svc)` once (idempotent), then
 * `createDb({url, service})` and, for the `migrate` command, `migrate(db, {service, dir})`.
 * Repositories receive the `Knex` (or a transaction from `withTransaction`) and never name the
 * schema: every pooled connection runs `SET ROLE "rdm_<svc>"` and `SET search_path TO "<svc>"`,
 * so unqualified table names resolve to the service's own schema and a service cannot write
 * into another one's tables by accident.
 *
 * Migrations are `.ts` files (`YYYYMMDDHHMMSS_<verb>_<object>.ts`, exporting `up(knex)`), loaded
 * with dynamic `import()` so `tsx` compiles them; they run in filename order. They are
 * forward-only (`down` is optional and never called). Running `migrate` twice, or from two
 * processes at once, is safe: runs are serialized by a PostgreSQL advisory lock and knex's own
 * migration table records what already ran.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import knexModule, { type Knex } from 'knex';
import pg from 'pg';
import { countDbStatement } from './metrics.js';

/** Options of createDb. */
export interface CreateDbOptions {
  /** Connection URL (a role that may `SET ROLE rdm_<service>`). */
  url: string;
  /** Service name = schema name; the role is `rdm_<service>`. */
  service: string;
  /** Pool size (default min 0, max 10). */
  pool?: { min?: number; max?: number };
  /** How long a query waits for a pooled connection before failing (default 10000 ms). */
  acquireTimeoutMs?: number;
}

const NAME_RE = /^[a-z][a-z0-9_]{0,50}$/;
const services = new WeakMap<object, string>();

/** Throw unless `service` is usable as an unquoted-safe schema/role name. */
function assertServiceName(service: string): void {
  if (!NAME_RE.test(service)) {
    throw new Error(`Invalid service name ${JSON.stringify(service)}: expected ${NAME_RE}`);
  }
}

/** Role name of a service (`rdm_<service>`). */
export function serviceRole(service: string): string {
  assertServiceName(service);
  return `rdm_${service}`;
}

/** Create the knex pool of a service: every connection switches to the service's role and schema. */
export function createDb(opts: CreateDbOptions): Knex {
  assertServiceName(opts.service);
  const role = serviceRole(opts.service);
  const db = knexModule({
    client: 'pg',
    connection: opts.url,
    // Why: knex waits 60 s by default; with the database down, requests and workers should fail sooner.
    acquireConnectionTimeout: opts.acquireTimeoutMs ?? 10_000,
    pool: {
      min: opts.pool?.min ?? 0,
      max: opts.pool?.max ?? 10,
      afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
        conn.query(`SET ROLE "${role}"; SET search_path TO "${opts.service}"`, (err: Error | null) => {
          // Why end it here: knex never destroys a connection whose afterCreate failed, so each
          // failed attempt (the role not made yet: a service started before its migration) would
          // stay open until the database refuses everyone, its migration included.
          if (err) conn.end().catch(() => {});
          done(err, conn);
        });
      },
    },
  });
  services.set(db, opts.service);
  db.on('query', countDbStatement);
  return db;
}

/** The service name a pool was created for by `createDb` (undefined for other knex instances). */
export function serviceOf(db: Knex): string | undefined {
  return services.get(db);
}

/**
 * Idempotently create role `rdm_<service>` (NOLOGIN), grant it to the connecting user (so
 * `SET ROLE` works) and create schema `<service>` owned by it. Needs a user allowed to create
 * roles (the `rdm` superuser in development). Safe to call concurrently.
 */
export async function ensureServiceSchema(adminUrl: string, service: string): Promise<void> {
  const role = serviceRole(service);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    // Why: CREATE ROLE/SCHEMA race between processes starting together; serialize them.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`rdm:ensure:${service}`]);
    const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    if (exists.rowCount === 0) await client.query(`CREATE ROLE "${role}" NOLOGIN`);
    const member = await client.query('SELECT pg_has_role(current_user, $1, $2) AS ok', [role, 'MEMBER']);
    if (!member.rows[0]?.ok) await client.query(`GRANT "${role}" TO CURRENT_USER`);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${service}" AUTHORIZATION "${role}"`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

/**
 * Drop a service's schema (cascade) and role. For tests and tooling only: it destroys data.
 */
export async function dropServiceSchema(adminUrl: string, service: string): Promise<void> {
  const role = serviceRole(service);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${service}" CASCADE`);
    const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    if ((exists.rowCount ?? 0) > 0) {
      await client.query(`DROP OWNED BY "${role}"`);
      await client.query(`DROP ROLE "${role}"`);
    }
  } finally {
    await client.end();
  }
}

/** Options of migrate. */
export interface MigrateOptions {
  /** Schema holding `knex_migrations` (the service name). */
  service: string;
  /** Directory of migration files (`.ts`/`.js`, run in filename order). */
  dir: string;
}

/** A migration module: forward-only, `down` ignored. */
interface MigrationModule {
  up: (knex: Knex) => Promise<unknown>;
  down?: (knex: Knex) => Promise<unknown>;
}

/** knex migration source importing files with dynamic import (so tsx compiles TypeScript). */
class DirectoryMigrationSource implements Knex.MigrationSource<string> {
  constructor(private readonly dir: string) {}

  async getMigrations(): Promise<string[]> {
    return readdirSync(this.dir)
      .filter((f) => /\.(ts|mts|js|mjs)$/.test(f) && !/\.d\.ts$/.test(f) && !/\.test\.[mc]?[jt]s$/.test(f))
      .sort();
  }

  /**
   * Why the `.ts` name for compiled files: a database migrated from the sources (tsx) and one
   * migrated by the compiled build (`dist/`) must record the same names, or one would see the
   * other's migrations as new.
   */
  getMigrationName(file: string): string {
    return file.replace(/\.[mc]?js$/, '.ts');
  }

  async getMigration(file: string): Promise<Knex.Migration> {
    const mod = (await import(pathToFileURL(join(this.dir, file)).href)) as Partial<MigrationModule> & {
      default?: Partial<MigrationModule>;
    };
    const up = mod.up ?? mod.default?.up;
    if (typeof up !== 'function') throw new Error(`Migration ${file} exports no up(knex) function`);
    return {
      up,
      // Why: forward-only; knex requires a down, and it must never run.
      down: async () => {
        throw new Error(`Migration ${file} is forward-only`);
      },
    };
  }
}

/**
 * Run every pending migration of `dir` into schema `service` (`knex_migrations` there).
 * Returns the names of the migrations that ran. Safe to run twice and concurrently.
 */
export async function migrate(db: Knex, opts: MigrateOptions): Promise<string[]> {
  assertServiceName(opts.service);
  const config: Knex.MigratorConfig = {
    migrationSource: new DirectoryMigrationSource(resolve(opts.dir)),
    schemaName: opts.service,
    tableName: 'knex_migrations',
  };
  // Why: knex's own lock table fails fast instead of waiting, and creating the migration tables
  // races; a session advisory lock on a dedicated pooled connection makes a second runner wait.
  // This holds one connection while knex uses another, so the pool needs max >= 2.
  const conn = await db.client.acquireConnection();
  try {
    await db.raw('SELECT pg_advisory_lock(hashtext(?))', [`rdm:migrate:${opts.service}`]).connection(conn);
    const [, ran] = (await db.migrate.latest(config)) as [number, string[]];
    return ran;
  } finally {
    try {
      await db.raw('SELECT pg_advisory_unlock(hashtext(?))', [`rdm:migrate:${opts.service}`]).connection(conn);
    } finally {
      await db.client.releaseConnection(conn);
    }
  }
}

/** Run `fn` in a transaction: commit when it resolves, roll back when it throws. */
export function withTransaction<T>(
  db: Knex,
  fn: (trx: Knex.Transaction) => Promise<T>,
  opts: { isolationLevel?: Knex.IsolationLevels } = {},
): Promise<T> {
  return db.transaction((trx) => fn(trx), opts.isolationLevel ? { isolationLevel: opts.isolationLevel } : undefined);
}

const statementNames = new Map<string, string>();
const MAX_STATEMENT_NAMES = 10_000;

/**
 * `db.raw(sql, bindings)` run as a named prepared statement: each pooled connection parses and
 * plans `sql` once and then only binds and executes it (PostgreSQL spends more CPU planning a
 * small query than running it).
 *
 * When to use: hot statements whose text is fixed (a constant per call site; the values go in
 * `bindings`). Never for SQL built from input (search queries, lists of varying length):
 * every distinct text stays prepared on every connection. Name the columns instead of `*`: a
 * prepared `SELECT *` fails ("cached plan must not change result type") once a migration adds a
 * column while the process runs.
 */
export function prepared(db: Knex | Knex.Transaction, sql: string, bindings: readonly unknown[] = []): Knex.Raw {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `rdm_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    if (statementNames.size < MAX_STATEMENT_NAMES) statementNames.set(sql, name);
  }
  return db.raw(sql, bindings as Knex.RawBinding[]).options({ name });
}

/** The knex types, re-exported so services need no direct knex import. */
export type { Knex } from 'knex';
