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
 * the effect subjects, expiry, titles, `self_html`, and optional guards / auto-accept rules.
 */
import type { Identity } from '@rdm/platform';
import type { ActionName, CommunityRole, Ref, RefType, RequestRow, Status } from '../model.js';
import type { CommunitySummary } from '../ports.js';
import { ACCESS_TYPES } from './access.types.js';
import { COMMUNITY_TYPES } from './community.types.js';

/** Who may run an action. `admin` = site administrators; `system` = the system identity. */
export type Actor = 'creator' | 'receiver' | 'admin' | 'system';

/** One action of a type. */
export interface ActionDef {
  /** Statuses the action may start from. */
  from: Status[];
  /** Target status (an `accept` of a saga type goes to `accepting` first). */
  to: Status;
  /** Who may run it. */
  who: Actor[];
  /** Name of the log event (type L) it writes; none for submit. */
  log?: string;
}

/** How an accept takes effect. */
export interface AcceptEffect {
  /** `direct`: accepted at once; `saga`: `accepting` until an effect event arrives. */
  mode: 'direct' | 'saga';
  /** Subjects whose event with `data.request_id` confirms the effect. */
  confirm: string[];
  /** Subjects whose event with `data.request_id` reports a failed effect (saga only). */
  fail: string[];
}

/** What guards and auto-accept rules decide with. */
export interface GuardContext {
  /** The caller's user id (null for anonymous / system). */
  userId: string | null;
  request: Pick<RequestRow, 'created_by' | 'receiver' | 'topic' | 'type'>;
  /** The receiving community, when the receiver is one. */
  community?: CommunitySummary;
  /** The caller's role in `community`, if any. */
  role?: CommunityRole;
}

/** Context of titles and links. */
export interface TypeContext {
  /** The community the type's texts and links mention (topic or receiver). */
  community?: CommunitySummary;
  /** True when the caller is the request's creator. */
  callerIsCreator?: boolean;
}

/** The references a request's creator might re-aim with `PUT /api/requests/<id>`. */
export type AimedRef = 'receiver' | 'topic';

/** What a re-authorization of a re-aimed reference decides with. */
export interface ReaimContext {
  identity: Identity;
  request: RequestRow;
  /** The new value (null: a topic removed). */
  next: Ref | null;
}

/**
 * The owning service's re-authorization of a new receiver or topic: resolves when the caller may
 * aim the request there (and the new target is one the effect may act on), throws an AppError to
 * refuse.
 */
export type Reauthorize = (c: ReaimContext) => Promise<void>;

/** One request type. */
export interface RequestType {
  id: string;
  /** Facet label. */
  label: string;
  initialStatus: 'created' | 'submitted';
  /** Accepted reference kinds. */
  refs: { created_by: RefType[]; receiver: RefType[]; topic: RefType[] | null };
  /** Roles that stand for a community creator / receiver. */
  needsContext: { creator: CommunityRole[]; receiver: CommunityRole[] };
  actions: Partial<Record<ActionName, ActionDef>>;
  effect: AcceptEffect;
  /** Days until expiry when created (null: never expires). */
  expiresInDays: number | null;
  /** Delete allowed while `created`. */
  deletable: boolean;
  /** Title when the creator gives none. */
  defaultTitle(ctx: TypeContext, payload: Record<string, unknown> | null): string;
  /** Description when the creator gives none (undefined: no description). */
  defaultDescription?(payload: Record<string, unknown> | null): string | undefined;
  /** `self_html` path (after PUBLIC_BASE_URL). */
  selfHtml(req: Pick<RequestRow, 'id'>, ctx: TypeContext): string;
  /** Which ref names the community of `TypeContext`. */
  contextCommunity: 'receiver' | 'topic' | 'created_by';
  /** Extra permission checks per action; throw an AppError to refuse. */
  guards?: Partial<Record<ActionName, (g: GuardContext) => void>>;
  /** After a submit: accept at once as the system? (`require_review` false is checked by the engine.) */
  autoAcceptOnSubmit?: (g: GuardContext) => boolean;
  /** System comment added when auto-accepted. */
  autoAcceptComment?: string;
  /**
   * References that `PUT /api/requests/<id>` may change while the request is `created`, each with
   * its owning service's re-authorization of the new value. Why opt-in: the effect of an accepted
   * request acts on its topic and receiver (the review saga publishes `topic.record` into
   * `receiver.community`), and both were authorized when the owning service created the request;
   * a change nobody re-authorized would let the creator aim the effect at what they may not touch
   * (issue 18, finding 2). No type declares one: records re-aims a review by creating a new
   * request (`PUT /api/records/<id>/draft/review`). Undeclared: a PUT carrying a different value
   * is a 400 on that field; the same value is accepted (clients echo what they read).
   */
  reaim?: Partial<Record<AimedRef, Reauthorize>>;
}

const REGISTRY = new Map<string, RequestType>([...COMMUNITY_TYPES, ...ACCESS_TYPES].map((t) => [t.id, t]));

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
