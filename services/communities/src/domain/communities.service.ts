/**
 * The communities domain: create, read, update, rename, delete/restore, search and featured
 * entries. Every write runs in one transaction with its outbox events; RPCs (vocabularies,
 * users, requests) run before the transaction so no row lock waits on the network.
 */
import type { CommunitySummary, EventData } from '@rdm/contracts';
import { randomUUID } from 'node:crypto';
import {
  checkRevision,
  compileToSql,
  Errors,
  type FieldError,
  type Identity,
  isAdmin,
  isSystem,
  type Knex,
  type ListArgs,
  type Logger,
  MAX_BYTES,
  type QueryAst,
  parseQuery,
  QuerySyntaxError,
  rankSql,
  type SqlFragment,
  withTransaction,
  writeOutbox,
} from '@rdm/platform';
import * as repo from '../repo/communities.repo.js';
import type { CommunityRow } from '../repo/communities.repo.js';
import { insertMember, roleOf } from '../repo/members.repo.js';
import {
  type CommunityAccess,
  expandMetadata,
  parseCommunityBody,
  parseSlug,
  type ResolvedEntry,
  SLUG_MESSAGES,
  type VocabRef,
} from './community-input.js';
import { type CommunityAction, type CommunityCtx, communitiesPolicy } from './communities.policy.js';
import { CommunityCustomFields } from './custom-fields.js';
import { CommunityErrors } from './errors.js';
import type { RecordsUsagePort, RequestsPort, UsersPort, VocabulariesPort } from './ports.js';
import type { Policy } from '@rdm/platform';
import type { CommunitySearchIndex } from '../search/community-index.js';
import type { MemberSearchIndex } from '../search/member-index.js';
import type { Role } from './roles.js';

type CommunityVisibility = NonNullable<EventData['rdm.communities.community.updated']['visibility']>;

/** Sorts of the community searches. */
export const COMMUNITY_SORTS = ['bestmatch', 'newest', 'oldest', 'updated-desc', 'updated-asc'] as const;

/** A community and the caller's role in it. */
export interface LoadedCommunity {
  row: CommunityRow;
  role: Role | null;
}

/** Dependencies of the service. */
export interface CommunitiesServiceDeps {
  db: Knex;
  users: UsersPort;
  vocabularies: VocabulariesPort;
  requests: RequestsPort;
  /** Records' usage totals for `record_views` / `record_downloads`; absent: zeros. */
  usage?: RecordsUsagePort;
  creators: 'admins' | 'users';
  logger: Pick<Logger, 'warn'>;
  /** The search engine index (SEARCH_ENGINE opensearch/elasticsearch); absent: the postgres engine. */
  search?: CommunitySearchIndex;
  /** The member-lists index (same engine): the creator's membership is indexed after a create. */
  memberSearch?: MemberSearchIndex;
  /** COMMUNITIES_CUSTOM_FIELDS; absent: none configured (only `custom_fields: {}` is accepted). */
  customFields?: CommunityCustomFields;
}

const isUniqueViolation = (e: unknown) => (e as { code?: string })?.code === '23505';

