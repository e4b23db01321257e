/** The user entity as the domain sees it, and the value rules shared by the service and the CLI. */

/** Visibility of a profile or of an e-mail address (InvenioRDM's two values). */
export type Visibility = 'public' | 'restricted';

/** Accepted visibility values. */
export const VISIBILITIES: readonly Visibility[] = ['public', 'restricted'];

/** Profile fields (InvenioRDM `user_profile`). */
export interface Profile {
  full_name: string;
  affiliations: string;
}

/** Preferences; `visibility` and `email_visibility` drive what others may see. */
export interface Preferences {
  visibility: Visibility;
  email_visibility: Visibility;
  locale: string;
  timezone: string;
}

/** A user row, timestamps already rendered as InvenioRDM strings. */
export interface User {
  id: string;
  email: string;
  username: string | null;
  active: boolean;
  confirmed: boolean;
  confirmed_at: string | null;
  profile: Profile;
  preferences: Preferences;
  roles: string[];
  created: string;
  updated: string;
  revision_id: number;
}

/**
 * InvenioRDM's defaults (invenio-accounts `ACCOUNTS_DEFAULT_USER_VISIBILITY` and
 * `ACCOUNTS_DEFAULT_EMAIL_VISIBILITY` are both "restricted"; locale en, timezone Europe/Zurich).
 */
export const DEFAULT_PREFERENCES: Preferences = Object.freeze({
  visibility: 'restricted',
  email_visibility: 'restricted',
  locale: 'en',
  timezone: 'Europe/Zurich',
}) as Preferences;

/** The administrator role (InvenioRDM's `admin` role carrying superuser access). */
export const ADMIN_ROLE = 'admin';

/** Roles a user may carry. */
export const KNOWN_ROLES: readonly string[] = [ADMIN_ROLE];

/** Canonical user id: a positive integer that fits a bigint, without leading zeros. */
const ID_RE = /^[1-9]\d{0,17}$/;

/** True when `raw` is a well-formed user id (anything else is an unknown user: 404, never 500). */
export function isUserId(raw: unknown): raw is string {
  return typeof raw === 'string' && ID_RE.test(raw);
}

/** A pragmatic e-mail check: one @, something on both sides, a dot in the domain, no spaces. */
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** True when `email` looks like an e-mail address (at most 254 characters). */
export function isEmail(email: string): boolean {
  return email.length <= 254 && EMAIL_RE.test(email);
}

/** InvenioRDM's default `ACCOUNTS_USERNAME_REGEX`: a letter, then letters, digits, `-` or `_`, 3–255 long. */
const USERNAME_RE = /^[a-zA-Z][a-zA-Z0-9-_]{2,254}$/;

/** True when `username` satisfies InvenioRDM's default username rule. */
export function isUsername(username: string): boolean {
  return USERNAME_RE.test(username);
}

/** The e-mail domain (lower-case), as InvenioRDM's `domain` field. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}
