/**
 * Builders of domain values for unit tests (no I/O), kept out of the product code.
 *
 * When to use: a unit test (co-located in `src/`) needing a `User` with defaults it can override.
 */
import { DEFAULT_PREFERENCES, type User } from '../../src/domain/user.js';

/** A user with sensible defaults: active, confirmed, public profile, restricted e-mail. */
export function aUser(
  overrides: Partial<User> & { visibility?: 'public' | 'restricted'; emailVisibility?: 'public' | 'restricted' } = {},
): User {
  const { visibility, emailVisibility, ...rest } = overrides;
  return {
    id: '7',
    email: 'jose@cern.ch',
    username: 'jose',
    active: true,
    confirmed: true,
    confirmed_at: '2024-01-02T03:04:05.123456+00:00',
    profile: { full_name: 'Jose Benito Gonzalez Lopez', affiliations: 'CERN' },
    preferences: {
      ...DEFAULT_PREFERENCES,
      visibility: visibility ?? 'public',
      email_visibility: emailVisibility ?? 'restricted',
    },
    roles: [],
    created: '2024-01-02T03:04:05.123456+00:00',
    updated: '2024-01-02T03:04:05.123456+00:00',
    revision_id: 1,
    ...rest,
  };
}
