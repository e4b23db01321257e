/**
 * Which `search_docs` rows a search may return (reference §4.1–§4.3), as SQL over the table's
 * columns: the scope of each endpoint and the permission filter of the records policy
 * (`records.policy.ts`), so that search never shows what a read would refuse.
 *
 * When to use: the record search service ANDs one scope with the compiled `q` and the facet
 * filters. Constants are inlined (not bound) so the planner can match the partial indexes of
 * migration 20250601000000.
 *
 * Read (`view`) filter of published records: public records for everyone; restricted ones for
 * their owner and for users or roles holding a grant on the parent; administrators and the
 * system see everything. Restricted access is a list of generators OR-ed together
 * (`RESTRICTED_READ_GENERATORS`: owner, grants, secret-link tokens). Scopes come in parts
 * (`Scope`) so that the facet counts of the part every
 * anonymous caller shares can be computed once and cached (search.service.ts).
 */
import { type Identity, isAdmin, isSystem } from '@rdm/platform';
import type { LinkIdentity } from '../domain/records.policy.js';
import { ALL_FILES, type FilesGuard, publishedFilesGuard } from './files-guard.js';
import { andAll, frag, orAll, type Sql } from './sql.js';

/** Grant levels of the records policy, weakest first. */
const LEVELS = ['view', 'preview', 'edit', 'manage'] as const;
type Level = (typeof LEVELS)[number];

/**
 * Rows of kind `kind` whose parent grants `identity` (the user or one of its roles) at least
 * `level`, as `id IN (…)` over jsonb containment on `doc` (GIN `jsonb_path_ops`). The subquery
 * keeps the outer scan free of `doc`, so facet counts stay an index-only scan.
 */
export function grantFilter(identity: Identity, kind: 'record' | 'any', level: Level): Sql | null {
  if (identity.sub === null) return null;
  const subjects = [{ type: 'user', id: identity.sub }, ...identity.roles.map((r) => ({ type: 'role', id: r }))];
  const levels = level === 'view' ? [undefined] : LEVELS.slice(LEVELS.indexOf(level));
  const docs: string[] = [];
  for (const subject of subjects) {
    for (const permission of levels) {
      const grant = permission ? { subject, permission } : { subject };
      docs.push(JSON.stringify({ parent: { access: { grants: [grant] } } }));
    }
  }
  const kindSql = kind === 'record' ? "g.kind = 'record' AND " : '';
  return {
    sql: `id IN (SELECT g.id FROM search_docs g WHERE ${kindSql}(${docs.map(() => 'g.doc @> ?::jsonb').join(' OR ')}))`,
    bindings: docs,
  };
}

/** What a search knows about the caller beyond its identity. */
export interface ReaderCtx {
  /** Communities the caller is an active member of (any role): they read those communities' records. */
  memberOf?: readonly string[];
}

/** One way of being allowed to read a restricted published record (and its files) in a search. */
export type ReadGenerator = (identity: Identity, ctx: ReaderCtx) => Sql | null;

/**
 * Generators of the `view` level (OR-ed): owner, grants, secret links, members of the record's
 * communities (InvenioRDM's `CommunityMembers` search filter). Public records are readable by
 * everyone (the shared part of every scope); the same generators decide `read_files`.
 */
export const RESTRICTED_READ_GENERATORS: readonly ReadGenerator[] = [
  (i) => (i.sub === null ? null : frag('owner_id = ?', i.sub)),
  (i) => grantFilter(i, 'record', 'view'),
  // Secret links presented as `?token=` (resolved into the identity by access.routes.ts).
  (i) => {
    const parents = [...new Set(((i as LinkIdentity).links ?? []).map((l) => l.parentId))];
    return parents.length ? frag(`parent_id IN (${parents.map(() => '?').join(', ')})`, ...parents) : null;
  },
  (i, c) => (i.sub === null || !c.memberOf?.length ? null : frag('community_ids && ?::text[]', [...c.memberOf])),
];

