/**
 * SQL of communities, featured entries and logos. Functions take a `Knex | Transaction`; the
 * service opens transactions. Search follows the postgres engine of the platform: `q` compiled
 * to a WHERE fragment over `search_vector`, facets counted on the un-filtered set (InvenioRDM's
 * post_filter semantics).
 */
import { type Knex, type SearchFields, type SqlFragment, searchQuery, searchVectorSql, sqlFields } from '@rdm/platform';
import type { CommunityAccess } from '../domain/community-input.js';
import { htmlToText } from '@rdm/platform';

/** A stored community. */
export interface CommunityRow {
  id: string;
  slug: string;
  created: Date;
  updated: Date;
  revision_id: number;
  metadata: Record<string, any>;
  access: CommunityAccess;
  custom_fields: Record<string, unknown>;
  deletion_status: 'P' | 'D' | 'X';
  tombstone: Record<string, unknown> | null;
  title: string;
  type_id: string | null;
  visibility: string;
}

const COLUMNS = [
  'id',
  'slug',
  'created',
  'updated',
  'revision_id',
  'metadata',
  'access',
  'custom_fields',
  'deletion_status',
  'tombstone',
  'title',
  'type_id',
  'visibility',
];

/** `q` fields of the community search, on both engines: the SQL of the postgres engine and the path in the index. */
export const COMMUNITY_SEARCH_FIELDS: SearchFields = {
  id: { kind: 'keyword', expr: 'id::text', path: 'id', caseSensitive: true },
  slug: { kind: 'keyword', expr: 'slug', path: 'slug' },
  'metadata.title': { kind: 'text', expr: 'lower(title)', path: 'title' },
  title: 'metadata.title',
  'metadata.description': { kind: 'text', expr: "lower(coalesce(metadata->>'description', ''))", path: 'description' },
  'metadata.type.id': { kind: 'keyword', expr: 'type_id', path: 'type_id' },
  type: 'metadata.type.id',
  'access.visibility': { kind: 'keyword', expr: 'visibility', path: 'visibility' },
  'metadata.website': { kind: 'keyword', expr: "metadata->>'website'", path: 'website' },
  created: { kind: 'date', expr: 'created', path: 'created' },
  updated: { kind: 'date', expr: 'updated', path: 'updated' },
  // Index only: the filter of live communities.
  deletion_status: { kind: 'keyword', path: 'deletion_status', caseSensitive: true },
};

/** The postgres half of `COMMUNITY_SEARCH_FIELDS`. */
export const COMMUNITY_FIELDS = sqlFields(COMMUNITY_SEARCH_FIELDS);

/** Texts of a community's full-text search (slug, title, description, type, organizations, funders); every engine indexes these. */
export function searchTexts(slug: string, md: Record<string, any>): string[] {
  const texts = [
    slug,
    md.title,
    md.description,
    md.type?.id,
    md.type?.title?.en,
    md.website,
    md.curation_policy ? htmlToText(md.curation_policy) : undefined,
    ...((md.organizations ?? []) as { name?: string }[]).map((o) => o.name),
    ...((md.funding ?? []) as { funder?: { name?: string } }[]).map((f) => f.funder?.name),
  ];
  return texts.filter((t): t is string => typeof t === 'string' && t.length > 0);
}

/** Search vector of a community (postgres engine). */
function vector(slug: string, md: Record<string, any>) {
  return searchVectorSql(searchTexts(slug, md));
}

/** Columns derived from the document. */
function derived(db: Knex | Knex.Transaction, slug: string, md: Record<string, any>, access: CommunityAccess) {
  const v = vector(slug, md);
  return {
    title: md.title ?? '',
    type_id: md.type?.id ?? null,
    visibility: access.visibility,
    search_vector: db.raw(v.sql, v.bindings),
  };
}

