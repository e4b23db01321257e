/**
 * The requests service's request operations: read, create (RPC), update, delete, search and
 * rendering in the API shape for a caller. Actions live in `actions.service.ts`, comments in
 * `comments.service.ts`. Methods take `(identity, input)`; permission rules come from
 * `policy.ts` over the type registry; writes and their outbox events share one transaction.
 *
 * Why one file over 400 lines: reads, writes, search and rendering of one aggregate; actions
 * (actions.service.ts) and comments (comments.service.ts) are already apart.
 */
import { randomUUID } from 'node:crypto';
import {
  type Aggregation,
  all,
  checkRevision,
  compileToSql,
  Errors,
  type FieldError,
  first,
  type Identity,
  isAdmin,
  isSystem,
  type Knex,
  type ListArgs,
  type Logger,
  listEnvelope,
  parseListArgs,
  parseQuery,
  type QueryAst,
  QuerySyntaxError,
  rankSql,
  type SqlFragment,
} from '@rdm/platform';
import { serializeRequest } from '../http/serializers.js';
import { insertEvent, lastReplies } from '../repo/events.repo.js';
import {
  findRequest,
  findRequestByKey,
  insertRequest,
  REQUEST_SEARCH_FIELDS,
  type RequestChange,
  type SearchScope,
  searchRequests,
  type TypeGrant,
  updateRequest,
} from '../repo/requests.repo.js';
import type { RequestSearchIndex } from '../search/request-index.js';
import { parseCommentBody } from './comment-input.js';
import { canonicalUuid, loadCallerContext } from './context.js';
import { RequestErrors } from './errors.js';
import type { RequestLinks } from './links.js';
import { isClosedStatus, parseRef, type Ref, type RequestRow, REF_TYPES, SHOWN_STATUSES } from './model.js';
import { callerRef, canDelete, canRead, canUpdate } from './policy.js';
import type { CommunitiesPort, RecordsPort } from './ports.js';
import { type RequestChangeKind, writeRequestEvent } from './request-events.js';
import { contextCommunityId, requestType, requestTypes, typeLabel } from './types/registry.js';
import type { RequestType } from './types/request-type.js';

/** Sorts of request lists. */
export const REQUEST_SORTS = ['bestmatch', 'newest', 'oldest', 'newestactivity', 'oldestactivity'] as const;
const LIST_OPTIONS = { sorts: REQUEST_SORTS, defaultSort: 'newest', defaultSortWithQ: 'bestmatch' } as const;

const FULL_TEXT = { tsvector: 'search_vector', config: 'simple' } as const;

/** Dependencies of the requests services. */
export interface RequestsDeps {
  db: Knex;
  communities: CommunitiesPort;
  /** Re-authorizes the record of `GET /api/records/<id>/requests`. */
  records: RecordsPort;
  links: RequestLinks;
  logger: Pick<Logger, 'warn' | 'info' | 'error'>;
  config: { lockingEnabled: boolean; commentMaxLength: number; effectWaitMs: number };
  /** The search engine index (SEARCH_ENGINE opensearch/elasticsearch); absent: the postgres engine. */
  search?: RequestSearchIndex;
}

/** Input of `create` (the RPC `rdm.requests.rpc.create`). */
export interface CreateInput {
  type: unknown;
  created_by: unknown;
  receiver: unknown;
  topic?: unknown;
  title?: unknown;
  description?: unknown;
  payload?: unknown;
  expires_at?: unknown;
  comment?: unknown;
  key?: unknown;
}

const UPDATABLE = ['title', 'description', 'payload', 'receiver', 'topic'] as const;

/** The 400 messages of a receiver or topic the type does not let a PUT change. */
export const REAIM_REFUSED = {
  receiver: 'The receiver of this request cannot be changed.',
  topic: 'The topic of this request cannot be changed.',
} as const;

const sameRef = (a: Ref | null, b: Ref | null) => (a === null || b === null ? a === b : a.type === b.type && a.id === b.id);

/** Request operations. */
export class RequestsService {
  constructor(readonly deps: RequestsDeps) {}

  /**
   * After a committed write: index the touched requests inline (search engine only) with refresh
   * `wait_for`, so the writer's next search sees the write. Never throws (the indexer catches up).
   */
  async indexed(ids: string[]): Promise<void> {
    await this.deps.search?.afterCommit(ids);
  }

