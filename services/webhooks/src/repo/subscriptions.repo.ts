/** SQL of the `subscriptions` table and the `record_parents` projection; takes Knex or a transaction. */
import type { Knex } from '@rdm/platform';
import { newestFirstPage } from './page.js';

/** One subscription row. */
export interface SubscriptionRow {
  id: string;
  owner_id: string;
  owner_roles: string[];
  scope: 'user' | 'community' | 'all';
  community_id: string | null;
  url: string;
  events: string[];
  description: string;
  active: boolean;
  disabled_reason: string | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_until: Date | null;
  consecutive_failures: number;
  revision_id: number;
  created: Date;
  updated: Date;
}

type Db = Knex | Knex.Transaction;

/** Insert a subscription. */
export async function insertSubscription(
  db: Db,
  row: Omit<
    SubscriptionRow,
    'created' | 'updated' | 'revision_id' | 'consecutive_failures' | 'disabled_reason' | 'previous_secret_enc' | 'previous_secret_until'
  >,
): Promise<SubscriptionRow> {
  const [r] = await db('subscriptions').insert(row).returning('*');
  return r as SubscriptionRow;
}

/** A subscription by id (undefined when unknown). */
export async function getSubscription(db: Db, id: string): Promise<SubscriptionRow | undefined> {
  return db('subscriptions').where({ id }).first();
}

/** Subscriptions by id (deleted ones absent). */
export async function getSubscriptions(db: Db, ids: string[]): Promise<Map<string, SubscriptionRow>> {
  const rows: SubscriptionRow[] = ids.length ? await db('subscriptions').whereIn('id', ids) : [];
  return new Map(rows.map((r) => [r.id, r]));
}

/** Subscriptions of an owner (all of them with `owner` null), newest first, one page. */
export async function listSubscriptions(
  db: Db,
  owner: string | null,
  page: { from: number; size: number },
): Promise<{ rows: SubscriptionRow[]; total: number }> {
  const q = db('subscriptions').modify((b) => {
    if (owner !== null) b.where({ owner_id: owner });
  });
  return newestFirstPage<SubscriptionRow>(q, page);
}

/** Update columns of a subscription, bumping revision and `updated`. */
export async function updateSubscription(db: Db, id: string, patch: Partial<SubscriptionRow>): Promise<SubscriptionRow | undefined> {
  const [r] = await db('subscriptions')
    .where({ id })
    .update({ ...patch, updated: db.fn.now(), revision_id: db.raw('revision_id + 1') })
    .returning('*');
  return r;
}

/** Delete a subscription (its deliveries go with it). */
export async function deleteSubscription(db: Db, id: string): Promise<boolean> {
  return (await db('subscriptions').where({ id }).del()) > 0;
}

/** What the projection knows of a record parent. */
export interface ParentState {
  owner_id: string | null;
  communities: string[];
}

/**
 * Record a parent's owner as the latest event names it (`draft.created` carries the parent's
 * owner at that moment): a parent that changed hands moves to the new owner's `user`
 * subscriptions and leaves the previous owner's; an event naming no owner (a system-created
 * draft) keeps the known one. Returns the parent as it is now (one statement).
 */
export async function noteParentOwner(db: Db, parentId: string, owner: string | null): Promise<ParentState> {
  const r = await db.raw(
    `INSERT INTO record_parents (parent_id, owner_id) VALUES (?, ?)
     ON CONFLICT (parent_id) DO UPDATE SET owner_id = COALESCE(EXCLUDED.owner_id, record_parents.owner_id)
     RETURNING owner_id, communities`,
    [parentId, owner],
  );
  return r.rows[0] as ParentState;
}

/** Set or change a parent's communities (publication: the full list; inclusion: one added/removed). */
export async function noteParentCommunities(
  db: Db,
  parentId: string,
  op: { set?: string[]; add?: string; remove?: string },
): Promise<void> {
  if (op.set) {
    await db.raw(
      `INSERT INTO record_parents (parent_id, communities) VALUES (?, ?::text[])
       ON CONFLICT (parent_id) DO UPDATE SET communities = EXCLUDED.communities`,
      [parentId, op.set],
    );
  } else if (op.add) {
    await db.raw(
      `INSERT INTO record_parents (parent_id, communities) VALUES (?, ARRAY[?]::text[])
       ON CONFLICT (parent_id) DO UPDATE SET communities =
         CASE WHEN ? = ANY(record_parents.communities) THEN record_parents.communities ELSE record_parents.communities || ARRAY[?]::text[] END`,
      [parentId, op.add, op.add, op.add],
    );
  } else if (op.remove) {
    await db.raw('UPDATE record_parents SET communities = array_remove(communities, ?) WHERE parent_id = ?', [op.remove, parentId]);
  }
}

/** Owner and communities of a parent (empty when unknown). */
export async function parentOf(db: Db, parentId: string): Promise<{ owner_id: string | null; communities: string[] }> {
  const r = await db('record_parents').where({ parent_id: parentId }).first('owner_id', 'communities');
  return r ?? { owner_id: null, communities: [] };
}

/**
 * Note a publication of `recordId` (and the parent's communities when the event lists them);
 * `firstSeen` when it is the first one of that record id, with the parent as it is now. Two
 * statements: the row locked and read, then upserted.
 */
export async function notePublished(
  db: Db,
  parentId: string,
  recordId: string,
  communities?: string[],
): Promise<ParentState & { firstSeen: boolean }> {
  const before = await db.raw('SELECT ? = ANY(published) AS seen FROM record_parents WHERE parent_id = ? FOR UPDATE', [recordId, parentId]);
  const seen = before.rows[0]?.seen === true;
  const r = await db.raw(
    `INSERT INTO record_parents AS p (parent_id, communities, published) VALUES (?, COALESCE(?::text[], '{}'::text[]), ARRAY[?]::text[])
     ON CONFLICT (parent_id) DO UPDATE SET
       communities = COALESCE(?::text[], p.communities),
       published = CASE WHEN ? = ANY(p.published) THEN p.published ELSE p.published || ARRAY[?]::text[] END
     RETURNING owner_id, communities`,
    [parentId, communities ?? null, recordId, communities ?? null, recordId, recordId],
  );
  return { ...(r.rows[0] as ParentState), firstSeen: !seen };
}
