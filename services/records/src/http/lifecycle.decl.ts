/**
 * Route tables of deletion, restore and abuse reports (part of the records API, routes.decl.ts):
 * `/api/records/{id}/delete`, `…/restore`, `…/request-deletion`, `…/file-modification`, `…/quota-increase`, `…/report-abuse`, with their documentation and schemas.
 * The `stats` block is described on the record schema.
 *
 * When to edit: deletion.routes.ts, abuse.routes.ts or their components change. Only the platform
 * and constants may be imported here (the gateway's route generator imports it).
 */
import { AUTHENTICATED, defineRoutes, type Json, json, operationRoute, rate, schemaRef } from '@rdm/platform';
import { errorResponse, errorsOf } from './decl-errors.js';

const TAGS = ['records'];
const errors = errorsOf(['400', '401', '429', '503'], {
  '410': errorResponse('The record has been deleted (body with `tombstone`).'),
  '412': errorResponse('If-Match does not match the revision.'),
});
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Record id (`abcde-12345`).' };
const str = { type: 'string' };

const deleteOp = (operationId: string) => ({
  operationId,
  summary: 'Delete a published record (administrators)',
  description:
    'Marks the record deleted with a tombstone: later reads answer 410 `Record deleted` with `tombstone` ' +
    '(404 `Record not found` when `is_visible` is false), it leaves search, OAI-PMH shows it deleted, its files are no longer served. ' +
    'Every key of the body is optional (`{}` or no body: a tombstone without a reason, as InvenioRDM 14); a `removal_reason.id` ' +
    'that is given must exist in the `removalreasons` vocabulary (400 `Invalid value <id>.`). Non-administrators 403.',
  tags: TAGS,
  security: AUTHENTICATED,
  requestBody: { required: false, content: json(schemaRef('RecordDeletion')) },
  responses: { '204': { description: 'Deleted.', headers: rate }, ...errors('403', '404', '412') },
});

/** An owner's request on a record or draft (`record-requests/`): the request, 201. */
const recordRequestOp = (
  operationId: string,
  o: { summary: string; description: string; body: Json; bodyRequired: boolean; created: string },
) => ({
  operationId,
  summary: o.summary,
  description: o.description,
  tags: TAGS,
  security: AUTHENTICATED,
  requestBody: { required: o.bodyRequired, content: json(o.body) },
  responses: {
    '201': { description: o.created, headers: rate, content: json({ type: 'object', additionalProperties: true }) },
    ...errors('403', '404'),
  },
});

