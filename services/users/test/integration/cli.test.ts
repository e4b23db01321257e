import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createDb, type Knex } from '@rdm/platform';
import { repoRoot, TEST_DATABASE_URL, uniqueId, withParams } from '@rdm/platform/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/domain/tokens.js';

const run = promisify(execFile);

/** Run the CLI against `url`; resolves with stdout, stderr and the exit code. */
async function cli(url: string, args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const tsx = join(repoRoot(), 'node_modules', '.bin', 'tsx');
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info' };
  env.NODE_OPTIONS = undefined; // vitest's loader options do not belong in the CLI process
  try {
    const { stdout, stderr } = await run(tsx, ['src/cli.ts', ...args], {
      cwd: join(repoRoot(), 'services', 'users'),
      env,
      timeout: 60_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (e) {
    const err = e as { stdout: string; stderr: string; code: number };
    return { stdout: err.stdout, stderr: err.stderr, code: err.code };
  }
}

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

// Why: each CLI run is a fresh node process loading the platform (seconds on a busy machine).
describe('users CLI', { timeout: 240_000 }, () => {
  // Why: a database of its own, with no users schema at all: the CLI must migrate it first.
  const dbName = `rdm_users_cli_${uniqueId()}`;
  let url: string;
  let db: Knex;

  beforeAll(async () => {
    await admin(`CREATE DATABASE "${dbName}"`);
    const u = new URL(TEST_DATABASE_URL);
    u.pathname = `/${dbName}`;
    url = withParams(u.toString());
    db = createDb({ url, service: 'users', pool: { max: 2 } });
  });
  afterAll(async () => {
    await db?.destroy();
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  });

  it('should migrate a missing schema, create the user and print only one JSON line', async () => {
    const res = await cli(url, ['create-user', '--email', 'Cli.Admin@Example.org', '--admin', '--name', 'Cli Admin']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.endsWith('\n')).toBe(true);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]);
    expect(Object.keys(out)).toEqual(['id', 'email', 'token']);
    expect(out).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      email: 'Cli.Admin@Example.org',
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(res.stderr).not.toContain(out.token);

    const user = await db('users').where({ id: out.id }).first();
    expect(user).toMatchObject({ active: true, roles: ['admin'], profile: { full_name: 'Cli Admin', affiliations: '' } });
    expect(user.preferences).toMatchObject({ visibility: 'public', email_visibility: 'restricted' });
    expect(user.confirmed_at).not.toBeNull();
    const tok = await db('tokens').where({ user_id: out.id }).first();
    expect(tok.token_hash).toBe(hashToken(out.token));
    const created = await db('outbox').where({ subject: 'rdm.users.user.created' });
    expect(created.map((r) => r.payload.data)).toEqual([{ id: out.id, email: 'Cli.Admin@Example.org' }]);
  });

  it('should reuse the user on a second call, with a new token', async () => {
    const a = JSON.parse((await cli(url, ['create-user', '--email', 'twice@example.org'])).stdout);
    const b = JSON.parse((await cli(url, ['create-user', '--email', 'TWICE@example.org', '--name', 'Twice'])).stdout);
    expect(b.id).toBe(a.id);
    expect(b.token).not.toBe(a.token);
    expect(await db('tokens').where({ user_id: a.id }).count({ n: '*' })).toEqual([{ n: '2' }]);
  });

  it('should create hidden test users with --private, --unconfirmed and --inactive', async () => {
    const out = JSON.parse(
      (await cli(url, ['create-user', '--email', 'hidden@example.org', '--private', '--unconfirmed', '--inactive', '--email-public']))
        .stdout,
    );
    const user = await db('users').where({ id: out.id }).first();
    expect(user).toMatchObject({ active: false, confirmed_at: null });
    expect(user.preferences).toMatchObject({ visibility: 'restricted', email_visibility: 'public' });
  });

  it('should create a user with a restricted profile with --visibility restricted (make user VISIBILITY=restricted)', async () => {
    const res = await cli(url, ['create-user', '--email', 'restricted@example.org', '--visibility', 'restricted']);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    const user = await db('users').where({ id: out.id }).first();
    expect(user.preferences).toMatchObject({ visibility: 'restricted' });
    const pub = JSON.parse((await cli(url, ['create-user', '--email', 'public@example.org', '--visibility=public'])).stdout);
    expect((await db('users').where({ id: pub.id }).first()).preferences).toMatchObject({ visibility: 'public' });
    const bad = await cli(url, ['create-user', '--email', 'bad-vis@example.org', '--visibility', 'secret']);
    expect(bad.code).toBe(64);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('--visibility must be public or restricted');
    expect(await db('users').where({ email: 'bad-vis@example.org' }).first()).toBeUndefined();
  });

  it('should pass VISIBILITY from make user to the CLI', () => {
    const makefile = readFileSync(join(repoRoot(), 'Makefile'), 'utf8');
    expect(makefile).toMatch(/if \[ -n "\$\$\{VISIBILITY:-\}" \]; then set -- "\$\$@" --visibility "\$\$VISIBILITY"; fi/);
  });

  it("should take a value starting with '-' after a value flag", async () => {
    const res = await cli(url, ['revoke-token', '--token', '-not-a-real-token']);
    expect(res.stderr).not.toMatch(/ambiguous/);
    expect(res.code).toBe(1);
  });

  it('should revoke a token by clear value and by id, emitting token.revoked', async () => {
    const u = JSON.parse((await cli(url, ['create-user', '--email', 'revoker@example.org'])).stdout);
    // A token may start with '-' (about one in 64): `--token <value>` must take it all the same.
    const res = await cli(url, ['revoke-token', '--token', u.token]);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout.trimEnd().split('\n').pop()!);
    expect(out).toMatchObject({ user_id: u.id, revoked_at: expect.stringMatching(/\+00:00$/) });
    const again = await cli(url, ['revoke-token', '--id', out.id]);
    expect(again.code).toBe(0);
    const events = await db('outbox').where({ subject: 'rdm.users.token.revoked' });
    expect(events.map((e) => e.payload.data)).toEqual([{ id: out.id, user_id: u.id }]);
  });

  it('should deactivate a user and list tokens', async () => {
    const u = JSON.parse((await cli(url, ['create-user', '--email', 'deact@example.org'])).stdout);
    const res = await cli(url, ['deactivate-user', '--email', 'deact@example.org']);
    expect(JSON.parse(res.stdout)).toEqual({ id: u.id, email: 'deact@example.org', active: false });
    const events = await db('outbox').where({ subject: 'rdm.users.user.deactivated' });
    expect(events.map((e) => e.payload.data)).toEqual([{ id: u.id }]);
    const list = JSON.parse((await cli(url, ['list-tokens', '--email', 'deact@example.org'])).stdout);
    expect(list.tokens).toHaveLength(1);
    expect(list.tokens[0]).toMatchObject({ user_id: u.id, name: 'cli', revoked_at: null });
    expect(JSON.stringify(list)).not.toContain(u.token);
  });

  it('should fail with 64 on usage errors and 1 on domain errors, printing nothing on stdout', async () => {
    const usage = [['nope'], ['create-user', '--bogus'], ['revoke-token', '--id', 'a', '--token', 'b']];
    const domain = [
      ['create-user', '--email', 'not-an-email'],
      ['deactivate-user', '--email', 'ghost@example.org'],
    ];
    const results = await Promise.all([...usage, ...domain].map((args) => cli(url, args)));
    results.forEach((res, i) => {
      const args = [...usage, ...domain][i];
      expect(res.code, args.join(' ')).toBe(i < usage.length ? 64 : 1);
      expect(res.stdout, args.join(' ')).toBe('');
      expect(res.stderr).toMatch(/users-cli: /);
    });
  });
});
