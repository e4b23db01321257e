/**
 * The files service's HTTP surface, declared once: the router (files.routes.ts binds one handler
 * per key), the OpenAPI fragment served at the internal `GET /openapi.json` and merged by the
 * gateway into `/api/openapi.json`, and the gateway's routing table (`pnpm gen:contracts`) all
 * come from it. Draft and record files — list, initialise, metadata, content upload (raw bytes,
 * chunked transfer accepted), multipart parts, commit, download with `Range` (HEAD documented
 * too), zip archive — with the status codes the routes really answer. Media files
 * (`…/media-files…`, the second bucket) get the same routes, derived from the files ones
 * (`media`), plus a published record's media-file writes. A NUL or bad encoding in any path is
 * 400 (`Invalid file key.`). Shared components (`Error`, `BadRequest`, `X-RateLimit-*`,
 * `bearerAuth`…) are the gateway's and are only referenced here.
 *
 * When to edit: a files route, its headers or the JSON of http/serializers.ts change. Only the
 * platform and constants may be imported here (the generator imports this file).
 *
 * Why over 400 lines: the declarative table of every files route and its schemas, one fragment
 * per service as the gateway merges them.
 */
import { AUTHENTICATED, defineApi, defineRoutes, type Json, json, type RouteDecl, rate, ref, schemaRef } from '@rdm/platform';
import { TRANSFER_TYPES } from '../domain/input.js';
import { IIIF_ROUTES } from './iiif.decl.js';

const error = (description: string, headers?: Json) => ({
  description,
  ...(headers ? { headers } : {}),
  content: json(schemaRef('Error')),
});

/** Error responses by status; routes pick theirs. */
const E = {
  '400': ref('responses', 'BadRequest'),
  '401': ref('responses', 'InvalidToken'),
  '403': error(
    'Permission denied, files not enabled (`Files are not enabled.`) or the bucket locked (`Bucket is locked for modifications.`).',
  ),
  '404': error("Unknown record, or `Record '<id>' has no file '<key>'.`"),
  '410': error('The record has been deleted.'),
  '409': error('A part sent while the file is being committed (assembled).'),
  '413': ref('responses', 'PayloadTooLarge'),
  '415': error('Unsupported `Content-Type`: uploads take `application/octet-stream` only; JSON bodies refuse binary types.'),
  '416': error('The `Range` lies outside the file.', {
    'Content-Range': { schema: { type: 'string' }, description: '`bytes */<size>`' },
  }),
  '429': ref('responses', 'TooManyRequests'),
  '501': error('Media files: the records service answered no media-bucket grant (a records release older than media files).'),
  '503': ref('responses', 'ServiceUnavailable'),
} as const;
type Status = keyof typeof E;
const errors = (...codes: Status[]): Json => Object.fromEntries(['401', '429', '503', ...codes].sort().map((c) => [c, E[c as Status]]));

const idParam = { id: { description: 'Record id.' } };
const keyParams = {
  ...idParam,
  key: {
    schema: { type: 'string', minLength: 1 },
    description:
      'File key; may contain `/` (sent unescaped). No `.`/`..`/empty segments, control characters or backslashes; at most 255 bytes.',
  },
};
const partParams = { ...keyParams, part: { schema: { type: 'integer', minimum: 1 } } };
const tokenParam = {
  name: 'token',
  in: 'query',
  schema: { type: 'string' },
  description: 'Secret link token granting access to a restricted record.',
};
const TAGS = ['files'];

const entry = (description: string) => ({ description, headers: rate, content: json(schemaRef('FileEntry')) });
const list = (description: string) => ({ description, headers: rate, content: json(schemaRef('FileList')) });
const done = (description: string) => ({ description, headers: rate });
const octet = { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } };

const D = '/api/records/{id}/draft';
const R = '/api/records/{id}';
/** koa pattern of a part upload: the part is digits (matched before the greedy key routes). */
const partKoa = (base: string, seg: string) => `${base.replace('{id}', ':id')}/${seg}/:key(.+)/content/:part(\\d+)`;

