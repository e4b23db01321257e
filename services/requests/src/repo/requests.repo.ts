/**
 * SQL for `requests`. Takes a `Knex` or a transaction; the service decides transactions and
 * locks. Every write of title/description recomputes the search document, so a search never
 * disagrees with the row (read-your-writes).
 */
import { type Knex, prepared, type SearchFields, type SqlFragment, searchQuery, searchVectorSql, sqlFields } from '@rdm/platform';
import type { PendingComment, Ref, RefType, RequestRow, Status } from '../domain/model.js';
import { encodeNumber } from '../domain/number.js';

/** The id of a reference column pair when it is of `kind` (`created_by` → `created_by_id` of a `user`). */
const refOf = (col: string, kind: string) => `CASE WHEN ${col}_type = '${kind}' THEN ${col}_id END`;

/** `q` fields of request searches, on both engines: the SQL of the postgres engine and the path in the index. */
export const REQUEST_FIELDS: SearchFields = {
  id: { kind: 'keyword', expr: 'id::text', path: 'id' },
  type: { kind: 'keyword', expr: 'type', path: 'type' },
  status: { kind: 'keyword', expr: 'shown_status', path: 'status' },
  title: { kind: 'text', expr: "lower(coalesce(title, ''))", path: 'title' },
  description: { kind: 'text', expr: "lower(coalesce(description, ''))", path: 'description' },
  is_open: { kind: 'keyword', expr: "(shown_status = 'submitted')::text", path: 'is_open' },
  created: { kind: 'date', expr: 'created', path: 'created' },
  updated: { kind: 'date', expr: 'updated', path: 'updated' },
  expires_at: { kind: 'date', expr: 'expires_at', path: 'expires_at' },
  'created_by.user': { kind: 'keyword', expr: refOf('created_by', 'user'), path: 'created_by_user' },
  'created_by.community': { kind: 'keyword', expr: refOf('created_by', 'community'), path: 'created_by_community' },
  'receiver.user': { kind: 'keyword', expr: refOf('receiver', 'user'), path: 'receiver_user' },
  'receiver.community': { kind: 'keyword', expr: refOf('receiver', 'community'), path: 'receiver_community' },
  'topic.record': { kind: 'keyword', expr: refOf('topic', 'record'), path: 'topic_record' },
  'topic.community': { kind: 'keyword', expr: refOf('topic', 'community'), path: 'topic_community' },
};

/** The postgres half of `REQUEST_FIELDS`. */
export const REQUEST_SEARCH_FIELDS = sqlFields(REQUEST_FIELDS);

const COLUMNS =
  'id::text AS id, number, type, status, title, description, payload, created_by_type, created_by_id, receiver_type, receiver_id, ' +
  'topic_type, topic_id, expires_at, is_locked, accept_actor, accept_comment, created, updated, last_activity_at, revision_id';

/** A stored row: the request's columns, its number as PostgreSQL gives it and its references split in type and id. */
interface Row extends Omit<RequestRow, 'number' | 'created_by' | 'receiver' | 'topic'> {
  number: string | number;
  created_by_type: RefType;
  created_by_id: string;
  receiver_type: RefType;
  receiver_id: string;
  topic_type: RefType | null;
  topic_id: string | null;
}

function toRequest(r: Row): RequestRow {
  return {
    id: r.id,
    number: Number(r.number),
    type: r.type,
    status: r.status,
    title: r.title,
    description: r.description,
    payload: r.payload,
    created_by: { type: r.created_by_type, id: r.created_by_id },
    receiver: { type: r.receiver_type, id: r.receiver_id },
    topic: r.topic_type && r.topic_id !== null ? { type: r.topic_type, id: r.topic_id } : null,
    expires_at: r.expires_at,
    is_locked: r.is_locked,
    accept_actor: r.accept_actor,
    accept_comment: r.accept_comment,
    created: r.created,
    updated: r.updated,
    last_activity_at: r.last_activity_at,
    revision_id: r.revision_id,
  };
}

function searchVector(db: Knex, title: string, description: string | null, number: number): Knex.Raw {
  const v = searchVectorSql([title, description ?? '', encodeNumber(number)]);
  return db.raw(v.sql, v.bindings as Knex.RawBinding[]);
}

/** A new request to insert. */
export type NewRequest = Pick<
  RequestRow,
  'id' | 'type' | 'status' | 'title' | 'description' | 'payload' | 'created_by' | 'receiver' | 'topic' | 'expires_at'
> & { key: string | null };