/** Insert a community. */
export async function insertCommunity(
  trx: Knex.Transaction,
  c: { id: string; slug: string; metadata: Record<string, any>; access: CommunityAccess; custom_fields?: Record<string, unknown> },
): Promise<CommunityRow> {
  const [row] = await trx('communities')
    .insert({
      id: c.id,
      slug: c.slug,
      metadata: JSON.stringify(c.metadata),
      access: JSON.stringify(c.access),
      custom_fields: JSON.stringify(c.custom_fields ?? {}),
      ...derived(trx, c.slug, c.metadata, c.access),
    })
    .returning(COLUMNS);
  return row;
}

/** Update metadata/access/custom fields/slug/deletion state; revision +1. */
export async function updateCommunity(
  trx: Knex.Transaction,
  current: CommunityRow,
  patch: Partial<Pick<CommunityRow, 'slug' | 'metadata' | 'access' | 'custom_fields' | 'deletion_status' | 'tombstone'>>,
): Promise<CommunityRow> {
  const slug = patch.slug ?? current.slug;
  const metadata = patch.metadata ?? current.metadata;
  const access = patch.access ?? current.access;
  const [row] = await trx('communities')
    .where({ id: current.id })
    .update({
      slug,
      metadata: JSON.stringify(metadata),
      access: JSON.stringify(access),
      ...(patch.custom_fields ? { custom_fields: JSON.stringify(patch.custom_fields) } : {}),
      ...(patch.deletion_status ? { deletion_status: patch.deletion_status } : {}),
      ...(patch.tombstone !== undefined ? { tombstone: patch.tombstone === null ? null : JSON.stringify(patch.tombstone) } : {}),
      ...derived(trx, slug, metadata, access),
      updated: trx.fn.now(),
      revision_id: trx.raw('revision_id + 1'),
    })
    .returning(COLUMNS);
  return row;
}

/** A community by uuid or slug (deleted ones included), optionally locked FOR UPDATE. */
export async function findCommunity(
  db: Knex | Knex.Transaction,
  idOrSlug: string,
  opts: { lock?: boolean } = {},
): Promise<CommunityRow | undefined> {
  const isId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrSlug);
  const q = db('communities')
    .select(COLUMNS)
    .where(isId ? { id: idOrSlug.toLowerCase() } : { slug: idOrSlug.toLowerCase() })
    .first();
  if (opts.lock) q.forUpdate();
  return q;
}

/** Communities by ids or slugs. */
export async function findCommunities(db: Knex | Knex.Transaction, idsOrSlugs: string[]): Promise<CommunityRow[]> {
  const isId = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
  const ids = idsOrSlugs.filter(isId).map((s) => s.toLowerCase());
  const slugs = idsOrSlugs.filter((s) => !isId(s)).map((s) => s.toLowerCase());
  if (ids.length === 0 && slugs.length === 0) return [];
  return db('communities')
    .select(COLUMNS)
    .where((w) => {
      if (ids.length) w.orWhereIn('id', ids);
      if (slugs.length) w.orWhereIn('slug', slugs);
    });
}

/** Communities with their insertion sequence (search indexing), by ids, or changed since a time, in seq order after `afterSeq`. */
export async function communitiesForIndex(
  db: Knex | Knex.Transaction,
  o: { ids?: string[]; since?: Date; afterSeq?: number; limit?: number },
): Promise<Array<CommunityRow & { seq: number }>> {
  const q = db('communities')
    .select([...COLUMNS, 'seq'])
    .orderBy('seq');
  if (o.ids) q.whereIn('id', o.ids);
  if (o.since) q.where('updated', '>=', o.since);
  if (o.afterSeq !== undefined) q.where('seq', '>', o.afterSeq);
  if (o.limit) q.limit(o.limit);
  return q;
}

/** Ids of the communities where a user is an active member (search scopes of the DSL engines). */
export async function memberCommunityIds(db: Knex | Knex.Transaction, userId: string): Promise<string[]> {
  const rows = await db('members').distinct('community_id').where({ member_type: 'user', member_id: userId, active: true });
  return rows.map((r: { community_id: string }) => r.community_id);
}

