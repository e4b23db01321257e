import { callRpc, type RpcServer, SYSTEM } from '@rdm/platform';
import { type TestDb, testDb, testLogger, testNats, uniqueId, waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/domain/tokens.js';
import { TokensService } from '../../src/domain/tokens.service.js';
import { UsersService } from '../../src/domain/users.service.js';
import { MAX_GET_USERS, serveUsersRpc } from '../../src/rpc/users.rpc.js';
import { outboxOf } from './helpers.js';

describe(TokensService.name, () => {
  let t: TestDb;
  let users: UsersService;
  let sut: TokensService;

  beforeAll(async () => {
    t = await testDb('users');
    users = new UsersService(t.db);
    sut = new TokensService(t.db, { lastUsedIntervalS: 60 });
  });
  afterAll(async () => {
    await t?.destroy();
  });

  it('should store only the sha256 hash of an issued token', async () => {
    const { user } = await users.ensureUser(SYSTEM, { email: 'tok@example.org' });
    const { token, row } = await sut.issue(SYSTEM, user.id, { name: 'ci' });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const raw = await t.db('tokens').where({ id: row.id }).first();
    expect(raw.token_hash).toBe(hashToken(token));
    // Why: the clear token must appear nowhere in the database, in any table or column.
    const dump = await t.db.raw(`select row_to_json(x)::text as j from (select * from tokens) x
      union all select row_to_json(y)::text from (select * from outbox) y
      union all select row_to_json(z)::text from (select * from users) z`);
    for (const r of dump.rows as { j: string }[]) expect(r.j).not.toContain(token);
  });

  it('should verify a good token to its user, roles and token id', async () => {
    const { user } = await users.ensureUser(SYSTEM, { email: 'admin-tok@example.org', admin: true });
    const { token, row } = await sut.issue(SYSTEM, user.id);
    expect(await sut.verify(token)).toEqual({ user_id: user.id, roles: ['admin'], token_id: row.id });
  });

  it('should verify unknown, malformed, revoked, expired and inactive-user tokens to null', async () => {
    const { user } = await users.ensureUser(SYSTEM, { email: 'many-tok@example.org' });
    expect(await sut.verify('not-a-token')).toBeNull();
    expect(await sut.verify('')).toBeNull();
    expect(await sut.verify(42)).toBeNull();
    expect(await sut.verify('x'.repeat(10_000))).toBeNull();

    const revoked = await sut.issue(SYSTEM, user.id);
    await sut.revoke(SYSTEM, { token: revoked.token });
    expect(await sut.verify(revoked.token)).toBeNull();

    const expired = await sut.issue(SYSTEM, user.id, { expiresAt: new Date(Date.now() - 1000) });
    expect(await sut.verify(expired.token)).toBeNull();
    const future = await sut.issue(SYSTEM, user.id, { expiresAt: new Date(Date.now() + 3_600_000) });
    expect(await sut.verify(future.token)).not.toBeNull();

    const alive = await sut.issue(SYSTEM, user.id);
    expect(await sut.verify(alive.token)).not.toBeNull();
    await users.deactivate(SYSTEM, 'many-tok@example.org');
    expect(await sut.verify(alive.token)).toBeNull();
  });

  it('should emit token.revoked once, by id or by clear token', async () => {
    const { user } = await users.ensureUser(SYSTEM, { email: 'revoke@example.org' });
    const a = await sut.issue(SYSTEM, user.id);
    const revoked = await sut.revoke(SYSTEM, { id: a.row.id });
    expect(revoked.revoked_at).toMatch(/\+00:00$/);
    await sut.revoke(SYSTEM, { token: a.token });
    const events = (await outboxOf(t.db, 'rdm.users.token.revoked')).filter((e) => e.payload.data.id === a.row.id);
    expect(events).toHaveLength(1);
    expect(events[0].payload.data).toEqual({ id: a.row.id, user_id: user.id });
    await expect(sut.revoke(SYSTEM, { id: 'nope' })).rejects.toMatchObject({ status: 404 });
    await expect(sut.revoke(SYSTEM, { id: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ status: 404 });
    await expect(sut.revoke(SYSTEM, { token: 'unknown-token' })).rejects.toMatchObject({ status: 404 });
  });

  it('should write last_used_at on first use and not again within the interval', async () => {
    const { user } = await users.ensureUser(SYSTEM, { email: 'used@example.org' });
    const { token, row } = await sut.issue(SYSTEM, user.id);
    expect(row.last_used_at).toBeNull();
    await sut.verify(token);
    const first = (await waitFor(async () => (await t.db('tokens').where({ id: row.id }).first()).last_used_at as Date | null))!;
    // A second service instance (no in-memory memo) must not write either: the row says "recent".
    const other = new TokensService(t.db, { lastUsedIntervalS: 60 });
    await sut.verify(token);
    await other.verify(token);
    await new Promise((r) => setTimeout(r, 200));
    const after = (await t.db('tokens').where({ id: row.id }).first()).last_used_at as Date;
    expect(after.getTime()).toBe(first.getTime());
  });

  it('should list the tokens of a user without any clear value', async () => {
    const { user } = await users.ensureUser(SYSTEM, { email: 'lister@example.org' });
    const a = await sut.issue(SYSTEM, user.id, { name: 'one' });
    const b = await sut.issue(SYSTEM, user.id, { name: 'two' });
    const rows = await sut.listOf(SYSTEM, 'LISTER@example.org');
    expect(rows.map((r) => r.id)).toEqual([a.row.id, b.row.id]);
    expect(JSON.stringify(rows)).not.toContain(a.token);
    expect(Object.keys(rows[0]).sort()).toEqual(['created', 'expires_at', 'id', 'last_used_at', 'name', 'revoked_at', 'user_id']);
  });
});

describe('users RPC over NATS', () => {
  let t: TestDb;
  let nats: Awaited<ReturnType<typeof testNats>>;
  let users: UsersService;
  let tokens: TokensService;
  let servers: RpcServer[] = [];
  const subjects = { verify: `test.${uniqueId()}.verify-token`, get: `test.${uniqueId()}.get-users` };

  beforeAll(async () => {
    t = await testDb('users');
    nats = await testNats();
    users = new UsersService(t.db);
    tokens = new TokensService(t.db);
    // Why: private subjects, so a running users service on the shared NATS never answers these.
    servers = serveUsersRpc(nats.nc, {
      users,
      tokens,
      logger: testLogger(),
      subjects: { verifyToken: subjects.verify, getUsers: subjects.get },
    });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await nats?.close();
    await t?.destroy();
  });

  it('should answer verify-token with the identity, or null for revoked and inactive', async () => {
    const { user } = await users.ensureUser(SYSTEM, { email: 'rpc@example.org', fullName: 'R P C' });
    const good = await tokens.issue(SYSTEM, user.id);
    expect(await callRpc(nats.nc, subjects.verify, { token: good.token })).toEqual({ user_id: user.id, roles: [], token_id: good.row.id });
    expect(await callRpc(nats.nc, subjects.verify, { token: 'garbage' })).toBeNull();

    const revoked = await tokens.issue(SYSTEM, user.id);
    await tokens.revoke(SYSTEM, { id: revoked.row.id });
    expect(await callRpc(nats.nc, subjects.verify, { token: revoked.token })).toBeNull();

    await users.deactivate(SYSTEM, 'rpc@example.org');
    expect(await callRpc(nats.nc, subjects.verify, { token: good.token })).toBeNull();
  });

  it('should reject a malformed verify-token request with a 400', async () => {
    await expect(callRpc(nats.nc, subjects.verify, { nope: 1 })).rejects.toMatchObject({ status: 400 });
  });

  it('should reject an over-long id batch with a 400', async () => {
    const ids = Array.from({ length: MAX_GET_USERS + 1 }, (_, i) => String(i + 1));
    await expect(callRpc(nats.nc, subjects.get, { ids })).rejects.toMatchObject({ status: 400 });
  });

  it('should answer get-users with the known users', async () => {
    const { user } = await users.ensureUser(SYSTEM, { email: 'get@example.org', fullName: 'Get Me', username: 'getme' });
    const res = await callRpc<{ users: unknown[] }>(nats.nc, subjects.get, { ids: [user.id, '424242', 'x'] });
    expect(res).toEqual({
      users: [{ id: user.id, username: 'getme', full_name: 'Get Me', email: 'get@example.org', active: true, roles: [] }],
    });
  });
});
