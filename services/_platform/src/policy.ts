/**
 * Declarative permission policies, InvenioRDM style: each action lists the "needs" that grant it.
 *
 * Use it for every endpoint: `const policy = definePolicy({ create: [authenticatedUser] })`,
 * then `policy.require('create', identity, ctx)`. A generator is a small predicate over the
 * identity and a context object the service supplies (the record, the community, ...).
 * Do not put data loading in generators: the service loads, the policy decides.
 */
import { type Identity, isAdmin, isSystem } from './identity.js';
import { Errors } from './errors.js';

/** A predicate granting an action. */
export type Generator<C = unknown> = (identity: Identity, ctx: C) => boolean;

/** Anyone, including anonymous callers. */
export const anyUser: Generator = () => true;
/** Any authenticated user. */
export const authenticatedUser: Generator = (i) => i.sub !== null;
/** Administrators. */
export const administrator: Generator = (i) => isAdmin(i);
/** The system identity (event consumers, CLIs). */
export const systemProcess: Generator = (i) => isSystem(i);
/** Nobody. */
export const disable: Generator = () => false;
/** The owner, as given by `ownerOf(ctx)`. */
export const owner =
  <C>(ownerOf: (ctx: C) => string | null | undefined): Generator<C> =>
  (i, ctx) =>
    i.sub !== null && ownerOf(ctx) === i.sub;
/** Grant when a condition on the context holds, then defer to `then` (else to `otherwise`). */
export const ifThen =
  <C>(cond: (ctx: C, i: Identity) => boolean, then: Generator<C>[], otherwise: Generator<C>[] = []): Generator<C> =>
  (i, ctx) =>
    (cond(ctx, i) ? then : otherwise).some((g) => g(i, ctx));

/** A policy: action → generators. Superusers (admin, system) are always allowed. */
export interface Policy<A extends string, C> {
  /** True when the identity may perform the action. */
  can(action: A, identity: Identity, ctx?: C): boolean;
  /** Throw 403 `Permission denied.` when it may not. */
  require(action: A, identity: Identity, ctx?: C): void;
}

/** Build a policy from an action map. */
export function definePolicy<A extends string, C = unknown>(actions: Record<A, Generator<C>[]>): Policy<A, C> {
  const can = (action: A, identity: Identity, ctx?: C) => {
    if (isAdmin(identity) || isSystem(identity)) return true;
    const gens = actions[action] ?? [];
    return gens.some((g) => g(identity, ctx as C));
  };
  return {
    can,
    require(action, identity, ctx) {
      if (!can(action, identity, ctx)) throw Errors.permissionDenied();
    },
  };
}
