/**
 * The files service's OpenAPI fragment, served at `GET /openapi.json` (internal, never routed
 * publicly) and merged by the gateway into `/api/openapi.json` (services/gateway/src/openapi.ts):
 * draft and record files — list, initialise, metadata, content upload (raw bytes, chunked
 * transfer accepted), commit, download with `Range`, zip archive — with the status codes the
 * routes really answer. Shared components (`Error`, `BadRequest`, `X-RateLimit-*`, `bearerAuth`…)
 * are the gateway's and are only referenced here. Multipart transfers (`transfer: {type: "M"}`,
 * `PUT …/content/{part}`) are documented; media files (`…/media-files…`, the second bucket) get
 * the same operations, derived from the files ones (`mediaPaths`). A NUL or bad encoding in any
 * path is 400 (`Invalid file key.`).
 *
 * When to edit: a files route, its headers or the JSON of http/serializers.ts change.
 *
 * Why one file over 400 lines: a declarative table of the files routes (media files derived from
 * it), one fragment per service as the gateway merges them.
 */
import { type AppState, Router } from '@rdm/platform';
import { TRANSFER_TYPES } from '../domain/input.js';
import { AUTHENTICATED, type Json, json, rate, ref, schemaRef } from '@rdm/platform';

const TAGS = ['files'];

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

const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Record id.' };
const keyParam = {
  name: 'key',
  in: 'path',
  required: true,
  schema: { type: 'string', minLength: 1 },
  description:
    'File key; may contain `/` (sent unescaped). No `.`/`..`/empty segments, control characters or backslashes; at most 255 bytes.',
};
const tokenParam = {
  name: 'token',
  in: 'query',
  schema: { type: 'string' },
  description: 'Secret link token granting access to a restricted record.',
};

const entry = (description: string) => ({ description, headers: rate, content: json(schemaRef('FileEntry')) });
const list = (description: string) => ({ description, headers: rate, content: json(schemaRef('FileList')) });
const done = (description: string) => ({ description, headers: rate });

/** Download operation (GET or HEAD) of a file's content. */
function download(scope: 'draft' | 'record', method: 'get' | 'head'): Json {
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
  const body = method === 'get' ? { content: { '*/*': { schema: { description: 'The bytes (a sanitized Content-Type).' } } } } : {};
  return {
    operationId: `${method === 'get' ? 'download' : 'probe'}${scope === 'draft' ? 'Draft' : 'Record'}FileContent`,
    summary: `${method === 'get' ? 'Download' : 'Headers of'} the content of a ${scope} file`,
    description:
      'Served as `Content-Type` images, audio and `text/plain` as themselves, HTML/JS/CSS/SVG/JSON/CSV/XML as `text/plain`, anything else ' +
      '`application/octet-stream`. One `Range` gives 206 (several: 200, unsatisfiable: 416); `If-None-Match` gives 304; `If-Range` applies.',
    tags: TAGS,
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
    responses: {
      '200': { description: 'The whole content.', headers, ...body },
      '206': {
        description: 'One range of the content.',
        headers: { ...headers, 'Content-Range': { schema: { type: 'string' }, description: '`bytes <start>-<end>/<size>`' } },
        ...body,
      },
      '304': { description: 'Not modified (`If-None-Match` matched the ETag).' },
      ...errors('400', '403', '404', '410', '416'),
    },
  };
}

function archive(scope: 'draft' | 'record'): Json {
  return {
    get: {
      operationId: `download${scope === 'draft' ? 'Draft' : 'Record'}FilesArchive`,
      summary: `Download every committed file of the ${scope} as a zip`,
      tags: TAGS,
      parameters: [tokenParam],
      responses: {
        '200': {
          description: 'A zip (stored, not compressed), streamed.',
          headers: { ...rate, 'Content-Disposition': { schema: { type: 'string' }, description: '`attachment; filename=<id>.zip`' } },
          content: { 'application/zip': { schema: { description: 'The zip archive.' } } },
        },
        ...errors('400', '403', '404', '410'),
      },
    },
  };
}

