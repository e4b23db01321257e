/**
 * The shape of a request type (`RequestType`) and what its rules decide with: the definitions
 * `registry.ts` collects and the type files (`community.types.ts`, `access.types.ts`) fill in.
 * Kept apart from the registry so that a type file imports only these declarations, never the
 * registry that imports it (no import cycle). Use it for the types; `registry.ts` for the table.
 */
import type { Identity } from '@rdm/platform';
import type { ActionName, CommunityRole, Ref, RefType, RequestRow, Status } from '../model.js';
import type { CommunitySummary } from '../ports.js';

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