/** Insert a request with the next global number; returns it, or undefined when `key` already exists. */
export async function insertRequest(trx: Knex, r: NewRequest): Promise<RequestRow | undefined> {
  const n = Number((await prepared(trx, "SELECT nextval('request_number_seq') AS n")).rows[0].n);
  const rows = (await trx('requests')
    .insert({
      id: r.id,
      number: n,
      type: r.type,
      status: r.status,
      title: r.title,
      description: r.description,
      payload: r.payload === null ? null : JSON.stringify(r.payload),
      created_by_type: r.created_by.type,
      created_by_id: r.created_by.id,
      receiver_type: r.receiver.type,
      receiver_id: r.receiver.id,
      topic_type: r.topic?.type ?? null,
      topic_id: r.topic?.id ?? null,
      expires_at: r.expires_at,
      idempotency_key: r.key,
      search_vector: searchVector(trx, r.title, r.description, n),
    })
    .onConflict(trx.raw('(idempotency_key) WHERE idempotency_key IS NOT NULL'))
    .ignore()
    .returning(trx.raw(COLUMNS))) as Row[];
  return rows[0] ? toRequest(rows[0]) : undefined;
}

/** A request by id (a canonical uuid); `forUpdate` locks the row inside a transaction. */
export async function findRequest(db: Knex, id: string, opts: { forUpdate?: boolean } = {}): Promise<RequestRow | undefined> {
  const sql = `SELECT ${COLUMNS} FROM requests WHERE id = ?${opts.forUpdate ? ' FOR UPDATE' : ''}`;
  const r = (await prepared(db, sql, [id])).rows[0] as Row | undefined;
  return r ? toRequest(r) : undefined;
}

/** A request by idempotency key. */
export async function findRequestByKey(db: Knex, key: string): Promise<RequestRow | undefined> {
  const r = (await prepared(db, `SELECT ${COLUMNS} FROM requests WHERE idempotency_key = ?`, [key])).rows[0] as Row | undefined;
  return r ? toRequest(r) : undefined;
}

/** Requests by ids. */
export async function findRequests(db: Knex, ids: string[]): Promise<RequestRow[]> {
  if (ids.length === 0) return [];
  const rows = (await db.raw(`SELECT ${COLUMNS} FROM requests WHERE id = ANY(?::uuid[])`, [ids])).rows as Row[];
  return rows.map(toRequest);
}

/** Fields a change may set. */
export interface RequestChange {
  status?: Status;
  title?: string;
  description?: string | null;
  payload?: Record<string, unknown> | null;
  receiver?: Ref;
  topic?: Ref | null;
  is_locked?: boolean;
  accept_actor?: Ref | null;
  accept_comment?: PendingComment | null;
}

/**
 * Apply a change to a locked request, raise `revision_id`, `updated`, `last_activity_at`;
 * returns the new row. With `onlyIfStatus` the UPDATE only happens in that status (undefined
 * otherwise), which makes effect outcomes idempotent.
 */
export async function updateRequest(
  trx: Knex,
  current: RequestRow,
  change: RequestChange,
  opts: { onlyIfStatus?: Status } = {},
): Promise<RequestRow | undefined> {
  const set: Record<string, unknown> = {
    updated: trx.raw('clock_timestamp()'),
    last_activity_at: trx.raw('greatest(last_activity_at, clock_timestamp())'),
    revision_id: trx.raw('revision_id + 1'),
    index_version: trx.raw('index_version + 1'),
  };
  if (change.status !== undefined) set.status = change.status;
  if (change.title !== undefined) set.title = change.title;
  if (change.description !== undefined) set.description = change.description;
  if (change.payload !== undefined) set.payload = change.payload === null ? null : JSON.stringify(change.payload);
  if (change.receiver !== undefined) {
    set.receiver_type = change.receiver.type;
    set.receiver_id = change.receiver.id;
  }
  if (change.topic !== undefined) {
    set.topic_type = change.topic?.type ?? null;
    set.topic_id = change.topic?.id ?? null;
  }
  if (change.is_locked !== undefined) set.is_locked = change.is_locked;
  if (change.accept_actor !== undefined) set.accept_actor = change.accept_actor === null ? null : JSON.stringify(change.accept_actor);
  if (change.accept_comment !== undefined)
    set.accept_comment = change.accept_comment === null ? null : JSON.stringify(change.accept_comment);
  if (change.title !== undefined || change.description !== undefined) {
    set.search_vector = searchVector(
      trx,
      change.title ?? current.title,
      change.description !== undefined ? change.description : current.description,
      current.number,
    );
  }
  const q = trx('requests').where('id', current.id);
  if (opts.onlyIfStatus) q.where('status', opts.onlyIfStatus);
  const rows = (await q.update(set).returning(trx.raw(COLUMNS))) as Row[];
  return rows[0] ? toRequest(rows[0]) : undefined;
}

