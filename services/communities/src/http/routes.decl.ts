/**
 * The communities service's HTTP surface, declared once: the routers (communities.routes.ts,
 * members.routes.ts, extensions.routes.ts bind one handler per key of their table), the OpenAPI
 * fragment served at the internal `GET /openapi.json` and merged by the gateway into
 * `/api/openapi.json`, and the gateway's routing table (`pnpm gen:contracts`) all come from it.
 * Shared components (`Error`, `q`, `page`, `size`, `sort`, `PermissionDenied`…) are the gateway's
 * and are only referenced here.
 *
 * When to edit: a communities route, its parameters or a JSON shape (http/serializers.ts) change.
 * Only the platform and constants may be imported here (the generator imports this file).
 */
import { defineApi, defineRoutes, type Json, json, ref } from '@rdm/platform';
import { COMMUNITY_SORTS } from '../domain/communities.service.js';
import { MEMBER_SORTS } from '../domain/members.service.js';

const common: Json = { '429': ref('responses', 'TooManyRequests'), '503': ref('responses', 'ServiceUnavailable') };
const err = (description: string) => ({ description, content: json(ref('schemas', 'Error')) });
const idParam = { id: { description: 'Community id (UUID) or slug.' } };
const uuidParam = { id: { schema: { type: 'string', format: 'uuid' }, description: 'Community id (UUID; a slug is refused with 400).' } };
const facet = (name: string) => ({
  name,
  in: 'query',
  required: false,
  schema: { type: 'array', items: { type: 'string' } },
  style: 'form',
  explode: true,
});
const listParams = (sorts: readonly string[]) => [
  ref('parameters', 'q'),
  ref('parameters', 'page'),
  ref('parameters', 'size'),
  { name: 'sort', in: 'query', required: false, schema: { type: 'string', enum: [...sorts] } },
];
const ok = (schema: Json, description = 'OK') => ({ description, content: json(schema) });
const noContent = { description: 'No content.' };
const std = { '400': ref('responses', 'BadRequest'), '403': ref('responses', 'PermissionDenied'), ...common };
const one = {
  ...std,
  '404': err('Unknown community. `The persistent identifier does not exist.`'),
  '410': err('Deleted community. `The record has been deleted.`'),
};
const membersBody = {
  type: 'object',
  required: ['members'],
  properties: {
    members: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: { type: 'object', required: ['type', 'id'], properties: { type: { const: 'user' }, id: { type: 'string' } } },
    },
    role: { type: 'string', enum: ['owner', 'manager', 'curator', 'reader'] },
    visible: { type: 'boolean' },
    message: { type: 'string' },
  },
};

const C = ref('schemas', 'Community');
const L = ref('schemas', 'CommunityList');
const sec = [{ bearerAuth: [] }, { accessToken: [] }, {}];
const communityBody = { required: true, content: json(ref('schemas', 'CommunityWrite')) };
const octet = { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } };

