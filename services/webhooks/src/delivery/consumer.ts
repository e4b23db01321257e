/**
 * Durable consumers of the RECORDS, REQUESTS, COMMUNITIES and FILES streams (one each, a
 * wildcard filter, inbox-deduplicated by the platform's runConsumer): each event updates the
 * record-parents projection when it is about a record, is mapped to its webhook event
 * (domain/events.ts) and becomes one delivery row per matching active subscription — in the
 * transaction of the inbox row, so a redelivered event adds nothing. Each consumer handles up to
 * `concurrency` (WEBHOOKS_CONSUMER_CONCURRENCY) events at once, those about one record parent (the
 * projection's row and the order a subscriber sees a record's events in: draft, publication, new
 * version, deletion) one after another, others by their aggregate (`orderKeyOf`). Few statements per
 * event: the projection's upsert reads the parent back, and matching and inserting the deliveries
 * is one INSERT … SELECT. Events no subscription can
 * want are skipped without a transaction. The HTTP attempts happen in the worker, never here: a
 * slow receiver never holds the stream.
 *
 * When to use: started by main.ts; tests start it against real NATS and PostgreSQL.
 */
import { type ConsumerHandle, type EventEnvelope, type Knex, type Logger, type NatsHandle, runConsumer } from '@rdm/platform';
import { ADMIN_ONLY_TYPES, toWebhookEvent } from '../domain/events.js';
import { insertMatchingDeliveries } from '../repo/deliveries.repo.js';
import { noteParentCommunities, noteParentOwner, notePublished, type ParentState, parentOf } from '../repo/subscriptions.repo.js';

/** Record events the consumer looks at (others, e.g. search-doc changes, are skipped). */
const RECORD_SUBJECTS = new Set([
  'rdm.records.draft.created',
  'rdm.records.record.published',
  'rdm.records.record.deleted',
  'rdm.records.record.restored',
  'rdm.records.inclusion.added',
  'rdm.records.inclusion.removed',
]);
const REQUEST_SUBJECTS = new Set(['submitted', 'accepted', 'declined', 'cancelled', 'expired'].map((v) => `rdm.requests.request.${v}`));
const COMMUNITY_SUBJECTS = new Set(['rdm.communities.member.added', 'rdm.communities.member.removed']);

/** Turn one event into deliveries (inside the inbox transaction); returns how many were added. */
export async function handleEvent(trx: Knex.Transaction, e: EventEnvelope, baseUrl: string): Promise<number> {
  const subject = e.type;
  const d = e.data as Record<string, any>;
  let firstSeen = true;
  // The parent as the projection knows it after this event (read back by the statement that notes it).
  let parent: ParentState | undefined;
  if (subject === 'rdm.records.draft.created') parent = await noteParentOwner(trx, d.parent_id, d.owner ?? null);
  else if (subject === 'rdm.records.record.published') {
    const noted = await notePublished(trx, d.parent_id, d.id, Array.isArray(d.communities) ? d.communities : undefined);
    firstSeen = noted.firstSeen;
    parent = noted;
  } else if (subject === 'rdm.records.inclusion.added') await noteParentCommunities(trx, d.parent_id, { add: d.community_id });
  else if (subject === 'rdm.records.inclusion.removed') await noteParentCommunities(trx, d.parent_id, { remove: d.community_id });
  const w = toWebhookEvent(subject, e, baseUrl, firstSeen);
  if (!w) return 0;
  const users = [...w.users];
  const communities = [...w.communities];
  if (w.parentId) {
    const p = parent ?? (await parentOf(trx, w.parentId));
    if (p.owner_id) users.push(p.owner_id);
    communities.push(...p.communities);
  }
  return insertMatchingDeliveries(
    trx,
    { type: w.type, users, communities, adminOnly: ADMIN_ONLY_TYPES.includes(w.type) },
    { event_id: e.id, occurred_at: e.occurred_at, data: w.data },
  );
}

/** Order key of an event: its record parent when it has one (every record event), else its aggregate. */
export function orderKeyOf(e: { data: object; aggregate: { type: string; id: string } }): string {
  const parent = (e.data as { parent_id?: unknown }).parent_id;
  return typeof parent === 'string' && parent ? `parent:${parent}` : `${e.aggregate.type}:${e.aggregate.id}`;
}

/** Start the four consumers; `onDeliveries` is called (shortly after commit) when an event added some. */
export function startWebhookConsumers(o: {
  db: Knex;
  nats: NatsHandle;
  logger: Logger;
  baseUrl: string;
  /** Events handled at once per consumer (default 1: in stream order). */
  concurrency?: number;
  onDeliveries?: () => void;
}): ConsumerHandle[] {
  const common = {
    db: o.db,
    js: o.nats.js,
    jsm: o.nats.jsm,
    logger: o.logger,
    service: 'webhooks',
    concurrency: o.concurrency ?? 1,
    orderKey: orderKeyOf,
  };
  const handler = async (trx: Knex.Transaction, e: EventEnvelope<object>) => {
    const n = await handleEvent(trx, e as EventEnvelope, o.baseUrl);
    // Why a delay: the inbox transaction commits after the handler returns; the poll catches a miss.
    if (n > 0 && o.onDeliveries)
      trx.executionPromise.then(
        () => o.onDeliveries?.(),
        () => undefined,
      );
  };
  const only = (set: Set<string>) => (e: { type: string }) => !set.has(e.type);
  return [
    runConsumer({
      ...common,
      stream: 'RECORDS',
      durable: 'webhooks-records',
      filterSubject: 'rdm.records.>',
      skip: only(RECORD_SUBJECTS),
      handler,
    }),
    runConsumer({
      ...common,
      stream: 'REQUESTS',
      durable: 'webhooks-requests',
      filterSubject: 'rdm.requests.>',
      skip: only(REQUEST_SUBJECTS),
      handler,
    }),
    runConsumer({
      ...common,
      stream: 'COMMUNITIES',
      durable: 'webhooks-communities',
      filterSubject: 'rdm.communities.>',
      skip: only(COMMUNITY_SUBJECTS),
      handler,
    }),
    runConsumer({ ...common, stream: 'FILES', durable: 'webhooks-files', filterSubject: 'rdm.files.>', handler }),
  ];
}