/** Raise `last_activity_at` (a comment was added). */
export async function touchActivity(trx: Knex, id: string): Promise<void> {
  await prepared(
    trx,
    'UPDATE requests SET last_activity_at = greatest(last_activity_at, clock_timestamp()), index_version = index_version + 1 WHERE id = ?',
    [id],
  );
}

/** Number of open requests received by an entity. */
export async function countOpen(db: Knex, receiver: Ref): Promise<number> {
  const r = await prepared(
    db,
    "SELECT count(*)::int AS n FROM requests WHERE receiver_type = ? AND receiver_id = ? AND status IN ('submitted', 'accepting')",
    [receiver.type, receiver.id],
  );
  return r.rows[0].n as number;
}

/** Ids of submitted requests whose expiry has passed (locked, skipping rows others hold). */
export async function lockExpired(trx: Knex, limit: number): Promise<string[]> {
  const r = await trx.raw(
    "SELECT id::text AS id FROM requests WHERE status = 'submitted' AND expires_at <= now() ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED",
    [limit],
  );
  return (r.rows as { id: string }[]).map((x) => x.id);
}

/** Per type: the communities in which the caller counts as creator / receiver (read filter). */
export interface TypeGrant {
  type: string;
  creatorCommunities: string[];
  receiverCommunities: string[];
}

/** Which requests a search may return. */
export type SearchScope =
  | { kind: 'all' }
  | { kind: 'readable'; userId: string; grants: TypeGrant[] }
  | { kind: 'user'; userId: string }
  | { kind: 'community'; communityId: string; excludeTypes: string[] };

/** A search. */
export interface RequestSearch {
  scope: SearchScope;
  where?: SqlFragment;
  rank?: SqlFragment;
  filters: { is_open?: boolean; created_by?: Ref[]; receiver?: Ref[]; topic?: Ref[] };
  /** Topics every hit must have besides the caller's filters (a record's requests: the record and its parent). */
  topics?: Ref[];
  /** Facet filters (post-filter: aggregations ignore them). */
  facets: { type: string[]; status: string[] };
  sort: string;
  limit: number;
  offset: number;
}

function applyScope(q: Knex.QueryBuilder, scope: SearchScope): void {
  q.whereNot('status', 'deleted');
  if (scope.kind === 'all') return;
  if (scope.kind === 'user') {
    q.whereNot('status', 'created').where((w) => {
      w.where({ created_by_type: 'user', created_by_id: scope.userId }).orWhere({ receiver_type: 'user', receiver_id: scope.userId });
    });
    return;
  }
  if (scope.kind === 'community') {
    q.where({ receiver_type: 'community', receiver_id: scope.communityId }).whereNot('status', 'created');
    if (scope.excludeTypes.length) q.whereNotIn('type', scope.excludeTypes);
    return;
  }
  const { userId, grants } = scope;
  q.where((w) => {
    w.where({ created_by_type: 'user', created_by_id: userId });
    for (const g of grants)
      if (g.creatorCommunities.length)
        w.orWhere((x) => x.where({ type: g.type, created_by_type: 'community' }).whereIn('created_by_id', g.creatorCommunities));
    w.orWhere((open) => {
      open.whereNot('status', 'created').where((r) => {
        r.where({ receiver_type: 'user', receiver_id: userId });
        for (const g of grants)
          if (g.receiverCommunities.length)
            r.orWhere((x) => x.where({ type: g.type, receiver_type: 'community' }).whereIn('receiver_id', g.receiverCommunities));
      });
    });
  });
}

function applyRefs(q: Knex.QueryBuilder, prefix: string, refs: Ref[] | undefined): void {
  if (refs === undefined) return;
  if (refs.length === 0) {
    q.whereRaw('false');
    return;
  }
  q.where((w) => {
    for (const r of refs) w.orWhere({ [`${prefix}_type`]: r.type, [`${prefix}_id`]: r.id });
  });
}

function baseQuery(db: Knex, s: RequestSearch): Knex.QueryBuilder {
  const q = db('requests');
  applyScope(q, s.scope);
  if (s.where) q.whereRaw(s.where.sql, s.where.bindings as Knex.RawBinding[]);
  if (s.filters.is_open !== undefined) {
    if (s.filters.is_open) q.where('shown_status', 'submitted');
    else q.whereNot('shown_status', 'submitted');
  }
  applyRefs(q, 'created_by', s.filters.created_by);
  applyRefs(q, 'receiver', s.filters.receiver);
  applyRefs(q, 'topic', s.filters.topic);
  applyRefs(q, 'topic', s.topics);
  return q;
}

