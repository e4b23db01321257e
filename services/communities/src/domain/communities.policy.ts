/**
 * Who may do what to a community (InvenioRDM's community permission policy, with the spec's
 * administrators-only creation made configurable). The service loads the community and the
 * caller's role; the policy decides. Administrators and the system pass everything.
 */
import {
  anyUser,
  authenticatedUser,
  definePolicy,
  type Generator,
  type Identity,
  ifThen,
  isAdmin,
  isSystem,
  type Policy,
} from '@rdm/platform';
import type { CommunityRow } from '../repo/communities.repo.js';
import type { Role } from './roles.js';

/** Context of a community decision. */
export interface CommunityCtx {
  community: Pick<CommunityRow, 'visibility' | 'access'>;
  role: Role | null;
}

/** Actions on communities. */
export type CommunityAction =
  | 'create'
  | 'read'
  | 'update'
  | 'manage_access'
  | 'rename'
  | 'delete'
  | 'restore'
  | 'logo'
  | 'featured'
  | 'search_members'
  | 'read_public_members'
  | 'manage_members'
  | 'register_extension';

const hasRole =
  (...roles: Role[]): Generator<CommunityCtx> =>
  (_i, ctx) =>
    ctx?.role !== null && ctx?.role !== undefined && roles.includes(ctx.role);

const member = hasRole('owner', 'manager', 'curator', 'reader');

/** Build the policy; `creators` is COMMUNITY_CREATORS. */
export function communitiesPolicy(creators: 'admins' | 'users'): Policy<CommunityAction, CommunityCtx> {
  return definePolicy<CommunityAction, CommunityCtx>({
    // Administrators always pass; with `users` any authenticated user may create.
    create: creators === 'users' ? [authenticatedUser as Generator<CommunityCtx>] : [],
    read: [ifThen<CommunityCtx>((c) => c.community.visibility === 'public', [anyUser], [member])],
    // Community settings are owners' (InvenioRDM `can_update = [CommunityOwners(), SystemProcess()]`;
    // `can_rename` and the logo reuse it); managers manage members, not the community.
    update: [hasRole('owner')],
    manage_access: [hasRole('owner')],
    rename: [hasRole('owner')],
    delete: [hasRole('owner')],
    restore: [hasRole('owner')],
    logo: [hasRole('owner')],
    featured: [],
    search_members: [member],
    read_public_members: [
      ifThen<CommunityCtx>(
        (c) => c.community.visibility === 'public' && c.community.access.members_visibility === 'public',
        [anyUser],
        [member],
      ),
    ],
    manage_members: [hasRole('owner', 'manager')],
    register_extension: [hasRole('owner')],
  });
}

/** Superuser (administrator or the system)? */
export const isSuperuser = (i: Identity) => isAdmin(i) || isSystem(i);