/** Download (GET, HEAD documented too) of a file's content. */
function download(scope: 'draft' | 'record', base: string): RouteDecl {
  const headers: Json = {
    ...rate,
    ETag: { schema: { type: 'string' }, description: '`"md5:<hex>"`' },
    'Accept-Ranges': { schema: { type: 'string', const: 'bytes' } },
    'Last-Modified': { schema: { type: 'string' } },
    'Content-Length': { schema: { type: 'integer', minimum: 0 } },
    'Content-Disposition': {
      schema: { type: 'string' },
      description: '`inline`, or `attachment; filename=…` (+ `filename*`) for octet-stream or with `?download`.',
    },
  };
  const responses = (body: Json) => ({
    '200': { description: 'The whole content.', headers, ...body },
    '206': {
      description: 'One range of the content.',
      headers: { ...headers, 'Content-Range': { schema: { type: 'string' }, description: '`bytes <start>-<end>/<size>`' } },
      ...body,
    },
    '304': { description: 'Not modified (`If-None-Match` matched the ETag).' },
    ...errors('400', '403', '404', '410', '416'),
  });
  const Scope = scope === 'draft' ? 'Draft' : 'Record';
  return {
    method: 'GET',
    path: `${base}/files/{key+}/content`,
    summary: `Download the content of a ${scope} file`,
    description:
      'Served as `Content-Type` images, audio and `text/plain` as themselves, HTML/JS/CSS/SVG/JSON/CSV/XML as `text/plain`, anything else ' +
      '`application/octet-stream`. One `Range` gives 206 (several: 200, unsatisfiable: 416); `If-None-Match` gives 304; `If-Range` applies.',
    tags: TAGS,
    params: keyParams,
    parameters: [
      { name: 'Range', in: 'header', schema: { type: 'string' }, description: 'One byte range, e.g. `bytes=0-99`, `bytes=-100`.' },
      { name: 'If-Range', in: 'header', schema: { type: 'string' }, description: 'The ETag the range is for.' },
      { name: 'If-None-Match', in: 'header', schema: { type: 'string' } },
      {
        name: 'download',
        in: 'query',
        schema: { type: 'string' },
        description: 'Present (any value): `Content-Disposition: attachment`.',
      },
      tokenParam,
    ],
    responses: responses({ content: { '*/*': { schema: { description: 'The bytes (a sanitized Content-Type).' } } } }),
    head: { operationId: `probe${Scope}FileContent`, summary: `Headers of the content of a ${scope} file`, responses: responses({}) },
  };
}

function archive(scope: 'draft' | 'record', base: string): RouteDecl {
  return {
    method: 'GET',
    path: `${base}/files-archive`,
    summary: `Download every committed file of the ${scope} as a zip`,
    tags: TAGS,
    params: idParam,
    parameters: [tokenParam],
    responses: {
      '200': {
        description: 'A zip (stored, not compressed), streamed.',
        headers: { ...rate, 'Content-Disposition': { schema: { type: 'string' }, description: '`attachment; filename=<id>.zip`' } },
        content: { 'application/zip': { schema: { description: 'The zip archive.' } } },
      },
      ...errors('400', '403', '404', '410'),
    },
  };
}

const listDoc = (summary: string): Omit<RouteDecl, 'method' | 'path'> => ({
  summary,
  tags: TAGS,
  params: idParam,
  parameters: [tokenParam],
  responses: {
    '200': list('The file list (`{enabled: false, links}` when files are disabled).'),
    ...errors('400', '403', '404', '410'),
  },
});

/** Published records' files are read-only: every write method of these paths answers 405 (never routed by the gateway, which answers 405 itself). */
const readOnly = <const K extends string>(key: K, path: string) =>
  Object.fromEntries(
    (['POST', 'PUT', 'PATCH', 'DELETE'] as const).map((method) => [
      `${key}${method}`,
      { method, path, summary: `${method} refused (405): published files are read-only`, internal: true },
    ]),
  ) as Record<`${K}${'POST' | 'PUT' | 'PATCH' | 'DELETE'}`, RouteDecl>;