/** Ids of the communities featured now (start_date ≤ now). */
export async function featuredNowIds(db: Knex | Knex.Transaction): Promise<string[]> {
  const rows = await db('featured').distinct('community_id').where('start_date', '<=', db.fn.now());
  return rows.map((r: { community_id: string }) => r.community_id);
}

/** Is a slug taken (deleted communities included)? */
export async function slugTaken(db: Knex | Knex.Transaction, slug: string): Promise<boolean> {
  return !!(await db('communities').where({ slug }).first('id'));
}

/** Options of searchCommunities. */
export interface CommunitySearch {
  q?: SqlFragment;
  rank?: SqlFragment;
  /** Caller user id (restricted communities of its memberships are visible) and admin flag. */
  userId: string | null;
  admin: boolean;
  /** Only communities where this user is an active member. */
  memberOf?: string;
  /** Only communities featured now (start_date ≤ now). */
  featuredNow?: boolean;
  filters: { type: string[]; visibility: string[] };
  sort: string;
  from: number;
  size: number;
}

/** One facet count. */
export interface FacetCount {
  key: string;
  label: string | null;
  count: number;
}

function scoped(db: Knex | Knex.Transaction, o: CommunitySearch): Knex.QueryBuilder {
  const q = db('communities as c').where('c.deletion_status', 'P');
  if (o.q) q.whereRaw(o.q.sql, o.q.bindings);
  const memberSub = (uid: string) => db('members').select('community_id').where({ member_type: 'user', member_id: uid, active: true });
  if (!o.admin) {
    q.where((w) => {
      w.where('c.visibility', 'public');
      if (o.userId) w.orWhereIn('c.id', memberSub(o.userId));
    });
  }
  if (o.memberOf) q.whereIn('c.id', memberSub(o.memberOf));
  if (o.featuredNow) q.whereExists(db('featured as f').whereRaw('f.community_id = c.id AND f.start_date <= now()'));
  return q;
}

/** Search: hits, total and facet counts. */
export async function searchCommunities(
  db: Knex | Knex.Transaction,
  o: CommunitySearch,
): Promise<{ rows: CommunityRow[]; total: number; facets: { type: FacetCount[]; visibility: FacetCount[] } }> {
  const filtered = () => {
    const q = scoped(db, o);
    if (o.filters.type.length) q.whereIn('c.type_id', o.filters.type);
    if (o.filters.visibility.length) q.whereIn('c.visibility', o.filters.visibility);
    return q;
  };
  const hitsQ = filtered().select(COLUMNS.map((c) => `c.${c}`));
  if (o.sort === 'bestmatch' && o.rank) hitsQ.orderByRaw(`${o.rank.sql} DESC`, o.rank.bindings).orderBy('c.created', 'desc');
  else if (o.sort === 'oldest')
    hitsQ.orderBy([
      { column: 'c.created', order: 'asc' },
      { column: 'c.seq', order: 'asc' },
    ]);
  else if (o.sort === 'updated-desc') hitsQ.orderBy('c.updated', 'desc');
  else if (o.sort === 'updated-asc') hitsQ.orderBy('c.updated', 'asc');
  else
    hitsQ.orderBy([
      { column: 'c.created', order: 'desc' },
      { column: 'c.seq', order: 'desc' },
    ]);
  hitsQ.offset(o.from).limit(o.size);
  // Each statement bounded by the search timeout and cancelled when the client goes away (`q` decides its cost).
  const [rows, totalRow, types, vis] = await Promise.all([
    searchQuery(db, hitsQ),
    searchQuery(db, filtered().count({ n: '*' }).first()),
    searchQuery(
      db,
      scoped(db, o)
        .whereNotNull('c.type_id')
        .select('c.type_id as key', db.raw("max(c.metadata->'type'->'title'->>'en') as label"), db.raw('count(*)::int as count'))
        .groupBy('c.type_id')
        .orderBy([{ column: 'count', order: 'desc' }, { column: 'key' }]),
    ),
    searchQuery(
      db,
      scoped(db, o)
        .select('c.visibility as key', db.raw('count(*)::int as count'))
        .groupBy('c.visibility')
        .orderBy([{ column: 'count', order: 'desc' }, { column: 'key' }]),
    ),
  ]);
  return {
    rows: rows as CommunityRow[],
    total: Number((totalRow as { n: string | number } | undefined)?.n ?? 0),
    facets: {
      type: (types as FacetCount[]).map((t) => ({ ...t, count: Number(t.count) })),
      visibility: (vis as FacetCount[]).map((t) => ({ key: t.key, label: null, count: Number(t.count) })),
    },
  };
}