/** Routes of deletion.routes.ts, in koa match order. */
export const DELETION_ROUTES = defineRoutes({
  deleteRecord: operationRoute('DELETE', '/api/records/{id}/delete', deleteOp('deleteRecord'), [idParam]),
  deleteRecordPost: operationRoute('POST', '/api/records/{id}/delete', deleteOp('deleteRecordPost'), [idParam]),
  restoreRecord: operationRoute(
    'POST',
    '/api/records/{id}/restore',
    {
      operationId: 'restoreRecord',
      summary: 'Restore a deleted record (administrators)',
      description: 'Removes the tombstone; the record is readable and searchable again. 400 when it is not deleted.',
      tags: TAGS,
      security: AUTHENTICATED,
      responses: { '204': { description: 'Restored.', headers: rate }, ...errors('403', '404') },
    },
    [idParam],
  ),
  requestDeletion: operationRoute(
    'POST',
    '/api/records/{id}/request-deletion',
    recordRequestOp('requestRecordDeletion', {
      summary: "The owner asks for the record's deletion",
      description:
        'Creates a `record-deletion` request (receiver the administrators, topic the record; `comment` becomes its first comment) and answers it (201). ' +
        'Within `RECORDS_DELETION_GRACE_PERIOD_DAYS` of its publication and without an external DOI the request is accepted at once by the system and the record deleted with a tombstone (`removed_by` the owner); otherwise an administrator accepts (the record is deleted) or declines it, and the owner may cancel it. ' +
        '`reason` (required): an id of the `removalreasons` vocabulary (400 `Invalid value <id>.`). Only the owner (403 otherwise, anonymous included); ' +
        '400 `A deletion request for this record is already open: <id>` while one is open; 404 unknown or a draft; 410 deleted.',
      bodyRequired: true,
      body: {
        type: 'object',
        required: ['reason'],
        additionalProperties: false,
        properties: {
          reason: { oneOf: [str, { type: 'object', required: ['id'], properties: { id: str } }] },
          comment: { type: 'string', maxLength: 5000 },
        },
      },
      created: 'The request (accepted when the deletion was immediate, `submitted` otherwise).',
    }),
    [idParam],
  ),
  requestFileModification: operationRoute(
    'POST',
    '/api/records/{id}/file-modification',
    recordRequestOp('requestFileModification', {
      summary: 'The owner asks to modify the files of the published record',
      description:
        'Creates a `file-modification` request (InvenioRDM 13+; receiver the administrators, topic the record; `comment`, at least 25 characters, becomes its first comment) and answers it (201). ' +
        'Within `RECORDS_FILE_MODIFICATION_GRACE_PERIOD_DAYS` of its publication the request is accepted at once by the system; otherwise an administrator accepts or declines it, and the owner may cancel it. ' +
        "Once accepted the record's files are unlocked: the record's edit draft (`POST /api/records/{id}/draft`) gets its own copy of the files, editable through `…/draft/files`, and publishing it replaces the version's files (a new revision) and consumes the unlock. " +
        'Only the owner (403 otherwise, anonymous included); 400 `A file modification request for this record already exists.` while one is open or unlocked; 400 when files are disabled; 404 unknown or a draft; 410 deleted.',
      bodyRequired: false,
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { comment: { type: 'string', minLength: 25, maxLength: 5000 } },
      },
      created: 'The request (accepted when within the grace period, `submitted` otherwise).',
    }),
    [idParam],
  ),
  requestQuotaIncrease: operationRoute(
    'POST',
    '/api/records/{id}/quota-increase',
    recordRequestOp('requestQuotaIncrease', {
      summary: "A draft's owner asks for a larger bucket quota",
      description:
        'Creates a `quota-increase` request (receiver the administrators, topic the draft; `reason` becomes its first comment) and answers it (201, `submitted`). ' +
        "An administrator accepts it — the draft's bucket quota then rises to `quota_size` bytes (the files service; never lowered) — or declines it; the owner may cancel it. " +
        '`id`: a draft (a new upload or the edit draft of a published record; a published record without a draft is a 400). Only the draft owner (403 otherwise, anonymous included); 404 unknown; 400 bad fields.',
      bodyRequired: true,
      body: {
        type: 'object',
        required: ['quota_size', 'reason'],
        additionalProperties: false,
        properties: {
          quota_size: { type: 'integer', minimum: 1, description: 'The bucket quota asked for, in bytes.' },
          reason: { type: 'string', minLength: 1, maxLength: 5000 },
        },
      },
      created: 'The request, `submitted`.',
    }),
    [idParam],
  ),
});

/** The route of abuse.routes.ts. */
export const ABUSE_ROUTES = defineRoutes({
  reportAbuse: operationRoute(
    'POST',
    '/api/records/{id}/report-abuse',
    {
      operationId: 'reportAbuse',
      summary: 'Report a record for abuse (no authentication)',
      description:
        'Stored, then e-mailed to the site abuse address by the mailer. `abuseType`: `abusive`, `copyright`, `not-research`, `illegal`. ' +
        'Required: abuseType, name, email, message; 400 with field errors (syntax, lengths); 429 past 5 reports per address in 10 minutes.',
      tags: TAGS,
      security: [{}],
      requestBody: { required: true, content: json(schemaRef('AbuseReport')) },
      responses: {
        '201': {
          description: 'Accepted.',
          headers: rate,
          content: json({ type: 'object', properties: { status: { const: 'submitted' } }, required: ['status'] }),
        },
        ...errors('404', '410'),
      },
    },
    [idParam],
  ),
});

/** The schemas. */
export function lifecycleSchemas(): Record<string, Json> {
  return {
    RecordDeletion: {
      type: 'object',
      properties: {
        removal_reason: { type: 'object', required: ['id'], properties: { id: str } },
        note: { type: 'string', maxLength: 10000 },
        citation_text: { type: 'string', maxLength: 10000 },
        is_visible: { type: 'boolean', default: true },
      },
    },
    AbuseReport: {
      type: 'object',
      required: ['abuseType', 'name', 'email', 'message'],
      properties: {
        abuseType: { enum: ['abusive', 'copyright', 'not-research', 'illegal'] },
        name: { type: 'string', maxLength: 255 },
        email: { type: 'string', format: 'email', maxLength: 254 },
        affiliation: { type: 'string', maxLength: 255 },
        phone: { type: 'string', maxLength: 64 },
        address: { type: 'string', maxLength: 255 },
        city: { type: 'string', maxLength: 255 },
        zip: { type: 'string', maxLength: 32 },
        country: { type: 'string', maxLength: 255 },
        message: { type: 'string', maxLength: 5000 },
      },
    },
  };
}