/** Run a search: the page, the total and the type/status counts (which ignore the facet filters). */
export async function searchRequests(
  db: Knex,
  s: RequestSearch,
): Promise<{ hits: RequestRow[]; total: number; counts: { type: Map<string, number>; status: Map<string, number> } }> {
  const withFacets = (q: Knex.QueryBuilder) => {
    if (s.facets.type.length) q.whereIn('type', s.facets.type);
    if (s.facets.status.length) q.whereIn('shown_status', s.facets.status);
    return q;
  };
  // Why no facet filter here: InvenioRDM applies facets as a post_filter, so counts ignore the selection.
  const typeCounts = baseQuery(db, s).select('type').count<{ type: string; n: string }[]>({ n: '*' }).groupBy('type');
  const statusCounts = baseQuery(db, s)
    .select('shown_status')
    .count<{ shown_status: string; n: string }[]>({ n: '*' })
    .groupBy('shown_status');
  const page = withFacets(baseQuery(db, s)).select(db.raw(COLUMNS));
  if (s.sort === 'bestmatch' && s.rank) page.orderByRaw(`${s.rank.sql} DESC`, s.rank.bindings as Knex.RawBinding[]);
  const order: Record<string, [string, 'asc' | 'desc']> = {
    newest: ['created', 'desc'],
    oldest: ['created', 'asc'],
    newestactivity: ['last_activity_at', 'desc'],
    oldestactivity: ['last_activity_at', 'asc'],
    bestmatch: ['created', 'desc'],
  };
  const [col, dir] = order[s.sort] ?? order.newest;
  page.orderBy([
    { column: col, order: dir },
    { column: 'number', order: dir },
  ]);
  page.limit(s.limit).offset(s.offset);
  const total = withFacets(baseQuery(db, s)).count<{ n: string }[]>({ n: '*' });
  // Each statement bounded by the search timeout and cancelled when the client goes away (`q` decides its cost).
  const [rows, tc, sc, t] = await Promise.all([
    searchQuery(db, page),
    searchQuery(db, typeCounts),
    searchQuery(db, statusCounts),
    searchQuery(db, total),
  ]);
  return {
    hits: (rows as Row[]).map(toRequest),
    total: Number(t[0]?.n ?? 0),
    counts: {
      type: new Map(tc.map((r) => [r.type, Number(r.n)])),
      status: new Map(sc.map((r) => [r.shown_status, Number(r.n)])),
    },
  };
}

const isoMicros = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A request as the search engines index it: timestamps as ISO strings with microseconds (sorts exact as in SQL). */
export interface IndexRow {
  id: string;
  number: number;
  type: string;
  shown_status: string;
  title: string;
  description: string | null;
  created_by_type: string;
  created_by_id: string;
  receiver_type: string;
  receiver_id: string;
  topic_type: string | null;
  topic_id: string | null;
  expires_at: string | null;
  created: string;
  updated: string;
  last_activity_at: string;
  index_version: number;
}

/** Requests to index: by ids, or changed since a time, in number order after `afterNumber` (batches). */
export async function requestsForIndex(
  db: Knex,
  o: { ids?: string[]; since?: Date; afterNumber?: number; limit?: number },
): Promise<IndexRow[]> {
  const q = db('requests')
    .select(
      db.raw(
        'id::text AS id, number, type, shown_status, title, description, created_by_type, created_by_id, receiver_type, receiver_id, ' +
          `topic_type, topic_id, ${isoMicros('expires_at')} AS expires_at, ${isoMicros('created')} AS created, ` +
          `${isoMicros('updated')} AS updated, ${isoMicros('last_activity_at')} AS last_activity_at, index_version`,
      ),
    )
    .orderBy('number');
  if (o.ids) q.whereRaw('id = ANY(?::uuid[])', [o.ids]);
  if (o.since) q.whereRaw('greatest(updated, last_activity_at) >= ?', [o.since]);
  if (o.afterNumber !== undefined) q.where('number', '>', o.afterNumber);
  if (o.limit) q.limit(o.limit);
  const rows = (await q) as Array<IndexRow & { number: string | number; index_version: string | number }>;
  return rows.map((r) => ({ ...r, number: Number(r.number), index_version: Number(r.index_version) }));
}