/** Routes of communities.routes.ts, in koa match order. */
export const COMMUNITY_ROUTES = defineRoutes({
  searchCommunities: {
    method: 'GET',
    path: '/api/communities',
    list: true,
    summary: 'Search communities',
    parameters: [...listParams(COMMUNITY_SORTS), facet('type'), facet('visibility')],
    responses: { '200': ok(L), '400': ref('responses', 'BadRequest'), ...common },
  },
  featuredCommunities: {
    method: 'GET',
    path: '/api/communities/featured',
    list: true,
    summary: 'Public featured communities',
    parameters: listParams(COMMUNITY_SORTS),
    // 400: a bad page, size or sort (the hand-written fragment forgot it; the merge dropped this path then).
    responses: { '200': ok(L), '400': ref('responses', 'BadRequest'), ...common },
  },
  userCommunities: {
    method: 'GET',
    path: '/api/user/communities',
    list: true,
    summary: "The caller's communities",
    security: sec,
    parameters: [...listParams(COMMUNITY_SORTS), facet('type')],
    responses: { '200': ok(L), ...std },
  },
  createCommunity: {
    method: 'POST',
    path: '/api/communities',
    summary: 'Create a community (COMMUNITY_CREATORS: administrators by default)',
    security: sec,
    body: communityBody,
    responses: { '201': ok(C, 'Created.'), ...std },
  },
  readCommunity: {
    method: 'GET',
    path: '/api/communities/{id}',
    summary: 'Read a community (with statistics)',
    params: idParam,
    responses: { '200': ok(C), ...one },
  },
  updateCommunity: {
    method: 'PUT',
    path: '/api/communities/{id}',
    summary: 'Update a community (owners, administrators; If-Match optional)',
    params: idParam,
    security: sec,
    body: communityBody,
    responses: { '200': ok(C), '412': err('Revision mismatch.'), ...one },
  },
  deleteCommunity: {
    method: 'DELETE',
    path: '/api/communities/{id}',
    summary: 'Soft-delete a community (owners, administrators); open requests block it',
    params: idParam,
    security: sec,
    responses: { '204': noContent, ...one },
  },
  renameCommunity: {
    method: 'POST',
    path: '/api/communities/{id}/rename',
    summary: 'Change the slug',
    params: idParam,
    security: sec,
    body: { type: 'object', required: ['slug'], properties: { slug: { type: 'string' } } },
    responses: { '200': ok(C), ...one },
  },
  restoreCommunity: {
    method: 'POST',
    path: '/api/communities/{id}/restore',
    summary: 'Restore a deleted community',
    params: idParam,
    security: sec,
    responses: { '200': ok(C), ...one },
  },
  putLogo: {
    method: 'PUT',
    path: '/api/communities/{id}/logo',
    summary: 'Upload the logo (raw bytes; COMMUNITIES_LOGO_MAX_BYTES)',
    params: idParam,
    security: sec,
    body: 'octet-stream',
    responses: {
      '200': ok({
        type: 'object',
        required: ['key', 'size'],
        properties: {
          key: { type: 'string' },
          size: { type: 'integer' },
          checksum: { type: 'string' },
          mimetype: { type: 'string' },
        },
      }),
      ...one,
    },
  },
  getLogo: {
    method: 'GET',
    path: '/api/communities/{id}/logo',
    summary: 'The logo bytes (content type sniffed)',
    params: idParam,
    responses: { '200': { description: 'Logo.', content: octet }, ...one },
  },
  deleteLogo: {
    method: 'DELETE',
    path: '/api/communities/{id}/logo',
    summary: 'Remove the logo',
    params: idParam,
    security: sec,
    responses: { '204': noContent, ...one },
  },
  listFeatured: {
    method: 'GET',
    path: '/api/communities/{id}/featured',
    summary: 'Featured entries (administrators)',
    params: idParam,
    security: sec,
    responses: { '200': ok({ type: 'object' }), ...one },
  },
  createFeatured: {
    method: 'POST',
    path: '/api/communities/{id}/featured',
    summary: 'Feature a community (administrators)',
    params: idParam,
    security: sec,
    body: ref('schemas', 'FeaturedWrite'),
    responses: { '201': ok(ref('schemas', 'Featured'), 'Created.'), ...one },
  },
  updateFeatured: {
    method: 'PUT',
    path: '/api/communities/{id}/featured/{fid}',
    summary: 'Change a featured entry (administrators)',
    params: idParam,
    security: sec,
    body: ref('schemas', 'FeaturedWrite'),
    responses: { '200': ok(ref('schemas', 'Featured')), ...one },
  },
  deleteFeatured: {
    method: 'DELETE',
    path: '/api/communities/{id}/featured/{fid}',
    summary: 'Remove a featured entry (administrators)',
    params: idParam,
    security: sec,
    responses: { '204': noContent, ...one },
  },
});