/** Routes of the `files` bucket, in koa match order (suffixed key routes before the greedy key route of the same method). */
export const FILE_ROUTES = defineRoutes({
  // ── drafts: reads ──
  listDraftFiles: { method: 'GET', path: `${D}/files`, ...listDoc("List the draft's files") },
  downloadDraftFilesArchive: archive('draft', D),
  downloadDraftFileContent: download('draft', D),
  readDraftFile: {
    method: 'GET',
    path: `${D}/files/{key+}`,
    summary: 'Read a file entry of the draft',
    tags: TAGS,
    params: keyParams,
    parameters: [tokenParam],
    responses: { '200': entry('The entry.'), ...errors('400', '403', '404', '410') },
  },
  // ── drafts: writes ──
  initDraftFiles: {
    method: 'POST',
    path: `${D}/files`,
    summary: 'Initialise files (register keys before uploading their content)',
    tags: TAGS,
    security: AUTHENTICATED,
    params: idParam,
    body: { required: true, content: json({ type: 'array', minItems: 1, items: schemaRef('FileInit') }) },
    responses: {
      '201': list('The file list with the new entries (`pending`).'),
      ...errors('400', '403', '404', '410', '413', '415'),
    },
  },
  deleteDraftFiles: {
    method: 'DELETE',
    path: `${D}/files`,
    summary: 'Delete every file of the draft',
    tags: TAGS,
    security: AUTHENTICATED,
    params: idParam,
    responses: { '204': done('Deleted.'), ...errors('400', '403', '404', '410') },
  },
  uploadDraftFilePart: {
    method: 'PUT',
    path: `${D}/files/{key+}/content/{part}`,
    koa: partKoa(D, 'files'),
    upload: true,
    summary: 'Upload one part of a multipart file (InvenioRDM multipart transfer)',
    description:
      'For entries initialised with `transfer: {type: "M", parts, part_size}` (the URLs are in the entry\'s `links.parts`). ' +
      'Parts may be sent in parallel and in any order; sending a part again replaces it. Each part must be exactly ' +
      '`part_size` bytes, the last one the rest of `size`. 400: `Part number is higher than total parts sent in multipart ' +
      'initialization.`, `Size of this part must be equal to part_size sent in multipart initialization.`, ' +
      '`Transfer type "L" does not support multipart uploads.`, an expired upload.',
    tags: TAGS,
    security: AUTHENTICATED,
    params: partParams,
    body: { required: true, content: octet },
    responses: { '200': entry('The entry, still `pending` until committed.'), ...errors('400', '403', '404', '409', '410', '415') },
  },
  uploadDraftFileContent: {
    method: 'PUT',
    path: `${D}/files/{key+}/content`,
    upload: true,
    summary: 'Upload the content of a file (raw bytes)',
    description:
      'The entry must have been initialised and not committed. `Content-Length` or `Transfer-Encoding: chunked`; the bytes are ' +
      'streamed to storage (md5 computed on the way). Over the file or record size limit: 400 `File size limit exceeded.`',
    tags: TAGS,
    security: AUTHENTICATED,
    params: keyParams,
    body: { required: true, content: octet },
    responses: { '200': entry('The entry, still `pending` until committed.'), ...errors('400', '403', '404', '410', '415') },
  },
  commitDraftFile: {
    method: 'POST',
    path: `${D}/files/{key+}/commit`,
    summary: 'Commit an uploaded file',
    description:
      'A multipart file is assembled from its parts (md5 of the whole computed on the way) and its transfer becomes `L`; ' +
      'missing parts: 400 `File with key <key> is missing parts: <n>, ….`',
    tags: TAGS,
    security: AUTHENTICATED,
    params: keyParams,
    responses: {
      '200': entry('The entry, `completed`, with `checksum`, `size`, `mimetype`.'),
      ...errors('400', '403', '404', '410'),
    },
  },
  updateDraftFile: {
    method: 'PUT',
    path: `${D}/files/{key+}`,
    summary: "Update a file entry's metadata and access",
    tags: TAGS,
    security: AUTHENTICATED,
    params: keyParams,
    body: { required: false, content: json(schemaRef('FileUpdate')) },
    responses: { '200': entry('The entry.'), ...errors('400', '403', '404', '410', '413', '415') },
  },
  deleteDraftFile: {
    method: 'DELETE',
    path: `${D}/files/{key+}`,
    summary: 'Delete a file of the draft',
    tags: TAGS,
    security: AUTHENTICATED,
    params: keyParams,
    responses: { '204': done('Deleted.'), ...errors('400', '403', '404', '410') },
  },
  // ── published records: reads ──
  listRecordFiles: { method: 'GET', path: `${R}/files`, ...listDoc("List the published record's files") },
  downloadRecordFilesArchive: archive('record', R),
  downloadRecordFileContent: download('record', R),
  readRecordFile: {
    method: 'GET',
    path: `${R}/files/{key+}`,
    summary: 'Read a file entry of the published record',
    tags: TAGS,
    params: keyParams,
    parameters: [tokenParam],
    responses: { '200': entry('The entry (with `pids`, no `commit` link).'), ...errors('400', '403', '404', '410') },
  },
  // ── published records: writes refused ──
  ...readOnly('refuseRecordFiles', `${R}/files`),
  ...readOnly('refuseRecordFilesArchive', `${R}/files-archive`),
  ...readOnly('refuseRecordFile', `${R}/files/{key+}`),
});

