/** JSON of webhooks and deliveries (never a secret, except the one just created or rotated). */
import { isoMicro } from '../delivery/payload.js';
import { webhookId } from '../delivery/worker.js';
import type { DeliveryRow } from '../repo/deliveries.repo.js';
import type { SubscriptionRow } from '../repo/subscriptions.repo.js';

/** A webhook as its owner sees it (`secret` only when given: create, rotate). */
export function serializeWebhook(r: SubscriptionRow, baseUrl: string, secret?: string): Record<string, unknown> {
  const self = `${baseUrl}/api/webhooks/${r.id}`;
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    scope: r.scope === 'community' ? { type: 'community', community_id: r.community_id } : { type: r.scope },
    description: r.description,
    active: r.active,
    disabled_reason: r.disabled_reason,
    consecutive_failures: r.consecutive_failures,
    owner: { user: r.owner_id },
    ...(secret !== undefined ? { secret } : {}),
    revision_id: r.revision_id,
    created: isoMicro(r.created),
    updated: isoMicro(r.updated),
    links: {
      self,
      deliveries: `${self}/deliveries`,
      ping: `${self}/actions/ping`,
      rotate_secret: `${self}/actions/rotate-secret`,
    },
  };
}

/** One delivery of the log. */
export function serializeDelivery(d: DeliveryRow, baseUrl: string): Record<string, unknown> {
  return {
    id: d.id,
    webhook_id: webhookId(d),
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? isoMicro(d.next_attempt_at) : null,
    response_status: d.response_status,
    response_body_prefix: d.response_body_prefix,
    latency_ms: d.latency_ms,
    error: d.error,
    created: isoMicro(d.created),
    updated: isoMicro(d.updated),
    links: { redeliver: `${baseUrl}/api/webhooks/${d.subscription_id}/deliveries/${d.id}/actions/redeliver` },
  };
}