/**
 * The media-files operations: the files ones on `…/media-files…` (operation ids `…MediaFile…`),
 * plus 501 when records answers no media-bucket grant (an older records release). A published
 * record's media files are also writable through the same routes as a draft's (the service serves
 * them, records' grant decides: InvenioRDM's default policy refuses them to everyone, 403), so the
 * draft's write operations are documented on the record's media paths too (issue 19, item 9: the
 * fuzzer found them answered with statuses the gateway's generic description did not list).
 */
function mediaPaths(files: Record<string, Json>): Record<string, Json> {
  const out: Record<string, Json> = {};
  const toMedia = (path: string) => path.replace('/files-archive', '/media-files-archive').replace(/\/files(\/|$)/, '/media-files$1');
  const mediaOp = (op: Json, record: boolean): Json => ({
    ...op,
    operationId: String(op.operationId)
      .replace(/File/, 'MediaFile')
      .replace(record ? /Draft/ : /^$/, 'Record'),
    summary: String(op.summary)
      .replace(/files?\b/, (w) => `media ${w}`)
      .replace(record ? /the draft('s)?/ : /^$/, (_, s) => `the published record${s ?? ''}`),
    ...(record
      ? { description: `${op.description ? `${String(op.description)} ` : ''}Records' default policy refuses it to everyone (403).` }
      : {}),
    responses: { ...(op.responses as Json), '501': E['501'] },
  });
  for (const [path, item] of Object.entries(files)) {
    const copy: Json = {};
    for (const [k, v] of Object.entries(item))
      copy[k] = k === 'parameters' || typeof v !== 'object' || v === null ? v : mediaOp(v as Json, false);
    out[toMedia(path)] = copy;
  }
  for (const [path, item] of Object.entries(files)) {
    if (!path.startsWith('/api/records/{id}/draft/files/') && path !== '/api/records/{id}/draft/files') continue;
    const target = toMedia(path.replace('/draft/', '/'));
    out[target] ??= { parameters: item.parameters };
    const at = out[target] as Json;
    for (const m of ['post', 'put', 'delete'] as const) if (item[m]) at[m] = mediaOp(item[m] as Json, true);
  }
  return out;
}

function paths(): Record<string, Json> {
  const D = '/api/records/{id}/draft';
  const R = '/api/records/{id}';
  return {
    [`${D}/files`]: {
      parameters: [idParam],
      get: {
        operationId: 'listDraftFiles',
        summary: "List the draft's files",
        tags: TAGS,
        parameters: [tokenParam],
        responses: {
          '200': list('The file list (`{enabled: false, links}` when files are disabled).'),
          ...errors('400', '403', '404', '410'),
        },
      },
      post: {
        operationId: 'initDraftFiles',
        summary: 'Initialise files (register keys before uploading their content)',
        tags: TAGS,
        security: AUTHENTICATED,
        requestBody: { required: true, content: json({ type: 'array', minItems: 1, items: schemaRef('FileInit') }) },
        responses: {
          '201': list('The file list with the new entries (`pending`).'),
          ...errors('400', '403', '404', '410', '413', '415'),
        },
      },
      delete: {
        operationId: 'deleteDraftFiles',
        summary: 'Delete every file of the draft',
        tags: TAGS,
        security: AUTHENTICATED,
        responses: { '204': done('Deleted.'), ...errors('400', '403', '404', '410') },
      },
    },
    [`${D}/files/{key}`]: {
      parameters: [idParam, keyParam],
      get: {
        operationId: 'readDraftFile',
        summary: 'Read a file entry of the draft',
        tags: TAGS,
        parameters: [tokenParam],
        responses: { '200': entry('The entry.'), ...errors('400', '403', '404', '410') },
      },
      put: {
        operationId: 'updateDraftFile',
        summary: "Update a file entry's metadata and access",
        tags: TAGS,
        security: AUTHENTICATED,
        requestBody: { required: false, content: json(schemaRef('FileUpdate')) },
        responses: { '200': entry('The entry.'), ...errors('400', '403', '404', '410', '413', '415') },
      },
      delete: {
        operationId: 'deleteDraftFile',
        summary: 'Delete a file of the draft',
        tags: TAGS,
        security: AUTHENTICATED,
        responses: { '204': done('Deleted.'), ...errors('400', '403', '404', '410') },
      },
    },
    [`${D}/files/{key}/content`]: {
      parameters: [idParam, keyParam],
      get: download('draft', 'get'),
      head: download('draft', 'head'),
      put: {
        operationId: 'uploadDraftFileContent',
        summary: 'Upload the content of a file (raw bytes)',
        description:
          'The entry must have been initialised and not committed. `Content-Length` or `Transfer-Encoding: chunked`; the bytes are ' +
          'streamed to storage (md5 computed on the way). Over the file or record size limit: 400 `File size limit exceeded.`',
        tags: TAGS,
        security: AUTHENTICATED,
        requestBody: {
          required: true,
          content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
        },
        responses: { '200': entry('The entry, still `pending` until committed.'), ...errors('400', '403', '404', '410', '415') },
      },
    },
    [`${D}/files/{key}/content/{part}`]: {
      parameters: [idParam, keyParam, { name: 'part', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      put: {
        operationId: 'uploadDraftFilePart',
        summary: 'Upload one part of a multipart file (InvenioRDM multipart transfer)',
        description:
          'For entries initialised with `transfer: {type: "M", parts, part_size}` (the URLs are in the entry\'s `links.parts`). ' +
          'Parts may be sent in parallel and in any order; sending a part again replaces it. Each part must be exactly ' +
          '`part_size` bytes, the last one the rest of `size`. 400: `Part number is higher than total parts sent in multipart ' +
          'initialization.`, `Size of this part must be equal to part_size sent in multipart initialization.`, ' +
          '`Transfer type "L" does not support multipart uploads.`, an expired upload.',
        tags: TAGS,
        security: AUTHENTICATED,
        requestBody: {
          required: true,
          content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
        },
        responses: { '200': entry('The entry, still `pending` until committed.'), ...errors('400', '403', '404', '409', '410', '415') },
      },
    },
    [`${D}/files/{key}/commit`]: {
      parameters: [idParam, keyParam],
      post: {
        operationId: 'commitDraftFile',
        summary: 'Commit an uploaded file',
        description:
          'A multipart file is assembled from its parts (md5 of the whole computed on the way) and its transfer becomes `L`; ' +
          'missing parts: 400 `File with key <key> is missing parts: <n>, ….`',
        tags: TAGS,
        security: AUTHENTICATED,
        responses: {
          '200': entry('The entry, `completed`, with `checksum`, `size`, `mimetype`.'),
          ...errors('400', '403', '404', '410'),
        },
      },
    },
    [`${D}/files-archive`]: { parameters: [idParam], ...archive('draft') },
    [`${R}/files`]: {
      parameters: [idParam],
      get: {
        operationId: 'listRecordFiles',
        summary: "List the published record's files",
        tags: TAGS,
        parameters: [tokenParam],
        responses: {
          '200': list('The file list (`{enabled: false, links}` when files are disabled).'),
          ...errors('400', '403', '404', '410'),
        },
      },
    },
    [`${R}/files/{key}`]: {
      parameters: [idParam, keyParam],
      get: {
        operationId: 'readRecordFile',
        summary: 'Read a file entry of the published record',
        tags: TAGS,
        parameters: [tokenParam],
        responses: { '200': entry('The entry (with `pids`, no `commit` link).'), ...errors('400', '403', '404', '410') },
      },
    },
    [`${R}/files/{key}/content`]: {
      parameters: [idParam, keyParam],
      get: download('record', 'get'),
      head: download('record', 'head'),
    },
    [`${R}/files-archive`]: { parameters: [idParam], ...archive('record') },
  };
}

/** Build the fragment. */
export function openapiFragment(): Json {
  const str = { type: 'string' };
  const url = { type: 'string', format: 'uri' };
  const dateTime = { type: 'string', format: 'date-time' };
  const access = {
    type: 'object',
    additionalProperties: false,
    properties: { hidden: { type: 'boolean' } },
  };
  const metadata = { type: ['object', 'null'], description: 'Free-form metadata of the file.' };
  return {
    openapi: '3.1.0',
    info: { title: 'files', version: '1.0.0' },
    paths: { ...paths(), ...mediaPaths(paths()) },
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