const toMedia = (path: string) => path.replace('/files-archive', '/media-files-archive').replace(/\/files(\/|$)/, '/media-files$1');

/**
 * The media-files route of a files route: same handler kind on `…/media-files…`, `Media` in its
 * summary, 501 when records answers no media-bucket grant (an older records release). With
 * `record`, a draft's write route on the published record's media files (the service serves them,
 * records' grant decides: InvenioRDM's default policy refuses them to everyone, 403; issue 19,
 * item 9: the fuzzer found them answered with statuses the gateway's generic description did not
 * list).
 */
function media(decl: RouteDecl, record = false): RouteDecl {
  const summary = (s: string) =>
    s.replace(/files?\b/, (w) => `media ${w}`).replace(record ? /the draft('s)?/ : /^$/, (_, s) => `the published record${s ?? ''}`);
  const path = toMedia(record ? decl.path.replace('/draft/', '/') : decl.path);
  return {
    ...decl,
    path,
    ...(decl.koa ? { koa: partKoa(record ? R : D, 'media-files') } : {}),
    summary: summary(decl.summary),
    ...(record
      ? { description: `${decl.description ? `${decl.description} ` : ''}Records' default policy refuses it to everyone (403).` }
      : {}),
    responses: { ...decl.responses, '501': E['501'] },
    ...(decl.head
      ? {
          head: {
            ...decl.head,
            operationId: decl.head.operationId?.replace(/File/, 'MediaFile'),
            summary: summary(decl.head.summary ?? ''),
            responses: { ...decl.head.responses, '501': E['501'] },
          },
        }
      : {}),
  };
}

const F = FILE_ROUTES;
/** Routes of the `media-files` bucket, in koa match order (a published record's media files are writable). */
export const MEDIA_FILE_ROUTES = defineRoutes({
  listDraftMediaFiles: media(F.listDraftFiles),
  downloadDraftMediaFilesArchive: media(F.downloadDraftFilesArchive),
  downloadDraftMediaFileContent: media(F.downloadDraftFileContent),
  readDraftMediaFile: media(F.readDraftFile),
  initDraftMediaFiles: media(F.initDraftFiles),
  deleteDraftMediaFiles: media(F.deleteDraftFiles),
  uploadDraftMediaFilePart: media(F.uploadDraftFilePart),
  uploadDraftMediaFileContent: media(F.uploadDraftFileContent),
  commitDraftMediaFile: media(F.commitDraftFile),
  updateDraftMediaFile: media(F.updateDraftFile),
  deleteDraftMediaFile: media(F.deleteDraftFile),
  listRecordMediaFiles: media(F.listRecordFiles),
  downloadRecordMediaFilesArchive: media(F.downloadRecordFilesArchive),
  downloadRecordMediaFileContent: media(F.downloadRecordFileContent),
  readRecordMediaFile: media(F.readRecordFile),
  initRecordMediaFiles: media(F.initDraftFiles, true),
  deleteRecordMediaFiles: media(F.deleteDraftFiles, true),
  uploadRecordMediaFilePart: media(F.uploadDraftFilePart, true),
  uploadRecordMediaFileContent: media(F.uploadDraftFileContent, true),
  commitRecordMediaFile: media(F.commitDraftFile, true),
  updateRecordMediaFile: media(F.updateDraftFile, true),
  deleteRecordMediaFile: media(F.deleteDraftFile, true),
});

/**
 * The administrator-only import of a file's bytes (issue 26, domain/imports.ts): internal, never
 * routed by the gateway; the migration service calls the files service with a signed identity.
 */
export const IMPORT_ROUTES = defineRoutes({
  importFile: {
    method: 'PUT',
    path: '/internal/import/buckets/{bucket_id}/files/{key+}',
    koa: '/internal/import/buckets/:bucket_id/files/:key+',
    upload: true,
    internal: true,
    summary: "Import a file's bytes, checked against `?checksum=md5:<hex>` (system or administrator only)",
  },
});

const str = { type: 'string' };
const url = { type: 'string', format: 'uri' };
const dateTime = { type: 'string', format: 'date-time' };
const access = {
  type: 'object',
  additionalProperties: false,
  properties: { hidden: { type: 'boolean' } },
};
const metadata = { type: ['object', 'null'], description: 'Free-form metadata of the file.' };

/** The files service's HTTP surface. */
export const API = defineApi({
  service: 'files',
  tables: [FILE_ROUTES, MEDIA_FILE_ROUTES, IIIF_ROUTES, IMPORT_ROUTES],
  components: {
    schemas: {
      FileEntry: {
        type: 'object',
        description:
          'A file entry. Committed (`completed`) entries add `mimetype`, `version_id`, `file_id`, `bucket_id`, `size`, `checksum` and `storage_class`; ' +
          "a published record's entries add `pids` and have no `commit` link.",
        required: ['created', 'updated', 'metadata', 'access', 'links', 'key', 'transfer', 'status'],
        properties: {
          created: dateTime,
          updated: dateTime,
          mimetype: str,
          version_id: str,
          file_id: str,
          bucket_id: str,
          metadata,
          access: { ...access, required: ['hidden'] },
          links: {
            type: 'object',
            required: ['self', 'content'],
            properties: {
              self: url,
              content: { ...url, type: ['string', 'null'], description: 'null while a multipart file is pending' },
              commit: url,
              parts: {
                type: 'array',
                description: 'Pending multipart files: where to `PUT` each part, until `expiration`.',
                items: {
                  type: 'object',
                  required: ['part', 'url', 'expiration'],
                  properties: { part: { type: 'integer', minimum: 1 }, url, expiration: dateTime },
                },
              },
            },
          },
          key: str,
          size: { type: 'integer', minimum: 0 },
          transfer: {
            type: 'object',
            required: ['type'],
            properties: { type: str, parts: { type: 'integer', minimum: 1 }, part_size: { type: 'integer', minimum: 1 } },
          },
          status: { type: 'string', enum: ['pending', 'completed'] },
          checksum: { type: 'string', description: '`md5:<hex>`' },
          storage_class: str,
          pids: {
            type: 'object',
            maxProperties: 0,
            description:
              "Always `{}`: no persistent identifier is minted for files (the spec's `epic` example is an ePIC handle provider " +
              'this project does not have); the key is kept because the spec shows it on published files.',
          },
        },
      },
      FileList: {
        type: 'object',
        description: '`{enabled: false, links}` only, when files are disabled.',
        required: ['enabled', 'links'],
        properties: {
          enabled: { type: 'boolean' },
          links: { type: 'object', required: ['self', 'archive'], properties: { self: url, archive: url } },
          entries: { type: 'array', items: schemaRef('FileEntry') },
          default_preview: { type: ['string', 'null'] },
          order: { type: 'array', items: str },
        },
      },
      FileInit: {
        type: 'object',
        required: ['key'],
        additionalProperties: false,
        properties: {
          key: { type: 'string', minLength: 1, maxLength: 255 },
          metadata,
          access,
          transfer: {
            type: 'object',
            additionalProperties: false,
            properties: {
              type: {
                type: 'string',
                enum: [...TRANSFER_TYPES],
                description:
                  "`L` (upload through the API) or `M` (multipart, with `parts` and `size`). InvenioRDM's fetch (`F`) and remote (`R`) transfers are not offered: 400 with a field error on `<n>.transfer.type`.",
              },
              parts: { type: 'integer', minimum: 1, maximum: 10000, description: 'Multipart: number of parts (required).' },
              part_size: {
                type: 'integer',
                minimum: 1,
                description: 'Multipart: bytes of every part but the last (default `ceil(size / parts)`).',
              },
            },
          },
          checksum: str,
          size: { type: 'integer', description: 'Required by multipart transfers.' },
          storage_class: str,
        },
      },
      FileUpdate: { type: 'object', additionalProperties: false, properties: { metadata, access } },
    },
    responses: {
      InvalidToken: {
        description: 'The bearer token is invalid, expired or revoked (gateway, `AUTH_INVALID_TOKEN=reject`).',
        headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: '`Bearer error="invalid_token"`' } },
        content: json(schemaRef('Error')),
      },
    },
  },
});
