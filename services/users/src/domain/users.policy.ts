/**
 * Who may see which user, and which parts of them (invenio-users-resources `UsersPermissionPolicy`).
 *
 * Use `usersPolicy.can(action, identity, user)` for one user, and `listScope(identity)` to
 * build the SQL filter of a list, so a single user read and a list always agree.
 *
 * - `read`: a user who is *exposed* (active, confirmed e-mail, profile visibility public) may be
 *   read by anyone — the spec lets anonymous callers read public users, where InvenioRDM asks
 *   for a login; otherwise only the user themselves. Administrators (InvenioRDM's user
 *   managers) and the system read everyone.
 * - `read_email`: e-mail visibility public → anyone who may read the user; else self, admins.
 * - `read_details`: self, admins (locale, timezone, e-mail domain, role list).
 */
import { type Generator, type Identity, definePolicy, isAdmin, isSystem } from '@rdm/platform';
import type { User } from './user.js';

/** The user a permission is asked about. */
export type UserCtx = Pick<User, 'id' | 'active' | 'confirmed' | 'preferences'>;

/** True when the user may appear to anybody: active, confirmed, public profile. */
export function isExposed(u: UserCtx): boolean {
  return u.active && u.confirmed && u.preferences.visibility === 'public';
}

const self: Generator<UserCtx> = (i, u) => i.sub !== null && u !== undefined && i.sub === u.id;
const exposed: Generator<UserCtx> = (_i, u) => u !== undefined && isExposed(u);
const publicEmail: Generator<UserCtx> = (_i, u) => u !== undefined && u.preferences.email_visibility === 'public';

/** Permission policy of user resources; admins and the system are always allowed. */
export const usersPolicy = definePolicy<'read' | 'read_email' | 'read_details', UserCtx>({
  read: [exposed, self],
  read_email: [self, (i, u) => exposed(i, u) && publicEmail(i, u)],
  read_details: [self],
});

/** The filter a user list applies for an identity. */
export type ListScope =
  /** Administrators and the system: every active, confirmed user, whatever their visibility. */
  | { kind: 'all' }
  /** Everyone else: active, confirmed users with a public profile, plus the caller themselves. */
  | { kind: 'public'; selfId: string | null };

/**
 * The list filter of `GET /api/users`. InvenioRDM's search always requires active + confirmed;
 * the permission query then keeps public profiles and the caller (`IfPublicUser([...],[Self])`),
 * and user managers see all of them.
 */
export function listScope(identity: Identity): ListScope {
  if (isAdmin(identity) || isSystem(identity)) return { kind: 'all' };
  return { kind: 'public', selfId: identity.sub };
}
