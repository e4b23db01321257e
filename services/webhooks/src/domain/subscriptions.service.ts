/**
 * Webhook subscriptions: create (secret shown once), read, list, update, delete, ping,
 * rotate-secret, the delivery log and redelivery. Scopes: `user` (the caller's own records and
 * requests), `community` (owners and managers of that community, asked of the communities service
 * now and again at every delivery), `all` (administrators).
 *
 * When to use: the HTTP routes call one method each with the caller's identity.
 */
import { randomUUID } from 'node:crypto';
import { AppError, Errors, type FieldError, type Identity, isAdmin, type Knex, type ListArgs } from '@rdm/platform';
import * as deliveries from '../repo/deliveries.repo.js';
import * as repo from '../repo/subscriptions.repo.js';
import type { SubscriptionRow } from '../repo/subscriptions.repo.js';
import { ADMIN_ONLY_TYPES, WEBHOOK_EVENT_TYPES } from './events.js';
import { type CommunityRolesPort, MANAGING_ROLES } from './ports.js';
import { newSecret, type SecretBox } from './secrets.js';
import { checkTargetUrl, type TargetRules } from './target.js';

/** Dependencies of the service. */
export interface SubscriptionsDeps {
  db: Knex;
  box: SecretBox;
  communities: CommunityRolesPort;
  target: TargetRules;
  /** Seconds the previous secret still signs after a rotation. */
  rotationOverlapS: number;
  /** Called after a ping or redelivery was committed (wakes the worker). */
  onDue?: () => void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const notFound = () => Errors.notFound('The webhook does not exist.', 'webhook_not_found');
const KNOWN = new Set<string>(WEBHOOK_EVENT_TYPES);
const FIELDS = new Set(['url', 'events', 'scope', 'description', 'active']);

/** Parsed create/update input. */
interface Input {
  url?: string;
  events?: string[];
  scope?: { type: 'user' | 'community' | 'all'; community_id?: string };
  description?: string;
  active?: boolean;
}

function parseInput(body: unknown, creating: boolean): { input: Input; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const err = (field: string, m: string) => errors.push({ field, messages: [m] });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { input: {}, errors: [{ field: '_schema', messages: ['Invalid input type.'] }] };
  }
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!FIELDS.has(k)) err(k, 'Unknown field.');
  const input: Input = {};
  if (b.url !== undefined) input.url = b.url as string;
  else if (creating) err('url', 'Missing data for required field.');
  if (b.events !== undefined) {
    if (!Array.isArray(b.events) || b.events.length === 0) err('events', 'Must be a non-empty list of event types.');
    else {
      const bad = b.events.filter((e) => typeof e !== 'string' || !KNOWN.has(e));
      if (bad.length) err('events', `Unknown event types: ${bad.map(String).join(', ')}.`);
      else input.events = [...new Set(b.events as string[])];
    }
  } else if (creating) err('events', 'Missing data for required field.');
  if (b.scope !== undefined) {
    if (!creating) err('scope', 'The scope of a webhook cannot change; create another one.');
    const s = b.scope as Record<string, unknown>;
    // Why refuse other keys: a `user` scope is always the caller's own records; a `user_id` naming
    // someone else must not quietly become a subscription to one's own.
    const extra =
      typeof s === 'object' && s !== null
        ? Object.keys(s).filter((k) => k !== 'type' && !(k === 'community_id' && s.type === 'community'))
        : [];
    if (typeof s !== 'object' || s === null || !['user', 'community', 'all'].includes(s.type as string)) {
      err('scope', 'Must be {"type": "user"}, {"type": "community", "community_id": <uuid>} or {"type": "all"}.');
    } else if (extra.length > 0) {
      for (const k of extra)
        err(`scope.${k}`, s.type === 'user' ? 'Unknown field: a user scope is always your own records.' : 'Unknown field.');
    } else if (s.type === 'community' && (typeof s.community_id !== 'string' || !UUID.test(s.community_id))) {
      err('scope.community_id', 'Must be a community id (UUID).');
    } else {
      input.scope = { type: s.type as 'user', community_id: s.type === 'community' ? (s.community_id as string).toLowerCase() : undefined };
    }
  }
  if (b.description !== undefined) {
    if (typeof b.description !== 'string' || b.description.length > 1000)
      err('description', 'Must be a string of at most 1000 characters.');
    else input.description = b.description;
  }
  if (b.active !== undefined) {
    if (typeof b.active !== 'boolean') err('active', 'Not a valid boolean.');
    else input.active = b.active;
  }
  return { input, errors };
}

/** The subscriptions domain service. */
export class SubscriptionsService {
  constructor(private readonly d: SubscriptionsDeps) {}

  private requireUser(identity: Identity): string {
    if (identity.sub === null) throw Errors.permissionDenied();
    return identity.sub;
  }

  /** A subscription the caller may manage (its owner or an administrator), else 404. */
  async get(identity: Identity, id: string): Promise<SubscriptionRow> {
    const sub = this.requireUser(identity);
    if (!UUID.test(id)) throw notFound();
    const row = await repo.getSubscription(this.d.db, id);
    if (!row || (row.owner_id !== sub && !isAdmin(identity))) throw notFound();
    return row;
  }

  /** Whether `userId` owns or manages `communityId` now (communities service). */
  async managesCommunity(userId: string, communityId: string): Promise<boolean> {
    const roles = await this.d.communities.roles(userId, [communityId]);
    return (MANAGING_ROLES as readonly string[]).includes(roles[communityId] ?? '');
  }

