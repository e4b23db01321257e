/**
 * The users service's HTTP surface, declared once: the router (users.routes.ts binds one handler
 * per key), the OpenAPI fragment served at the internal `GET /openapi.json` and merged by the
 * gateway into `/api/openapi.json`, and the gateway's routing table (`pnpm gen:contracts`) all come
 * from it. Shared components (`Error`, `BadRequest`, `q`, `page`, `X-RateLimit-*`, `bearerAuth`…)
 * are the gateway's and are only referenced here.
 *
 * When to edit: a users route, its parameters or the User JSON (http/user.serializer.ts) change.
 * Only the platform and constants may be imported here (the generator imports this file).
 */
import { defineApi, defineRoutes, type Json, json, rate, ref } from '@rdm/platform';
import { VISIBILITIES } from '../domain/user.js';
import { USER_SORTS } from '../domain/users.service.js';

/** Errors every route can answer (gateway: invalid token, rate limit, service down). */
const common: Json = {
  '401': ref('responses', 'InvalidToken'),
  '429': ref('responses', 'TooManyRequests'),
  '503': ref('responses', 'ServiceUnavailable'),
};
const userNotFound = {
  description:
    'Unknown, hidden or malformed user id (never 403: existence stays hidden). `{"status":404,"message":"The user does not exist."}`',
  content: json(ref('schemas', 'Error')),
};
const idParam = { id: { description: 'User id (a positive integer, sent as a string).' } };

/** Every route of the users service, in koa match order. */
export const USER_ROUTES = defineRoutes({
  searchUsers: {
    method: 'GET',
    path: '/api/users',
    list: true,
    summary: 'Search public users',
    description:
      'Exposed users (active, confirmed, public profile) plus the caller; administrators see every active, confirmed user. ' +
      '`q` fields: `username`, `email` (public e-mails only), `full_name` (`profile.full_name`), `affiliations`, `id`, `created`, `updated`.',
    parameters: [
      ref('parameters', 'q'),
      ref('parameters', 'page'),
      { name: 'size', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 10000, default: 10 }, description: 'Page size.' },
      {
        name: 'sort',
        in: 'query',
        schema: { type: 'string', enum: [...USER_SORTS] },
        description: '`bestmatch` by default with `q`, else `newest`.',
      },
    ],
    responses: {
      '200': { description: 'A page of users.', headers: rate, content: json(ref('schemas', 'UserList')) },
      '400': ref('responses', 'BadRequest'),
      ...common,
    },
  },
  readUser: {
    method: 'GET',
    path: '/api/users/{id}',
    summary: 'Read a user',
    params: idParam,
    responses: {
      '200': { description: 'The user, cut down to what the caller may see.', headers: rate, content: json(ref('schemas', 'User')) },
      '404': userNotFound,
      ...common,
    },
  },
  readUserAvatar: {
    method: 'GET',
    path: '/api/users/{id}/avatar.svg',
    summary: "A user's avatar",
    description: "The initial of the user's name on a coloured disc. Readable by whoever may read the user.",
    params: idParam,
    parameters: [{ name: 'If-None-Match', in: 'header', schema: { type: 'string' } }],
    responses: {
      '200': {
        description: 'The SVG image.',
        headers: {
          ...rate,
          ETag: { schema: { type: 'string' }, description: 'Starts with `"` and the initial.' },
          'Cache-Control': { schema: { type: 'string' }, description: '`private, max-age=3600`' },
        },
        content: { 'image/svg+xml': { schema: { type: 'string' } } },
      },
      '304': { description: 'Not modified (`If-None-Match` matched the ETag).' },
      '404': userNotFound,
      ...common,
    },
  },
  readMe: {
    method: 'GET',
    path: '/api/me',
    summary: 'The caller',
    description: 'The authenticated caller, with e-mail, locale, timezone, domain and roles. Anonymous callers get 403 (never 401).',
    auth: 'user',
    responses: {
      '200': { description: 'The caller.', headers: rate, content: json(ref('schemas', 'User')) },
      '403': ref('responses', 'PermissionDenied'),
      ...common,
    },
  },
});

const url = { type: 'string', format: 'uri' };
const visibility = { type: 'string', enum: [...VISIBILITIES] };

/** The users service's HTTP surface (routes and OpenAPI components). */
export const API = defineApi({
  service: 'users',
  tables: [USER_ROUTES],
  components: {
    schemas: {
      User: {
        type: 'object',
        description:
          '`email` only when its visibility is public, or for the user themselves and administrators; ' +
          '`preferences.locale`/`timezone`, `domain` and `roles` only for the user themselves and administrators.',
        required: [
          'id',
          'created',
          'updated',
          'links',
          'revision_id',
          'active',
          'confirmed',
          'is_current_user',
          'username',
          'profile',
          'preferences',
          'identities',
        ],
        properties: {
          id: { type: 'string', pattern: '^[1-9][0-9]*$' },
          created: { type: 'string', format: 'date-time' },
          updated: { type: 'string', format: 'date-time' },
          links: {
            type: 'object',
            required: ['self', 'avatar', 'records_html'],
            properties: { self: url, avatar: url, records_html: url },
          },
          revision_id: { type: 'integer' },
          active: { type: 'boolean' },
          confirmed: { type: 'boolean' },
          is_current_user: { type: 'boolean' },
          email: { type: 'string', format: 'email' },
          username: { type: ['string', 'null'] },
          profile: {
            type: 'object',
            required: ['full_name', 'affiliations'],
            properties: { full_name: { type: 'string' }, affiliations: { type: 'string' } },
          },
          preferences: {
            type: 'object',
            required: ['visibility', 'email_visibility'],
            properties: {
              visibility,
              email_visibility: visibility,
              locale: { type: 'string' },
              timezone: { type: 'string' },
            },
          },
          identities: { type: 'object', additionalProperties: { type: 'string' } },
          domain: { type: 'string' },
          roles: { type: 'array', items: { type: 'string' } },
        },
      },
      UserList: {
        type: 'object',
        required: ['hits', 'aggregations', 'sortBy', 'links'],
        properties: {
          hits: {
            type: 'object',
            required: ['hits', 'total'],
            properties: { hits: { type: 'array', items: ref('schemas', 'User') }, total: { type: 'integer', minimum: 0 } },
          },
          aggregations: { type: 'object' },
          sortBy: { type: 'string' },
          links: { type: 'object', required: ['self'], properties: { self: url, prev: url, next: url } },
        },
      },
    },
    responses: {
      InvalidToken: {
        description: 'The bearer token is invalid, expired or revoked (gateway, `AUTH_INVALID_TOKEN=reject`).',
        headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: '`Bearer error="invalid_token"`' } },
        content: json(ref('schemas', 'Error')),
      },
    },
  },
});