/** Routes of members.routes.ts, in koa match order. */
export const MEMBER_ROUTES = defineRoutes({
  searchMembers: {
    method: 'GET',
    path: '/api/communities/{id}/members',
    list: true,
    summary: 'Members (members only)',
    params: uuidParam,
    security: sec,
    parameters: [...listParams(MEMBER_SORTS), facet('role'), facet('visibility')],
    responses: { '200': ok({ type: 'object' }), ...one },
  },
  publicMembers: {
    method: 'GET',
    path: '/api/communities/{id}/members/public',
    list: true,
    summary: 'Visible members',
    params: uuidParam,
    parameters: listParams(MEMBER_SORTS),
    responses: { '200': ok({ type: 'object' }), ...one },
  },
  updateMembers: {
    method: 'PUT',
    path: '/api/communities/{id}/members',
    summary: 'Change role / visibility',
    params: uuidParam,
    security: sec,
    body: membersBody,
    responses: { '204': noContent, ...one },
  },
  removeMembers: {
    method: 'DELETE',
    path: '/api/communities/{id}/members',
    summary: 'Remove members or leave',
    params: uuidParam,
    security: sec,
    body: membersBody,
    responses: { '204': noContent, ...one },
  },
  invite: {
    method: 'POST',
    path: '/api/communities/{id}/invitations',
    summary: 'Invite users (community-invitation requests)',
    params: uuidParam,
    security: sec,
    body: membersBody,
    responses: { '204': noContent, ...one },
  },
  updateInvitations: {
    method: 'PUT',
    path: '/api/communities/{id}/invitations',
    summary: 'Change the role of pending invitations',
    params: uuidParam,
    security: sec,
    body: membersBody,
    responses: { '204': noContent, ...one },
  },
  searchInvitations: {
    method: 'GET',
    path: '/api/communities/{id}/invitations',
    list: true,
    summary: 'Invitations, open and archived (owners, managers)',
    params: uuidParam,
    security: sec,
    parameters: [...listParams(MEMBER_SORTS), facet('role'), facet('status'), facet('is_open')],
    responses: { '200': ok({ type: 'object' }), ...one },
  },
  searchMembershipRequests: {
    method: 'GET',
    path: '/api/communities/{id}/membership-requests',
    list: true,
    summary: 'Membership requests (owners, managers)',
    params: uuidParam,
    security: sec,
    parameters: [...listParams(MEMBER_SORTS), facet('role'), facet('status'), facet('is_open')],
    responses: { '200': ok({ type: 'object' }), ...one },
  },
  requestMembership: {
    method: 'POST',
    path: '/api/communities/{id}/membership-requests',
    summary: 'Ask to join (member_policy open)',
    params: uuidParam,
    security: sec,
    body: { required: false, content: json({ type: 'object', properties: { message: { type: 'string' } } }) },
    responses: { '201': ok({ type: 'object' }, 'The request.'), ...one },
  },
  updateMembershipRequests: {
    method: 'PUT',
    path: '/api/communities/{id}/membership-requests',
    summary: 'Change the role pending membership requests will grant (owners, managers)',
    params: uuidParam,
    security: sec,
    body: membersBody,
    responses: { '204': noContent, ...one },
  },
});

const EXT = '/api/community-schema-extension';

/** Routes of extensions.routes.ts, in koa match order. */
export const EXTENSION_ROUTES = defineRoutes({
  listSchemaExtensions: {
    method: 'GET',
    path: EXT,
    summary: 'Latest schema extension of each community',
    responses: { '200': ok({ type: 'array', items: ref('schemas', 'SchemaExtensionEntry') }), ...common },
  },
  getSchemaExtension: {
    method: 'GET',
    path: `${EXT}/schema/{schema_id}/jsonschema`,
    summary: 'One schema version',
    responses: {
      '200': ok({
        type: 'object',
        required: ['id', 'json_schema', 'version'],
        properties: { id: { type: 'string' }, json_schema: { type: 'object' }, version: { type: 'integer' } },
      }),
      '404': err('Unknown schema id.'),
      ...common,
    },
  },
  latestSchemaExtension: {
    method: 'GET',
    path: `${EXT}/{slug}`,
    summary: 'Latest schema of a community',
    responses: {
      '200': ok({
        type: 'object',
        required: ['url', 'uuid'],
        properties: { url: { type: 'string', format: 'uri' }, uuid: { type: 'string' } },
      }),
      '404': err('No schema.'),
      ...common,
    },
  },
  registerSchemaExtension: {
    method: 'PUT',
    path: `${EXT}/{slug}`,
    summary: 'Register a new version (owner or administrator); body: a JSON Schema draft-04 object',
    security: sec,
    body: { type: 'object' },
    responses: { '200': ok(ref('schemas', 'SchemaExtensionEntry')), ...one },
  },
});

