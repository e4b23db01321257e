/**
 * The User JSON of the spec, cut down to what the caller may see.
 *
 * Shape (spec "User"): `{id, created, updated, links{self, avatar, records_html}, revision_id,
 * active, confirmed, is_current_user, email, username, profile{full_name, affiliations},
 * preferences{visibility, email_visibility}}` plus InvenioRDM's `identities: {}`.
 * - `email` only when the caller may read it (`read_email`).
 * - `preferences.locale`/`timezone`, `domain` and `roles` only for the user themselves and admins
 *   (`read_details`).
 */
import type { Identity } from '@rdm/platform';
import { userLinks } from '../domain/links.js';
import { emailDomain, type User, type Visibility } from '../domain/user.js';
import { usersPolicy } from '../domain/users.policy.js';

/** The serialized user. */
export interface UserJson {
  id: string;
  created: string;
  updated: string;
  links: ReturnType<typeof userLinks>;
  revision_id: number;
  active: boolean;
  confirmed: boolean;
  is_current_user: boolean;
  email?: string;
  username: string | null;
  profile: { full_name: string; affiliations: string };
  preferences: { visibility: Visibility; email_visibility: Visibility; locale?: string; timezone?: string };
  identities: Record<string, string>;
  domain?: string;
  roles?: string[];
}

/** Serialize `user` for `identity`; the caller has already checked `read`. */
export function serializeUser(user: User, identity: Identity, baseUrl: string): UserJson {
  const details = usersPolicy.can('read_details', identity, user);
  const out: UserJson = {
    id: user.id,
    created: user.created,
    updated: user.updated,
    links: userLinks(baseUrl, user.id),
    revision_id: user.revision_id,
    active: user.active,
    confirmed: user.confirmed,
    is_current_user: identity.sub !== null && identity.sub === user.id,
    ...(usersPolicy.can('read_email', identity, user) ? { email: user.email } : {}),
    username: user.username,
    profile: { full_name: user.profile.full_name ?? '', affiliations: user.profile.affiliations ?? '' },
    preferences: { visibility: user.preferences.visibility, email_visibility: user.preferences.email_visibility },
    identities: {},
  };
  if (details) {
    out.preferences.locale = user.preferences.locale;
    out.preferences.timezone = user.preferences.timezone;
    out.domain = emailDomain(user.email);
    out.roles = [...user.roles];
  }
  return out;
}
