/**
 * The webhook event types and how each domain event of the streams becomes one: its type, who it
 * concerns (the record parent's owner and communities, a request's parties, a community) and the
 * payload `data` every matching subscriber may read (ids and links only; a record's metadata is
 * added per subscriber at delivery time, domain/payload.ts).
 *
 * When to use: the stream consumers (delivery/consumer.ts) call `toWebhookEvent` for each event;
 * the API validates `events` against `WEBHOOK_EVENT_TYPES`. README.md documents each payload.
 */
import type { EventEnvelope } from '@rdm/platform';

/** Every event type a subscription may ask for. */
export const WEBHOOK_EVENT_TYPES = [
  'record.published',
  'record.new_version',
  'record.deleted',
  'record.restored',
  'draft.created',
  'request.submitted',
  'request.accepted',
  'request.declined',
  'request.cancelled',
  'request.expired',
  'community.member.added',
  'community.member.removed',
  'file.committed',
] as const;

/** One webhook event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Event types only administrators (scope `all`) receive: nothing in them says whose they are. */
export const ADMIN_ONLY_TYPES: readonly WebhookEventType[] = ['file.committed'];

/** A domain event, mapped: type, whom it concerns, and the payload data safe for every matching subscriber. */
export interface WebhookEvent {
  type: WebhookEventType;
  /** Users whose "own" subscriptions match (scope `user`). */
  users: string[];
  /** Communities whose subscriptions match (scope `community`). */
  communities: string[];
  /** Record parent whose owner/communities (projection) also match, when a record event. */
  parentId?: string;
  /** Record to read as the subscriber to decide whether its metadata may go along. */
  recordId?: string;
  data: Record<string, unknown>;
}

type Ref = { user?: string; community?: string; record?: string; email?: string; group?: string } | null | undefined;
const REQUEST_VERBS = new Set(['submitted', 'accepted', 'declined', 'cancelled', 'expired']);
const defined = (xs: (string | undefined | null)[]) => [...new Set(xs.filter((x): x is string => typeof x === 'string' && x !== ''))];
/** Only the kind and id of a reference (an e-mail address stays out of payloads). */
const refOut = (r: Ref) => {
  if (!r) return null;
  const [k, v] = Object.entries(r).find(([key]) => key !== 'email') ?? [];
  return k ? { [k]: v } : null;
};

/**
 * Map one domain event to its webhook event; null when no subscription can want it. `firstSeen`
 * tells whether a `record.published` is the first publication of that record id (a new version
 * when its index is above 1, else a publication; a re-publication after an edit is a publication).
 */
export function toWebhookEvent(subject: string, e: EventEnvelope, baseUrl: string, firstSeen = true): WebhookEvent | null {
  const d = e.data as Record<string, any>;
  const recordLinks = (id: string) => ({ self: `${baseUrl}/api/records/${id}`, self_html: `${baseUrl}/records/${id}` });
  switch (subject) {
    case 'rdm.records.record.published': {
      const type = firstSeen && Number(d.index) > 1 ? 'record.new_version' : 'record.published';
      return {
        type,
        users: [],
        communities: defined(d.communities ?? []),
        parentId: d.parent_id,
        recordId: d.id,
        data: { id: d.id, parent_id: d.parent_id, index: d.index, is_latest: d.is_latest, links: recordLinks(d.id) },
      };
    }
    case 'rdm.records.record.deleted':
      return {
        type: 'record.deleted',
        users: [],
        communities: [],
        parentId: d.parent_id,
        data: { id: d.id, parent_id: d.parent_id, links: recordLinks(d.id) },
      };
    case 'rdm.records.record.restored':
      return {
        type: 'record.restored',
        users: [],
        communities: [],
        parentId: d.parent_id,
        recordId: d.id,
        data: { id: d.id, parent_id: d.parent_id, links: recordLinks(d.id) },
      };
    case 'rdm.records.draft.created':
      return {
        type: 'draft.created',
        users: defined([d.owner]),
        communities: [],
        data: { id: d.id, parent_id: d.parent_id, links: { self: `${baseUrl}/api/records/${d.id}/draft` } },
      };
    case 'rdm.communities.member.added':
    case 'rdm.communities.member.removed':
      return {
        type: subject.endsWith('added') ? 'community.member.added' : 'community.member.removed',
        users: [],
        communities: defined([d.community_id]),
        data: {
          community_id: d.community_id,
          member: { type: d.member_type, id: d.member_id },
          role: d.role,
          links: { members: `${baseUrl}/api/communities/${d.community_id}/members` },
        },
      };
    case 'rdm.files.file.committed':
      return {
        type: 'file.committed',
        users: [],
        communities: [],
        data: { bucket_id: d.bucket_id, key: d.key, size: d.size, checksum: d.checksum },
      };
    default: {
      const m = /^rdm\.requests\.request\.([a-z]+)$/.exec(subject);
      if (!m || !REQUEST_VERBS.has(m[1] as string)) return null;
      const refs = [d.created_by, d.receiver, d.topic] as Ref[];
      return {
        type: `request.${m[1]}` as WebhookEventType,
        users: defined(refs.slice(0, 2).map((r) => r?.user)),
        communities: defined(refs.map((r) => r?.community)),
        data: {
          id: d.id,
          number: d.number,
          type: d.type,
          status: m[1],
          created_by: refOut(d.created_by),
          receiver: refOut(d.receiver),
          topic: refOut(d.topic),
          links: { self: `${baseUrl}/api/requests/${d.id}` },
        },
      };
    }
  }
}
