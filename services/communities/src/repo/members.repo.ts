/**
 * SQL of members (active and pending) and archived invitations / membership requests.
 * Functions take a `Knex | Transaction`; the services open the transactions.
 */
import { type FieldMap, type Knex, type SearchFields, type SqlFragment, searchQuery, searchVectorSql, sqlFields } from '@rdm/platform';
import type { Role } from '../domain/roles.js';

/** A member row (active member, or pending invitation / membership request when `active` is false). */
export interface MemberRow {
  id: string;
  community_id: string;
  member_type: string;
  member_id: string;
  role: Role;
  visible: boolean;
  active: boolean;
  name: string;
  username: string | null;
  email: string | null;
  affiliations: string;
  request_id: string | null;
  request_type: string | null;
  request_status: string | null;
  request_expires_at: Date | null;
  created: Date;
  updated: Date;
  revision_id: number;
}

const COLUMNS = [
  'id',
  'community_id',
  'member_type',
  'member_id',
  'role',
  'visible',
  'active',
  'name',
  'username',
  'email',
  'affiliations',
  'request_id',
  'request_type',
  'request_status',
  'request_expires_at',
  'created',
  'updated',
  'revision_id',
];

/**
 * `q` fields of member searches by administrators, on both engines (the SQL and the path in the
 * index). `email:` matches the stored address, which the
 * users service gives unfiltered (whatever the member's e-mail visibility), so only administrators
 * — who see every address anyway — may search on it: see `MEMBER_FIELDS_PUBLIC`.
 */
export const MEMBER_SEARCH_FIELDS: SearchFields = {
  name: { kind: 'text', expr: 'lower(name)', path: 'name' },
  full_name: 'name',
  username: { kind: 'keyword', expr: 'username', path: 'username' },
  email: { kind: 'keyword', expr: 'email', path: 'email' },
  affiliations: { kind: 'text', expr: 'lower(affiliations)', path: 'affiliations' },
  role: { kind: 'keyword', expr: 'role', path: 'role' },
};

/** The postgres half of `MEMBER_SEARCH_FIELDS`. */
export const MEMBER_FIELDS = sqlFields(MEMBER_SEARCH_FIELDS);

/**
 * `q` fields of member searches by anyone else: `email:` matches nothing (as an unmapped field in
 * InvenioRDM's public member search), so a search never tells whether a co-member's hidden address
 * is this or that.
 */
export const MEMBER_FIELDS_PUBLIC: FieldMap = { ...MEMBER_FIELDS, email: { kind: 'keyword', expr: 'NULL::text' } };

/** The texts of a member's search vector: name, username, affiliations — never the e-mail address (see MEMBER_FIELDS). */
export function memberSearchTexts(m: { name: string; username: string | null; affiliations: string }): string[] {
  return [m.name, m.username ?? '', m.affiliations];
}

/** Search vector of a member (`memberSearchTexts`). */
export function memberVector(db: Knex | Knex.Transaction, m: { name: string; username: string | null; affiliations: string }) {
  const v = searchVectorSql(memberSearchTexts(m));
  return db.raw(v.sql, v.bindings);
}

/** Insert a member row. */
export async function insertMember(trx: Knex.Transaction, m: Omit<MemberRow, 'created' | 'updated' | 'revision_id'>): Promise<MemberRow> {
  const [row] = await trx('members')
    .insert({ ...m, search_vector: memberVector(trx, m) })
    .returning(COLUMNS);
  return row;
}

/** Update a member row (revision +1). */
export async function updateMember(
  trx: Knex.Transaction,
  id: string,
  patch: Partial<Pick<MemberRow, 'role' | 'visible' | 'active' | 'request_id' | 'request_status' | 'request_expires_at'>>,
): Promise<MemberRow> {
  const [row] = await trx('members')
    .where({ id })
    .update({ ...patch, updated: trx.fn.now(), revision_id: trx.raw('revision_id + 1') })
    .returning(COLUMNS);
  return row;
}

/** Delete a member row. */
export async function deleteMember(trx: Knex.Transaction, id: string): Promise<void> {
  await trx('members').where({ id }).delete();
}