  /** A live request by path id: 404 for malformed, unknown or deleted ids. */
  async load(id: string, db: Knex = this.deps.db, opts: { forUpdate?: boolean } = {}): Promise<RequestRow> {
    const uuid = canonicalUuid(id);
    if (!uuid) throw RequestErrors.notFound();
    const r = await findRequest(db, uuid, opts);
    if (!r || r.status === 'deleted') throw RequestErrors.notFound();
    return r;
  }

  /** Render requests as `identity` sees them (links.actions, self_html, last_reply). */
  async render(identity: Identity, reqs: RequestRow[]): Promise<Record<string, unknown>[]> {
    const [ctx, replies] = await Promise.all([
      loadCallerContext(this.deps.communities, identity, reqs, { summaries: true, logger: this.deps.logger }),
      lastReplies(
        this.deps.db,
        reqs.map((r) => r.id),
      ),
    ]);
    const now = new Date();
    return reqs.map((r) =>
      serializeRequest(r, {
        links: this.deps.links,
        identity,
        ctx,
        lastReply: replies.get(r.id),
        lockingEnabled: this.deps.config.lockingEnabled,
        now,
      }),
    );
  }

  /** Throw 403 unless the caller may read `req`; returns the caller's roles. */
  async requireRead(identity: Identity, req: RequestRow): Promise<void> {
    const ctx = await loadCallerContext(this.deps.communities, identity, [req]);
    if (!canRead(identity, req, requestType(req.type), ctx.roles)) throw Errors.permissionDenied();
  }

  /** `GET /api/requests/<id>`. */
  async read(identity: Identity, id: string): Promise<Record<string, unknown>> {
    const req = await this.load(id);
    await this.requireRead(identity, req);
    return (await this.render(identity, [req]))[0];
  }

  /** Create a request in its type's initial status (RPC; the calling service checked who may). Idempotent by `key`. */
  async create(identity: Identity, input: CreateInput): Promise<Record<string, unknown>> {
    const errors: FieldError[] = [];
    const type = typeof input.type === 'string' ? requestType(input.type) : undefined;
    if (!type) throw RequestErrors.unknownType(String(input.type));
    const ref = (field: string, v: unknown, kinds: readonly string[] | null, optional = false): Ref | null => {
      if (optional && (v === undefined || v === null)) return null;
      const r = parseRef(v);
      if (!r || (kinds && !kinds.includes(r.type))) {
        errors.push({ field, messages: ['Invalid reference.'] });
        return null;
      }
      return r;
    };
    const createdBy = ref('created_by', input.created_by, type.refs.created_by);
    const receiver = ref('receiver', input.receiver, type.refs.receiver);
    const topic = ref('topic', input.topic, type.refs.topic ?? REF_TYPES, type.refs.topic === null);
    if (input.title !== undefined && (typeof input.title !== 'string' || input.title.length > 2000))
      errors.push({ field: 'title', messages: ['Not a valid string.'] });
    if (input.description !== undefined && input.description !== null && typeof input.description !== 'string')
      errors.push({ field: 'description', messages: ['Not a valid string.'] });
    if (input.payload !== undefined && input.payload !== null && (typeof input.payload !== 'object' || Array.isArray(input.payload)))
      errors.push({ field: 'payload', messages: ['Not a valid mapping type.'] });
    let expires: Date | null = type.expiresInDays === null ? null : new Date(Date.now() + type.expiresInDays * 86_400_000);
    if (input.expires_at !== undefined && input.expires_at !== null) {
      const d = typeof input.expires_at === 'string' ? new Date(input.expires_at) : new Date(Number.NaN);
      if (Number.isNaN(d.getTime())) errors.push({ field: 'expires_at', messages: ['Not a valid datetime.'] });
      else expires = d;
    }
    if (input.key !== undefined && (typeof input.key !== 'string' || input.key.length < 1 || input.key.length > 512))
      errors.push({ field: 'key', messages: ['Not a valid string.'] });
    let comment: ReturnType<typeof parseCommentBody>;
    try {
      comment = input.comment
        ? parseCommentBody({ payload: input.comment }, { required: false, maxLength: this.deps.config.commentMaxLength })
        : undefined;
    } catch (e) {
      errors.push(
        ...((e as { fieldErrors?: FieldError[] }).fieldErrors ?? []).map((f) => ({ ...f, field: f.field.replace(/^payload/, 'comment') })),
      );
    }
    if (errors.length || !createdBy || !receiver) throw Errors.validation(errors);
    const key = typeof input.key === 'string' ? input.key : null;
    if (key) {
      const existing = await findRequestByKey(this.deps.db, key);
      if (existing) return (await this.render(identity, [existing]))[0];
    }
    const payload = (input.payload ?? null) as Record<string, unknown> | null;
    let title = typeof input.title === 'string' ? input.title : undefined;
    if (title === undefined) {
      const cid = contextCommunityId(type, { created_by: createdBy, receiver, topic });
      const community = cid ? (await this.deps.communities.get([cid])).get(cid) : undefined;
      title = type.defaultTitle({ community }, payload);
    }
    const description = typeof input.description === 'string' ? input.description : (type.defaultDescription?.(payload) ?? null);
    const created = await this.deps.db.transaction(async (trx) => {
      const row = await insertRequest(trx, {
        id: randomUUID(),
        type: type.id,
        status: type.initialStatus,
        title,
        description,
        payload,
        created_by: createdBy,
        receiver,
        topic,
        expires_at: expires,
        key,
      });
      if (!row) return undefined;
      await writeRequestEvent(trx, 'created', row, callerRef(identity));
      if (comment) {
        // A guest (e-mail reference) authors their own message, as a user does.
        const author = createdBy.type === 'user' || createdBy.type === 'email' ? createdBy : callerRef(identity);
        await insertEvent(trx, {
          id: randomUUID(),
          request_id: row.id,
          type: 'C',
          created_by: author,
          payload: { ...comment },
          parent_id: null,
        });
      }
      return row;
    });
    // A concurrent create with the same key won: answer that request.
    const row = created ?? (await findRequestByKey(this.deps.db, key as string));
    if (!row) throw Errors.internal('request vanished after create');
    if (created) await this.indexed([row.id]);
    return (await this.render(identity, [row]))[0];
  }

