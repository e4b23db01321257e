/**
 * Users and tokens for e2e specs, made with the users CLI (`services/users/src/cli.ts`) against
 * the database of the e2e stack: the same path an operator takes with `make user`. The CLI runs
 * as a separate process (nothing of services/* is imported); its last stdout line is JSON.
 *
 * Environment of the CLI: the users service's own start environment recorded by the global setup
 * in `.data/e2e-stack.json` (DATABASE_URL of the fresh e2e database…). When the stack was given
 * through E2E_BASE_URL (not ours), `E2E_USERS_DATABASE_URL`, else `DATABASE_URL`, must point at
 * that stack's database.
 *
 * With E2E_RUNTIME=containers the CLI runs inside the users container (`docker exec … node
 * dist/users/cli.js`): the image's own production build with the service's own environment, as an
 * operator runs it in a deployment. Why not tsx there: a tsx start costs about 2.4 s of CPU against
 * 0.3 s for the bundle, and the specs make several hundred users per pass; under load those starts
 * ran past the CLI's timeout (exit 143) and failed whole specs in their set-up.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../scripts/up.js';
import { childEnv, readStackState } from './stack.js';

const run = promisify(execFile);

/** A user made for a test, with a fresh personal access token. */
export interface TestUser {
  id: string;
  email: string;
  token: string;
}

/** Options of createUser. */
export interface CreateUserOptions {
  email: string;
  /** Grant the admin role. */
  admin?: boolean;
  /** Full name. */
  name?: string;
  username?: string;
  affiliations?: string;
  /** Profile visibility restricted (hidden from others). */
  private?: boolean;
  /** E-mail visibility public (default restricted). */
  emailPublic?: boolean;
  /** E-mail not confirmed (hidden from others). */
  unconfirmed?: boolean;
  /** Account inactive (hidden, tokens refused). */
  inactive?: boolean;
}

/** The environment the CLI needs to reach the e2e stack's database. */
function cliEnv(): NodeJS.ProcessEnv {
  const env = childEnv();
  env.NODE_OPTIONS = undefined; // vitest's loader options do not belong in the CLI process
  try {
    const state = readStackState();
    const users = state.services.users;
    Object.assign(env, users?.spec.env ?? {});
    env.DATABASE_URL = users?.spec.env.DATABASE_URL ?? state.databaseUrl;
  } catch {
    const url = process.env.E2E_USERS_DATABASE_URL ?? process.env.DATABASE_URL;
    if (!url) throw new Error('e2e users helper: no .data/e2e-stack.json and neither E2E_USERS_DATABASE_URL nor DATABASE_URL is set');
    env.DATABASE_URL = url;
  }
  env.LOG_LEVEL = 'warn';
  return env;
}

/** The users service's container when the stack runs in containers (header), else undefined. */
function usersContainer(): string | undefined {
  try {
    const state = readStackState();
    return state.runtime === 'containers' ? state.services.users?.container : undefined;
  } catch {
    return undefined;
  }
}

/** Run one CLI command; returns the JSON object of its last stdout line. */
export async function usersCli<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const container = usersContainer();
  const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
  try {
    const { stdout } = container
      ? await run('docker', ['exec', '--env', 'LOG_LEVEL=warn', container, 'node', 'dist/users/cli.js', ...args], {
          env: childEnv(),
          timeout: 60_000,
          maxBuffer: 4 * 1024 * 1024,
        })
      : await run(tsx, ['src/cli.ts', ...args], {
          cwd: join(REPO_ROOT, 'services', 'users'),
          env: cliEnv(),
          timeout: 60_000,
          maxBuffer: 4 * 1024 * 1024,
        });
    const last = stdout.trimEnd().split('\n').pop() ?? '';
    return JSON.parse(last) as T;
  } catch (err) {
    const e = err as { stderr?: string; code?: number; message: string };
    throw new Error(`users CLI ${args[0]} failed (exit ${e.code ?? '?'}): ${e.stderr?.trim() || e.message}`);
  }
}

/** A unique e-mail address for a test (`<prefix>-<random>@e2e.test`). */
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@e2e.test`;
}

/** Create (or reuse) a user and issue a fresh token for it. */
export async function createUser(o: CreateUserOptions): Promise<TestUser> {
  // `--flag=value` throughout: a value starting with `-` would be refused as `--flag value`.
  const args = ['create-user', `--email=${o.email}`];
  if (o.admin) args.push('--admin');
  if (o.name !== undefined) args.push(`--name=${o.name}`);
  if (o.username !== undefined) args.push(`--username=${o.username}`);
  if (o.affiliations !== undefined) args.push(`--affiliations=${o.affiliations}`);
  if (o.private) args.push('--private');
  if (o.emailPublic) args.push('--email-public');
  if (o.unconfirmed) args.push('--unconfirmed');
  if (o.inactive) args.push('--inactive');
  const out = await usersCli<TestUser>(args);
  if (!out.id || !out.token || !out.email) throw new Error(`users CLI create-user returned ${JSON.stringify(out)}`);
  return out;
}

/**
 * Revoke a token (by its clear value). Why `--token=<value>`: tokens are base64url, so about one
 * in 64 starts with `-`, which the CLI's parser (node:util parseArgs) refuses as an ambiguous
 * `--token <value>`.
 */
export async function revokeToken(token: string): Promise<void> {
  await usersCli(['revoke-token', `--token=${token}`]);
}

/** Deactivate the user of `email`: every token of theirs stops working. */
export async function deactivateUser(email: string): Promise<void> {
  await usersCli(['deactivate-user', `--email=${email}`]);
}
