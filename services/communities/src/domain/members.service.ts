/**
 * Members, invitations and membership requests (reference §1.5, §3). Invitations and
 * membership requests are requests of the requests service: a pending (inactive) member row is
 * inserted and the request created over RPC in the SAME transaction before it commits (the
 * request key is the row id, derived from community, user and round, so a retry gets the same
 * request). Their outcome arrives as `rdm.requests.request.*` events, applied by
 * `applyRequestEvent` inside the consumer's inbox transaction.
 *
 * Every change of a member row writes an event whose aggregate is that row (`member.*` for active
 * members, `member-request.*` for pending and closed requests): the member-list search indexer
 * (SEARCH_ENGINE opensearch/elasticsearch) follows them, and the writer indexes the rows it touched
 * right after its commit (read-your-writes).
 */
import type { EventData } from '@rdm/contracts';
import { createHash } from 'node:crypto';
import {
  Errors,
  type Identity,
  isAdmin,
  type Knex,
  type ListArgs,
  type QueryAst,
  type SqlFragment,
  withTransaction,
  writeOutbox,
} from '@rdm/platform';
import * as repo from '../repo/members.repo.js';
import type { MemberRow } from '../repo/members.repo.js';
import type { MemberSearchIndex } from '../search/member-index.js';
import type { CommunitiesService, LoadedCommunity } from './communities.service.js';
import { compileQ, parseQ } from './communities.service.js';
import { isUuid } from './community-input.js';
import { CommunityErrors } from './errors.js';
import { parseMembersBody } from './member-input.js';
import type { RequestInfo, RequestsPort, UsersPort } from './ports.js';
import { type Actor, canManageRole, checkMemberRemoval, checkMemberUpdate, ROLE_TITLES, type Role } from './roles.js';

/** Request types whose effect is a membership. */
export const INVITATION = 'community-invitation';
/** Membership request type. */
export const MEMBERSHIP_REQUEST = 'community-membership-request';

/** Sorts of member lists. */
export const MEMBER_SORTS = ['bestmatch', 'name', 'newest', 'oldest'] as const;

const ALREADY = 'One of the submitted entity is already a member or pending a decision. The entire action was cancelled.';