/** Rows (active and pending) of these members in a community, locked for update. */
export async function findMembersFor(
  trx: Knex | Knex.Transaction,
  communityId: string,
  members: { type: string; id: string }[],
  opts: { lock?: boolean } = {},
): Promise<MemberRow[]> {
  if (members.length === 0) return [];
  const q = trx('members')
    .select(COLUMNS)
    .where({ community_id: communityId })
    .where((w) => {
      for (const m of members) w.orWhere({ member_type: m.type, member_id: m.id });
    });
  if (opts.lock) q.forUpdate();
  return q;
}

/** The active role of a user in a community, or null. */
export async function roleOf(db: Knex | Knex.Transaction, communityId: string, userId: string): Promise<Role | null> {
  const row = await db('members').where({ community_id: communityId, member_type: 'user', member_id: userId, active: true }).first('role');
  return (row?.role as Role | undefined) ?? null;
}

/** Active roles of a user: community id → role (optionally among `communityIds`). */
export async function rolesOf(db: Knex | Knex.Transaction, userId: string, communityIds?: string[]): Promise<Record<string, Role>> {
  const q = db('members').select('community_id', 'role').where({ member_type: 'user', member_id: userId, active: true });
  if (communityIds) q.whereIn('community_id', communityIds);
  const rows = (await q) as { community_id: string; role: Role }[];
  return Object.fromEntries(rows.map((r) => [r.community_id, r.role]));
}

/** Active owners (user ids) of each of these communities: community id → user ids. */
export async function ownersOf(db: Knex | Knex.Transaction, communityIds: string[]): Promise<Record<string, string[]>> {
  if (communityIds.length === 0) return {};
  const rows = (await db('members')
    .select('community_id', 'member_id')
    .where({ member_type: 'user', role: 'owner', active: true })
    .whereIn('community_id', communityIds)
    .orderBy(['community_id', 'member_id'])) as { community_id: string; member_id: string }[];
  const out: Record<string, string[]> = {};
  for (const r of rows) out[r.community_id] = [...(out[r.community_id] ?? []), r.member_id];
  return out;
}

/** Number of active owners of a community. */
export async function countOwners(trx: Knex | Knex.Transaction, communityId: string): Promise<number> {
  const r = await trx('members').where({ community_id: communityId, role: 'owner', active: true }).count({ n: '*' }).first();
  return Number((r as { n: string } | undefined)?.n ?? 0);
}

/** The pending row of a request. */
export async function findPendingByRequest(trx: Knex | Knex.Transaction, requestId: string): Promise<MemberRow | undefined> {
  return trx('members').select(COLUMNS).where({ request_id: requestId, active: false }).forUpdate().first();
}

/** Has this request been archived already? */
export async function isArchived(trx: Knex | Knex.Transaction, requestId: string): Promise<boolean> {
  return !!(await trx('archived_requests').where({ request_id: requestId }).first('id'));
}

/** How many closed requests of this type this member already had in the community (makes invitation keys unique per round). */
export async function countArchived(
  trx: Knex | Knex.Transaction,
  communityId: string,
  memberId: string,
  requestType: string,
): Promise<number> {
  const r = await trx('archived_requests')
    .where({ community_id: communityId, member_type: 'user', member_id: memberId, request_type: requestType })
    .count({ n: '*' })
    .first();
  return Number((r as { n: string } | undefined)?.n ?? 0);
}

/** Archive a request row with its final status. */
export async function archiveRequest(trx: Knex.Transaction, m: MemberRow, status: string, archiveId: string): Promise<void> {
  await trx('archived_requests')
    .insert({
      id: archiveId,
      community_id: m.community_id,
      member_type: m.member_type,
      member_id: m.member_id,
      role: m.role,
      visible: m.visible,
      name: m.name,
      username: m.username,
      email: m.email,
      affiliations: m.affiliations,
      request_id: m.request_id,
      request_type: m.request_type,
      request_status: status,
      request_expires_at: m.request_expires_at,
      search_vector: memberVector(trx, m),
      created: m.created,
      member_row_id: m.id,
    })
    .onConflict('request_id')
    .ignore();
}

/** Options of the member list queries. */
export interface MemberSearch {
  communityId: string;
  q?: SqlFragment;
  rank?: SqlFragment;
  sort: string;
  from: number;
  size: number;
  filters: Record<string, string[]>;
}

/** One facet count. */
export interface MemberFacet {
  key: string;
  count: number;
}

