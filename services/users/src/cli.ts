/**
 * Users CLI: account and token administration straight against the database (the service need
 * not run). Writes go through the service's own domain code and outbox, so the running
 * service's relay publishes their events later.
 *
 *   tsx src/cli.ts create-user --email E [--admin] [--name "Full Name"] [--username U]
 *                              [--affiliations A] [--visibility public|restricted] [--private]
 *                              [--email-public] [--unconfirmed] [--inactive] [--token-name N]
 *   tsx src/cli.ts revoke-token (--id <token id> | --token <token>)
 *   tsx src/cli.ts deactivate-user --email E
 *   tsx src/cli.ts list-tokens --email E
 *
 * Every value flag takes `--flag value` or `--flag=value`, also when the value starts with `-`
 * (about one base64url token in 64 does; `bindValues` joins such pairs before node:util
 * parseArgs, which would refuse them as ambiguous). Boolean flags take no value.
 *
 * Output contract: the LAST line of stdout is exactly one JSON object (create-user:
 * `{"id","email","token"}`); everything else (progress, errors) goes to stderr. Exit status 0 on
 * success, 1 on a domain error (unknown user, bad e-mail…), 64 on a usage error.
 *
 * `--visibility restricted` (alias `--private`: a restricted profile, `make user VISIBILITY=restricted`),
 * `--unconfirmed` and `--inactive` exist for tests
 * that need users the API must hide. A fresh user is active, confirmed, with a public profile
 * and a restricted e-mail (InvenioRDM's default e-mail visibility) unless `--email-public`.
 */
import { readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createDb, isAppError, type Knex, type Logger, loadConfig, SYSTEM } from '@rdm/platform';
import { usersSearch } from './bootstrap.js';
import { configProperties } from './config.js';
import { MIGRATIONS_DIR, migrateUsers } from './db/migrate.js';
import { TokensService } from './domain/tokens.service.js';
import { UsersService } from './domain/users.service.js';

// Why: stdout carries only the JSON result; anything a library prints goes to stderr.
console.log = console.error;
console.info = console.error;

const log = (msg: string) => process.stderr.write(`users-cli: ${msg}\n`);
/** Warnings of the search index (engine down: the running service's indexer catches up) on stderr. */
const cliLogger = {
  warn: (o: { err?: Error }, msg?: string) => log(`${msg ?? 'warning'}${o?.err ? `: ${o.err.message}` : ''}`),
} as unknown as Logger;

/** Thrown for a bad command line. */
class UsageError extends Error {}

const USAGE = `usage:
  cli.ts create-user --email E [--admin] [--name "Full Name"] [--username U] [--affiliations A]
                     [--visibility public|restricted] [--private] [--email-public] [--unconfirmed]
                     [--inactive] [--token-name N]
  cli.ts revoke-token (--id <token id> | --token <token>)
  cli.ts deactivate-user --email E
  cli.ts list-tokens --email E
value flags accept --flag=value (required when the value starts with '-', e.g. --token=-abc)`;

const COMMANDS = ['create-user', 'revoke-token', 'deactivate-user', 'list-tokens'];

