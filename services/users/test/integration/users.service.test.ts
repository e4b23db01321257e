import { ANONYMOUS, SYSTEM } from '@rdm/platform';
import { type TestDb, testDb } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '../../src/domain/users.service.js';
import { outboxOf } from './helpers.js';

describe(UsersService.name, () => {
  let t: TestDb;
  let sut: UsersService;

  beforeAll(async () => {
    t = await testDb('users');
    sut = new UsersService(t.db);
  });
  afterAll(async () => {
    await t?.destroy();
  });

  it('should create an active confirmed public user with a restricted e-mail and emit user.created', async () => {
    const { user, created } = await sut.ensureUser(SYSTEM, { email: 'Ana@Example.org', fullName: 'Ana Núñez' });
    expect(created).toBe(true);
    expect(user).toMatchObject({
      email: 'Ana@Example.org',
      username: null,
      active: true,
      confirmed: true,
      roles: [],
      revision_id: 1,
      profile: { full_name: 'Ana Núñez', affiliations: '' },
      preferences: { visibility: 'public', email_visibility: 'restricted', locale: 'en', timezone: 'Europe/Zurich' },
    });
    expect(user.id).toMatch(/^\d+$/);
    expect(user.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    const events = await outboxOf(t.db, 'rdm.users.user.created');
    expect(events.map((e) => e.payload.data)).toContainEqual({ id: user.id, email: 'Ana@Example.org' });
    const ev = events.find((e) => e.payload.data.id === user.id)!.payload;
    expect(ev.aggregate).toEqual({ type: 'user', id: user.id, revision: 1 });
  });

  it('should reuse a user by case-insensitive e-mail, add the admin role, and not emit user.created twice', async () => {
    const first = (await sut.ensureUser(SYSTEM, { email: 'bob@example.org' })).user;
    const again = await sut.ensureUser(SYSTEM, { email: 'BOB@example.org', admin: true, fullName: 'Bob' });
    expect(again.created).toBe(false);
    expect(again.user.id).toBe(first.id);
    expect(again.user.roles).toEqual(['admin']);
    expect(again.user.revision_id).toBe(2);
    const third = await sut.ensureUser(SYSTEM, { email: 'bob@example.org' });
    expect(third.user.roles).toEqual(['admin']);
    expect(third.user.revision_id).toBe(2);
    const created = (await outboxOf(t.db, 'rdm.users.user.created')).filter((e) => e.payload.data.id === first.id);
    expect(created).toHaveLength(1);
  });

  it('should serialize concurrent creations of one e-mail into one user', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => sut.ensureUser(SYSTEM, { email: 'race@example.org' })));
    expect(new Set(results.map((r) => r.user.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });

  it('should refuse a bad e-mail, a bad username and a username held by someone else', async () => {
    await expect(sut.ensureUser(SYSTEM, { email: 'nope' })).rejects.toMatchObject({ status: 400, fieldErrors: [{ field: 'email' }] });
    await expect(sut.ensureUser(SYSTEM, { email: 'u1@example.org', username: '1x' })).rejects.toMatchObject({ status: 400 });
    await sut.ensureUser(SYSTEM, { email: 'holder@example.org', username: 'holder' });
    await expect(sut.ensureUser(SYSTEM, { email: 'other@example.org', username: 'HOLDER' })).rejects.toMatchObject({
      status: 400,
      fieldErrors: [{ field: 'username', messages: ['Username already exists.'] }],
    });
  });

  it('should refuse account operations to non-system identities', async () => {
    await expect(sut.ensureUser(ANONYMOUS, { email: 'x@example.org' })).rejects.toMatchObject({ status: 403 });
    await expect(sut.deactivate({ sub: '5', roles: [] }, 'x@example.org')).rejects.toMatchObject({ status: 403 });
  });

  it('should deactivate once and emit user.deactivated once', async () => {
    const { user } = await sut.ensureUser(SYSTEM, { email: 'leaving@example.org' });
    const off = await sut.deactivate(SYSTEM, 'leaving@example.org');
    expect(off.active).toBe(false);
    expect(off.revision_id).toBe(user.revision_id + 1);
    await sut.deactivate(SYSTEM, 'LEAVING@example.org');
    const events = (await outboxOf(t.db, 'rdm.users.user.deactivated')).filter((e) => e.payload.data.id === user.id);
    expect(events).toHaveLength(1);
    expect(events[0].payload.aggregate).toEqual({ type: 'user', id: user.id, revision: off.revision_id });
    await expect(sut.deactivate(SYSTEM, 'ghost@example.org')).rejects.toMatchObject({ status: 404 });
  });

  it('should skip unknown and malformed ids in getMany', async () => {
    const { user } = await sut.ensureUser(SYSTEM, { email: 'many@example.org' });
    const found = await sut.getMany([user.id, 'abc', '999999999', user.id]);
    expect(found.map((u) => u.id)).toEqual([user.id]);
  });

  it('should keep a hidden e-mail out of the search document', async () => {
    await sut.ensureUser(SYSTEM, { email: 'secret.person@hidden.example', fullName: 'Hidden Mail' });
    const hits = await sut.search(ANONYMOUS, { q: 'secret.person@hidden.example', page: 1, size: 10, sort: 'bestmatch', from: 0 });
    expect(hits.total).toBe(0);
    const byEmailField = await sut.search(ANONYMOUS, {
      q: 'email:"secret.person@hidden.example"',
      page: 1,
      size: 10,
      sort: 'bestmatch',
      from: 0,
    });
    expect(byEmailField.total).toBe(0);
    const byName = await sut.search(ANONYMOUS, { q: 'hidden', page: 1, size: 10, sort: 'bestmatch', from: 0 });
    expect(byName.total).toBe(1);
  });
});
