/**
 * The requests service's HTTP surface, declared once: the router (requests.routes.ts binds one
 * handler per key), the OpenAPI fragment served at the internal `GET /openapi.json` and merged by
 * the gateway into `/api/openapi.json`, and the gateway's routing table (`pnpm gen:contracts`) all
 * come from it. Shared components (`Error`, `BadRequest`, `q`, `page`, `X-RateLimit-*`,
 * `bearerAuth`…) are the gateway's and only referenced here.
 *
 * When to edit: a route, its parameters, or the Request / event JSON (http/serializers.ts) change.
 * Only the platform and constants may be imported here (the generator imports this file).
 */
import { defineApi, defineRoutes, type Json, json, rate, ref, schemaRef } from '@rdm/platform';
import { REQUEST_SORTS } from '../domain/requests.service.js';

const common: Json = {
  '403': ref('responses', 'PermissionDenied'),
  '429': ref('responses', 'TooManyRequests'),
  '503': ref('responses', 'ServiceUnavailable'),
};
const security = [{ bearerAuth: [] }];
const id = { id: { description: 'Request id (uuid); a malformed id is 404.' } };
const eid = { ...id, comment_id: { description: 'Event id (uuid).' } };
const ok = (description: string, schema: Json) => ({ description, headers: rate, content: json(schema) });
const noContent = { description: 'Done.', headers: rate };
const commentBody = ref('schemas', 'CommentInput');
const listParams = (sorts: readonly string[], dflt: string) => [
  ref('parameters', 'page'),
  { name: 'size', in: 'query', schema: { type: 'integer', minimum: 1, default: 25 }, description: 'Page size.' },
  { name: 'sort', in: 'query', schema: { type: 'string', enum: [...sorts] }, description: `Default \`${dflt}\`.` },
];
const filterParams = [
  ref('parameters', 'q'),
  ...listParams(REQUEST_SORTS, 'newest (bestmatch with q)'),
  { name: 'type', in: 'query', schema: { type: 'array', items: { type: 'string' } }, description: 'Facet filter (post-filter).' },
  { name: 'status', in: 'query', schema: { type: 'array', items: { type: 'string' } }, description: 'Facet filter (post-filter).' },
  { name: 'is_open', in: 'query', schema: { type: 'boolean' } },
  { name: 'created_by', in: 'query', schema: { type: 'string' }, description: '`user:<id>` (`type:id`; unknown types are ignored).' },
  { name: 'receiver', in: 'query', schema: { type: 'string' }, description: '`community:<id>` or `user:<id>`.' },
  { name: 'topic', in: 'query', schema: { type: 'string' }, description: '`record:<id>`.' },
];
const errors = { '400': ref('responses', 'BadRequest'), '404': ref('responses', 'NotFound'), ...common };

