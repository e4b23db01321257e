/** The request and timeline-event model of the requests service (storage-independent). */

/** Entity reference kinds (InvenioRDM's single-key dicts). */
export const REF_TYPES = ['user', 'community', 'record', 'group', 'email'] as const;
/** One entity reference kind. */
export type RefType = (typeof REF_TYPES)[number];
/** An entity reference as stored: `{type, id}` (rendered `{<type>: <id>}`). */
export interface Ref {
  type: RefType;
  id: string;
}

/** Stored statuses; `accepting` is internal (a saga accept waiting for its effect). */
export const STATUSES = ['created', 'submitted', 'accepting', 'accepted', 'declined', 'cancelled', 'expired', 'deleted'] as const;
/** One stored status. */
export type Status = (typeof STATUSES)[number];
/** Statuses clients can see in lists and facets. */
export const SHOWN_STATUSES = ['created', 'submitted', 'accepted', 'declined', 'cancelled', 'expired'] as const;

/** The action names a type may define. */
export type ActionName = 'submit' | 'accept' | 'decline' | 'cancel' | 'expire';

/** Community roles, as the communities service names them. */
export type CommunityRole = 'owner' | 'manager' | 'curator' | 'reader';

/** A stored request. */
export interface RequestRow {
  id: string;
  number: number;
  type: string;
  status: Status;
  title: string;
  description: string | null;
  payload: Record<string, unknown> | null;
  created_by: Ref;
  receiver: Ref;
  topic: Ref | null;
  expires_at: Date | null;
  is_locked: boolean;
  accept_actor: Ref | null;
  accept_comment: PendingComment | null;
  created: Date;
  updated: Date;
  last_activity_at: Date;
  revision_id: number;
}

/** A comment kept on a request during a saga accept, added once the outcome is known. */
export interface PendingComment {
  content: string;
  format: 'html';
  created_by: Ref;
}

/** A comment or log event of a timeline. */
export interface EventRow {
  id: string;
  request_id: string;
  type: 'C' | 'L';
  created_by: Ref;
  payload: Record<string, unknown>;
  parent_id: string | null;
  created: Date;
  updated: Date;
  revision_id: number;
  seq: number;
}

/** The one-key JSON form of a reference. */
export function refJson(r: Ref): Record<string, string> {
  return { [r.type]: r.id };
}

/** Parse the one-key JSON form; undefined when it is not exactly one known key with a string/number id. */
export function parseRef(v: unknown): Ref | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length !== 1) return undefined;
  const [type, id] = entries[0];
  if (!(REF_TYPES as readonly string[]).includes(type)) return undefined;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const s = String(id);
  if (s === '' || s.length > 512) return undefined;
  return { type: type as RefType, id: s };
}

/** The system as a reference. */
export const SYSTEM_REF: Ref = Object.freeze({ type: 'user', id: 'system' }) as Ref;

/** True when the stored status is open (submitted, or accepting shown as submitted). */
export function isOpenStatus(s: Status): boolean {
  return s === 'submitted' || s === 'accepting';
}

/** True when the status is closed. */
export function isClosedStatus(s: Status): boolean {
  return s === 'accepted' || s === 'declined' || s === 'cancelled' || s === 'expired';
}

/** The status clients see. */
export function shownStatus(s: Status): Status {
  return s === 'accepting' ? 'submitted' : s;
}