/** Parse `q` (InvenioRDM's OR default) and compile it; 400 on bad syntax. */
export function compileQ(q: string, fields: Parameters<typeof compileToSql>[1]): { where?: SqlFragment; rank?: SqlFragment } {
  if (!q) return {};
  try {
    const ast = parseQuery(q, { defaultOperator: 'OR' });
    return { where: compileToSql(ast, fields), rank: rankSql(ast, fields) };
  } catch (e) {
    if (e instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(e);
    throw e;
  }
}

/** Parse `q` for a search engine; 400 on bad syntax. */
export function parseQ(q: string): QueryAst | undefined {
  if (!q) return undefined;
  try {
    return parseQuery(q, { defaultOperator: 'OR' });
  } catch (e) {
    if (e instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(e);
    throw e;
  }
}

/** The communities service. */
export class CommunitiesService {
  readonly policy: Policy<CommunityAction, CommunityCtx>;
  private readonly db: Knex;

  private readonly customFields: CommunityCustomFields;

  constructor(private readonly deps: CommunitiesServiceDeps) {
    this.db = deps.db;
    this.policy = communitiesPolicy(deps.creators);
    this.customFields = deps.customFields ?? CommunityCustomFields.fromConfig('', MAX_BYTES);
  }

  /** The `custom_fields` of a body, validated; its errors join `errors`. */
  private checkCustomFields(body: unknown, errors: FieldError[]) {
    const cf = this.customFields.check((body as { custom_fields?: unknown } | null)?.custom_fields);
    errors.push(...cf.errors);
    return cf;
  }

  /** 403 for a `children` change: InvenioRDM's `manage_children` is the system's alone. */
  private requireChildrenUnchanged(identity: Identity, childrenChange: boolean): void {
    if (childrenChange && !isSystem(identity)) throw Errors.permissionDenied();
  }

  /** A community by id or slug with the caller's role: 404 unknown, 410 deleted (unless `allowDeleted`). */
  async load(
    identity: Identity,
    idOrSlug: string,
    opts: { allowDeleted?: boolean; db?: Knex | Knex.Transaction; lock?: boolean } = {},
  ): Promise<LoadedCommunity> {
    const db = opts.db ?? this.db;
    const row = await repo.findCommunity(db, idOrSlug, { lock: opts.lock });
    if (!row) throw CommunityErrors.notFound();
    if (row.deletion_status !== 'P' && !opts.allowDeleted) throw CommunityErrors.deleted();
    const role = identity.sub ? await roleOf(db, row.id, identity.sub) : null;
    return { row, role };
  }

  /** Load and require `action` (read is always required first). */
  async authorize(
    identity: Identity,
    idOrSlug: string,
    action: CommunityAction,
    opts: { allowDeleted?: boolean } = {},
  ): Promise<LoadedCommunity> {
    const c = await this.load(identity, idOrSlug, opts);
    const ctx = { community: c.row, role: c.role };
    if (c.row.deletion_status === 'P') this.policy.require('read', identity, ctx);
    this.policy.require(action, identity, ctx);
    return c;
  }

  /** Resolve vocabulary references; unknown ids become field errors. */
  private async resolveRefs(refs: VocabRef[], errors: FieldError[]): Promise<Map<string, ResolvedEntry>> {
    const out = new Map<string, ResolvedEntry>();
    if (refs.length === 0) return out;
    const items = await this.deps.vocabularies.resolve(refs.map((r) => ({ type: r.type, id: r.id })));
    refs.forEach((r, i) => {
      const it = items[i];
      if (it?.found && it.entry) out.set(`${r.type}:${r.id}`, it.entry);
      else errors.push({ field: r.field, messages: [`Invalid value ${r.id}.`] });
    });
    return out;
  }

  /**
   * Statistics of a community: records, files and bytes from this service's own event-fed
   * counts; views and downloads from records (which counts them), 0 while records cannot say.
   */
  async statistics(id: string) {
    const [own, usage] = await Promise.all([
      repo.communityStatistics(this.db, id),
      this.deps.usage?.communityUsage(id).catch((err) => {
        this.deps.logger.warn({ err, community: id }, 'community usage unavailable: views and downloads shown as 0');
        return undefined;
      }),
    ]);
    return { ...own, record_views: usage?.views ?? 0, record_downloads: usage?.downloads ?? 0 };
  }

  /** Create a community; the creator becomes its (hidden) owner. */
  async create(identity: Identity, body: unknown): Promise<CommunityRow> {
    this.policy.require('create', identity);
    const parsed = parseCommunityBody(body);
    const cf = this.checkCustomFields(body, parsed.errors);
    const entries = await this.resolveRefs([...parsed.refs, ...cf.refs], parsed.errors);
    if (parsed.slug && (await repo.slugTaken(this.db, parsed.slug))) parsed.errors.push({ field: 'slug', messages: [SLUG_MESSAGES.taken] });
    if (parsed.errors.length) throw Errors.validation(parsed.errors);
    this.requireChildrenUnchanged(identity, parsed.childrenChange);
    const creator = identity.sub && identity.sub !== 'system' ? await this.userInfo(identity.sub) : undefined;
    const metadata = expandMetadata(parsed.metadata, entries);
    const customFields = this.customFields.dereference(cf.value, entries);
    const ownerRow: string[] = [];
    try {
      const created = await this.write(async (trx) => {
        const row = await repo.insertCommunity(trx, {
          id: randomUUID(),
          slug: parsed.slug as string,
          metadata,
          access: parsed.access,
          custom_fields: customFields,
        });
        await this.event(trx, 'created', row);
        if (creator) {
          const m = await insertMember(trx, {
            id: randomUUID(),
            community_id: row.id,
            member_type: 'user',
            member_id: creator.id,
            role: 'owner',
            visible: false,
            active: true,
            name: creator.name,
            username: creator.username,
            email: creator.email,
            affiliations: creator.affiliations,
            request_id: null,
            request_type: null,
            request_status: null,
            request_expires_at: null,
          });
          await writeOutbox(trx, {
            subject: 'rdm.communities.member.added',
            aggregate: { type: 'member', id: m.id, revision: m.revision_id },
            data: { community_id: row.id, member_type: 'user', member_id: m.member_id, role: 'owner', visible: false },
          });
          ownerRow.push(m.id);
        }
        return row;
      });
      await this.deps.memberSearch?.afterCommit(ownerRow);
      return created;
    } catch (e) {
      if (isUniqueViolation(e)) throw Errors.validation([{ field: 'slug', messages: [SLUG_MESSAGES.taken] }]);
      throw e;
    }
  }

  /** Name, username, e-mail of a user for a member row (best effort: a users outage leaves the name empty). */
  async userInfo(
    userId: string,
  ): Promise<{ id: string; name: string; username: string | null; email: string | null; affiliations: string }> {
    try {
      const [u] = await this.deps.users.getUsers([userId]);
      if (u)
        return {
          id: u.id,
          name: u.full_name || u.username || '',
          username: u.username,
          email: u.email,
          affiliations: u.affiliations ?? '',
        };
    } catch (err) {
      this.deps.logger.warn({ err, userId }, 'users lookup failed; member name left empty');
    }
    return { id: userId, name: '', username: null, email: null, affiliations: '' };
  }

  /** Read one community (restricted → members; deleted → 410). */
  async read(identity: Identity, idOrSlug: string): Promise<LoadedCommunity> {
    return this.authorize(identity, idOrSlug, 'read');
  }

  /** Update metadata and access (owners, administrators); If-Match optional. */
  async update(identity: Identity, idOrSlug: string, body: unknown, revision?: number): Promise<CommunityRow> {
    const c = await this.authorize(identity, idOrSlug, 'update');
    const parsed = parseCommunityBody(body, { slug: c.row.slug, access: c.row.access });
    if (parsed.access.visibility !== c.row.access.visibility)
      this.policy.require('manage_access', identity, { community: c.row, role: c.role });
    const cf = this.checkCustomFields(body, parsed.errors);
    const entries = await this.resolveRefs([...parsed.refs, ...cf.refs], parsed.errors);
    if (parsed.errors.length) throw Errors.validation(parsed.errors);
    this.requireChildrenUnchanged(identity, parsed.childrenChange);
    const metadata = expandMetadata(parsed.metadata, entries);
    // Why a replace (absent → {}): InvenioRDM's community schema defaults `custom_fields` to `{}`.
    const customFields = this.customFields.dereference(cf.value, entries);
    return this.write(async (trx) => {
      const current = await repo.findCommunity(trx, c.row.id, { lock: true });
      if (!current) throw CommunityErrors.notFound();
      if (current.deletion_status !== 'P') throw CommunityErrors.deleted();
      checkRevision(revision, current.revision_id);
      const row = await repo.updateCommunity(trx, current, {
        metadata,
        access: parsed.access as CommunityAccess,
        custom_fields: customFields,
      });
      await this.event(trx, 'updated', row);
      return row;
    });
  }

  /** Rename (new slug). */
  async rename(identity: Identity, idOrSlug: string, body: unknown): Promise<CommunityRow> {
    const c = await this.authorize(identity, idOrSlug, 'rename');
    const errors: FieldError[] = [];
    const raw = typeof body === 'object' && body !== null ? (body as { slug?: unknown }).slug : undefined;
    const slug = parseSlug(raw, errors);
    if (slug !== undefined && slug === c.row.slug) errors.push({ field: 'slug', messages: [SLUG_MESSAGES.sameRename] });
    else if (slug !== undefined && (await repo.slugTaken(this.db, slug))) errors.push({ field: 'slug', messages: [SLUG_MESSAGES.taken] });
    if (errors.length) throw Errors.validation(errors);
    try {
      return await this.write(async (trx) => {
        const current = await repo.findCommunity(trx, c.row.id, { lock: true });
        if (!current || current.deletion_status !== 'P') throw CommunityErrors.deleted();
        const row = await repo.updateCommunity(trx, current, { slug });
        await this.event(trx, 'updated', row);
        return row;
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw Errors.validation([{ field: 'slug', messages: [SLUG_MESSAGES.taken] }]);
      throw e;
    }
  }

  /** Soft delete (owners, administrators); open requests received by the community block it. */
  async delete(identity: Identity, idOrSlug: string, body: unknown, revision?: number): Promise<void> {
    const c = await this.authorize(identity, idOrSlug, 'delete');
    const open = await this.deps.requests.countOpen({ community: c.row.id });
    if (open > 0) throw CommunityErrors.openRequests(open);
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    await this.write(async (trx) => {
      const current = await repo.findCommunity(trx, c.row.id, { lock: true });
      if (!current || current.deletion_status !== 'P') throw CommunityErrors.deleted();
      checkRevision(revision, current.revision_id);
      const tombstone = {
        removed_by: { user: identity.sub },
        removal_date: new Date().toISOString(),
        ...(b.removal_reason !== undefined ? { removal_reason: b.removal_reason } : {}),
        note: typeof b.note === 'string' ? b.note : '',
        citation_text: typeof b.citation_text === 'string' ? b.citation_text : '',
        is_visible: b.is_visible !== false,
      };
      const row = await repo.updateCommunity(trx, current, { deletion_status: 'D', tombstone });
      await this.event(trx, 'deleted', row);
    });
  }

  /** Restore a soft-deleted community (owners, administrators). */
  async restore(identity: Identity, idOrSlug: string): Promise<CommunityRow> {
    const c = await this.authorize(identity, idOrSlug, 'restore', { allowDeleted: true });
    if (c.row.deletion_status === 'P') throw CommunityErrors.badDeletionState('The community is not deleted.');
    return this.write(async (trx) => {
      const current = await repo.findCommunity(trx, c.row.id, { lock: true });
      if (!current || current.deletion_status === 'P') throw CommunityErrors.badDeletionState('The community is not deleted.');
      const row = await repo.updateCommunity(trx, current, { deletion_status: 'P', tombstone: null });
      await this.event(trx, 'restored', row);
      return row;
    });
  }

  /** Search communities (`scope`: all visible, the caller's, or featured now). */
  async search(
    identity: Identity,
    args: ListArgs,
    filters: { type: string[]; visibility: string[] },
    scope: 'all' | 'user' | 'featured' = 'all',
  ) {
    if (scope === 'user' && !identity.sub) throw Errors.permissionDenied();
    const common = {
      userId: identity.sub,
      admin: isAdmin(identity) && scope !== 'featured',
      memberOf: scope === 'user' ? (identity.sub as string) : undefined,
      featuredNow: scope === 'featured',
      filters: scope === 'featured' ? { type: filters.type, visibility: ['public'] } : filters,
      sort: args.sort,
      from: args.from,
      size: args.size,
    };
    if (this.deps.search) {
      return this.deps.search.search({ ...common, ast: parseQ(args.q) });
    }
    const { where, rank } = compileQ(args.q, repo.COMMUNITY_FIELDS);
    return repo.searchCommunities(this.db, { ...common, q: where, rank });
  }

  /** Featured entries of a community (administrators). */
  async listFeatured(identity: Identity, idOrSlug: string) {
    const c = await this.authorize(identity, idOrSlug, 'featured');
    return repo.listFeatured(this.db, c.row.id);
  }

  /** Add, change or remove a featured entry (administrators). */
  async writeFeatured(identity: Identity, idOrSlug: string, op: 'create' | 'update' | 'delete', body: unknown, fid?: string) {
    const c = await this.authorize(identity, idOrSlug, 'featured');
    if (fid !== undefined && !/^\d{1,18}$/.test(fid)) throw CommunityErrors.featuredNotFound();
    if (op === 'delete') {
      if (!(await repo.deleteFeatured(this.db, c.row.id, fid as string))) throw CommunityErrors.featuredNotFound();
      return undefined;
    }
    const raw = typeof body === 'object' && body !== null ? (body as { start_date?: unknown }).start_date : undefined;
    // Why required: InvenioRDM's featured schema requires `start_date` on create and update.
    const start = typeof raw === 'string' ? new Date(raw) : undefined;
    if (!start || Number.isNaN(start.getTime())) {
      throw Errors.validation([
        { field: 'start_date', messages: [raw === undefined ? 'Missing data for required field.' : 'Not a valid datetime.'] },
      ]);
    }
    if (op === 'create') return repo.insertFeatured(this.db, c.row.id, start);
    const row = await repo.updateFeatured(this.db, c.row.id, fid as string, start);
    if (!row) throw CommunityErrors.featuredNotFound();
    return row;
  }

  /** Summaries for `rdm.communities.rpc.get`. */
  async summaries(idsOrSlugs: string[]): Promise<CommunitySummary[]> {
    const rows = await repo.findCommunities(this.db, idsOrSlugs);
    return rows.map((r) => ({
      id: r.id,
      slug: r.slug,
      title: r.title,
      visibility: r.access.visibility,
      members_visibility: r.access.members_visibility,
      member_policy: r.access.member_policy,
      record_submission_policy: r.access.record_submission_policy,
      review_policy: r.access.review_policy,
      is_deleted: r.deletion_status !== 'P',
    }));
  }

  /**
   * One write transaction; afterwards the communities it touched are indexed inline (search engine
   * only), with refresh `wait_for` so the writer's next search sees the write.
   */
  private async write<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const touched: string[] = [];
    const result = await withTransaction(this.db, async (trx) => {
      this.touched.set(trx, touched);
      return fn(trx);
    });
    await this.deps.search?.afterCommit(touched);
    return result;
  }

  private readonly touched = new WeakMap<Knex.Transaction, string[]>();

  private async event(trx: Knex.Transaction, verb: 'created' | 'updated' | 'deleted' | 'restored', row: CommunityRow): Promise<void> {
    this.touched.get(trx)?.push(row.id);
    await writeOutbox(trx, {
      subject: `rdm.communities.community.${verb}`,
      aggregate: { type: 'community', id: row.id, revision: row.revision_id },
      // The column only ever holds a validated visibility (community-input.ts).
      data: { id: row.id, slug: row.slug, visibility: row.access.visibility as CommunityVisibility },
    });
  }
}
