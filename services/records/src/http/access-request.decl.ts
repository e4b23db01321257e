/**
 * Route table of access requests (part of the records API, routes.decl.ts):
 * `POST /api/records/{id}/access/request` and the guest's confirmation link
 * `…/access/request/confirm`, with their documentation and schemas. Shared components are the
 * gateway's and only referenced.
 *
 * When to edit: access-request.routes.ts or access-request.service.ts change. Only the platform
 * and constants may be imported here (the gateway's route generator imports it).
 */
import { defineRoutes, type Json, json, operationRoute, schemaRef } from '@rdm/platform';
import { errorResponse, errorsOf } from './decl-errors.js';

const TAGS = ['records'];
const errors = errorsOf(['400', '401', '403', '404', '410', '429', '503'], { '410': errorResponse('The record was deleted.') });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Record id.' };
const tokenParam = {
  name: 'access_request_token',
  in: 'query',
  required: true,
  schema: { type: 'string' },
  description: 'The token of the verification e-mail (valid 6 hours, once).',
};

/** Routes of access-request.routes.ts, in koa match order. */
export const ACCESS_REQUEST_ROUTES = defineRoutes({
  requestAccess: operationRoute(
    'POST',
    '/api/records/{id}/access/request',
    {
      operationId: 'requestAccess',
      summary: 'Ask the owner for access to the files',
      description:
        "Signed in: creates a submitted `user-access-request` (receiver the owner, topic the record; `message` becomes its first comment) and answers it. Anonymous: `email` and `full_name` required; stores a verification token and e-mails the confirmation link, answers `{message: 'Verification link sent out, please check your e-mail inbox'}` (rate limited per client address). 403 `You already have access to files of this record.` when the caller can read the files; 403 `Permission denied.` when the parent's `allow_user_requests` / `allow_guest_requests` is off; 400 `Identical access requests already exist: <request id>` while the caller's request for this record (any version) is open. Accepting makes a `view` grant (users) or a secret link e-mailed to the guest (expiring after `secret_link_expiration` days).",
      tags: TAGS,
      requestBody: { required: false, content: json(schemaRef('AccessRequestAsk')) },
      responses: {
        '200': {
          description: 'The request (signed in) or the verification notice (anonymous).',
          content: json({ oneOf: [schemaRef('AccessRequestCreated'), schemaRef('AccessRequestVerification')] }),
        },
        ...errors(),
      },
    },
    [idParam],
  ),
  confirmGuestAccessRequest: operationRoute(
    'GET',
    '/api/records/{id}/access/request/confirm',
    {
      operationId: 'confirmGuestAccessRequest',
      summary: "Confirm a guest's e-mail address",
      description:
        'The link of the verification e-mail (InvenioRDM: the UI route `/access/requests/confirm`). Creates the submitted `guest-access-request` (creator `{email}`) and consumes the token. Signed-in callers 403; unknown, expired or used tokens 404.',
      tags: TAGS,
      responses: { '200': { description: 'The created request.', content: json(schemaRef('AccessRequestCreated')) }, ...errors() },
    },
    [idParam, tokenParam],
  ),
  confirmGuestAccessRequestPost: operationRoute(
    'POST',
    '/api/records/{id}/access/request/confirm',
    {
      operationId: 'confirmGuestAccessRequestPost',
      summary: "Confirm a guest's e-mail address (POST)",
      description: 'As the GET.',
      tags: TAGS,
      responses: { '200': { description: 'The created request.', content: json(schemaRef('AccessRequestCreated')) }, ...errors() },
    },
    [idParam, tokenParam],
  ),
});

/** The schemas. */
export function accessRequestSchemas(): Record<string, Json> {
  const str = { type: 'string' };
  return {
    AccessRequestAsk: {
      type: 'object',
      additionalProperties: false,
      properties: {
        permission: { const: 'view' },
        email: { type: 'string', format: 'email', maxLength: 254, description: 'Guests only (required).' },
        full_name: { type: 'string', maxLength: 255, description: 'Guests only (required).' },
        message: { type: 'string', maxLength: 5000 },
        consent_to_share_personal_data: { enum: ['true', 'false', true, false] },
      },
    },
    AccessRequestVerification: { type: 'object', required: ['message'], properties: { message: str } },
    AccessRequestCreated: {
      type: 'object',
      required: ['id', 'type', 'status'],
      description: 'The request as `GET /api/requests/{id}` shows it.',
      properties: {
        id: str,
        type: { enum: ['user-access-request', 'guest-access-request'] },
        status: str,
        title: str,
        created_by: { type: 'object' },
        receiver: { type: 'object' },
        topic: { type: 'object' },
        payload: { type: 'object' },
        links: { type: 'object' },
      },
    },
  };
}