  /** `PUT /api/requests/<id>` (reference §1.6). */
  async update(identity: Identity, id: string, body: unknown, ifMatch?: number): Promise<Record<string, unknown>> {
    const req = await this.load(id);
    const type = requestType(req.type);
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
    const b = body as Record<string, unknown>;
    const unknown = Object.keys(b).filter((k) => !(UPDATABLE as readonly string[]).includes(k));
    if (unknown.length) throw Errors.validation(unknown.map((k) => ({ field: k, messages: ['Unknown field.'] })));
    const ctx = await loadCallerContext(this.deps.communities, identity, [req]);
    if (!type || !canRead(identity, req, type, ctx.roles) || !canUpdate(identity, req, type, ctx.roles)) throw Errors.permissionDenied();
    const errors: FieldError[] = [];
    const change: RequestChange = {};
    if (b.title !== undefined) {
      if (typeof b.title !== 'string' || b.title.length > 2000) errors.push({ field: 'title', messages: ['Not a valid string.'] });
      else change.title = b.title;
    }
    if (b.description !== undefined) {
      if (b.description !== null && typeof b.description !== 'string')
        errors.push({ field: 'description', messages: ['Not a valid string.'] });
      else change.description = b.description as string | null;
    }
    // Only a created request changes payload, receiver or topic; later these keys are ignored.
    if (req.status === 'created') {
      if (b.payload !== undefined) {
        if (b.payload !== null && (typeof b.payload !== 'object' || Array.isArray(b.payload)))
          errors.push({ field: 'payload', messages: ['Not a valid mapping type.'] });
        else change.payload = b.payload as Record<string, unknown> | null;
      }
      if (b.receiver !== undefined) {
        const r = parseRef(b.receiver);
        if (!r || !type.refs.receiver.includes(r.type)) errors.push({ field: 'receiver', messages: ['Invalid reference.'] });
        else if (!sameRef(r, req.receiver)) change.receiver = r;
      }
      if (b.topic !== undefined) {
        const t = b.topic === null ? null : parseRef(b.topic);
        if (t === undefined || (t && type.refs.topic && !type.refs.topic.includes(t.type)))
          errors.push({ field: 'topic', messages: ['Invalid reference.'] });
        else if (!sameRef(t, req.topic)) change.topic = t;
      }
    }
    if (errors.length) throw Errors.validation(errors);
    await this.reauthorize(identity, req, type, change);
    const updated = await this.deps.db.transaction(async (trx) => {
      const locked = await this.load(req.id, trx, { forUpdate: true });
      checkRevision(ifMatch, locked.revision_id);
      const row = (await updateRequest(trx, locked, change)) as RequestRow;
      await writeRequestEvent(trx, 'updated', row, callerRef(identity), Object.keys(change) as RequestChangeKind[]);
      return row;
    });
    await this.indexed([updated.id]);
    return (await this.render(identity, [updated]))[0];
  }