/** OR of the caller's `view` generators; null when it has none (anonymous without links). */
function personalRead(identity: Identity, ctx: ReaderCtx): Sql | null {
  const parts = RESTRICTED_READ_GENERATORS.map((g) => g(identity, ctx)).filter((p): p is Sql => p !== null);
  return parts.length ? orAll(parts) : null;
}

/**
 * A search scope in parts: every row matches `common` AND (`shared` OR `personal`). `shared` is
 * the same for every caller of a kind (public records, or everything for administrators), so its
 * facet counts may be cached and shared; `personal` (disjoint from `shared`) is what only this
 * caller may read.
 */
export interface Scope extends FilesGuard {
  common: Sql;
  shared: Sql | null;
  personal: Sql | null;
  /** Whether facet counts of `common AND shared` may be shared between callers. */
  shareable: boolean;
}

/** The whole condition of a scope. */
export function scopeSql(s: Scope): Sql {
  return andAll([s.common, orAll([s.shared, s.personal])]);
}

/** The read filter of published records for `identity`, in a shared and a personal part. */
export function readParts(identity: Identity, ctx: ReaderCtx = {}): Pick<Scope, 'shared' | 'personal'> {
  if (isAdmin(identity) || isSystem(identity)) return { shared: frag('TRUE'), personal: null };
  const personal = personalRead(identity, ctx);
  return {
    shared: frag("access_record = 'public'"),
    personal: personal ? andAll([frag("access_record = 'restricted'"), personal]) : null,
  };
}

/** The read filter of published records for `identity` (TRUE for administrators and the system). */
export function readFilter(identity: Identity, ctx: ReaderCtx = {}): Sql {
  const p = readParts(identity, ctx);
  return orAll([p.shared, p.personal]);
}

/**
 * Scope of `/api/records` and `/api/communities/<id>/records` (`communityId`: the parent's
 * `community_ids` contain it; `member`: the caller is a member of that community, so its
 * restricted records are readable too).
 */
export function publishedScope(identity: Identity, o: { allVersions: boolean; communityId?: string; member?: boolean } & ReaderCtx): Scope {
  const parts = readParts(identity, o);
  const member = o.communityId !== undefined && !!o.member;
  if (member && !(isAdmin(identity) || isSystem(identity))) {
    parts.personal = frag("access_record = 'restricted'");
  }
  return {
    common: andAll([
      frag("kind = 'record'"),
      frag("deletion_status = 'P'"),
      o.allVersions ? null : frag('is_latest'),
      o.communityId === undefined ? null : frag('community_ids @> ARRAY[?]::text[]', o.communityId),
    ]),
    ...parts,
    shareable: true,
    // Members of the listed community read every file of its records (`view` via community members).
    ...publishedFilesGuard(identity, personalRead(identity, o), member),
  };
}

/**
 * Scope of `/api/user/records`: drafts and records without a draft (so an edited record shows
 * once, as its draft), non-deleted, the latest draft per parent unless `allVersions`; owned
 * ones (`sharedWithMe` false), shared ones through a `preview`+ grant (true), or both (absent).
 */
export function userScope(identity: Identity, o: { allVersions: boolean; sharedWithMe?: boolean }): Scope {
  if (identity.sub === null) return { common: frag('FALSE'), shared: null, personal: null, shareable: false, ...ALL_FILES };
  const owned = frag('owner_id = ?', identity.sub);
  const shared = grantFilter(identity, 'any', 'preview');
  let who: Sql;
  if (o.sharedWithMe === true) who = andAll([shared ?? frag('FALSE'), frag('owner_id IS DISTINCT FROM ?', identity.sub)]);
  else if (o.sharedWithMe === false) who = owned;
  else who = orAll([owned, shared]);
  return {
    common: andAll([
      frag("(kind = 'draft' OR (kind = 'record' AND NOT has_draft AND deletion_status = 'P'))"),
      o.allVersions ? null : frag('is_latest_draft'),
    ]),
    shared: null,
    personal: who,
    shareable: false,
    // Own or shared with at least `preview`: every file is readable (`read_draft`/`read_files`).
    ...ALL_FILES,
  };
}
