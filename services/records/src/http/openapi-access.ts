/**
 * OpenAPI fragment of a record's access (merged into the records fragment by `openapi.ts`):
 * secret links (`…/access/links[/{link_id}]`), grants (`…/access/grants[/{grant_id}]`,
 * `…/access/users[/{user_id}]`) and the parent's access settings (`…/access`). Shared components
 * (`Error`, responses, headers) are the gateway's and only referenced.
 *
 * When to edit: access.routes.ts, access-links.component.ts or grants.component.ts change.
 */
import { AUTHENTICATED, type Json, json, ref, schemaRef } from '@rdm/platform';

const TAGS = ['records'];
const E: Record<string, Json> = {
  '400': ref('responses', 'BadRequest'),
  '401': ref('responses', 'InvalidToken'),
  '403': ref('responses', 'PermissionDenied'),
  '404': ref('responses', 'NotFound'),
  '429': ref('responses', 'TooManyRequests'),
  '503': ref('responses', 'ServiceUnavailable'),
};
const errors = (...codes: string[]): Json =>
  Object.fromEntries([...new Set(['400', '401', '403', '404', '429', '503', ...codes])].sort().map((c) => [c, E[c]]));
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

/** The paths. */
export function accessPaths(): Record<string, Json> {
  const deleted = { '204': { description: 'Deleted.' } };
  const grantOps = (kind: 'grants' | 'users', keyName: string, keyDesc: string): Record<string, Json> => {
    const Kind = kind === 'grants' ? 'Grant' : 'UserGrant';
    const key = { name: keyName, in: 'path', required: true, schema: { type: 'string' }, description: keyDesc };
    return {
      [`/api/records/{id}/access/${kind}`]: {
        parameters: [idParam],
        get: op(`list${Kind}s`, `List ${kind === 'grants' ? 'access grants' : 'users with access'}`, 'Every grant of the parent.', {
          '200': ok('The grants.', 'AccessGrantList'),
        }),
        post: op(
          `create${Kind}s`,
          `Grant access${kind === 'users' ? ' to users' : ''}`,
          '`{grants: [{subject: {type: user|role, id}, permission: view|preview|edit|manage}]}`; 400 with `grants.<i>.<field>` errors, a grant for the same subject → 400.',
          { '201': ok('The created grants.', 'AccessGrantList') },
          'AccessGrantsWrite',
        ),
      },
      [`/api/records/{id}/access/${kind}/{${keyName}}`]: {
        parameters: [idParam, key],
        get: op(`get${Kind}`, 'One grant', '404 `Grant not found.`', { '200': ok('The grant.', 'AccessGrant') }),
        patch: op(
          `update${Kind}`,
          "Change a grant's level",
          '`{permission}`.',
          { '200': ok('The grant.', 'AccessGrant') },
          'AccessGrantPatch',
        ),
        delete: op(`delete${Kind}`, 'Revoke a grant', 'Effective at once.', deleted),
      },
    };
  };
  return {
    '/api/records/{id}/access/links': {
      parameters: [idParam],
      get: op('listAccessLinks', 'List secret links', '`{hits: {hits, total}}`, oldest first.', {
        '200': { description: 'The links.', content: json(list('AccessLink')) },
      }),
      post: op(
        'createAccessLink',
        'Create a secret link',
        '`permission` view|preview|edit (required: `An access permission level is required`), `expires_at` a future date (`Expiration date must be set to the future`; the day starts 00:00 UTC), `description`. The token works as `?token=` on the record, its draft (preview, edit) and files.',
        { '201': ok('The link with its token.', 'AccessLink') },
        'AccessLinkWrite',
      ),
    },
    '/api/records/{id}/access/links/{link_id}': {
      parameters: [idParam, { name: 'link_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
      get: op('getAccessLink', 'One secret link', '404 `No secret link found with the given ID.`', {
        '200': ok('The link.', 'AccessLink'),
      }),
      patch: op(
        'updateAccessLink',
        'Change a secret link',
        'Partial: `permission`, `description`, an earlier `expires_at` (postponing or removing it → 400 `Cannot postpone expiration of links`); the token never changes.',
        { '200': ok('The link.', 'AccessLink') },
        'AccessLinkWrite',
      ),
      delete: op('deleteAccessLink', 'Revoke a secret link', 'The token stops working with the next request.', deleted),
    },
    ...grantOps('grants', 'grant_id', 'Position of the grant in the list (InvenioRDM: ids shift after a delete).'),
    ...grantOps('users', 'user_id', 'User id of the grant.'),
    '/api/records/{id}/access': {
      parameters: [idParam],
      put: op(
        'putAccessSettings',
        'Replace the access settings',
        'Unsent settings take their defaults. Returns the parent.',
        { '200': ok('The parent.', 'RecordParent') },
        'AccessSettingsWrite',
      ),
      patch: op(
        'patchAccessSettings',
        'Change access settings',
        'Only the sent settings change. Returns the parent.',
        { '200': ok('The parent.', 'RecordParent') },
        'AccessSettingsWrite',
      ),
    },
  };
}

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