/** A deterministic UUID from a string (the idempotency key of an invitation round). */
export function uuidFrom(s: string): string {
  const h = createHash('sha1').update(s).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((Number.parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * `q` compiled for the postgres engine (`repo.MemberSearch`'s `q` and `rank`); 400 on bad syntax.
 * Only administrators search on e-mail addresses (repo.MEMBER_FIELDS_PUBLIC says why).
 */
function sqlQ(q: string, identity: Identity): { q?: SqlFragment; rank?: SqlFragment } {
  const { where, rank } = compileQ(q, isAdmin(identity) ? repo.MEMBER_FIELDS : repo.MEMBER_FIELDS_PUBLIC);
  return { q: where, rank };
}

/** Matches nothing (an `or` without children). */
const NOTHING: QueryAst = { type: 'or', children: [] };

/** `ast` with every `email:` clause matching nothing (as `repo.MEMBER_FIELDS_PUBLIC` on postgres). */
function withoutEmail(ast: QueryAst): QueryAst {
  switch (ast.type) {
    case 'and':
    case 'or':
      return { ...ast, children: ast.children.map(withoutEmail) };
    case 'not':
      return { ...ast, child: withoutEmail(ast.child) };
    case 'all':
      return ast;
    default:
      return ast.field === 'email' ? NOTHING : ast;
  }
}

/** `q` parsed for a search engine; only administrators search on e-mail addresses. */
function engineQ(q: string, identity: Identity): QueryAst | undefined {
  const ast = parseQ(q);
  return ast && !isAdmin(identity) ? withoutEmail(ast) : ast;
}

/** Dependencies of the service. */
export interface MembersServiceDeps {
  db: Knex;
  communities: CommunitiesService;
  users: UsersPort;
  requests: RequestsPort;
  allowMembershipRequests: boolean;
  /** The member-lists index (SEARCH_ENGINE opensearch/elasticsearch); absent: the postgres engine. */
  search?: MemberSearchIndex;
}

/** The members service. */
export class MembersService {
  private readonly db: Knex;
  constructor(private readonly deps: MembersServiceDeps) {
    this.db = deps.db;
  }

  /** The caller as the member rules see it. */
  actor(identity: Identity, role: Role | null): Actor {
    return { userId: identity.sub, role, admin: isAdmin(identity) };
  }

  /** Members endpoints need the community UUID: a slug is a 400 (reference §7). */
  private async community(
    identity: Identity,
    id: string,
    action: Parameters<CommunitiesService['authorize']>[2],
  ): Promise<LoadedCommunity> {
    if (!isUuid(id)) throw Errors.validation([{ field: 'pid_value', messages: ['Not a valid UUID.'] }]);
    return this.deps.communities.authorize(identity, id, action);
  }

  /**
   * A member list searched for `q` on the search engine when there is one, else in PostgreSQL (the
   * caller's query narrowed to what it may search), with the caller's actor and the community.
   */
  private async found<R extends object>(
    identity: Identity,
    c: LoadedCommunity,
    q: string,
    onEngine: (search: MemberSearchIndex, ast: QueryAst | undefined) => Promise<R>,
    inSql: (q: { q?: SqlFragment; rank?: SqlFragment }) => Promise<R>,
  ) {
    const { search } = this.deps;
    const res = search ? await onEngine(search, engineQ(q, identity)) : await inSql(sqlQ(q, identity));
    return { ...res, actor: this.actor(identity, c.role), community: c.row };
  }

  /** `GET …/members` (members only) or `GET …/members/public` (visible members). */
  async search(identity: Identity, id: string, args: ListArgs, filters: Record<string, string[]>, publicOnly: boolean) {
    const c = await this.community(identity, id, publicOnly ? 'read_public_members' : 'search_members');
    const common = {
      communityId: c.row.id,
      sort: args.sort,
      from: args.from,
      size: args.size,
      filters: publicOnly ? {} : filters,
      publicOnly,
      facets: !publicOnly,
    };
    return this.found(
      identity,
      c,
      args.q,
      (search, ast) => search.searchMembers({ ...common, ast }),
      (q) => repo.searchMembers(this.db, { ...common, ...q }),
    );
  }

  /** `PUT …/members`: change role and/or visibility. */
  async update(identity: Identity, id: string, body: unknown): Promise<void> {
    const c = await this.community(identity, id, 'search_members');
    const input = parseMembersBody(body, { need: ['visible_or_role'] });
    const actor = this.actor(identity, c.role);
    await this.write(async (trx, touch) => {
      const rows = await this.activeRows(trx, c.row.id, input.members);
      for (const m of rows) {
        const refusal = checkMemberUpdate(actor, m, { role: input.role, visible: input.visible });
        if (refusal?.kind === 'denied') throw Errors.permissionDenied();
        if (refusal?.kind === 'bad') throw CommunityErrors.schema(refusal.message);
      }
      for (const m of rows) {
        const patch: Partial<MemberRow> = {};
        if (input.role !== undefined) patch.role = input.role;
        if (input.visible !== undefined) patch.visible = input.visible;
        const row = await repo.updateMember(trx, m.id, patch);
        await this.memberEvent(trx, 'updated', row);
        touch(row.id);
      }
      if ((await repo.countOwners(trx, c.row.id)) === 0) throw CommunityErrors.lastOwner();
    });
  }

  /** `DELETE …/members`: leave (yourself) or remove others. */
  async remove(identity: Identity, id: string, body: unknown): Promise<void> {
    const c = await this.community(identity, id, 'search_members');
    const input = parseMembersBody(body);
    const actor = this.actor(identity, c.role);
    await this.write(async (trx, touch) => {
      const rows = await this.activeRows(trx, c.row.id, input.members);
      for (const m of rows) if (checkMemberRemoval(actor, m)) throw Errors.permissionDenied();
      for (const m of rows) {
        await repo.deleteMember(trx, m.id);
        await this.memberEvent(trx, 'removed', m);
        touch(m.id);
      }
      if ((await repo.countOwners(trx, c.row.id)) === 0) throw CommunityErrors.lastOwner();
    });
  }

  /** Active rows of the given members, locked; any unknown one → 400. */
  private async activeRows(trx: Knex.Transaction, communityId: string, members: { type: string; id: string }[]): Promise<MemberRow[]> {
    const rows = (await repo.findMembersFor(trx, communityId, members, { lock: true })).filter((r) => r.active);
    const unique = new Set(members.map((m) => `${m.type}:${m.id}`));
    if (rows.length !== unique.size) throw CommunityErrors.members('Invalid member specified.');
    return rows;
  }

  /** `POST …/invitations`: a pending row and a community-invitation request per user. */
  async invite(identity: Identity, id: string, body: unknown): Promise<void> {
    const c = await this.community(identity, id, 'manage_members');
    const input = parseMembersBody(body, { need: ['role'], allowMessage: true });
    const role = input.role as Role;
    if (!canManageRole(this.actor(identity, c.role), role)) throw Errors.permissionDenied();
    const ids = [...new Set(input.members.map((m) => m.id))];
    const users = await this.deps.users.getUsers(ids);
    const byId = new Map(users.map((u) => [u.id, u]));
    if (ids.some((uid) => !byId.get(uid)?.active)) throw CommunityErrors.members('Invalid member specified.');
    if ((await repo.findMembersFor(this.db, c.row.id, input.members)).length > 0) throw CommunityErrors.members(ALREADY);
    await this.withUniqueGuard(() =>
      this.write(async (trx, touch) => {
        for (const uid of ids) {
          const u = byId.get(uid)!;
          const round = await repo.countArchived(trx, c.row.id, uid, INVITATION);
          const row = await repo.insertMember(trx, {
            id: uuidFrom(`${c.row.id}:user:${uid}:${INVITATION}:${round}`),
            community_id: c.row.id,
            member_type: 'user',
            member_id: uid,
            role,
            visible: false,
            active: false,
            name: u.full_name || u.username || '',
            username: u.username,
            email: u.email,
            affiliations: u.affiliations ?? '',
            request_id: null,
            request_type: INVITATION,
            request_status: null,
            request_expires_at: null,
          });
          const request = await this.deps.requests.create({
            identity: { sub: identity.sub, roles: identity.roles },
            type: INVITATION,
            created_by: { community: c.row.id },
            receiver: { user: uid },
            topic: { community: c.row.id },
            title: `Invitation to join "${c.row.title}"`,
            description: `You will join as "${ROLE_TITLES[role]}".`,
            payload: { role },
            ...(input.message ? { comment: { content: input.message, format: 'html' } } : {}),
            key: row.id,
          });
          touch(await this.recordRequest(trx, row.id, request));
        }
      }),
    );
  }

  /**
   * `PUT …/invitations` (`type` INVITATION) or `PUT …/membership-requests` (MEMBERSHIP_REQUEST):
   * change the role pending requests of that type will grant on accept. InvenioRDM serves both
   * (and `PUT …/members`) with one bulk update; here each route changes only its own kind of row,
   * so a member listed under the wrong route is `Invalid member specified.`. Who may: as
   * InvenioRDM's `members_update`, a manager of both the old and the new role (owners, managers
   * below owner, administrators). Each changed request gets the reference's comment (by the
   * system, over `rdm.requests.rpc.comment`, before the commit: a failed call rolls the change
   * back; a commit failing after it leaves the comment). `COMMUNITIES_ALLOW_MEMBERSHIP_REQUESTS`
   * is not checked, as in InvenioRDM: requests made while it was on can still be managed.
   */
  async updatePending(identity: Identity, id: string, body: unknown, type: typeof INVITATION | typeof MEMBERSHIP_REQUEST): Promise<void> {
    const c = await this.community(identity, id, 'manage_members');
    const input = parseMembersBody(body, { need: ['role'] });
    const actor = this.actor(identity, c.role);
    const role = input.role as Role;
    await this.write(async (trx, touch) => {
      const rows = (await repo.findMembersFor(trx, c.row.id, input.members, { lock: true })).filter(
        (r) => !r.active && r.request_type === type,
      );
      if (rows.length !== new Set(input.members.map((m) => m.id)).size) throw CommunityErrors.members('Invalid member specified.');
      // Why check all first: a comment sent for one row cannot be rolled back if a later row is refused.
      for (const r of rows) if (!canManageRole(actor, r.role) || !canManageRole(actor, role)) throw Errors.permissionDenied();
      for (const r of rows) {
        if (r.role === role) continue;
        const updated = await repo.updateMember(trx, r.id, { role });
        await this.requestEvent(trx, 'updated', updated);
        touch(updated.id);
        if (r.request_id) {
          const content = `You will join as "${ROLE_TITLES[role]}" (changed from: "${r.role}").`;
          await this.deps.requests.comment(r.request_id, { content, format: 'html' });
        }
      }
    });
  }

  /** `GET …/invitations` or `GET …/membership-requests` (owners, managers). */
  async searchRequests(identity: Identity, id: string, args: ListArgs, filters: Record<string, string[]>, type: string) {
    const c = await this.community(identity, id, 'manage_members');
    if (type === MEMBERSHIP_REQUEST && !this.deps.allowMembershipRequests) throw Errors.permissionDenied();
    const common = { communityId: c.row.id, sort: args.sort, from: args.from, size: args.size, filters, requestType: type };
    return this.found(
      identity,
      c,
      args.q,
      (search, ast) => search.searchRequests({ ...common, ast }),
      (q) => repo.searchRequests(this.db, { ...common, ...q }),
    );
  }

  /** `POST …/membership-requests`: the caller asks to join an open community. */
  async requestMembership(identity: Identity, id: string, body: unknown): Promise<RequestInfo> {
    const c = await this.community(identity, id, 'read');
    if (!identity.sub || !this.deps.allowMembershipRequests || c.row.access.member_policy !== 'open') throw Errors.permissionDenied();
    const b = (typeof body === 'object' && body !== null ? body : {}) as { message?: unknown };
    if (b.message !== undefined && b.message !== null && typeof b.message !== 'string') {
      throw Errors.validation([{ field: 'message', messages: ['Not a valid string.'] }]);
    }
    const uid = identity.sub;
    if ((await repo.findMembersFor(this.db, c.row.id, [{ type: 'user', id: uid }])).length > 0) throw CommunityErrors.members(ALREADY);
    const u = await this.deps.communities.userInfo(uid);
    return this.withUniqueGuard(() =>
      this.write(async (trx, touch) => {
        const round = await repo.countArchived(trx, c.row.id, uid, MEMBERSHIP_REQUEST);
        const row = await repo.insertMember(trx, {
          id: uuidFrom(`${c.row.id}:user:${uid}:${MEMBERSHIP_REQUEST}:${round}`),
          community_id: c.row.id,
          member_type: 'user',
          member_id: uid,
          role: 'reader',
          visible: false,
          active: false,
          name: u.name,
          username: u.username,
          email: u.email,
          affiliations: u.affiliations,
          request_id: null,
          request_type: MEMBERSHIP_REQUEST,
          request_status: null,
          request_expires_at: null,
        });
        const request = await this.deps.requests.create({
          identity: { sub: identity.sub, roles: identity.roles },
          type: MEMBERSHIP_REQUEST,
          created_by: { user: uid },
          receiver: { community: c.row.id },
          topic: { community: c.row.id },
          title: `Request to join "${c.row.title}"`,
          ...(typeof b.message === 'string' && b.message ? { comment: { content: b.message, format: 'html' } } : {}),
          key: row.id,
        });
        touch(await this.recordRequest(trx, row.id, request));
        return request;
      }),
    );
  }

  /** Link the pending row to its request (`member-request.created`); returns the row id. */
  private async recordRequest(trx: Knex.Transaction, rowId: string, request: RequestInfo): Promise<string> {
    const row = await repo.updateMember(trx, rowId, {
      request_id: request.id,
      request_status: request.status,
      request_expires_at: request.expires_at ? new Date(request.expires_at) : null,
    });
    await this.requestEvent(trx, 'created', row);
    return row.id;
  }

  /**
   * One write transaction; afterwards the member rows it touched are indexed inline (search engine
   * only), with refresh `wait_for` so the writer's next list shows the write.
   */
  private async write<T>(fn: (trx: Knex.Transaction, touch: (id: string) => void) => Promise<T>): Promise<T> {
    const touched: string[] = [];
    const result = await withTransaction(this.db, (trx) => fn(trx, (id) => touched.push(id)));
    await this.deps.search?.afterCommit(touched);
    return result;
  }

  /** A concurrent duplicate insert (same community and user) is the "already pending" 400. */
  private async withUniqueGuard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if ((e as { code?: string })?.code === '23505') throw CommunityErrors.members(ALREADY);
      throw e;
    }
  }

  /**
   * Apply a closed invitation / membership request inside the consumer's transaction: accepted →
   * active member (invited role; hidden) + `member.added` with `request_id`; declined, cancelled,
   * expired → the pending row goes. Either way the request is archived with its final status.
   * A redelivery finds the request archived and does nothing.
   */
  async applyRequestEvent(trx: Knex.Transaction, verb: string, data: { id: string; type: string }): Promise<'applied' | 'ignored'> {
    if (data.type !== INVITATION && data.type !== MEMBERSHIP_REQUEST) return 'ignored';
    const row = await repo.findPendingByRequest(trx, data.id);
    if (!row) {
      if (await repo.isArchived(trx, data.id)) return 'ignored';
      // Why retry: the inviting transaction may not have committed yet; a persistent miss ends in the DLQ.
      throw new Error(`no pending membership for request ${data.id}`);
    }
    const status = verb === 'accepted' ? 'accepted' : verb;
    await repo.archiveRequest(trx, { ...row, request_status: status }, status, uuidFrom(`archive:${data.id}`));
    await this.requestEvent(trx, 'closed', { ...row, request_status: status });
    if (verb === 'accepted') {
      const m = await repo.updateMember(trx, row.id, { active: true, visible: false, request_status: 'accepted' });
      await writeOutbox(trx, {
        subject: 'rdm.communities.member.added',
        aggregate: { type: 'member', id: m.id, revision: m.revision_id },
        data: {
          community_id: m.community_id,
          member_type: 'user',
          member_id: m.member_id,
          role: m.role,
          visible: false,
          request_id: data.id,
        },
      });
    } else {
      await repo.deleteMember(trx, row.id);
    }
    // Indexed before the commit: the `member.added` above releases the accept call, whose caller
    // lists the members next (see MemberSearchIndex.indexWithin).
    await this.deps.search?.indexWithin(trx, [row.id]);
    return 'applied';
  }

  /** Active roles of a user (`rdm.communities.rpc.roles`). */
  roles(userId: string, communityIds?: string[]) {
    return repo.rolesOf(this.db, userId, communityIds);
  }

  /** Active owners (user ids) of these communities (the `owners` RPC: who hears of abuse reports). */
  owners(communityIds: string[]) {
    return repo.ownersOf(this.db, communityIds);
  }

  private async memberEvent(trx: Knex.Transaction, verb: 'updated' | 'removed', m: MemberRow): Promise<void> {
    await writeOutbox(trx, {
      subject: `rdm.communities.member.${verb}`,
      aggregate: { type: 'member', id: m.id, revision: m.revision_id },
      data: { community_id: m.community_id, member_type: 'user', member_id: m.member_id, role: m.role, visible: m.visible },
    });
  }

  private async requestEvent(trx: Knex.Transaction, verb: 'created' | 'updated' | 'closed', m: MemberRow): Promise<void> {
    await writeOutbox(trx, {
      subject: `rdm.communities.member-request.${verb}`,
      aggregate: { type: 'member', id: m.id, revision: m.revision_id },
      data: {
        community_id: m.community_id,
        member_type: 'user',
        member_id: m.member_id,
        role: m.role,
        request_id: m.request_id,
        // Set on every pending member row, the only rows these events are about.
        request_type: m.request_type as EventData['rdm.communities.member-request.created']['request_type'],
        status: m.request_status,
      },
    });
  }
}