/** Every route of the requests service, in koa match order. */
export const REQUEST_ROUTES = defineRoutes({
  searchRequests: {
    method: 'GET',
    path: '/api/requests',
    list: true,
    summary: 'Search requests the caller may read',
    description: 'Authenticated only (anonymous 403). Aggregations `type`, `status`.',
    security,
    parameters: filterParams,
    responses: { '200': ok('A page of requests.', ref('schemas', 'RequestList')), '400': ref('responses', 'BadRequest'), ...common },
  },
  searchUserRequests: {
    method: 'GET',
    path: '/api/user/requests',
    list: true,
    summary: "The caller's requests (created or received by the user; never `created` ones)",
    security,
    parameters: filterParams,
    responses: { '200': ok('A page of requests.', ref('schemas', 'RequestList')), '400': ref('responses', 'BadRequest'), ...common },
  },
  searchCommunityRequests: {
    method: 'GET',
    path: '/api/communities/{id}/requests',
    list: true,
    summary: 'Requests received by a community (curators, managers, owners)',
    description: 'Excludes `created` requests and membership requests.',
    params: { id: { description: 'Community id (uuid; a slug is 403).' } },
    security,
    parameters: filterParams,
    responses: { '200': ok('A page of requests.', ref('schemas', 'RequestList')), '400': ref('responses', 'BadRequest'), ...common },
  },
  searchRecordRequests: {
    method: 'GET',
    path: '/api/records/{id}/requests',
    list: true,
    summary: "A record's requests (topic the record or its parent)",
    description:
      'The requests the caller may read (as `GET /api/requests`) whose topic is the record or its parent. The record is read first, as `GET /api/records/<id>` (404 unknown or a draft, 410 deleted, 403 when the caller may not read it); anonymous callers get 403.',
    params: { id: { description: 'Published record id.' } },
    security,
    parameters: filterParams,
    responses: {
      '200': ok('A page of requests.', ref('schemas', 'RequestList')),
      '400': ref('responses', 'BadRequest'),
      '404': ref('responses', 'NotFound'),
      '410': { description: 'The record has been deleted.', content: json(schemaRef('Error')) },
      ...common,
    },
  },
  readRequest: {
    method: 'GET',
    path: '/api/requests/{id}',
    summary: 'Read a request',
    params: id,
    responses: { '200': ok('The request.', ref('schemas', 'Request')), ...errors },
  },
  updateRequest: {
    method: 'PUT',
    path: '/api/requests/{id}',
    summary: 'Update title/description (and while created: payload)',
    description:
      'A `receiver` or `topic` different from the current one is refused (400 on that field): the effect of an accepted request acts on them, and no request type lets them be re-aimed. Sending the current value is accepted.',
    params: id,
    security,
    body: { type: 'object' },
    responses: { '200': ok('The request.', ref('schemas', 'Request')), '412': ref('responses', 'BadRequest'), ...errors },
  },
  deleteRequest: {
    method: 'DELETE',
    path: '/api/requests/{id}',
    summary: 'Delete a created request',
    params: id,
    security,
    responses: { '204': noContent, ...errors },
  },
  runRequestAction: {
    method: 'POST',
    path: '/api/requests/{id}/actions/{action}',
    summary: 'Run an action; an optional `{payload:{content, format}}` becomes a comment',
    description:
      'Accepting a request whose effect lives in another service (a community submission or inclusion: the publication) waits up to REQUEST_EFFECT_WAIT_MS for it and answers 200 with the final state (`accepted`, or `submitted` again with an `accept_failed` log event when the effect was refused). Past the wait it answers 202 with the request in its pending state (`submitted`, `is_open`, no actions); the durable consumers finish the work. Every other action answers 200.',
    params: { ...id, action: { description: '`submit`, `accept`, `decline`, `cancel` (as the type allows).' } },
    security,
    body: { required: false, content: json(ref('schemas', 'CommentInput')) },
    responses: {
      '200': ok('The request after the action.', ref('schemas', 'Request')),
      '202': ok('Accepted, but its effect has not happened within the wait: the request in its pending state.', ref('schemas', 'Request')),
      ...errors,
    },
  },
  lockRequest: {
    method: 'GET',
    path: '/api/requests/{id}/lock',
    summary: 'Lock (403 while locking is disabled)',
    params: id,
    security,
    responses: { '204': noContent, ...errors },
  },
  unlockRequest: {
    method: 'GET',
    path: '/api/requests/{id}/unlock',
    summary: 'Unlock (403 while locking is disabled)',
    params: id,
    security,
    responses: { '204': noContent, ...errors },
  },
  createComment: {
    method: 'POST',
    path: '/api/requests/{id}/comments',
    summary: 'Add a comment',
    params: id,
    security,
    body: commentBody,
    responses: { '201': ok('The comment.', ref('schemas', 'RequestEvent')), ...errors },
  },
  readComment: {
    method: 'GET',
    path: '/api/requests/{id}/comments/{comment_id}',
    summary: 'Read a comment',
    params: eid,
    responses: { '200': ok('The event.', ref('schemas', 'RequestEvent')), ...errors },
  },
  updateComment: {
    method: 'PUT',
    path: '/api/requests/{id}/comments/{comment_id}',
    summary: 'Edit a comment (author); If-Match optional',
    params: eid,
    security,
    body: commentBody,
    responses: { '200': ok('The comment.', ref('schemas', 'RequestEvent')), '412': ref('responses', 'BadRequest'), ...errors },
  },
  deleteComment: {
    method: 'DELETE',
    path: '/api/requests/{id}/comments/{comment_id}',
    summary: 'Delete a comment (becomes a `comment_deleted` log event)',
    params: eid,
    security,
    responses: { '204': noContent, ...errors },
  },
  replyComment: {
    method: 'POST',
    path: '/api/requests/{id}/comments/{comment_id}/reply',
    summary: 'Reply to a top-level comment (a reply to a reply is 400)',
    params: eid,
    security,
    body: commentBody,
    responses: { '201': ok('The reply.', ref('schemas', 'RequestEvent')), ...errors },
  },
  listReplies: {
    method: 'GET',
    path: '/api/requests/{id}/comments/{comment_id}/replies',
    list: true,
    summary: 'Replies (oldest first)',
    params: eid,
    parameters: listParams(['oldest', 'newest'], 'oldest'),
    responses: { '200': ok('Replies.', ref('schemas', 'EventList')), ...errors },
  },
  listRepliesFocused: {
    method: 'GET',
    path: '/api/requests/{id}/comments/{comment_id}/replies_focused',
    summary: 'The page of replies holding `focus_event_id` (newest first by default)',
    params: eid,
    parameters: [...listParams(['oldest', 'newest'], 'newest'), { name: 'focus_event_id', in: 'query', schema: { type: 'string' } }],
    responses: { '200': ok('Replies.', ref('schemas', 'EventList')), ...errors },
  },
  readTimeline: {
    method: 'GET',
    path: '/api/requests/{id}/timeline',
    list: true,
    summary: 'Timeline: top-level comments (C) and log events (L)',
    params: id,
    parameters: listParams(['oldest', 'newest'], 'oldest'),
    responses: { '200': ok('Events.', ref('schemas', 'EventList')), ...errors },
  },
  readTimelineFocused: {
    method: 'GET',
    path: '/api/requests/{id}/timeline_focused',
    summary: 'The timeline page holding `focus_event_id` (a reply maps to its parent; unknown → page 1)',
    params: id,
    parameters: [...listParams(['oldest', 'newest'], 'oldest'), { name: 'focus_event_id', in: 'query', schema: { type: 'string' } }],
    responses: { '200': ok('Events.', ref('schemas', 'EventList')), ...errors },
  },
  // InvenioRDM has no generic create: POST /api/requests is 405 (the gateway answers it itself).
  createRequest: { method: 'POST', path: '/api/requests', summary: 'No generic create (405)', internal: true },
});

