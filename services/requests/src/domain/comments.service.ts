/**
 * Comments and the timeline of a request (reference §1.8): comments need read permission on the
 * request (so closed requests take comments; a created one only from its creator), replies go one
 * level deep, only authors edit (administrators too while locking is off) and only authors or
 * the system delete — a deleted comment stays in place as a `comment_deleted` log event.
 */
import { randomUUID } from 'node:crypto';
import { checkRevision, Errors, type Identity, type ListArgs, listEnvelope, parseListArgs, first } from '@rdm/platform';
import { serializeEvent } from '../http/serializers.js';
import { childrenOf, findEvent, insertEvent, listEvents, positionOf, updateEvent } from '../repo/events.repo.js';
import { touchActivity } from '../repo/requests.repo.js';
import { parseCommentBody } from './comment-input.js';
import { canonicalUuid, loadCallerContext } from './context.js';
import { RequestErrors } from './errors.js';
import type { EventRow, RequestRow } from './model.js';
import { callerRef, canDeleteComment, canRead, canUpdateComment } from './policy.js';
import type { RequestsService } from './requests.service.js';
import { writeRequestEvent } from './request-events.js';
import { contextCommunityId, requestType } from './types/registry.js';

const TIMELINE_OPTIONS = { sorts: ['oldest', 'newest'], defaultSort: 'oldest', defaultSortWithQ: 'oldest', defaultSize: 25 } as const;

/** Comment and timeline operations. */
export class CommentsService {
  constructor(private readonly requests: RequestsService) {}

  private get deps() {
    return this.requests.deps;
  }

  /** The request, the caller's read right, and its self_html (for event links). */
  private async access(identity: Identity, id: string): Promise<{ req: RequestRow; canComment: boolean; selfHtml: string }> {
    const req = await this.requests.load(id);
    const type = requestType(req.type);
    const ctx = await loadCallerContext(this.deps.communities, identity, [req], { summaries: true, logger: this.deps.logger });
    if (!canRead(identity, req, type, ctx.roles)) throw Errors.permissionDenied();
    let path = `/me/requests/${req.id}`;
    if (type) {
      const cid = contextCommunityId(type, req);
      path = type.selfHtml(req, { community: cid ? ctx.communities.get(cid) : undefined, callerIsCreator: false });
    }
    return { req, canComment: identity.sub !== null, selfHtml: this.deps.links.html(path) };
  }

  private async event(req: RequestRow, eventId: string, trx = this.deps.db, forUpdate = false): Promise<EventRow> {
    const eid = canonicalUuid(eventId);
    const ev = eid ? await findEvent(trx, req.id, eid, { forUpdate }) : undefined;
    if (!ev) throw RequestErrors.eventNotFound();
    return ev;
  }

  /** One event as every event answer carries it: with the caller's `permissions` on it (InvenioRDM's event JSON). */
  private one(ev: EventRow, selfHtml: string, identity: Identity, canComment: boolean): Record<string, unknown> {
    return serializeEvent(ev, {
      links: this.deps.links,
      requestSelfHtml: selfHtml,
      commentForm: true,
      permissionsFor: { identity, canComment },
    });
  }

  /** `POST …/comments` (no parent) and `POST …/comments/<id>/reply`: 201 with the comment. */
  async create(identity: Identity, id: string, body: unknown, parentId?: string): Promise<Record<string, unknown>> {
    const { req, canComment, selfHtml } = await this.access(identity, id);
    if (!canComment) throw Errors.permissionDenied();
    let parent: EventRow | undefined;
    if (parentId !== undefined) {
      parent = await this.event(req, parentId);
      if (parent.parent_id !== null) throw RequestErrors.nestedReply();
    }
    const comment = parseCommentBody(body, { required: true, maxLength: this.deps.config.commentMaxLength }) as NonNullable<
      ReturnType<typeof parseCommentBody>
    >;
    const ev = await this.deps.db.transaction(async (trx) => {
      const e = await insertEvent(trx, {
        id: randomUUID(),
        request_id: req.id,
        type: 'C',
        created_by: callerRef(identity),
        payload: { ...comment },
        parent_id: parent?.id ?? null,
      });
      await touchActivity(trx, req.id);
      await writeRequestEvent(trx, 'updated', req, callerRef(identity), ['activity']);
      return e;
    });
    await this.requests.indexed([req.id]);
    return this.one(ev, selfHtml, identity, canComment);
  }

