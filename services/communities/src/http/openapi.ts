/**
 * The communities service's OpenAPI fragment, served at `GET /openapi.json` (internal) and merged
 * by the gateway into `/api/openapi.json`: every route this service serves, with parameters,
 * bodies and status codes. Shared components (`Error`, `q`, `page`, `size`, `sort`,
 * `PermissionDenied`…) are the gateway's and are only referenced here.
 *
 * When to edit: a communities route, its parameters or a JSON shape (http/serializers.ts) change.
 */
import { type AppState, Router } from '@rdm/platform';
import { COMMUNITY_SORTS } from '../domain/communities.service.js';
import { MEMBER_SORTS } from '../domain/members.service.js';
import { type Json, json, ref } from '@rdm/platform';

const TAGS = ['communities'];
const common: Json = { '429': ref('responses', 'TooManyRequests'), '503': ref('responses', 'ServiceUnavailable') };
const err = (description: string) => ({ description, content: json(ref('schemas', 'Error')) });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Community id (UUID) or slug.' };
const uuidParam = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
  description: 'Community id (UUID; a slug is refused with 400).',
};
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
const op = (operationId: string, summary: string, extra: Json) => ({ operationId, summary, tags: TAGS, ...extra });

/** Build the fragment. */
export function openapiFragment(): Json {
  const C = ref('schemas', 'Community');
  const L = ref('schemas', 'CommunityList');
  const sec = [{ bearerAuth: [] }, { accessToken: [] }, {}];
  const communityBody = { required: true, content: json(ref('schemas', 'CommunityWrite')) };
  return {
    openapi: '3.1.0',
    info: { title: 'communities', version: '1.0.0' },
    paths: {
      '/api/communities': {
        get: op('searchCommunities', 'Search communities', {
          parameters: [...listParams(COMMUNITY_SORTS), facet('type'), facet('visibility')],
          responses: { '200': ok(L), '400': ref('responses', 'BadRequest'), ...common },
        }),
        post: op('createCommunity', 'Create a community (COMMUNITY_CREATORS: administrators by default)', {
          security: sec,
          requestBody: communityBody,
          responses: { '201': ok(C, 'Created.'), ...std },
        }),
      },
      '/api/communities/featured': {
        get: op('featuredCommunities', 'Public featured communities', {
          parameters: listParams(COMMUNITY_SORTS),
          responses: { '200': ok(L), ...common },
        }),
      },
      '/api/user/communities': {
        get: op('userCommunities', "The caller's communities", {
          security: sec,
          parameters: [...listParams(COMMUNITY_SORTS), facet('type')],
          responses: { '200': ok(L), ...std },
        }),
      },
      '/api/communities/{id}': {
        parameters: [idParam],
        get: op('readCommunity', 'Read a community (with statistics)', { responses: { '200': ok(C), ...one } }),
        put: op('updateCommunity', 'Update a community (owners, administrators; If-Match optional)', {
          security: sec,
          requestBody: communityBody,
          responses: { '200': ok(C), '412': err('Revision mismatch.'), ...one },
        }),
        delete: op('deleteCommunity', 'Soft-delete a community (owners, administrators); open requests block it', {
          security: sec,
          responses: { '204': noContent, ...one },
        }),
      },
      '/api/communities/{id}/rename': {
        parameters: [idParam],
        post: op('renameCommunity', 'Change the slug', {
          security: sec,
          requestBody: { required: true, content: json({ type: 'object', required: ['slug'], properties: { slug: { type: 'string' } } }) },
          responses: { '200': ok(C), ...one },
        }),
      },
      '/api/communities/{id}/restore': {
        parameters: [idParam],
        post: op('restoreCommunity', 'Restore a deleted community', { security: sec, responses: { '200': ok(C), ...one } }),
      },
      '/api/communities/{id}/logo': {
        parameters: [idParam],
        get: op('getLogo', 'The logo bytes (content type sniffed)', {
          responses: {
            '200': {
              description: 'Logo.',
              content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
            },
            ...one,
          },
        }),
        put: op('putLogo', 'Upload the logo (raw bytes; COMMUNITIES_LOGO_MAX_BYTES)', {
          security: sec,
          requestBody: {
            required: true,
            content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
          },
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
        }),
        delete: op('deleteLogo', 'Remove the logo', { security: sec, responses: { '204': noContent, ...one } }),
      },
      '/api/communities/{id}/featured': {
        parameters: [idParam],
        get: op('listFeatured', 'Featured entries (administrators)', {
          security: sec,
          responses: { '200': ok({ type: 'object' }), ...one },
        }),
        post: op('createFeatured', 'Feature a community (administrators)', {
          security: sec,
          requestBody: { required: true, content: json(ref('schemas', 'FeaturedWrite')) },
          responses: { '201': ok(ref('schemas', 'Featured'), 'Created.'), ...one },
        }),
      },
      '/api/communities/{id}/featured/{fid}': {
        parameters: [idParam, { name: 'fid', in: 'path', required: true, schema: { type: 'string' } }],
        put: op('updateFeatured', 'Change a featured entry (administrators)', {
          security: sec,
          requestBody: { required: true, content: json(ref('schemas', 'FeaturedWrite')) },
          responses: { '200': ok(ref('schemas', 'Featured')), ...one },
        }),
        delete: op('deleteFeatured', 'Remove a featured entry (administrators)', {
          security: sec,
          responses: { '204': noContent, ...one },
        }),
      },
      '/api/communities/{id}/members': {
        parameters: [uuidParam],
        get: op('searchMembers', 'Members (members only)', {
          security: sec,
          parameters: [...listParams(MEMBER_SORTS), facet('role'), facet('visibility')],
          responses: { '200': ok({ type: 'object' }), ...one },
        }),
        put: op('updateMembers', 'Change role / visibility', {
          security: sec,
          requestBody: { required: true, content: json(membersBody) },
          responses: { '204': noContent, ...one },
        }),
        delete: op('removeMembers', 'Remove members or leave', {
          security: sec,
          requestBody: { required: true, content: json(membersBody) },
          responses: { '204': noContent, ...one },
        }),
      },
      '/api/communities/{id}/members/public': {
        parameters: [uuidParam],
        get: op('publicMembers', 'Visible members', {
          parameters: listParams(MEMBER_SORTS),
          responses: { '200': ok({ type: 'object' }), ...one },
        }),
      },
      '/api/communities/{id}/invitations': {
        parameters: [uuidParam],
        get: op('searchInvitations', 'Invitations, open and archived (owners, managers)', {
          security: sec,
          parameters: [...listParams(MEMBER_SORTS), facet('role'), facet('status'), facet('is_open')],
          responses: { '200': ok({ type: 'object' }), ...one },
        }),
        post: op('invite', 'Invite users (community-invitation requests)', {
          security: sec,
          requestBody: { required: true, content: json(membersBody) },
          responses: { '204': noContent, ...one },
        }),
        put: op('updateInvitations', 'Change the role of pending invitations', {
          security: sec,
          requestBody: { required: true, content: json(membersBody) },
          responses: { '204': noContent, ...one },
        }),
      },
      '/api/communities/{id}/membership-requests': {
        parameters: [uuidParam],
        get: op('searchMembershipRequests', 'Membership requests (owners, managers)', {
          security: sec,
          parameters: [...listParams(MEMBER_SORTS), facet('role'), facet('status'), facet('is_open')],
          responses: { '200': ok({ type: 'object' }), ...one },
        }),
        post: op('requestMembership', 'Ask to join (member_policy open)', {
          security: sec,
          requestBody: { required: false, content: json({ type: 'object', properties: { message: { type: 'string' } } }) },
          responses: { '201': ok({ type: 'object' }, 'The request.'), ...one },
        }),
        put: op('updateMembershipRequests', 'Change the role pending membership requests will grant (owners, managers)', {
          security: sec,
          requestBody: { required: true, content: json(membersBody) },
          responses: { '204': noContent, ...one },
        }),
      },
      '/api/community-schema-extension': {
        get: op('listSchemaExtensions', 'Latest schema extension of each community', {
          responses: { '200': ok({ type: 'array', items: ref('schemas', 'SchemaExtensionEntry') }), ...common },
        }),
      },
      '/api/community-schema-extension/{slug}': {
        parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string' } }],
        get: op('latestSchemaExtension', 'Latest schema of a community', {
          responses: {
            '200': ok({
              type: 'object',
              required: ['url', 'uuid'],
              properties: { url: { type: 'string', format: 'uri' }, uuid: { type: 'string' } },
            }),
            '404': err('No schema.'),
            ...common,
          },
        }),
        put: op('registerSchemaExtension', 'Register a new version (owner or administrator); body: a JSON Schema draft-04 object', {
          security: sec,
          requestBody: { required: true, content: json({ type: 'object' }) },
          responses: { '200': ok(ref('schemas', 'SchemaExtensionEntry')), ...one },
        }),
      },
      '/api/community-schema-extension/schema/{schemaId}/jsonschema': {
        parameters: [{ name: 'schemaId', in: 'path', required: true, schema: { type: 'string' } }],
        get: op('getSchemaExtension', 'One schema version', {
          responses: {
            '200': ok({
              type: 'object',
              required: ['id', 'json_schema', 'version'],
              properties: { id: { type: 'string' }, json_schema: { type: 'object' }, version: { type: 'integer' } },
            }),
            '404': err('Unknown schema id.'),
            ...common,
          },
        }),
      },
    },
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
  };
}

/** The internal `GET /openapi.json` route (mount it with `mountRouter`). */
export function openapiRouter(): Router<AppState> {
  const router = new Router<AppState>();
  const body = JSON.stringify(openapiFragment());
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = body;
  });
  return router;
}