function order(q: Knex.QueryBuilder, o: MemberSearch): void {
  if (o.sort === 'bestmatch' && o.rank) q.orderByRaw(`${o.rank.sql} DESC`, o.rank.bindings);
  if (o.sort === 'newest') q.orderBy('created', 'desc');
  else if (o.sort === 'oldest') q.orderBy('created', 'asc');
  else q.orderByRaw("lower(coalesce(nullif(name, ''), username, '')) ASC");
  q.orderBy('id');
}

async function facetCounts(db: Knex | Knex.Transaction, base: () => Knex.QueryBuilder, column: string): Promise<MemberFacet[]> {
  const rows = (await searchQuery(db, base().select(`${column} as key`).count({ count: '*' }).groupBy(column).orderBy('key'))) as {
    key: unknown;
    count: string;
  }[];
  return rows.map((r) => ({ key: String(r.key), count: Number(r.count) }));
}

/** Active members (`publicOnly`: visible ones) with role/visibility facets. */
export async function searchMembers(
  db: Knex | Knex.Transaction,
  o: MemberSearch & { publicOnly?: boolean; facets?: boolean },
): Promise<{ rows: MemberRow[]; total: number; facets: Record<string, MemberFacet[]> }> {
  const base = () => {
    const q = db('members').where({ community_id: o.communityId, active: true });
    if (o.publicOnly) q.where({ visible: true });
    if (o.q) q.whereRaw(o.q.sql, o.q.bindings);
    return q;
  };
  const filtered = () => {
    const q = base();
    if (o.filters.role?.length) q.whereIn('role', o.filters.role);
    if (o.filters.visibility?.length)
      q.whereIn(
        'visible',
        o.filters.visibility.map((v) => v === 'true' || v === 'public'),
      );
    return q;
  };
  const hits = filtered().select(COLUMNS);
  order(hits, o);
  // Each statement bounded by the search timeout and cancelled when the client goes away (`q` decides its cost).
  const [rows, total, role, visible] = await Promise.all([
    searchQuery(db, hits.offset(o.from).limit(o.size)),
    searchQuery(db, filtered().count({ n: '*' }).first()),
    o.facets ? facetCounts(db, base, 'role') : Promise.resolve([]),
    o.facets ? facetCounts(db, base, 'visible') : Promise.resolve([]),
  ]);
  return { rows, total: Number((total as { n: string } | undefined)?.n ?? 0), facets: { role, visibility: visible } };
}

/** Open (pending rows) and archived requests of one type, with role/status/is_open facets. */
export async function searchRequests(
  db: Knex | Knex.Transaction,
  o: MemberSearch & { requestType: string },
): Promise<{ rows: MemberRow[]; total: number; facets: Record<string, MemberFacet[]> }> {
  const cols = [...COLUMNS.filter((c) => c !== 'active'), 'search_vector'];
  const union = () =>
    db
      .from(
        db('members')
          .select([...cols, db.raw('false as active')])
          .where({ community_id: o.communityId, active: false, request_type: o.requestType })
          .whereNotNull('request_id')
          .unionAll(
            db('archived_requests')
              .select([...cols, db.raw('false as active')])
              .where({ community_id: o.communityId, request_type: o.requestType }),
          )
          .as('r'),
      )
      .select('*');
  const base = () => {
    const q = db.from(union().as('u'));
    if (o.q) q.whereRaw(o.q.sql, o.q.bindings);
    return q;
  };
  const isOpen = "(request_status IN ('submitted', 'created', 'accepting'))";
  const filtered = () => {
    const q = base();
    if (o.filters.role?.length) q.whereIn('role', o.filters.role);
    if (o.filters.status?.length) q.whereIn('request_status', o.filters.status);
    if (o.filters.is_open?.length) {
      const wanted = new Set(o.filters.is_open.map((v) => v === 'true'));
      if (wanted.size === 1) q.whereRaw(wanted.has(true) ? isOpen : `NOT ${isOpen}`);
    }
    return q;
  };
  const hits = filtered().select(COLUMNS);
  order(hits, o);
  const [rows, total, role, status, open] = await Promise.all([
    searchQuery(db, hits.offset(o.from).limit(o.size)),
    searchQuery(db, filtered().count({ n: '*' }).first()),
    facetCounts(db, base, 'role'),
    facetCounts(db, base, 'request_status'),
    (async () => {
      const r = (await searchQuery(
        db,
        base()
          .select(db.raw(`${isOpen} as key`))
          .count({ count: '*' })
          .groupByRaw(isOpen)
          .orderBy('key', 'desc'),
      )) as {
        key: boolean;
        count: string;
      }[];
      return r.map((x) => ({ key: String(x.key), count: Number(x.count) }));
    })(),
  ]);
  return { rows, total: Number((total as { n: string } | undefined)?.n ?? 0), facets: { role, status, is_open: open } };
}

