/**
 * Community roles and InvenioRDM's member rules (reference §3.1): which role may manage which
 * roles, and the permissions of one member row as a given caller sees them. Pure functions: the
 * services load the caller's role and the rows, these decide.
 */

/** Roles, from most to least powerful. */
export const ROLES = ['owner', 'manager', 'curator', 'reader'] as const;
/** A community role. */
export type Role = (typeof ROLES)[number];

/** Human titles of the roles (request descriptions, labels). */
export const ROLE_TITLES: Record<Role, string> = { owner: 'Owner', manager: 'Manager', curator: 'Curator', reader: 'Reader' };

/** Roles each role may manage (add, change, remove). */
export const CAN_MANAGE: Record<Role, readonly Role[]> = {
  owner: ['owner', 'manager', 'curator', 'reader'],
  manager: ['manager', 'curator', 'reader'],
  curator: [],
  reader: [],
};

/** True for a known role name. */
export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

/** The caller as far as member rules care: its role in the community (null: none) and whether it is a site administrator. */
export interface Actor {
  userId: string | null;
  role: Role | null;
  admin: boolean;
}

/** May `actor` manage members holding `target`? */
export function canManageRole(actor: Actor, target: Role): boolean {
  if (actor.admin) return true;
  return actor.role !== null && CAN_MANAGE[actor.role].includes(target);
}

/** May `actor` manage members at all (owners, managers, admins)? */
export function isMemberManager(actor: Actor): boolean {
  return actor.admin || actor.role === 'owner' || actor.role === 'manager';
}

/** A member row as the rules see it. */
export interface MemberFacts {
  member_type: string;
  member_id: string;
  role: Role;
  visible: boolean;
}

/** Permissions of one member row for the caller (reference §3.2 "Member hit"). */
export interface MemberPermissions {
  can_leave: boolean;
  can_delete: boolean;
  can_update_role: boolean;
  can_update_visible: boolean;
}

/** Is the row the caller's own membership? */
export function isSelf(actor: Actor, m: MemberFacts): boolean {
  return actor.userId !== null && m.member_type === 'user' && m.member_id === actor.userId;
}

/** Compute a member row's permissions for the caller. */
export function memberPermissions(actor: Actor, m: MemberFacts): MemberPermissions {
  const self = isSelf(actor, m);
  const canUpdate = canManageRole(actor, m.role);
  return {
    can_leave: self,
    can_delete: canUpdate && !self,
    can_update_role: canUpdate && !self,
    can_update_visible: (m.visible && canUpdate) || self,
  };
}

/** Why a role/visibility change is refused, or null when allowed. `kind`: 400 message or 403. */
export type Refusal = { kind: 'bad'; message: string } | { kind: 'denied' } | null;

/** Check one member update (`role` and/or `visible`) against the rules. */
export function checkMemberUpdate(actor: Actor, m: MemberFacts, change: { role?: Role; visible?: boolean }): Refusal {
  const self = isSelf(actor, m);
  if (change.role !== undefined) {
    if (self) return { kind: 'bad', message: 'You cannot change your own role.' };
    // Why both: a manager can neither demote an owner nor create one.
    if (!canManageRole(actor, m.role) || !canManageRole(actor, change.role)) return { kind: 'denied' };
  }
  if (change.visible !== undefined && !self) {
    if (change.visible) return { kind: 'bad', message: 'You can only set public visibility on your own membership.' };
    if (!canManageRole(actor, m.role)) return { kind: 'denied' };
  }
  return null;
}

/** Check one member removal (leave or remove). */
export function checkMemberRemoval(actor: Actor, m: MemberFacts): Refusal {
  if (isSelf(actor, m)) return null;
  return canManageRole(actor, m.role) ? null : { kind: 'denied' };
}