const OPTIONS = {
  email: { type: 'string' },
  admin: { type: 'boolean' },
  name: { type: 'string' },
  username: { type: 'string' },
  affiliations: { type: 'string' },
  private: { type: 'boolean' },
  visibility: { type: 'string' },
  'email-public': { type: 'boolean' },
  unconfirmed: { type: 'boolean' },
  inactive: { type: 'boolean' },
  'token-name': { type: 'string' },
  id: { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Run migrations unless every migration file is already recorded. */
async function ensureMigrated(db: Knex, url: string): Promise<void> {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'));
  const exists = await db.raw("select to_regclass('users.knex_migrations') is not null as ok");
  if (exists.rows[0]?.ok) {
    const done = new Set((await db('knex_migrations').select('name')).map((r: { name: string }) => r.name));
    if (files.every((f) => done.has(f))) return;
  }
  log('migrating schema users');
  await migrateUsers(url, db);
}

function required(values: Record<string, unknown>, key: string): string {
  const v = values[key];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${key} is required`);
  return v;
}

/** `--flag value` of every string option as `--flag=value`, so a value may start with `-`. */
function bindValues(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const name = a.startsWith('--') && !a.includes('=') ? a.slice(2) : undefined;
    const option = name ? (OPTIONS as Record<string, { type: string }>)[name] : undefined;
    if (option?.type === 'string' && i + 1 < args.length) out.push(`${a}=${args[++i]}`);
    else out.push(a);
  }
  return out;
}

async function run(argv: string[]): Promise<Record<string, unknown>> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({ args: bindValues(rest), options: OPTIONS, strict: true, allowPositionals: false });
  if (!command || values.help) throw new UsageError(command ? '' : 'missing command');
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command ${command}`);
  const config = loadConfig(configProperties, process.env);
  const db = createDb({ url: config.DATABASE_URL, service: 'users', pool: { max: 2 } });
  let search: Awaited<ReturnType<typeof usersSearch>> | undefined;
  try {
    await ensureMigrated(db, config.DATABASE_URL);
    // SEARCH_ENGINE≠postgres: index the changed user inline too, so the next `GET /api/users` shows it.
    search = await usersSearch(config, db, cliLogger);
    const users = new UsersService(db, search.index);
    const tokens = new TokensService(db);
    switch (command) {
      case 'create-user': {
        const visibility = values.visibility ?? (values.private ? 'restricted' : 'public');
        if (visibility !== 'public' && visibility !== 'restricted') throw new UsageError('--visibility must be public or restricted');
        if (values.private && visibility !== 'restricted') throw new UsageError('--private contradicts --visibility public');
        const { user, created } = await users.ensureUser(SYSTEM, {
          email: required(values, 'email'),
          username: values.username,
          fullName: values.name,
          affiliations: values.affiliations,
          admin: values.admin ?? false,
          visibility,
          emailVisibility: values['email-public'] ? 'public' : undefined,
          confirmed: !values.unconfirmed,
          active: !values.inactive,
        });
        const { token, row } = await tokens.issue(SYSTEM, user.id, { name: values['token-name'] ?? 'cli' });
        log(
          `${created ? 'created' : 'reused'} user ${user.id}${user.roles.length ? ` (roles: ${user.roles.join(', ')})` : ''}; issued token ${row.id}`,
        );
        return { id: user.id, email: user.email, token };
      }
      case 'revoke-token': {
        if ((values.id === undefined) === (values.token === undefined)) throw new UsageError('give exactly one of --id or --token');
        const row = await tokens.revoke(SYSTEM, { id: values.id, token: values.token });
        log(`revoked token ${row.id}`);
        return { id: row.id, user_id: row.user_id, revoked_at: row.revoked_at };
      }
      case 'deactivate-user': {
        const user = await users.deactivate(SYSTEM, required(values, 'email'));
        log(`deactivated user ${user.id}`);
        return { id: user.id, email: user.email, active: user.active };
      }
      case 'list-tokens': {
        const rows = await tokens.listOf(SYSTEM, required(values, 'email'));
        return { tokens: rows };
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } finally {
    for (const close of search?.closers ?? []) await close().catch(() => undefined);
    await db.destroy();
  }
}

try {
  const result = await run(process.argv.slice(2));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = 0;
} catch (err) {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith?.('ERR_PARSE_ARGS')) {
    if (err instanceof Error && err.message) log(err.message);
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 64;
  } else if (isAppError(err)) {
    const details = err.fieldErrors?.map((f) => `${f.field}: ${f.messages.join(' ')}`).join('; ');
    log(`${err.message}${details ? ` (${details})` : ''}`);
    process.exitCode = 1;
  } else {
    log(`failed: ${(err as Error)?.message ?? String(err)}`);
    process.exitCode = 1;
  }
}