/** A featured entry. */
export interface FeaturedRow {
  id: string;
  community_id: string;
  start_date: Date;
  created: Date;
  updated: Date;
}

/** Featured entries of a community, newest start first. */
export async function listFeatured(db: Knex | Knex.Transaction, communityId: string): Promise<FeaturedRow[]> {
  return db('featured').where({ community_id: communityId }).orderBy('start_date', 'desc').select('*');
}

/** Insert a featured entry. */
export async function insertFeatured(trx: Knex | Knex.Transaction, communityId: string, startDate: Date): Promise<FeaturedRow> {
  const [row] = await trx('featured').insert({ community_id: communityId, start_date: startDate }).returning('*');
  return row;
}

/** Update a featured entry's start date (undefined when absent). */
export async function updateFeatured(
  trx: Knex | Knex.Transaction,
  communityId: string,
  id: string,
  startDate: Date,
): Promise<FeaturedRow | undefined> {
  const [row] = await trx('featured')
    .where({ id, community_id: communityId })
    .update({ start_date: startDate, updated: trx.fn.now() })
    .returning('*');
  return row;
}

/** Delete a featured entry; true when one went. */
export async function deleteFeatured(trx: Knex | Knex.Transaction, communityId: string, id: string): Promise<boolean> {
  return (await trx('featured').where({ id, community_id: communityId }).delete()) > 0;
}

/** A stored logo. */
export interface LogoRow {
  community_id: string;
  storage_key: string;
  size: string | number;
  checksum: string;
  mimetype: string;
  created: Date;
  updated: Date;
}

/** The logo row of a community. */
export async function findLogo(
  db: Knex | Knex.Transaction,
  communityId: string,
  opts: { lock?: boolean } = {},
): Promise<LogoRow | undefined> {
  const q = db('logos').where({ community_id: communityId }).first();
  if (opts.lock) q.forUpdate();
  return q;
}

/** Insert or replace the logo row. */
export async function upsertLogo(
  trx: Knex.Transaction,
  row: { community_id: string; storage_key: string; size: number; checksum: string; mimetype: string },
): Promise<LogoRow> {
  const [out] = await trx('logos')
    .insert(row)
    .onConflict('community_id')
    .merge({ ...row, updated: trx.fn.now() })
    .returning('*');
  return out;
}

/** Delete the logo row. */
export async function deleteLogo(trx: Knex.Transaction, communityId: string): Promise<void> {
  await trx('logos').where({ community_id: communityId }).delete();
}

/** Statistics of a community from the records it holds. */
export async function communityStatistics(
  db: Knex | Knex.Transaction,
  communityId: string,
): Promise<{ records: number; files: number; file_size: number; record_views: number; record_downloads: number }> {
  const row = await db('community_records as cr')
    .leftJoin('record_parents as p', 'p.parent_id', 'cr.parent_id')
    .where('cr.community_id', communityId)
    .first(
      db.raw('count(*)::int as records'),
      db.raw('coalesce(sum(p.files), 0)::bigint as files'),
      db.raw('coalesce(sum(p.file_size), 0)::bigint as file_size'),
    );
  return {
    records: Number(row?.records ?? 0),
    files: Number(row?.files ?? 0),
    file_size: Number(row?.file_size ?? 0),
    record_views: 0,
    record_downloads: 0,
  };
}
