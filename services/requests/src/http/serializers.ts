/**
 * JSON shapes of requests and timeline events, exactly as InvenioRDM renders them (reference
 * §1.2, §1.8; spec "Request", "Comment and timeline event"). Pure: the service loads the caller's
 * context, last replies and children first.
 */
import type { Identity } from '@rdm/platform';
import type { CallerContext } from '../domain/context.js';
import type { RequestLinks } from '../domain/links.js';
import { type EventRow, isClosedStatus, isOpenStatus, type RequestRow, refJson, shownStatus } from '../domain/model.js';
import { encodeNumber } from '../domain/number.js';
import { availableActions, canDeleteComment, canUpdateComment, relationsOf } from '../domain/policy.js';
import { contextCommunityId, requestType } from '../domain/types/registry.js';

/** `2024-05-01T10:11:12.123000+00:00` (InvenioRDM's ISO form, microseconds, explicit offset). */
export function isoTs(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

/** `2024-05-01 10:11:12.123000`: the spec's form of comment timestamps in comment responses. */
export function commentTs(d: Date): string {
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.(\d{3})Z$/, '.$1000');
}

/** Options of the request serializer. */
export interface RequestSerializeOptions {
  links: RequestLinks;
  identity: Identity;
  ctx: CallerContext;
  lastReply?: EventRow;
  lockingEnabled: boolean;
  now?: Date;
}

/** The request as the caller sees it. */
export function serializeRequest(r: RequestRow, o: RequestSerializeOptions): Record<string, unknown> {
  const type = requestType(r.type);
  const now = o.now ?? new Date();
  const actions: Record<string, string> = {};
  let selfHtml = o.links.html(`/me/requests/${r.id}`);
  if (type) {
    for (const a of availableActions(o.identity, r, type, o.ctx.roles)) actions[a] = o.links.action(r.id, a);
    const cid = contextCommunityId(type, r);
    const callerIsCreator = relationsOf(o.identity, r, type, o.ctx.roles).creator;
    selfHtml = o.links.html(type.selfHtml(r, { community: cid ? o.ctx.communities.get(cid) : undefined, callerIsCreator }));
  }
  const out: Record<string, unknown> = {
    id: r.id,
    number: encodeNumber(r.number),
    type: r.type,
    title: r.title,
  };
  if (r.description !== null) out.description = r.description;
  if (r.payload !== null) out.payload = r.payload;
  const status = shownStatus(r.status);
  Object.assign(out, {
    status,
    is_open: isOpenStatus(r.status),
    is_closed: isClosedStatus(r.status),
    is_expired: r.expires_at !== null && r.expires_at.getTime() <= now.getTime(),
    expires_at: r.expires_at ? isoTs(r.expires_at) : null,
    created_by: refJson(r.created_by),
    receiver: refJson(r.receiver),
    topic: r.topic ? refJson(r.topic) : null,
    created: isoTs(r.created),
    updated: isoTs(r.updated),
    revision_id: r.revision_id,
    last_reply: o.lastReply ? serializeEvent(o.lastReply, { links: o.links, requestSelfHtml: selfHtml }) : null,
    last_activity_at: isoTs(r.last_activity_at),
    links: {
      actions,
      self: o.links.request(r.id),
      self_html: selfHtml,
      comments: o.links.sub(r.id, 'comments'),
      timeline: o.links.sub(r.id, 'timeline'),
      timeline_focused: o.links.sub(r.id, 'timeline_focused'),
      lock: o.links.sub(r.id, 'lock'),
      unlock: o.links.sub(r.id, 'unlock'),
    },
  });
  if (o.lockingEnabled) out.is_locked = r.is_locked;
  return out;
}

/** Options of the event serializer. */
export interface EventSerializeOptions {
  links: RequestLinks;
  /** The request's self_html (events link to `#commentevent-…` on it). */
  requestSelfHtml?: string;
  /** Timestamps as in comment responses (`YYYY-MM-DD hh:mm:ss.ffffff`) instead of ISO. */
  commentForm?: boolean;
  /** Add `permissions` for this caller (timeline entries). */
  permissionsFor?: { identity: Identity; canComment: boolean };
  /** Children preview of a top-level timeline entry. */
  children?: { children: EventRow[]; count: number };
}

/** One timeline event (comment or log). */
export function serializeEvent(e: EventRow, o: EventSerializeOptions): Record<string, unknown> {
  const ts = o.commentForm ? commentTs : isoTs;
  const anchor = e.parent_id ? `${e.parent_id}_${e.id}` : e.id;
  const links: Record<string, string> = { self: o.links.comment(e.request_id, e.id) };
  if (o.requestSelfHtml) links.self_html = `${o.requestSelfHtml}#commentevent-${anchor}`;
  if (!e.parent_id) {
    links.reply = o.links.comment(e.request_id, e.id, 'reply');
    links.replies = o.links.comment(e.request_id, e.id, 'replies');
    links.replies_focused = o.links.comment(e.request_id, e.id, 'replies_focused');
  }
  const out: Record<string, unknown> = {
    id: e.id,
    type: e.type,
    created_by: refJson(e.created_by),
    payload: e.payload,
    parent_id: e.parent_id,
    created: ts(e.created),
    updated: ts(e.updated),
    revision_id: e.revision_id,
    links,
  };
  if (o.permissionsFor) {
    const { identity, canComment } = o.permissionsFor;
    out.permissions = {
      can_update_comment: canUpdateComment(identity, e),
      can_delete_comment: canDeleteComment(identity, e),
      can_reply_comment: canComment && e.parent_id === null && e.type === 'C',
    };
  }
  if (o.children) {
    out.children = o.children.children.map((c) =>
      serializeEvent(c, { links: o.links, requestSelfHtml: o.requestSelfHtml, permissionsFor: o.permissionsFor }),
    );
    out.children_count = o.children.count;
  }
  return out;
}
