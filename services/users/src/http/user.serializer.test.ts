import { ANONYMOUS } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { aUser } from '../../test/support/builders.js';
import { serializeUser } from './user.serializer.js';

const BASE = 'https://127.0.0.1:5000';

describe(serializeUser.name, () => {
  it('should render the spec shape with absolute links and string id for another caller', () => {
    const sut = serializeUser(aUser(), { sub: '99', roles: [] }, BASE);
    expect(sut).toEqual({
      id: '7',
      created: '2024-01-02T03:04:05.123456+00:00',
      updated: '2024-01-02T03:04:05.123456+00:00',
      links: {
        self: `${BASE}/api/users/7`,
        avatar: `${BASE}/api/users/7/avatar.svg`,
        records_html: `${BASE}/search?q=parent.access.owned_by.user:7`,
      },
      revision_id: 1,
      active: true,
      confirmed: true,
      is_current_user: false,
      username: 'jose',
      profile: { full_name: 'Jose Benito Gonzalez Lopez', affiliations: 'CERN' },
      preferences: { visibility: 'public', email_visibility: 'restricted' },
      identities: {},
    });
    expect(sut).not.toHaveProperty('email');
  });

  it('should include a public e-mail for anonymous callers', () => {
    const sut = serializeUser(aUser({ emailVisibility: 'public' }), ANONYMOUS, BASE);
    expect(sut.email).toBe('jose@cern.ch');
    expect(sut.is_current_user).toBe(false);
  });

  it('should include e-mail and details for the user themselves', () => {
    const sut = serializeUser(aUser({ roles: ['admin'] }), { sub: '7', roles: ['admin'] }, BASE);
    expect(sut.is_current_user).toBe(true);
    expect(sut.email).toBe('jose@cern.ch');
    expect(sut.preferences).toEqual({ visibility: 'public', email_visibility: 'restricted', locale: 'en', timezone: 'Europe/Zurich' });
    expect(sut.domain).toBe('cern.ch');
    expect(sut.roles).toEqual(['admin']);
  });

  it('should include the hidden e-mail for administrators', () => {
    const sut = serializeUser(aUser(), { sub: '1', roles: ['admin'] }, BASE);
    expect(sut.email).toBe('jose@cern.ch');
    expect(sut.is_current_user).toBe(false);
  });

  it('should keep the spec key order', () => {
    const sut = serializeUser(aUser({ emailVisibility: 'public' }), ANONYMOUS, BASE);
    expect(Object.keys(sut)).toEqual([
      'id',
      'created',
      'updated',
      'links',
      'revision_id',
      'active',
      'confirmed',
      'is_current_user',
      'email',
      'username',
      'profile',
      'preferences',
      'identities',
    ]);
  });
});
