/**
 * SQL of the `deliveries` table: inserting the deliveries of an event (idempotent per
 * subscription and event), claiming due ones with `FOR UPDATE SKIP LOCKED` and a lease, recording
 * an attempt's outcome, the delivery log and redelivery.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from '@rdm/platform';
import { newestFirstPage } from './page.js';

/** One delivery row. */
export interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  occurred_at: Date;
  data: Record<string, unknown>;
  body: string | null;
  status: 'pending' | 'delivering' | 'succeeded' | 'failed' | 'skipped';
  attempts: number;
  next_attempt_at: Date;
  first_attempt_at: Date | null;
  lease_until: Date | null;
  response_status: number | null;
  response_body_prefix: string | null;
  latency_ms: number | null;
  error: string | null;
  created: Date;
  updated: Date;
}

type Db = Knex | Knex.Transaction;

/** Insert one delivery per subscription for an event; an event already recorded adds nothing. */
export async function insertDeliveries(
  db: Db,
  subscriptionIds: string[],
  e: { event_id: string; event_type: string; occurred_at: string; data: Record<string, unknown> },
): Promise<number> {
  if (subscriptionIds.length === 0) return 0;
  const rows = subscriptionIds.map((subscription_id) => ({ id: randomUUID(), subscription_id, ...e, data: JSON.stringify(e.data) }));
  const r = await db('deliveries').insert(rows).onConflict(['subscription_id', 'event_id']).ignore().returning('id');
  return r.length;
}

/**
 * One delivery for each active subscription wanting `type` of these users / communities (plus
 * every `all` one; only those when `adminOnly`), matched and inserted in one statement (a fan-out
 * to thousands of subscriptions never ships their ids back and forth); an event already recorded
 * adds nothing. Returns how many were added.
 */
export async function insertMatchingDeliveries(
  db: Db,
  m: { type: string; users: string[]; communities: string[]; adminOnly: boolean },
  e: { event_id: string; occurred_at: string; data: Record<string, unknown> },
): Promise<number> {
  const r = await db.raw(
    `INSERT INTO deliveries (id, subscription_id, event_id, event_type, occurred_at, data)
     SELECT gen_random_uuid(), id, ?, ?, ?, ?::jsonb FROM subscriptions
      WHERE active AND events @> ARRAY[?]::text[]
        AND (scope = 'all'
             OR (NOT ? AND scope = 'user' AND owner_id = ANY(?::text[]))
             OR (NOT ? AND scope = 'community' AND community_id::text = ANY(?::text[])))
     ON CONFLICT (subscription_id, event_id) DO NOTHING
     RETURNING id`,
    [e.event_id, m.type, e.occurred_at, JSON.stringify(e.data), m.type, m.adminOnly, m.users, m.adminOnly, m.communities],
  );
  return r.rows.length;
}

/**
 * Claim up to `limit` due deliveries of active subscriptions, at most `perSubscription` of each
 * and none of `busy` subscriptions: status `delivering`, `lease_until` = now + lease, attempts + 1.
 */
export async function claimDue(
  db: Knex,
  o: { limit: number; perSubscription: number; busy: string[]; leaseMs: number },
): Promise<DeliveryRow[]> {
  if (o.limit <= 0) return [];
  const r = await db.raw(
    `WITH due AS (
       SELECT id FROM (
         SELECT d.id, d.next_attempt_at, row_number() OVER (PARTITION BY d.subscription_id ORDER BY d.next_attempt_at) AS rn
           FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id
          WHERE s.active AND d.next_attempt_at <= now()
            AND (d.status = 'pending' OR (d.status = 'delivering' AND d.lease_until < now()))
            AND NOT (d.subscription_id = ANY(?::uuid[]))
          ORDER BY d.next_attempt_at
          LIMIT ?
       ) ranked WHERE rn <= ? ORDER BY next_attempt_at LIMIT ?
     ), locked AS (
       SELECT id FROM deliveries WHERE id IN (SELECT id FROM due)
          AND (status = 'pending' OR (status = 'delivering' AND lease_until < now()))
        FOR UPDATE SKIP LOCKED
     )
     UPDATE deliveries d SET status = 'delivering', attempts = attempts + 1,
            lease_until = now() + (? * interval '1 millisecond'),
            first_attempt_at = COALESCE(first_attempt_at, now()), updated = now()
       FROM locked WHERE d.id = locked.id
     RETURNING d.*`,
    // Why the limit inside: every row the UPDATE claims must be attempted; one claimed beyond it
    // would sit in `delivering` until its lease expired (WEBHOOKS_LEASE_MS late).
    [o.busy, o.limit * 4, o.perSubscription, o.limit, o.leaseMs],
  );
  return r.rows as DeliveryRow[];
}

/** Keep the body a delivery signs (built once, at its first attempt). */
export async function setBody(db: Db, id: string, body: string): Promise<void> {
  await db('deliveries').where({ id }).update({ body });
}

/** Outcome of one attempt. */
export interface AttemptOutcome {
  status: 'succeeded' | 'pending' | 'failed' | 'skipped';
  nextAttemptAt?: Date;
  responseStatus: number | null;
  responsePrefix: string | null;
  latencyMs: number | null;
  error: string | null;
}

/** Record an attempt's outcome (only while this claim still holds the row). */
export async function recordAttempt(db: Db, id: string, attempts: number, o: AttemptOutcome): Promise<boolean> {
  const n = await db('deliveries')
    .where({ id, attempts, status: 'delivering' })
    .update({
      status: o.status,
      next_attempt_at: o.nextAttemptAt ?? db.fn.now(),
      lease_until: null,
      response_status: o.responseStatus,
      response_body_prefix: o.responsePrefix,
      latency_ms: o.latencyMs,
      error: o.error,
      updated: db.fn.now(),
    });
  return n > 0;
}

/** One page of a subscription's deliveries, newest first. */
export async function listDeliveries(
  db: Db,
  subscriptionId: string,
  page: { from: number; size: number },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const q = db('deliveries').where({ subscription_id: subscriptionId });
  return newestFirstPage<DeliveryRow>(q, page);
}

/** A delivery of a subscription. */
export async function getDelivery(db: Db, subscriptionId: string, id: string): Promise<DeliveryRow | undefined> {
  return db('deliveries').where({ subscription_id: subscriptionId, id }).first();
}

/** Make a finished delivery due again now (same id, so the same `webhook-id`); its retry period restarts. */
export async function redeliver(db: Db, subscriptionId: string, id: string): Promise<DeliveryRow | undefined> {
  const [r] = await db('deliveries')
    .where({ subscription_id: subscriptionId, id })
    .whereIn('status', ['succeeded', 'failed', 'skipped'])
    .update({ status: 'pending', next_attempt_at: db.fn.now(), first_attempt_at: null, lease_until: null, updated: db.fn.now() })
    .returning('*');
  return r;
}

/** Count a failed attempt on a subscription; returns the new run length. */
export async function countFailure(db: Db, subscriptionId: string): Promise<number> {
  const r = await db.raw(
    'UPDATE subscriptions SET consecutive_failures = consecutive_failures + 1 WHERE id = ? RETURNING consecutive_failures',
    [subscriptionId],
  );
  return r.rows[0]?.consecutive_failures ?? 0;
}

/** Reset the failure run after a success. */
export async function resetFailures(db: Db, subscriptionId: string): Promise<void> {
  await db('subscriptions').where({ id: subscriptionId }).where('consecutive_failures', '>', 0).update({ consecutive_failures: 0 });
}
