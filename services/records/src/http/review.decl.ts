/**
 * Route table of reviews and record communities (part of the records API, routes.decl.ts):
 * `/api/records/{id}/draft/review`, `…/draft/actions/submit-review`, `/api/records/{id}/communities`,
 * `…/communities-suggestions`, `DELETE /api/communities/{id}/records`, with their documentation
 * and schemas. Shared components (`Error`, responses, headers) are the gateway's and only referenced.
 *
 * When to edit: review.routes.ts or the review / record-communities services change. Only the
 * platform and constants may be imported here (the gateway's route generator imports it).
 */
import { AUTHENTICATED, defineRoutes, type Json, json, operationRoute, rate, schemaRef } from '@rdm/platform';
import { errorResponse, errorsOf } from './decl-errors.js';

const TAGS = ['records'];
// Why 400 on every operation: the platform refuses any query string with a NUL character.
const errors = errorsOf(['400', '401', '429', '503'], { '410': errorResponse('The record has been deleted.') });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Record id (`abcde-12345`).' };
const ok = (description: string, schema: string) => ({ description, headers: rate, content: json(schemaRef(schema)) });
const communitiesBody = { required: true, content: json(schemaRef('RecordCommunitiesWrite')) };

/** Routes of review.routes.ts, in koa match order (bound only when reviews are configured). */
export const REVIEW_ROUTES = defineRoutes({
  getDraftReview: operationRoute(
    'GET',
    '/api/records/{id}/draft/review',
    {
      operationId: 'getDraftReview',
      summary: "The draft's review request",
      description: 'The community-submission request as the caller sees it; 404 `Review for draft not found` without one.',
      tags: TAGS,
      security: AUTHENTICATED,
      responses: { '200': ok('The review request.', 'ReviewRequest'), ...errors('403', '404', '410') },
    },
    [idParam],
  ),
  putDraftReview: operationRoute(
    'PUT',
    '/api/records/{id}/draft/review',
    {
      operationId: 'putDraftReview',
      summary: 'Create or replace the review request',
      description:
        'Creates a `community-submission` request (status `created`) to the community (id or slug), replacing a `created` one. ' +
        '400: invalid type (`type`), unknown or deleted community (`receiver.community`), a published record or a new version, an open review.',
      tags: TAGS,
      security: AUTHENTICATED,
      requestBody: { required: true, content: json(schemaRef('ReviewWrite')) },
      responses: { '200': ok('The new review request.', 'ReviewRequest'), ...errors('400', '403', '404', '410') },
    },
    [idParam],
  ),
  deleteDraftReview: operationRoute(
    'DELETE',
    '/api/records/{id}/draft/review',
    {
      operationId: 'deleteDraftReview',
      summary: 'Delete the review request',
      description: '204; 404 without a review; 400 `An open review cannot be deleted.` once submitted.',
      tags: TAGS,
      security: AUTHENTICATED,
      responses: { '204': { description: 'Deleted.', headers: rate }, ...errors('400', '403', '404', '410') },
    },
    [idParam],
  ),
  submitDraftReview: operationRoute(
    'POST',
    '/api/records/{id}/draft/actions/submit-review',
    {
      operationId: 'submitDraftReview',
      summary: 'Submit the draft for review',
      description:
        'Validates the draft as publish would (400), checks the community submission policy (403 `Submission to this community is only allowed ' +
        'to community members.`) and submits the request. When the community accepts the submitter directly (review policy, ' +
        '`require_review` false) the request comes back `accepted` and the record is published.',
      tags: TAGS,
      security: AUTHENTICATED,
      requestBody: { required: false, content: json(schemaRef('SubmitReview')) },
      responses: { '202': ok('The request, with `links.next_html`.', 'ReviewRequest'), ...errors('400', '403', '404', '410') },
    },
    [idParam],
    // Why: the gateway routes it by `…/draft/actions/{action}` (routes.decl.ts's runDraftAction), as before.
    { routedAs: '/api/records/{id}/draft/actions/{action}' },
  ),
  listRecordCommunities: operationRoute(
    'GET',
    '/api/records/{id}/communities',
    {
      operationId: 'listRecordCommunities',
      summary: "The record's communities",
      tags: TAGS,
      responses: { '200': ok('Community summaries.', 'CommunitySummaryList'), ...errors('403', '404', '410') },
    },
    [idParam],
    { list: true },
  ),
  addRecordCommunities: operationRoute(
    'POST',
    '/api/records/{id}/communities',
    {
      operationId: 'addRecordCommunities',
      summary: 'Request inclusion of the record in communities',
      description: 'One `community-inclusion` request per community, submitted (auto-accepted when the policy allows). At most 10.',
      tags: TAGS,
      security: AUTHENTICATED,
      requestBody: communitiesBody,
      responses: { '200': ok('Processed requests and per-community errors.', 'InclusionResult'), ...errors('400', '403', '404', '410') },
    },
    [idParam],
  ),
  removeRecordCommunities: operationRoute(
    'DELETE',
    '/api/records/{id}/communities',
    {
      operationId: 'removeRecordCommunities',
      summary: 'Remove the record from communities',
      description: 'Record owners, or curators (and up) of each community. `{}` or `{errors}` for the communities refused.',
      tags: TAGS,
      security: AUTHENTICATED,
      requestBody: communitiesBody,
      responses: { '200': ok('Errors of the communities refused, if any.', 'RemovalResult'), ...errors('400', '403', '404', '410') },
    },
    [idParam],
  ),
  recordCommunitySuggestions: operationRoute(
    'GET',
    '/api/records/{id}/communities-suggestions',
    {
      operationId: 'recordCommunitySuggestions',
      summary: 'Communities of the caller the record is not in',
      tags: TAGS,
      security: AUTHENTICATED,
      responses: { '200': ok('Community summaries.', 'CommunitySummaryList'), ...errors('403', '404', '410') },
    },
    [idParam],
    { list: true },
  ),
  removeCommunityRecords: operationRoute(
    'DELETE',
    '/api/communities/{id}/records',
    {
      operationId: 'removeCommunityRecords',
      summary: 'Remove records from the community',
      description:
        "Curators, managers and owners of the community, or each record's owner. At most 10 records (400 beyond). 200 with `{}`, or " +
        '`{errors: [{record, message}]}` for the records refused (not found, not in the community, permission denied); the others are removed.',
      tags: TAGS,
      security: AUTHENTICATED,
      requestBody: {
        required: true,
        content: json({
          type: 'object',
          required: ['records'],
          properties: {
            records: {
              type: 'array',
              minItems: 1,
              maxItems: 10,
              items: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
            },
          },
        }),
      },
      responses: {
        '200': {
          description: 'Errors of the records refused, if any.',
          headers: rate,
          content: json({
            type: 'object',
            properties: {
              errors: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['record', 'message'],
                  properties: { record: { type: 'string' }, message: { type: 'string' } },
                },
              },
            },
          }),
        },
        ...errors('400', '403', '404', '410'),
      },
    },
    [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Community id or slug.' }],
  ),
});