  /** `GET …/comments/<id>` (also a deleted comment, now a log event). */
  async read(identity: Identity, id: string, eventId: string): Promise<Record<string, unknown>> {
    const { req, canComment, selfHtml } = await this.access(identity, id);
    return this.one(await this.event(req, eventId), selfHtml, identity, canComment);
  }

  /** `PUT …/comments/<id>`: only `payload.content`/`format` change; revision + 1; `If-Match` checked when given. */
  async update(identity: Identity, id: string, eventId: string, body: unknown, ifMatch?: number): Promise<Record<string, unknown>> {
    const { req, canComment, selfHtml } = await this.access(identity, id);
    const ev = await this.event(req, eventId);
    if (ev.type !== 'C') throw RequestErrors.eventNotEditable();
    if (!canUpdateComment(identity, ev)) throw RequestErrors.commentUpdateDenied();
    const comment = parseCommentBody(body, { required: true, maxLength: this.deps.config.commentMaxLength }) as NonNullable<
      ReturnType<typeof parseCommentBody>
    >;
    const updated = await this.deps.db.transaction(async (trx) => {
      const locked = await this.event(req, eventId, trx, true);
      if (locked.type !== 'C') throw RequestErrors.eventNotEditable();
      checkRevision(ifMatch, locked.revision_id);
      return updateEvent(trx, locked.id, 'C', { ...locked.payload, ...comment });
    });
    return this.one(updated, selfHtml, identity, canComment);
  }

  /** `DELETE …/comments/<id>`: the comment becomes a `comment_deleted` log event in place. */
  async delete(identity: Identity, id: string, eventId: string, ifMatch?: number): Promise<void> {
    const { req } = await this.access(identity, id);
    const ev = await this.event(req, eventId);
    if (ev.type !== 'C') throw RequestErrors.eventNotEditable();
    if (!canDeleteComment(identity, ev)) throw Errors.permissionDenied();
    await this.deps.db.transaction(async (trx) => {
      const locked = await this.event(req, eventId, trx, true);
      if (locked.type !== 'C') throw RequestErrors.eventNotEditable();
      checkRevision(ifMatch, locked.revision_id);
      await updateEvent(trx, locked.id, 'L', { event: 'comment_deleted', content: 'comment was deleted', format: 'html' });
    });
  }

  /** `GET …/timeline` / `…/timeline_focused` (top-level events) and `…/comments/<id>/replies` / `…/replies_focused`. */
  async list(
    identity: Identity,
    id: string,
    query: Record<string, string | string[] | undefined>,
    o: { parentId?: string; focused?: boolean },
  ): Promise<Record<string, unknown>> {
    const { req, canComment, selfHtml } = await this.access(identity, id);
    let parent: EventRow | undefined;
    if (o.parentId !== undefined) parent = await this.event(req, o.parentId);
    const defaultSort = o.parentId !== undefined && o.focused ? 'newest' : 'oldest';
    const args: ListArgs = parseListArgs(query, { ...TIMELINE_OPTIONS, defaultSort, defaultSortWithQ: defaultSort });
    const newestFirst = args.sort === 'newest';
    if (o.focused) {
      const focus = canonicalUuid(first(query.focus_event_id) ?? '');
      let page = 1;
      if (focus) {
        let target = await findEvent(this.deps.db, req.id, focus);
        // A reply is shown on its parent's timeline page.
        if (target && !parent && target.parent_id) target = await findEvent(this.deps.db, req.id, target.parent_id);
        const pos = target ? await positionOf(this.deps.db, req.id, target.id, parent?.id ?? null, newestFirst) : undefined;
        if (pos !== undefined) page = Math.floor(pos / args.size) + 1;
      }
      args.page = page;
      args.from = (page - 1) * args.size;
    }
    const res = await listEvents(this.deps.db, {
      requestId: req.id,
      parentId: parent?.id ?? null,
      limit: args.size,
      offset: args.from,
      newestFirst,
    });
    const children = parent
      ? new Map()
      : await childrenOf(
          this.deps.db,
          res.hits.map((e) => e.id),
        );
    const permissionsFor = { identity, canComment };
    const hits = res.hits.map((e) =>
      serializeEvent(e, {
        links: this.deps.links,
        requestSelfHtml: selfHtml,
        permissionsFor,
        children: parent ? undefined : children.get(e.id),
      }),
    );
    const path = parent ? `/api/requests/${req.id}/comments/${parent.id}/replies` : `/api/requests/${req.id}/timeline`;
    const body = listEnvelope({ hits, total: res.total, args: { ...args, q: '' }, baseUrl: this.deps.links.base, path });
    return { ...body, page: args.page };
  }
}
