/**
 * The request type registry: every request type as DATA. The action engine
 * (`actions.service.ts`), the permission rules (`policy.ts`), links and the effect waiter read
 * only this table; adding a type is adding an entry here (and, in the service that owns its
 * effect, a consumer of `rdm.requests.request.accepted`), never a branch elsewhere.
 *
 * Per type: its initial status, its actions (from which statuses, to which, who may run them,
 * which log event they write), which community roles stand for a community creator/receiver
 * (InvenioRDM's `needs_context`), whether an accept is `direct` (accepted at once) or a `saga`
 * (status `accepting`, shown `submitted`, until the owner's effect event confirms or fails it),
 * the effect subjects, expiry, titles, `self_html`, and optional guards / auto-accept rules
 * (the shape: `request-type.ts`).
 */
import type { Ref } from '../model.js';
import { ACCESS_TYPES } from './access.types.js';
import { COMMUNITY_TYPES } from './community.types.js';
import { RECORD_TYPES } from './record.types.js';
import type { RequestType } from './request-type.js';

const REGISTRY = new Map<string, RequestType>([...COMMUNITY_TYPES, ...ACCESS_TYPES, ...RECORD_TYPES].map((t) => [t.id, t]));

/** The type `id`, or undefined. */
export function requestType(id: string): RequestType | undefined {
  return REGISTRY.get(id);
}

/** Every registered type. */
export function requestTypes(): RequestType[] {
  return [...REGISTRY.values()];
}

/** Facet label of a type id (the id itself for unknown types). */
export function typeLabel(id: string): string {
  return REGISTRY.get(id)?.label ?? id;
}

/** The community id a type's texts and links refer to, if any. */
export function contextCommunityId(t: RequestType, req: { created_by: Ref; receiver: Ref; topic: Ref | null }): string | undefined {
  const ref = t.contextCommunity === 'topic' ? req.topic : t.contextCommunity === 'created_by' ? req.created_by : req.receiver;
  return ref?.type === 'community' ? ref.id : undefined;
}

/** Effect subjects of every saga and direct type (the waiter subscribes to all of them). */
export function effectSubjects(): string[] {
  const s = new Set<string>();
  for (const t of REGISTRY.values()) for (const x of [...t.effect.confirm, ...t.effect.fail]) s.add(x);
  return [...s].sort();
}