const url = { type: 'string', format: 'uri' };
const entity = { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1, maxProperties: 1 };
const ts = { type: 'string' };
const list = (item: string) => ({
  type: 'object',
  required: ['hits', 'links'],
  properties: {
    hits: {
      type: 'object',
      required: ['hits', 'total'],
      properties: { hits: { type: 'array', items: ref('schemas', item) }, total: { type: 'integer' } },
    },
    aggregations: { type: 'object' },
    sortBy: { type: 'string' },
    page: { type: 'integer' },
    links: { type: 'object', required: ['self'], properties: { self: url, prev: url, next: url } },
  },
});

/** The requests service's HTTP surface (routes and OpenAPI components). */
export const API = defineApi({
  service: 'requests',
  tables: [REQUEST_ROUTES],
  components: {
    schemas: {
      CommentInput: {
        type: 'object',
        properties: {
          payload: {
            type: 'object',
            required: ['content'],
            additionalProperties: false,
            properties: { content: { type: 'string', minLength: 1 }, format: { const: 'html' }, files: { type: 'array' } },
          },
        },
      },
      Request: {
        type: 'object',
        required: [
          'id',
          'number',
          'type',
          'title',
          'status',
          'is_open',
          'is_closed',
          'is_expired',
          'expires_at',
          'created_by',
          'receiver',
          'topic',
          'created',
          'updated',
          'revision_id',
          'links',
          'last_reply',
          'last_activity_at',
        ],
        properties: {
          id: { type: 'string', format: 'uuid' },
          number: { type: 'string', description: 'Lowercase Crockford base32 of one global sequence.' },
          type: { type: 'string' },
          title: { type: 'string' },
          description: { type: 'string' },
          payload: { type: 'object' },
          status: { type: 'string', enum: ['created', 'submitted', 'accepted', 'declined', 'cancelled', 'expired'] },
          is_open: { type: 'boolean' },
          is_closed: { type: 'boolean' },
          is_expired: { type: 'boolean' },
          is_locked: { type: 'boolean' },
          expires_at: { type: ['string', 'null'] },
          created_by: entity,
          receiver: entity,
          topic: { oneOf: [entity, { type: 'null' }] },
          created: ts,
          updated: ts,
          revision_id: { type: 'integer' },
          last_reply: { oneOf: [ref('schemas', 'RequestEvent'), { type: 'null' }] },
          last_activity_at: ts,
          links: {
            type: 'object',
            required: ['actions', 'self', 'self_html', 'comments', 'timeline'],
            properties: {
              actions: { type: 'object', additionalProperties: url },
              self: url,
              self_html: url,
              comments: url,
              timeline: url,
              timeline_focused: url,
              lock: url,
              unlock: url,
            },
          },
        },
      },
      RequestEvent: {
        type: 'object',
        required: ['id', 'type', 'created_by', 'payload', 'created', 'updated', 'revision_id', 'links'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          type: { type: 'string', enum: ['C', 'L'] },
          created_by: entity,
          payload: { type: 'object' },
          parent_id: { type: ['string', 'null'] },
          created: { type: 'string', description: '`YYYY-MM-DD hh:mm:ss.ffffff` in comment responses, ISO 8601 in lists.' },
          updated: { type: 'string' },
          revision_id: { type: 'integer' },
          links: { type: 'object', additionalProperties: url },
          permissions: {
            type: 'object',
            properties: {
              can_update_comment: { type: 'boolean' },
              can_delete_comment: { type: 'boolean' },
              can_reply_comment: { type: 'boolean' },
            },
          },
          children: { type: 'array', items: { type: 'object' } },
          children_count: { type: 'integer' },
        },
      },
      RequestList: list('Request'),
      EventList: list('RequestEvent'),
    },
  },
});