  /**
   * A changed receiver or topic (issue 18, finding 2): only where the type declares the reference
   * re-aimable, and only once its owning service re-authorized the new value; otherwise a 400 on
   * the field, whoever asks (the effect acts on these references; see `RequestType.reaim`).
   */
  private async reauthorize(identity: Identity, req: RequestRow, type: RequestType, change: RequestChange): Promise<void> {
    const errors: FieldError[] = [];
    for (const field of ['receiver', 'topic'] as const) {
      if (!(field in change)) continue;
      const check = type.reaim?.[field];
      if (!check) errors.push({ field, messages: [REAIM_REFUSED[field]] });
      else await check({ identity, request: req, next: change[field] ?? null });
    }
    if (errors.length) throw Errors.validation(errors);
  }

  /** `DELETE /api/requests/<id>`: only while created (creator, administrators, system). */
  async delete(identity: Identity, id: string): Promise<void> {
    const req = await this.load(id);
    const type = requestType(req.type);
    const ctx = await loadCallerContext(this.deps.communities, identity, [req]);
    if (!type || !canDelete(identity, req, type, ctx.roles)) {
      if (isSystem(identity) && type?.deletable) throw RequestErrors.cannotExecute('delete');
      throw Errors.permissionDenied();
    }
    await this.deps.db.transaction(async (trx) => {
      const locked = await this.load(req.id, trx, { forUpdate: true });
      if (locked.status !== 'created') throw RequestErrors.cannotExecute('delete');
      const row = (await updateRequest(trx, locked, { status: 'deleted' })) as RequestRow;
      const actor = callerRef(identity);
      await insertEvent(trx, {
        id: randomUUID(),
        request_id: row.id,
        type: 'L',
        created_by: actor,
        payload: { event: 'deleted', format: 'html' },
        parent_id: null,
      });
      await writeRequestEvent(trx, 'deleted', row, actor);
    });
    await this.indexed([req.id]);
  }

  /** `GET …/lock` and `…/unlock`: 403 while locking is disabled; else the receiver (or an administrator) locks. */
  async setLocked(identity: Identity, id: string, locked: boolean): Promise<void> {
    const req = await this.load(id);
    if (!this.deps.config.lockingEnabled) throw Errors.permissionDenied();
    const type = requestType(req.type);
    const ctx = await loadCallerContext(this.deps.communities, identity, [req]);
    const allowed =
      isAdmin(identity) ||
      isSystem(identity) ||
      (type && canRead(identity, req, type, ctx.roles) && canUpdate(identity, req, type, ctx.roles));
    if (!allowed || isClosedStatus(req.status)) throw Errors.permissionDenied();
    await this.deps.db.transaction(async (trx) => {
      const row = await this.load(req.id, trx, { forUpdate: true });
      if (row.is_locked === locked) return;
      const changed = (await updateRequest(trx, row, { is_locked: locked })) as RequestRow;
      await writeRequestEvent(trx, 'updated', changed, callerRef(identity), ['locked']);
      await insertEvent(trx, {
        id: randomUUID(),
        request_id: row.id,
        type: 'L',
        created_by: callerRef(identity),
        payload: { event: locked ? 'locked' : 'unlocked', format: 'html' },
        parent_id: null,
      });
    });
    await this.indexed([req.id]);
  }

  /** The `readable` scope of a user: their own requests and those their community roles let them read, per type. */
  private async readableScope(userId: string): Promise<SearchScope> {
    const roles = await this.deps.communities.roles(userId);
    const grants: TypeGrant[] = requestTypes().map((t) => ({
      type: t.id,
      creatorCommunities: Object.keys(roles).filter((c) => t.needsContext.creator.includes(roles[c])),
      receiverCommunities: Object.keys(roles).filter((c) => t.needsContext.receiver.includes(roles[c])),
    }));
    return { kind: 'readable', userId, grants };
  }

