/**
 * Route table of a record's access (part of the records API, routes.decl.ts):
 * secret links (`…/access/links[/{link_id}]`), grants (`…/access/grants[/{grant_id}]`,
 * `…/access/users[/{user_id}]`) and the parent's access settings (`…/access`). Shared components
 * (`Error`, responses, headers) are the gateway's and only referenced.
 *
 * When to edit: access.routes.ts, access-links.service.ts or grants.service.ts change. Only the
 * platform and constants may be imported here (the gateway's route generator imports it).
 */
import { AUTHENTICATED, defineRoutes, type Json, json, operationRoute, schemaRef } from '@rdm/platform';
import { errorsOf } from './decl-errors.js';

const TAGS = ['records'];
const errors = errorsOf(['400', '401', '403', '404', '429', '503']);
const idParam = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Record or draft id (links and grants live on the parent).',
};
const ok = (description: string, schema: string) => ({ description, content: json(schemaRef(schema)) });
const list = (item: string) => ({
  type: 'object',
  properties: { hits: { type: 'object', properties: { hits: { type: 'array', items: schemaRef(item) }, total: { type: 'integer' } } } },
});
const MANAGE = "Manage level only (owner, `manage` grantees, curators of the record's communities, administrators); link holders get 403.";

function op(operationId: string, summary: string, description: string, responses: Json, body?: string): Json {
  return {
    operationId,
    summary,
    description: `${description} ${MANAGE}`,
    tags: TAGS,
    security: AUTHENTICATED,
    ...(body ? { requestBody: { required: true, content: json(schemaRef(body)) } } : {}),
    responses: { ...responses, ...errors() },
  };
}

const deleted = { '204': { description: 'Deleted.' } };