const str = { type: 'string' };
const bool = { type: 'boolean' };
const ref1 = { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1, maxProperties: 1 };
const perCommunityErrors = {
  type: 'array',
  items: { type: 'object', properties: { community_id: str, message: str }, required: ['community_id', 'message'] },
};

/** The schemas. */
export function reviewSchemas(): Record<string, Json> {
  const summary = {
    type: 'object',
    properties: {
      id: str,
      slug: str,
      title: str,
      visibility: str,
      members_visibility: str,
      member_policy: str,
      record_submission_policy: str,
      review_policy: str,
      is_deleted: bool,
      links: { type: 'object', properties: { self: str, self_html: str } },
    },
    required: ['id', 'slug'],
  };
  return {
    ReviewRequest: {
      type: 'object',
      description: 'A request in the requests service API shape.',
      properties: {
        id: str,
        number: str,
        type: str,
        title: str,
        status: str,
        is_open: bool,
        is_closed: bool,
        created_by: ref1,
        receiver: ref1,
        topic: { oneOf: [ref1, { type: 'null' }] },
        links: { type: 'object', properties: { self: str, self_html: str, next_html: str, actions: { type: 'object' } } },
      },
      required: ['id', 'type', 'status'],
    },
    ReviewWrite: {
      type: 'object',
      properties: {
        type: { type: 'string', enum: ['community-submission'] },
        receiver: {
          type: 'object',
          properties: { community: { type: 'string', description: 'Community id or slug.' } },
          required: ['community'],
        },
      },
      required: ['type', 'receiver'],
    },
    SubmitReview: {
      type: 'object',
      properties: {
        payload: { type: 'object', properties: { content: str, format: { type: 'string', enum: ['html'] } }, required: ['content'] },
        require_review: bool,
      },
    },
    RecordCommunitiesWrite: {
      type: 'object',
      properties: {
        communities: {
          type: 'array',
          minItems: 1,
          maxItems: 10,
          items: {
            type: 'object',
            properties: { id: { type: 'string', description: 'Community id or slug.' }, require_review: bool },
            required: ['id'],
          },
        },
      },
      required: ['communities'],
    },
    InclusionResult: {
      type: 'object',
      properties: {
        processed: {
          type: 'array',
          items: { type: 'object', properties: { community_id: str, request_id: str }, required: ['community_id', 'request_id'] },
        },
        errors: perCommunityErrors,
      },
      required: ['processed'],
    },
    RemovalResult: { type: 'object', properties: { errors: perCommunityErrors } },
    CommunitySummary: summary,
    CommunitySummaryList: {
      type: 'object',
      properties: {
        hits: { type: 'object', properties: { hits: { type: 'array', items: schemaRef('CommunitySummary') }, total: { type: 'integer' } } },
        links: { type: 'object', properties: { self: str } },
      },
    },
  };
}
