/**
 * SQL for `users`. Takes a `Knex` or a transaction; the service decides transactions. Every
 * write recomputes the search document, so it never disagrees with the row (the e-mail is in it
 * only while `email_visibility` is public, so a search never reveals a hidden address).
 */
import { foldText, type Knex, type SearchFields, type SqlFragment, searchQuery, searchVectorSql, sqlFields } from '@rdm/platform';
import type { Preferences, Profile, User } from '../domain/user.js';
import { isoSql } from './sql.js';

/**
 * Query fields of `GET /api/users` (InvenioRDM's allow-list and aliases), on both engines: the SQL
 * of the postgres engine and the path in the users index (search/user-index.ts).
 */
export const USER_FIELDS: SearchFields = {
  id: { kind: 'keyword', expr: 'id::text', path: 'id', caseSensitive: true },
  username: { kind: 'text', expr: "lower(coalesce(username, ''))", path: 'username' },
  email: { kind: 'text', expr: 'sx_email', path: 'email' },
  'profile.full_name': { kind: 'text', expr: 'sx_full_name', path: 'full_name' },
  'profile.affiliations': { kind: 'text', expr: 'sx_affiliations', path: 'affiliations' },
  full_name: 'profile.full_name',
  fullname: 'profile.full_name',
  name: 'profile.full_name',
  affiliation: 'profile.affiliations',
  affiliations: 'profile.affiliations',
  created: { kind: 'date', expr: 'created', path: 'created' },
  updated: { kind: 'date', expr: 'updated', path: 'updated' },
};

/** The postgres half of `USER_FIELDS`. */
export const USER_SEARCH_FIELDS = sqlFields(USER_FIELDS);

/** The full-text target of unfielded terms. */
export const USER_FULL_TEXT = { tsvector: 'search_vector', config: 'simple' } as const;

const COLUMNS = [
  'id::text AS id',
  'email',
  'username',
  'active',
  'confirmed_at IS NOT NULL AS confirmed',
  `${isoSql('confirmed_at')} AS confirmed_at`,
  'profile',
  'preferences',
  'roles',
  `${isoSql('created')} AS created`,
  `${isoSql('updated')} AS updated`,
  'revision_id',
];

interface Row extends Omit<User, 'profile' | 'preferences'> {
  profile: Partial<Profile> | null;
  preferences: Partial<Preferences> | null;
}

function toUser(r: Row): User {
  const p = r.preferences ?? {};
  return {
    ...r,
    profile: { full_name: r.profile?.full_name ?? '', affiliations: r.profile?.affiliations ?? '' },
    preferences: {
      visibility: p.visibility === 'public' ? 'public' : 'restricted',
      email_visibility: p.email_visibility === 'public' ? 'public' : 'restricted',
      locale: p.locale ?? 'en',
      timezone: p.timezone ?? 'Europe/Zurich',
    },
    roles: r.roles ?? [],
  };
}

const select = (db: Knex) => db('users').select(db.raw(COLUMNS.join(', ')));

/** The fields a write sets (all of them: the repo always writes a whole user). */
export interface UserWrite {
  email: string;
  username: string | null;
  active: boolean;
  confirmed: boolean;
  profile: Profile;
  preferences: Preferences;
  roles: string[];
}

/** The search columns of a user. */
function searchColumns(db: Knex, u: UserWrite): Record<string, unknown> {
  const publicEmail = u.preferences.email_visibility === 'public' ? u.email : null;
  const v = searchVectorSql([u.profile.full_name, u.username, publicEmail, u.profile.affiliations]);
  return {
    search_vector: db.raw(v.sql, v.bindings as Knex.RawBinding[]),
    sx_full_name: foldText(u.profile.full_name),
    sx_affiliations: foldText(u.profile.affiliations),
    sx_email: publicEmail === null ? null : foldText(publicEmail),
  };
}

/** Insert a user; returns it. A duplicate e-mail or username raises the unique violation (23505). */
export async function insertUser(db: Knex, u: UserWrite): Promise<User> {
  const [row] = await db('users')
    .insert({
      email: u.email,
      username: u.username,
      active: u.active,
      confirmed_at: u.confirmed ? db.fn.now() : null,
      profile: JSON.stringify(u.profile),
      preferences: JSON.stringify(u.preferences),
      roles: u.roles,
      ...searchColumns(db, u),
    })
    .returning('id');
  const id = String(typeof row === 'object' ? row.id : row);
  return (await findUserById(db, id, { forUpdate: false }))!;
}

/**
 * Replace a user's fields, raise `revision_id` and `updated`; returns the new user.
 * `confirmed_at` is set to now when it becomes confirmed, cleared when unconfirmed.
 */
export async function updateUser(db: Knex, id: string, u: UserWrite): Promise<User> {
  await db('users')
    .where({ id })
    .update({
      email: u.email,
      username: u.username,
      active: u.active,
      confirmed_at: u.confirmed ? db.raw('coalesce(confirmed_at, now())') : null,
      profile: JSON.stringify(u.profile),
      preferences: JSON.stringify(u.preferences),
      roles: u.roles,
      updated: db.fn.now(),
      revision_id: db.raw('revision_id + 1'),
      ...searchColumns(db, u),
    });
  return (await findUserById(db, id))!;
}