  /**
   * Request lists: `GET /api/requests` (`all`), `/api/user/requests` (`user`),
   * `/api/communities/<id>/requests` (`community`), `/api/records/<id>/requests` (`record`: the
   * requests the caller may read whose topic is the record or its parent, once the records
   * service said the caller may read the record — its 404/403/410 otherwise, as InvenioRDM's
   * `RecordRequestsService` reads the record first).
   */
  async search(
    identity: Identity,
    query: Record<string, string | string[] | undefined>,
    mode: { kind: 'all' } | { kind: 'user' } | { kind: 'community'; communityId: string } | { kind: 'record'; recordId: string },
  ): Promise<{ body: Record<string, unknown>; path: string }> {
    let topics: Ref[] | undefined;
    if (mode.kind === 'record') {
      const rec = await this.deps.records.authorizeRecord(mode.recordId, identity);
      topics = [
        { type: 'record', id: rec.record_id },
        { type: 'record', id: rec.parent_id },
      ];
    }
    if (identity.sub === null) throw Errors.permissionDenied();
    const args: ListArgs = parseListArgs(query, LIST_OPTIONS);
    let ast: QueryAst | undefined;
    let where: SqlFragment | undefined;
    let rank: SqlFragment | undefined;
    if (args.q) {
      try {
        ast = parseQuery(args.q, { defaultOperator: 'OR' });
        // The search engines get the AST (request-index.ts); postgres the compiled SQL.
        if (!this.deps.search) {
          where = compileToSql(ast, REQUEST_SEARCH_FIELDS, { fullText: FULL_TEXT });
          rank = rankSql(ast, REQUEST_SEARCH_FIELDS, { fullText: FULL_TEXT });
        }
      } catch (e) {
        if (e instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(e);
        throw e;
      }
    }
    const superuser = isAdmin(identity) || isSystem(identity);
    let scope: SearchScope;
    let path = '/api/requests';
    if (mode.kind === 'user') {
      scope = { kind: 'user', userId: identity.sub };
      path = '/api/user/requests';
    } else if (mode.kind === 'community') {
      path = `/api/communities/${mode.communityId}/requests`;
      const cid = canonicalUuid(mode.communityId);
      if (!superuser) {
        const role = cid ? (await this.deps.communities.roles(identity.sub, [cid]))[cid] : undefined;
        if (!role || !['owner', 'manager', 'curator'].includes(role)) throw Errors.permissionDenied();
      }
      if (!cid) throw Errors.permissionDenied();
      scope = { kind: 'community', communityId: cid, excludeTypes: ['community-membership-request'] };
    } else {
      // `all` and `record`: the requests the caller may read (a record's are then narrowed by topic).
      if (mode.kind === 'record') path = `/api/records/${encodeURIComponent(mode.recordId)}/requests`;
      scope = superuser ? { kind: 'all' } : await this.readableScope(identity.sub);
    }
    const filters: { is_open?: boolean; created_by?: Ref[]; receiver?: Ref[]; topic?: Ref[] } = {};
    const isOpen = first(query.is_open);
    if (isOpen !== undefined && isOpen !== '') {
      if (!['true', 'false'].includes(isOpen.toLowerCase()))
        throw Errors.invalidQuerystring([{ field: 'is_open', messages: ['Not a valid boolean.'] }]);
      filters.is_open = isOpen.toLowerCase() === 'true';
    }
    for (const name of ['created_by', 'receiver', 'topic'] as const) {
      const values = all(query[name]);
      if (values.length === 0) continue;
      const refs: Ref[] = [];
      for (const v of values) {
        const colon = v.indexOf(':');
        if (colon < 0) throw RequestErrors.invalidReference();
        const ref = parseRef({ [v.slice(0, colon)]: v.slice(colon + 1) });
        // An unresolvable reference type is silently dropped, as InvenioRDM does.
        if (ref) refs.push(ref);
      }
      if (refs.length) filters[name] = refs;
    }
    const facets = { type: all(query.type), status: all(query.status) };
    const common = { scope, filters, topics, facets, sort: args.sort, limit: args.size, offset: args.from };
    const res = this.deps.search
      ? await this.deps.search.search({ ...common, ast })
      : await searchRequests(this.deps.db, { ...common, where, rank });
    const hits = await this.render(identity, res.hits);
    const bucketsOf = (counts: Map<string, number>, selected: string[], label: (k: string) => string) =>
      [...counts]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([key, doc_count]) => ({ key, doc_count, label: label(key), is_selected: selected.includes(key) }));
    const aggregations: Record<string, Aggregation> = {
      type: { label: 'Type', buckets: bucketsOf(res.counts.type, facets.type, typeLabel) },
      status: {
        label: 'Status',
        buckets: bucketsOf(res.counts.status, facets.status, (k) =>
          (SHOWN_STATUSES as readonly string[]).includes(k) ? k.charAt(0).toUpperCase() + k.slice(1) : k,
        ),
      },
    };
    const params: Record<string, string | string[] | undefined> = {};
    for (const k of ['type', 'status', 'created_by', 'receiver', 'topic', 'is_open']) {
      const v = all(query[k]);
      if (v.length) params[k] = v;
    }
    const body = listEnvelope({ hits, total: res.total, args, baseUrl: this.deps.links.base, path, params, aggregations });
    return { body: { ...body, page: args.page }, path };
  }
}