/** The communities service's HTTP surface (routes and OpenAPI components). */
export const API = defineApi({
  service: 'communities',
  tables: [EXTENSION_ROUTES, MEMBER_ROUTES, COMMUNITY_ROUTES],
  components: {
    schemas: {
      Community: {
        type: 'object',
        required: [
          'id',
          'slug',
          'created',
          'updated',
          'revision_id',
          'links',
          'metadata',
          'access',
          'custom_fields',
          'deletion_status',
          'children',
        ],
        properties: {
          id: { type: 'string', format: 'uuid' },
          slug: { type: 'string' },
          created: { type: 'string' },
          updated: { type: 'string' },
          revision_id: { type: 'integer' },
          links: { type: 'object', additionalProperties: { type: 'string', format: 'uri' } },
          metadata: { type: 'object' },
          access: {
            type: 'object',
            required: [
              'visibility',
              'members_visibility',
              'member_policy',
              'record_submission_policy',
              'review_policy',
              'record_restricted_policy',
            ],
          },
          custom_fields: {
            type: 'object',
            description: 'Values of the fields configured by `COMMUNITIES_CUSTOM_FIELDS` (none by default: `{}`), as stored.',
          },
          deletion_status: { type: 'object', properties: { is_deleted: { type: 'boolean' }, status: { type: 'string' } } },
          children: {
            type: 'object',
            description: 'Subcommunities are not supported: `allow` is always false (a change is 403, system only in InvenioRDM).',
            properties: { allow: { const: false } },
          },
          statistics: {
            type: 'object',
            properties: Object.fromEntries(
              ['records', 'files', 'file_size', 'record_views', 'record_downloads'].map((k) => [k, { type: 'integer' }]),
            ),
          },
        },
      },
      CommunityWrite: {
        type: 'object',
        required: ['slug', 'metadata'],
        properties: {
          slug: { type: 'string', maxLength: 100 },
          metadata: { type: 'object', required: ['title'] },
          access: {
            type: 'object',
            properties: { visibility: { type: 'string' }, member_policy: { type: 'string' }, record_policy: { type: 'string' } },
          },
          custom_fields: {
            type: 'object',
            description:
              'Only the keys configured by `COMMUNITIES_CUSTOM_FIELDS` (another key: 400 `Unknown field.`); replaced as a whole by an update (absent: `{}`).',
          },
          children: {
            type: 'object',
            description: 'Only `{allow: false}` (the stored value) is accepted; any other value is 403.',
            properties: { allow: { type: 'boolean' } },
          },
        },
      },
      CommunityList: {
        type: 'object',
        required: ['hits', 'aggregations', 'sortBy', 'links'],
        properties: {
          hits: {
            type: 'object',
            properties: { hits: { type: 'array', items: ref('schemas', 'Community') }, total: { type: 'integer' } },
          },
          aggregations: { type: 'object' },
          sortBy: { type: 'string' },
          links: { type: 'object' },
        },
      },
      Featured: { type: 'object', properties: { id: { type: 'integer' }, start_date: { type: 'string' } } },
      FeaturedWrite: { type: 'object', properties: { start_date: { type: 'string', format: 'date-time' } } },
      SchemaExtensionEntry: {
        type: 'object',
        required: ['community_id', 'community_schema_version', 'community_slug', 'schema_id', 'section'],
        properties: {
          community_id: { type: 'string' },
          community_schema_version: { type: 'integer' },
          community_slug: { type: 'string' },
          schema_id: { type: 'string' },
          section: { type: 'string' },
        },
      },
    },
  },
});