  /** Create a subscription; the clear secret is returned once. */
  async create(identity: Identity, body: unknown): Promise<{ row: SubscriptionRow; secret: string }> {
    const sub = this.requireUser(identity);
    const { input, errors } = parseInput(body, true);
    if (input.url !== undefined) errors.push(...(await checkTargetUrl(input.url, this.d.target)));
    if (errors.length) throw Errors.validation(errors);
    const scope = input.scope ?? { type: 'user' as const };
    if (scope.type === 'all' && !isAdmin(identity)) throw Errors.permissionDenied('Only administrators may subscribe to every event.');
    if (scope.type === 'community' && !(await this.managesCommunity(sub, scope.community_id as string))) {
      throw Errors.permissionDenied('Only owners and managers of the community may subscribe to its events.');
    }
    if (scope.type !== 'all') {
      const adminOnly = (input.events ?? []).filter((e) => ADMIN_ONLY_TYPES.includes(e as never));
      if (adminOnly.length)
        throw Errors.validation([
          { field: 'events', messages: [`Only a subscription to every event ("all") may receive: ${adminOnly.join(', ')}.`] },
        ]);
    }
    const secret = newSecret();
    const row = await repo.insertSubscription(this.d.db, {
      id: randomUUID(),
      owner_id: sub,
      owner_roles: scope.type === 'all' ? ['admin'] : [],
      scope: scope.type,
      community_id: scope.community_id ?? null,
      url: input.url as string,
      events: input.events as string[],
      description: input.description ?? '',
      active: input.active ?? true,
      secret_enc: this.d.box.seal(secret),
    });
    return { row, secret };
  }

  /** The caller's subscriptions (administrators: everyone's with `all`). */
  async list(identity: Identity, args: ListArgs, everyone: boolean) {
    const sub = this.requireUser(identity);
    if (everyone && !isAdmin(identity)) throw Errors.permissionDenied();
    return repo.listSubscriptions(this.d.db, everyone ? null : sub, args);
  }

  /** Update url, events, description or active (re-activating clears the failure run). */
  async update(identity: Identity, id: string, body: unknown): Promise<SubscriptionRow> {
    const row = await this.get(identity, id);
    const { input, errors } = parseInput(body, false);
    if (input.url !== undefined) errors.push(...(await checkTargetUrl(input.url, this.d.target)));
    if (input.events && row.scope !== 'all') {
      const adminOnly = input.events.filter((e) => ADMIN_ONLY_TYPES.includes(e as never));
      if (adminOnly.length)
        errors.push({ field: 'events', messages: [`Only a subscription to every event ("all") may receive: ${adminOnly.join(', ')}.`] });
    }
    if (errors.length) throw Errors.validation(errors);
    const patch: Partial<SubscriptionRow> = {};
    if (input.url !== undefined) patch.url = input.url;
    if (input.events !== undefined) patch.events = input.events;
    if (input.description !== undefined) patch.description = input.description;
    if (input.active !== undefined) {
      patch.active = input.active;
      if (input.active) Object.assign(patch, { consecutive_failures: 0, disabled_reason: null });
    }
    return (await repo.updateSubscription(this.d.db, row.id, patch)) ?? row;
  }

  /** Delete a subscription and its delivery log. */
  async delete(identity: Identity, id: string): Promise<void> {
    const row = await this.get(identity, id);
    await repo.deleteSubscription(this.d.db, row.id);
  }

  /** A new secret; the previous one keeps signing (second signature) for the overlap window. */
  async rotateSecret(identity: Identity, id: string): Promise<{ row: SubscriptionRow; secret: string }> {
    const row = await this.get(identity, id);
    const secret = newSecret();
    const until = new Date(Date.now() + this.d.rotationOverlapS * 1000);
    const updated = await repo.updateSubscription(this.d.db, row.id, {
      secret_enc: this.d.box.seal(secret),
      previous_secret_enc: this.d.rotationOverlapS > 0 ? row.secret_enc : null,
      previous_secret_until: this.d.rotationOverlapS > 0 ? until : null,
    });
    return { row: updated ?? row, secret };
  }

  /** Queue a `webhook.ping` delivery now (also to an inactive subscription's target? no: 400). */
  async ping(identity: Identity, id: string): Promise<deliveries.DeliveryRow> {
    const row = await this.get(identity, id);
    if (!row.active) throw new AppError('webhook_inactive', 400, 'The webhook is not active.');
    const eventId = `ping_${randomUUID()}`;
    await deliveries.insertDeliveries(this.d.db, [row.id], {
      event_id: eventId,
      event_type: 'webhook.ping',
      occurred_at: new Date().toISOString(),
      data: { webhook_id: row.id },
    });
    const d = (await this.d.db('deliveries').where({ subscription_id: row.id, event_id: eventId }).first()) as deliveries.DeliveryRow;
    this.d.onDue?.();
    return d;
  }

  /** One page of the delivery log. */
  async deliveries(identity: Identity, id: string, args: ListArgs) {
    const row = await this.get(identity, id);
    return deliveries.listDeliveries(this.d.db, row.id, args);
  }

  /** Deliver a finished delivery again (same `webhook-id`). */
  async redeliver(identity: Identity, id: string, deliveryId: string): Promise<deliveries.DeliveryRow> {
    const row = await this.get(identity, id);
    if (!UUID.test(deliveryId)) throw Errors.notFound('The delivery does not exist.', 'delivery_not_found');
    const existing = await deliveries.getDelivery(this.d.db, row.id, deliveryId);
    if (!existing) throw Errors.notFound('The delivery does not exist.', 'delivery_not_found');
    const again = await deliveries.redeliver(this.d.db, row.id, deliveryId);
    if (!again) throw Errors.conflict('The delivery is still in progress.');
    this.d.onDue?.();
    return again;
  }
}