/** A member-list row as the search index needs it (either table), with the SQL name sort key and microsecond timestamps. */
export type MemberIndexRow = Omit<MemberRow, 'role' | 'request_expires_at' | 'created' | 'updated'> & {
  /** `members` (active or pending) or `archived` (archived_requests). */
  source: 'members' | 'archived';
  /** The role as stored (an archived request's too). */
  role: string;
  /** `created` in UTC with the database's microseconds (`…T12:00:00.123456Z`). */
  created_ts: string;
  /** The name sort key of `order()`, computed by PostgreSQL itself. */
  sort_name: string;
};

const NOT_INDEXED = new Set(['request_expires_at', 'created', 'updated']);

function indexQuery(db: Knex | Knex.Transaction, table: 'members' | 'archived_requests') {
  return db(table)
    .select([
      // The row's columns but the expiry and timestamps (`created_ts` below); an archived request is never active.
      ...COLUMNS.filter((c) => !NOT_INDEXED.has(c)).map((c) => (c === 'active' && table !== 'members' ? db.raw('false AS active') : c)),
      db.raw(`to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_ts`),
      db.raw("lower(coalesce(nullif(name, ''), username, '')) AS sort_name"),
      db.raw(`'${table === 'members' ? 'members' : 'archived'}' AS source`),
    ])
    .orderBy('id');
}

/** Rows of `members` for the index: these ids, or a batch after `afterId` (changed since `since`). */
export async function memberRowsForIndex(
  db: Knex | Knex.Transaction,
  o: { ids?: string[]; since?: Date; afterId?: string; limit?: number },
): Promise<MemberIndexRow[]> {
  const q = indexQuery(db, 'members');
  if (o.ids) q.whereIn('id', o.ids);
  if (o.since) q.where('updated', '>=', o.since);
  if (o.afterId) q.where('id', '>', o.afterId);
  if (o.limit) q.limit(o.limit);
  return q;
}

/** Rows of `archived_requests` for the index: these ids or those archived from these member rows, or a batch after `afterId`. */
export async function archivedRowsForIndex(
  db: Knex | Knex.Transaction,
  o: { ids?: string[]; since?: Date; afterId?: string; limit?: number },
): Promise<MemberIndexRow[]> {
  const q = indexQuery(db, 'archived_requests');
  if (o.ids) {
    const ids = o.ids;
    q.where((w) => w.whereIn('id', ids).orWhereIn('member_row_id', ids));
  }
  if (o.since) q.where('updated', '>=', o.since);
  if (o.afterId) q.where('id', '>', o.afterId);
  if (o.limit) q.limit(o.limit);
  return q;
}

/** Member rows (active or pending) by id, in no particular order. */
export async function findMemberRows(db: Knex | Knex.Transaction, ids: string[]): Promise<MemberRow[]> {
  if (ids.length === 0) return [];
  return db('members').select(COLUMNS).whereIn('id', ids);
}

/** Request-list rows by id: pending member rows and archived rows, shaped as `searchRequests` returns them. */
export async function findRequestRows(db: Knex | Knex.Transaction, ids: string[]): Promise<MemberRow[]> {
  if (ids.length === 0) return [];
  const cols = COLUMNS.filter((c) => c !== 'active');
  const [pending, archived] = await Promise.all([
    db('members')
      .select([...cols, db.raw('false as active')])
      .whereIn('id', ids),
    db('archived_requests')
      .select([...cols, db.raw('false as active')])
      .whereIn('id', ids),
  ]);
  return [...pending, ...archived];
}

/** Member rows named by member events written since `since` (removals and closed requests: rows that may be gone). */
export async function memberRowsTouchedSince(db: Knex | Knex.Transaction, since: Date, subjects: string[]): Promise<string[]> {
  const rows = (await db('outbox').distinct('aggregate_id').whereIn('subject', subjects).where('created_at', '>=', since)) as {
    aggregate_id: string;
  }[];
  return rows.map((r) => r.aggregate_id);
}