/** The five routes of grants (`grants`, by position) or user grants (`users`, by user id). */
function grantRoutes(kind: 'grants' | 'users', keyName: string, keyDesc: string) {
  const Kind = kind === 'grants' ? 'Grant' : 'UserGrant';
  const key = { name: keyName, in: 'path', required: true, schema: { type: 'string' }, description: keyDesc };
  const base = `/api/records/{id}/access/${kind}`;
  const one = `${base}/{${keyName}}`;
  return {
    list: operationRoute(
      'GET',
      base,
      op(`list${Kind}s`, `List ${kind === 'grants' ? 'access grants' : 'users with access'}`, 'Every grant of the parent.', {
        '200': ok('The grants.', 'AccessGrantList'),
      }),
      [idParam],
    ),
    create: operationRoute(
      'POST',
      base,
      op(
        `create${Kind}s`,
        `Grant access${kind === 'users' ? ' to users' : ''}`,
        '`{grants: [{subject: {type: user|role, id}, permission: view|preview|edit|manage}]}`; 400 with `grants.<i>.<field>` errors, a grant for the same subject → 400.',
        { '201': ok('The created grants.', 'AccessGrantList') },
        'AccessGrantsWrite',
      ),
      [idParam],
    ),
    read: operationRoute('GET', one, op(`get${Kind}`, 'One grant', '404 `Grant not found.`', { '200': ok('The grant.', 'AccessGrant') }), [
      idParam,
      key,
    ]),
    update: operationRoute(
      'PATCH',
      one,
      op(`update${Kind}`, "Change a grant's level", '`{permission}`.', { '200': ok('The grant.', 'AccessGrant') }, 'AccessGrantPatch'),
      [idParam, key],
    ),
    remove: operationRoute('DELETE', one, op(`delete${Kind}`, 'Revoke a grant', 'Effective at once.', deleted), [idParam, key]),
  };
}
const G = grantRoutes('grants', 'grant_id', 'Position of the grant in the list (InvenioRDM: ids shift after a delete).');
const U = grantRoutes('users', 'user_id', 'User id of the grant.');
const linkParams = [idParam, { name: 'link_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }];

/** Routes of access.routes.ts, in koa match order. */
export const ACCESS_ROUTES = defineRoutes({
  createAccessLink: operationRoute(
    'POST',
    '/api/records/{id}/access/links',
    op(
      'createAccessLink',
      'Create a secret link',
      '`permission` view|preview|edit (required: `An access permission level is required`), `expires_at` a future date (`Expiration date must be set to the future`; the day starts 00:00 UTC), `description`. The token works as `?token=` on the record, its draft (preview, edit) and files.',
      { '201': ok('The link with its token.', 'AccessLink') },
      'AccessLinkWrite',
    ),
    [idParam],
  ),
  listAccessLinks: operationRoute(
    'GET',
    '/api/records/{id}/access/links',
    op('listAccessLinks', 'List secret links', '`{hits: {hits, total}}`, oldest first.', {
      '200': { description: 'The links.', content: json(list('AccessLink')) },
    }),
    [idParam],
  ),
  getAccessLink: operationRoute(
    'GET',
    '/api/records/{id}/access/links/{link_id}',
    op('getAccessLink', 'One secret link', '404 `No secret link found with the given ID.`', { '200': ok('The link.', 'AccessLink') }),
    linkParams,
  ),
  updateAccessLink: operationRoute(
    'PATCH',
    '/api/records/{id}/access/links/{link_id}',
    op(
      'updateAccessLink',
      'Change a secret link',
      'Partial: `permission`, `description`, an earlier `expires_at` (postponing or removing it → 400 `Cannot postpone expiration of links`); the token never changes.',
      { '200': ok('The link.', 'AccessLink') },
      'AccessLinkWrite',
    ),
    linkParams,
  ),
  deleteAccessLink: operationRoute(
    'DELETE',
    '/api/records/{id}/access/links/{link_id}',
    op('deleteAccessLink', 'Revoke a secret link', 'The token stops working with the next request.', deleted),
    linkParams,
  ),
  listGrants: G.list,
  createGrants: G.create,
  getGrant: G.read,
  updateGrant: G.update,
  deleteGrant: G.remove,
  listUserGrants: U.list,
  createUserGrants: U.create,
  getUserGrant: U.read,
  updateUserGrant: U.update,
  deleteUserGrant: U.remove,
  putAccessSettings: operationRoute(
    'PUT',
    '/api/records/{id}/access',
    op(
      'putAccessSettings',
      'Replace the access settings',
      'Unsent settings take their defaults. Returns the parent.',
      { '200': ok('The parent.', 'RecordParent') },
      'AccessSettingsWrite',
    ),
    [idParam],
  ),
  patchAccessSettings: operationRoute(
    'PATCH',
    '/api/records/{id}/access',
    op(
      'patchAccessSettings',
      'Change access settings',
      'Only the sent settings change. Returns the parent.',
      { '200': ok('The parent.', 'RecordParent') },
      'AccessSettingsWrite',
    ),
    [idParam],
  ),
});

/** The schemas. */
export function accessSchemas(): Record<string, Json> {
  const str = { type: 'string' };
  const level = { enum: ['view', 'preview', 'edit', 'manage'] };
  const grant = {
    type: 'object',
    required: ['id', 'subject', 'permission'],
    properties: {
      id: str,
      subject: { type: 'object', properties: { type: { enum: ['user', 'role'] }, id: str } },
      permission: level,
      origin: str,
    },
  };
  const settings = {
    type: 'object',
    properties: {
      allow_user_requests: { type: 'boolean' },
      allow_guest_requests: { type: 'boolean' },
      accept_conditions_text: { type: ['string', 'null'] },
      secret_link_expiration: { type: 'integer', minimum: 0, maximum: 365 },
    },
  };
  return {
    RecordParent: {
      type: 'object',
      properties: {
        id: str,
        access: {
          type: 'object',
          properties: { owned_by: { type: ['object', 'null'] }, settings, grants: { type: 'array' }, links: { type: 'array' } },
        },
        communities: { type: 'object' },
        pids: { type: 'object' },
      },
    },
    AccessLink: {
      type: 'object',
      required: ['id', 'created_at', 'permission', 'description', 'token'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        created_at: { type: 'string', format: 'date-time' },
        expires_at: { type: 'string', format: 'date', description: 'Omitted when the link never expires.' },
        permission: { enum: ['view', 'preview', 'edit'] },
        description: str,
        token: { type: 'string', description: 'Shown on every read (derived from a secret; only its hash is stored).' },
      },
    },
    AccessLinkWrite: {
      type: 'object',
      properties: {
        permission: { enum: ['view', 'preview', 'edit'] },
        expires_at: { type: ['string', 'null'], format: 'date' },
        description: str,
        origin: str,
      },
    },
    AccessGrant: grant,
    AccessGrantList: list('AccessGrant'),
    AccessGrantsWrite: {
      type: 'object',
      required: ['grants'],
      properties: {
        grants: {
          type: 'array',
          minItems: 1,
          maxItems: 100,
          items: { type: 'object', properties: { subject: grant.properties.subject, permission: level, origin: str } },
        },
      },
    },
    AccessGrantPatch: { type: 'object', properties: { permission: level } },
    AccessSettingsWrite: {
      description: '`{access: {settings}}` (InvenioRDM), `{settings}` or the settings themselves.',
      oneOf: [
        { type: 'object', properties: { access: { type: 'object', properties: { settings } } } },
        { type: 'object', properties: { settings } },
        settings,
      ],
    },
  };
}
