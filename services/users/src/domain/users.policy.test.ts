import { ANONYMOUS, SYSTEM } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { aUser } from '../../test/support/builders.js';
import { isExposed, listScope, usersPolicy } from './users.policy.js';

const other = { sub: '99', roles: [] };
const admin = { sub: '1', roles: ['admin'] };
const self = { sub: '7', roles: [] };

describe('usersPolicy', () => {
  it('should let anyone, anonymous included, read an active confirmed public user', () => {
    const u = aUser();
    expect(isExposed(u)).toBe(true);
    for (const i of [ANONYMOUS, other, self, admin, SYSTEM]) expect(usersPolicy.can('read', i, u)).toBe(true);
  });

  it.each([
    ['a restricted profile', aUser({ visibility: 'restricted' })],
    ['an inactive user', aUser({ active: false })],
    ['an unconfirmed user', aUser({ confirmed: false, confirmed_at: null })],
  ])('should hide %s from others but show it to self and admins', (_label, u) => {
    expect(usersPolicy.can('read', ANONYMOUS, u)).toBe(false);
    expect(usersPolicy.can('read', other, u)).toBe(false);
    expect(usersPolicy.can('read', self, u)).toBe(true);
    expect(usersPolicy.can('read', admin, u)).toBe(true);
    expect(usersPolicy.can('read', SYSTEM, u)).toBe(true);
  });

  it('should show a restricted e-mail only to self and admins', () => {
    const u = aUser({ emailVisibility: 'restricted' });
    expect(usersPolicy.can('read_email', ANONYMOUS, u)).toBe(false);
    expect(usersPolicy.can('read_email', other, u)).toBe(false);
    expect(usersPolicy.can('read_email', self, u)).toBe(true);
    expect(usersPolicy.can('read_email', admin, u)).toBe(true);
  });

  it('should show a public e-mail to anyone who may read the user', () => {
    expect(usersPolicy.can('read_email', ANONYMOUS, aUser({ emailVisibility: 'public' }))).toBe(true);
    expect(usersPolicy.can('read_email', other, aUser({ emailVisibility: 'public', visibility: 'restricted' }))).toBe(false);
  });

  it('should reserve details to self and admins', () => {
    const u = aUser();
    expect(usersPolicy.can('read_details', ANONYMOUS, u)).toBe(false);
    expect(usersPolicy.can('read_details', other, u)).toBe(false);
    expect(usersPolicy.can('read_details', self, u)).toBe(true);
    expect(usersPolicy.can('read_details', admin, u)).toBe(true);
  });
});

describe(listScope.name, () => {
  it('should list public users plus self for normal callers', () => {
    expect(listScope(ANONYMOUS)).toEqual({ kind: 'public', selfId: null });
    expect(listScope(other)).toEqual({ kind: 'public', selfId: '99' });
  });

  it('should list every active confirmed user for admins and the system', () => {
    expect(listScope(admin)).toEqual({ kind: 'all' });
    expect(listScope(SYSTEM)).toEqual({ kind: 'all' });
  });
});