/** A user by id (a canonical id string); `forUpdate` locks the row inside a transaction. */
export async function findUserById(db: Knex, id: string, opts: { forUpdate?: boolean } = {}): Promise<User | undefined> {
  const q = select(db).where('id', id).first();
  if (opts.forUpdate) q.forUpdate();
  const r = (await q) as Row | undefined;
  return r ? toUser(r) : undefined;
}

/** A user by e-mail, case-insensitively; `forUpdate` locks the row. */
export async function findUserByEmail(db: Knex, email: string, opts: { forUpdate?: boolean } = {}): Promise<User | undefined> {
  const q = select(db).whereRaw('lower(email) = lower(?)', [email]).first();
  if (opts.forUpdate) q.forUpdate();
  const r = (await q) as Row | undefined;
  return r ? toUser(r) : undefined;
}

/** A user by username, case-insensitively. */
export async function findUserByUsername(db: Knex, username: string): Promise<User | undefined> {
  const r = (await select(db).whereRaw('lower(username) = lower(?)', [username]).first()) as Row | undefined;
  return r ? toUser(r) : undefined;
}

/** Users by ids (canonical id strings), in id order. */
export async function findUsersByIds(db: Knex, ids: string[]): Promise<User[]> {
  if (ids.length === 0) return [];
  const rows = (await select(db).whereIn('id', ids).orderBy('id')) as Row[];
  return rows.map(toUser);
}

/** Sorts of the users list. */
export type UserSort = 'bestmatch' | 'newest' | 'oldest';

/** The filter and page of a users search. */
export interface UserSearch {
  /** Visibility filter: `all` = active + confirmed; `public` = plus public profile, or the caller. */
  scope: { kind: 'all' } | { kind: 'public'; selfId: string | null };
  /** Compiled `q` (WHERE fragment) and its rank, when a q was given. */
  where?: SqlFragment;
  rank?: SqlFragment;
  sort: UserSort;
  limit: number;
  offset: number;
}

/** Search users; returns the page and the total number of matches. */
export async function searchUsers(db: Knex, s: UserSearch): Promise<{ total: number; hits: User[] }> {
  const filter = (q: Knex.QueryBuilder) => {
    q.where('active', true).whereNotNull('confirmed_at');
    if (s.scope.kind === 'public') {
      const selfId = s.scope.selfId;
      q.where((w) => {
        w.whereRaw("preferences->>'visibility' = 'public'");
        if (selfId) w.orWhere('id', selfId);
      });
    }
    if (s.where) q.whereRaw(s.where.sql, s.where.bindings as Knex.RawBinding[]);
    return q;
  };
  // Both statements bounded by the search timeout and cancelled when the client goes away (`q` decides their cost).
  const countRow = (await searchQuery(db, filter(db('users')).count<{ n: string }[]>({ n: '*' })))[0];
  const total = Number(countRow?.n ?? 0);
  if (total === 0 || s.offset >= total) return { total, hits: [] };
  const q = filter(select(db));
  if (s.sort === 'bestmatch' && s.rank) q.orderByRaw(`${s.rank.sql} DESC`, s.rank.bindings as Knex.RawBinding[]);
  if (s.sort === 'oldest')
    q.orderBy([
      { column: 'created', order: 'asc' },
      { column: 'id', order: 'asc' },
    ]);
  else
    q.orderBy([
      { column: 'created', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  const rows = (await searchQuery(db, q.limit(s.limit).offset(s.offset))) as Row[];
  return { total, hits: rows.map(toUser) };
}

/** A user as the search engines index it (timestamps with microseconds; the e-mail only while public). */
export interface UserIndexRow {
  id: string;
  username: string | null;
  email: string | null;
  full_name: string;
  affiliations: string;
  visibility: string;
  active: boolean;
  confirmed: boolean;
  created: string;
  updated: string;
  revision_id: number;
}

const isoZ = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Users to index: by ids, or changed since a time, in id order after `afterId` (batches). */
export async function usersForIndex(
  db: Knex,
  o: { ids?: string[]; since?: Date; afterId?: number; limit?: number },
): Promise<UserIndexRow[]> {
  const q = db('users')
    .select(
      db.raw(
        "id::text AS id, username, CASE WHEN preferences->>'email_visibility' = 'public' THEN email END AS email, " +
          "coalesce(profile->>'full_name', '') AS full_name, coalesce(profile->>'affiliations', '') AS affiliations, " +
          "coalesce(preferences->>'visibility', 'restricted') AS visibility, active, confirmed_at IS NOT NULL AS confirmed, " +
          `${isoZ('created')} AS created, ${isoZ('updated')} AS updated, revision_id`,
      ),
    )
    // Why qualified: a bare `id` in ORDER BY is the text output column (`'10' < '2'`), not the bigint.
    .orderBy('users.id');
  if (o.ids) q.whereIn('users.id', o.ids);
  if (o.since) q.where('updated', '>=', o.since);
  if (o.afterId !== undefined) q.where('users.id', '>', o.afterId);
  if (o.limit) q.limit(o.limit);
  return (await q) as UserIndexRow[];
}
