/**
 * The body of one delivery for one subscriber, built at its first attempt and kept (retries send
 * the same bytes): `{type, timestamp, data}`, `data` the ids and links of the event plus, for a
 * record event, the record as the subscriber reads it through records' own read route (`record`,
 * absent when the subscriber may not read it). Every subscription is re-authorised here: an owner
 * no longer active, an `all` subscription whose owner is no longer an administrator, a community
 * subscription whose owner no longer manages the community get nothing (`skip`).
 *
 * When to use: the delivery worker, before signing.
 */
import type { Identity } from '@rdm/platform';
import type { CommunityRolesPort, RecordReaderPort, UserNow } from '../domain/ports.js';
import { MANAGING_ROLES } from '../domain/ports.js';
import type { DeliveryRow } from '../repo/deliveries.repo.js';
import type { SubscriptionRow } from '../repo/subscriptions.repo.js';

/** Record events whose payload may carry the record. */
const WITH_RECORD = new Set(['record.published', 'record.new_version', 'record.restored']);

/** Body to send, or the reason the subscriber must not get this event. */
export type BuiltBody = { body: string } | { skip: string };

/** `2024-05-01T10:11:12.123000+00:00`. */
export function isoMicro(d: Date | string): string {
  return new Date(d).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

/** What building a body reads: the owner now, their community roles, a record as an identity. */
export interface BodyPorts {
  owner(userId: string): Promise<UserNow | null>;
  communities: CommunityRolesPort;
  records: RecordReaderPort;
}

/** Build the body of `d` for `sub`. */
export async function buildBody(sub: SubscriptionRow, d: DeliveryRow, ports: BodyPorts): Promise<BuiltBody> {
  // The owner as they are now, not as they were when they subscribed: a deactivated user gets
  // nothing, an administrator no longer one loses `all`, and records are read with today's roles.
  const owner = await ports.owner(sub.owner_id);
  if (!owner?.active) return { skip: 'The owner of the webhook is no longer an active user.' };
  if (sub.scope === 'all' && !owner.roles.includes('admin')) {
    return { skip: 'The owner of the webhook is no longer an administrator.' };
  }
  if (sub.scope === 'community' && d.event_type !== 'webhook.ping') {
    const roles = await ports.communities.roles(sub.owner_id, [sub.community_id as string]);
    if (!(MANAGING_ROLES as readonly string[]).includes(roles[sub.community_id as string] ?? '')) {
      return { skip: 'The owner of the webhook no longer manages the community.' };
    }
  }
  const data: Record<string, unknown> = { ...d.data };
  if (WITH_RECORD.has(d.event_type) && typeof data.id === 'string') {
    const identity: Identity = { sub: sub.owner_id, roles: owner.roles };
    const record = await ports.records.read(identity, data.id);
    if (record) data.record = record;
  }
  return { body: JSON.stringify({ type: d.event_type, timestamp: isoMicro(d.occurred_at), data }) };
}
