/**
 * Who may do what with a request, InvenioRDM's rules over the type registry's data: a reference
 * to a user is that user; a reference to a community means the roles the type lists for it
 * (`needsContext`). The service loads the caller's community roles first; these functions only
 * decide (no I/O), so the same rules drive checks, `links.actions` and list filters.
 */
import { type Identity, isAdmin, isSystem } from '@rdm/platform';
import type { ActionName, CommunityRole, EventRow, Ref, RequestRow } from './model.js';
import { isClosedStatus } from './model.js';
import type { RequestType } from './types/request-type.js';

/** The caller's roles by community id (only the communities that matter for the request). */
export type RoleMap = Record<string, CommunityRole>;

type Req = Pick<RequestRow, 'created_by' | 'receiver' | 'topic' | 'status' | 'type'>;

/** True when `ref` designates the caller, given the roles that count for a community. */
export function refMatches(identity: Identity, ref: Ref, roles: RoleMap, allowed: CommunityRole[]): boolean {
  if (identity.sub === null) return false;
  if (ref.type === 'user') return ref.id === identity.sub && !isSystem(identity);
  if (ref.type === 'community') {
    const role = roles[ref.id];
    return role !== undefined && allowed.includes(role);
  }
  return false;
}

/** Is the caller the request's creator / receiver? */
export function relationsOf(identity: Identity, req: Req, type: RequestType, roles: RoleMap): { creator: boolean; receiver: boolean } {
  return {
    creator: refMatches(identity, req.created_by, roles, type.needsContext.creator),
    receiver: refMatches(identity, req.receiver, roles, type.needsContext.receiver),
  };
}

/** May the caller run `action` (ignoring the status)? False for actions the type lacks. */
export function mayRunAction(action: ActionName, identity: Identity, req: Req, type: RequestType, roles: RoleMap): boolean {
  const def = type.actions[action];
  if (!def) return false;
  if (def.who.includes('system') && isSystem(identity)) return true;
  if (def.who.includes('admin') && isAdmin(identity)) return true;
  const rel = relationsOf(identity, req, type, roles);
  return (def.who.includes('creator') && rel.creator) || (def.who.includes('receiver') && rel.receiver);
}

/** Actions valid in the current status AND allowed for the caller (the `links.actions` keys). */
export function availableActions(identity: Identity, req: Req, type: RequestType, roles: RoleMap): ActionName[] {
  const out: ActionName[] = [];
  for (const [name, def] of Object.entries(type.actions) as [ActionName, NonNullable<RequestType['actions'][ActionName]>][]) {
    if (def.from.includes(req.status) && mayRunAction(name, identity, req, type, roles)) out.push(name);
  }
  return out;
}

/** Read: a created request only by its creator; otherwise creator or receiver; administrators and the system always. */
export function canRead(identity: Identity, req: Req, type: RequestType | undefined, roles: RoleMap): boolean {
  if (isAdmin(identity) || isSystem(identity)) return true;
  if (!type || req.status === 'deleted') return false;
  const rel = relationsOf(identity, req, type, roles);
  if (req.status === 'created') return rel.creator;
  return rel.creator || rel.receiver;
}

/** Update (§1.6): created → creator; open → creator or receiver; closed → administrators and system only. */
export function canUpdate(identity: Identity, req: Req, type: RequestType, roles: RoleMap): boolean {
  if (isAdmin(identity) || isSystem(identity)) return true;
  const rel = relationsOf(identity, req, type, roles);
  if (req.status === 'created') return rel.creator;
  if (isClosedStatus(req.status)) return false;
  return rel.creator || rel.receiver;
}

/** Delete: only while created, by the creator, an administrator or the system (and only for deletable types). */
export function canDelete(identity: Identity, req: Req, type: RequestType, roles: RoleMap): boolean {
  if (!type.deletable || req.status !== 'created') return false;
  if (isAdmin(identity) || isSystem(identity)) return true;
  return relationsOf(identity, req, type, roles).creator;
}

/** The author reference of the caller (the system is `{user: system}`). */
export function callerRef(identity: Identity): Ref {
  return { type: 'user', id: isSystem(identity) ? 'system' : String(identity.sub) };
}

/** Is the caller the author of the event? */
export function isAuthor(identity: Identity, ev: Pick<EventRow, 'created_by'>): boolean {
  return identity.sub !== null && ev.created_by.type === 'user' && ev.created_by.id === identity.sub;
}

/** Update a comment: its author (and administrators while locking is off); never a log event. */
export function canUpdateComment(identity: Identity, ev: Pick<EventRow, 'created_by' | 'type'>): boolean {
  if (ev.type !== 'C') return false;
  return isAuthor(identity, ev) || isAdmin(identity) || isSystem(identity);
}

/** Delete a comment: its author or the system, not administrators; never a log event. */
export function canDeleteComment(identity: Identity, ev: Pick<EventRow, 'created_by' | 'type'>): boolean {
  if (ev.type !== 'C') return false;
  return isAuthor(identity, ev) || isSystem(identity);
}
