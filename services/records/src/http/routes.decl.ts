/**
 * The records service's HTTP surface, declared once (`API`): the routers (each `*.routes.ts`
 * binds one handler per key of its table), the OpenAPI fragment served at the internal
 * `GET /openapi.json` and merged by the gateway into `/api/openapi.json`, and the gateway's
 * routing table (`pnpm gen:contracts`) all come from it. This file holds record search, records,
 * drafts, publish, DOI reservation, versions and files import, with their parameters, bodies,
 * response schemas and the status codes the routes really answer; the other resources' tables are
 * in review.decl.ts, access.decl.ts, access-request.decl.ts, lifecycle.decl.ts and
 * interop.decl.ts. Shared components (`Error`, `BadRequest`, `q`, `page`, `X-RateLimit-*`,
 * `bearerAuth`…) are the gateway's and are only referenced here.
 *
 * The request body of `POST /api/records` and `PUT …/draft` is the service's own validation schema
 * (src/schema/*.json) turned into components: `$id`/`$schema` dropped, `$defs` hoisted to
 * `components.schemas` (`RecordWrite_<def>`, `RecordMetadataWrite_<def>`) with every `$ref`
 * rewritten to them, `x-…` validation keywords removed, the read aliases `resource_type` and
 * `identifiers` added, and the metadata's `required` list moved to the description (a draft is
 * saved leniently; only publishing requires those fields).
 *
 * When to edit: a records route, its parameters, or the read form (domain/serializers.ts) change.
 * Only the platform and constants may be imported here (the gateway's route generator imports it).
 *
 * Why one file over 400 lines: it is a declarative table (routes, then component schemas) that is
 * read by searching for a path.
 */
import { readFileSync } from 'node:fs';
import { AUTHENTICATED, defineApi, defineRoutes, type Json, json, operationRoute, rate, ref, schemaRef } from '@rdm/platform';
import { RECORD_SORTS } from '../search/search.service.js';
import { ACCESS_ROUTES, accessSchemas } from './access.decl.js';
import { ACCESS_REQUEST_ROUTES, accessRequestSchemas } from './access-request.decl.js';
import { CITATION_QUERY_PARAMS, EXPORT_ROUTES, OAI_ROUTES, SITEMAP_ROUTES } from './interop.decl.js';
import { ABUSE_ROUTES, DELETION_ROUTES, lifecycleSchemas } from './lifecycle.decl.js';
import { REVIEW_ROUTES, reviewSchemas } from './review.decl.js';

const TAGS = ['records'];

const etag = { schema: { type: 'string' }, description: '`"<revision_id>"`' };

const error = (description: string) => ({ description, content: json(schemaRef('Error')) });
/** Error responses by status; routes pick theirs. */
const E = {
  '400': ref('responses', 'BadRequest'),
  '401': ref('responses', 'InvalidToken'),
  '403': ref('responses', 'PermissionDenied'),
  '404': ref('responses', 'NotFound'),
  '406': error('The `Accept` header allows neither `application/json` nor `application/vnd.inveniordm.v1+json`.'),
  '410': error('The record has been deleted.'),
  '412': error("`If-Match` does not match the draft's revision."),
  '413': ref('responses', 'PayloadTooLarge'),
  '415': error('The body is an obvious binary upload, not JSON.'),
  '429': ref('responses', 'TooManyRequests'),
  '503': ref('responses', 'ServiceUnavailable'),
} as const;
type Status = keyof typeof E;
// Why 400 on every operation: the platform refuses any query string with a NUL character (400
// `Invalid querystring parameters.`) before a route runs.
const errors = (...codes: Status[]): Json =>
  Object.fromEntries([...new Set(['400', '401', '429', '503', ...codes])].sort().map((c) => [c, E[c as Status]]));

const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Record id (`abcde-12345`).' };
const ifMatch = {
  name: 'If-Match',
  in: 'header',
  schema: { type: 'string' },
  description: 'Revision the change applies to (`"3"` or `3`); a mismatch is 412.',
};
const accept = {
  name: 'Accept',
  in: 'header',
  schema: { type: 'string' },
  description: '`application/json` (default) or `application/vnd.inveniordm.v1+json`; anything else is 406.',
};

const record = (description: string, headers: Json = {}) => ({
  description,
  headers: { ...rate, ETag: etag, ...headers },
  content: json(schemaRef('Record')),
});
const recordList = (description: string) => ({ description, headers: rate, content: json(schemaRef('RecordList')) });
const writeBody = {
  required: false,
  description:
    "The write form. Saving is lenient: invalid metadata values are dropped and listed in the answer's `errors` (still 201/200); " +
    'a body that is not a JSON object, a bad `access` or an unknown vocabulary id is a 400 and saves nothing.',
  content: json(schemaRef('RecordWrite')),
};

/** Sorts of the versions list (records.service.ts VERSIONS_ORDER). */
const VERSION_SORTS = ['version', 'bestmatch', 'newest', 'oldest', 'updated-desc', 'updated-asc', 'mostviewed', 'mostdownloaded'];

const arrayQuery = (name: string, description: string, items: Json = { type: 'string' }) => ({
  name,
  in: 'query',
  schema: { type: 'array', items },
  style: 'form',
  explode: true,
  description,
});
const boolQuery = (name: string, description: string) => ({ name, in: 'query', schema: { type: 'boolean' }, description });

/** Query parameters of the record searches. */
function searchParams(user: boolean): Json[] {
  return [
    ref('parameters', 'q'),
    ref('parameters', 'page'),
    {
      name: 'size',
      in: 'query',
      schema: { type: 'integer', minimum: 1, default: 25 },
      description: 'Page size; no maximum, but `(page-1)*size` must stay below 10000.',
    },
    {
      name: 'sort',
      in: 'query',
      schema: { type: 'string', enum: [...RECORD_SORTS] },
      description: `\`bestmatch\` by default with \`q\`, else \`${user ? 'updated-desc' : 'mostrecent'}\`.`,
    },
    ...(user
      ? []
      : [
          {
            name: 'mostrecent',
            in: 'query',
            schema: { type: 'string' },
            description: 'Without `sort`: any value but `false`/`0` means `sort=mostrecent`.',
          },
        ]),
    boolQuery('allversions', 'Every version instead of the latest ones.'),
    ...(user
      ? [
          boolQuery('shared_with_me', '`true`: items shared with the caller; `false`: owned ones; absent: both.'),
          arrayQuery('is_published', 'Facet filter: `true` (records and edit drafts) or `false` (never published drafts).', {
            type: 'boolean',
          }),
        ]
      : []),
    arrayQuery('access_status', 'Facet filter (OR-ed): `open`, `embargoed`, `restricted`, `metadata-only`.'),
    arrayQuery('file_type', 'Facet filter (OR-ed): file extension, e.g. `pdf`.'),
    arrayQuery('resource_types', 'Facet filter (OR-ed): `image`, `image::image-photo` or a bare subtype id.'),
    arrayQuery('resource_type', 'Alias of `resource_types`.'),
    arrayQuery(
      'publication_date',
      'Facet filter (OR-ed): `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or a range `A--B`, `A..B`, `A/B` (open ends allowed); a bad value is 400.',
    ),
  ];
}

const draftActionParam = {
  name: 'action',
  in: 'path',
  required: true,
  schema: { type: 'string', enum: ['publish', 'files-import'] },
  description: 'Actions served: `publish` (202 record) and `files-import` (201 file list).',
};
const schemeParam = {
  name: 'scheme',
  in: 'path',
  required: true,
  schema: { type: 'string', enum: ['doi'] },
  description: 'Only `doi` is managed; another scheme is a 400.',
};

/** Routes of search.routes.ts, in koa match order. */
export const SEARCH_ROUTES = defineRoutes({
  searchRecords: operationRoute(
    'GET',
    '/api/records',
    {
      operationId: 'searchRecords',
      summary: 'Search published records',
      description: 'Latest published versions readable by the caller (public, own, granted; administrators all).',
      tags: TAGS,
      parameters: searchParams(false),
      responses: { '200': recordList('A page of records with facets.'), ...errors('400') },
    },
    [],
    { list: true },
  ),
  searchUserRecords: operationRoute(
    'GET',
    '/api/user/records',
    {
      operationId: 'searchUserRecords',
      summary: "The caller's drafts and records",
      description: 'Drafts plus records without an edit draft, the latest per concept unless `allversions`. Anonymous callers get 403.',
      tags: TAGS,
      security: AUTHENTICATED,
      parameters: searchParams(true),
      responses: { '200': recordList('A page of drafts and records with facets.'), ...errors('400', '403') },
    },
    [],
    { list: true },
  ),
  searchCommunityRecords: operationRoute(
    'GET',
    '/api/communities/{id}/records',
    {
      operationId: 'searchCommunityRecords',
      summary: "A community's records",
      description:
        'As `GET /api/records`, limited to records whose parent belongs to the community (404 for an unknown community, 410 for a ' +
        "deleted one); the community's members also see its restricted records.",
      tags: TAGS,
      parameters: searchParams(false),
      responses: { '200': recordList('A page of records with facets.'), ...errors('400', '404', '410') },
    },
    [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Community id or slug.' }],
    { list: true },
  ),
});

/** Routes of records.routes.ts, in koa match order. */
export const RECORD_ROUTES = defineRoutes({
  createDraft: operationRoute(
    'POST',
    '/api/records',
    {
      operationId: 'createDraft',
      summary: 'Create a draft',
      tags: TAGS,
      security: AUTHENTICATED,
      parameters: [accept],
      requestBody: writeBody,
      responses: {
        '201': record('The new draft (with `errors` when values were dropped).', {
          Location: { schema: { type: 'string', format: 'uri' }, description: '`links.self` of the draft.' },
        }),
        ...errors('400', '403', '406', '413', '415'),
      },
    },
    [],
  ),
  readRecord: operationRoute(
    'GET',
    '/api/records/{id}',
    {
      operationId: 'readRecord',
      summary: 'Read a published record',
      description: 'A draft id is 404 "The persistent identifier is not registered."; a parent id redirects (302) to the latest version.',
      tags: TAGS,
      parameters: [accept, ...CITATION_QUERY_PARAMS],
      responses: {
        '200': record('The record.', { Link: { schema: { type: 'string' }, description: '`<links.self> ; rel="linkset" …`' } }),
        '302': {
          description: 'The id is a parent (concept) id: the latest version.',
          headers: { Location: { schema: { type: 'string', format: 'uri' } } },
          content: json(schemaRef('Redirect')),
        },
        ...errors('403', '404', '406', '410'),
      },
    },
    [idParam],
  ),
  readDraft: operationRoute(
    'GET',
    '/api/records/{id}/draft',
    {
      operationId: 'readDraft',
      summary: 'Read the draft',
      tags: TAGS,
      parameters: [accept],
      responses: { '200': record('The draft.'), ...errors('403', '404', '406', '410') },
    },
    [idParam],
  ),
  updateDraft: operationRoute(
    'PUT',
    '/api/records/{id}/draft',
    {
      operationId: 'updateDraft',
      summary: 'Update the draft',
      description: '`metadata` and `custom_fields` are replaced; `pids` and `access` when sent; `files` omitted means enabled.',
      tags: TAGS,
      security: AUTHENTICATED,
      parameters: [accept, ifMatch],
      requestBody: writeBody,
      responses: {
        '200': record('The draft (with `errors` when values were dropped).'),
        ...errors('400', '403', '404', '406', '410', '412', '413', '415'),
      },
    },
    [idParam],
  ),
  editRecord: operationRoute(
    'POST',
    '/api/records/{id}/draft',
    {
      operationId: 'editRecord',
      summary: 'Edit a published record (create or return its edit draft)',
      description: 'A deleted record is not edited (410 with its tombstone), not even through an edit draft made before.',
      tags: TAGS,
      security: AUTHENTICATED,
      parameters: [accept],
      responses: { '201': record('The edit draft (idempotent).'), ...errors('403', '404', '406', '410') },
    },
    [idParam],
  ),
  deleteDraft: operationRoute(
    'DELETE',
    '/api/records/{id}/draft',
    {
      operationId: 'deleteDraft',
      summary: 'Discard the draft',
      description: 'A first draft is removed with its parent and files; an edit draft is discarded; a new-version draft removed.',
      tags: TAGS,
      security: AUTHENTICATED,
      parameters: [ifMatch],
      responses: { '204': { description: 'Discarded.', headers: rate }, ...errors('400', '403', '404', '410', '412') },
    },
    [idParam],
  ),
  runDraftAction: operationRoute(
    'POST',
    '/api/records/{id}/draft/actions/{action}',
    {
      operationId: 'runDraftAction',
      summary: 'Publish the draft, or import the files of the previous version',
      description:
        '`publish`: validates strictly (every schema, files and PID error at once: 400), locks the files, answers 202 with the record. ' +
        "`files-import`: links the previous version's files into a new-version draft (no bytes copied), answers 201 with the file list. " +
        'Other actions are not served (404).',
      tags: TAGS,
      security: AUTHENTICATED,
      parameters: [draftActionParam, accept],
      responses: {
        '201': { description: "`files-import`: the draft's file list.", headers: rate, content: json(schemaRef('RecordFilesImport')) },
        '202': record('`publish`: the published record.'),
        ...errors('400', '403', '404', '406', '410'),
      },
    },
    [idParam, { name: 'action', in: 'path', required: true, schema: { type: 'string' } }],
    { koa: '/api/records/:id/draft/actions/publish' },
  ),
  importDraftFiles: {
    method: 'POST',
    path: '/api/records/{id}/draft/actions/{action}',
    koa: '/api/records/:id/draft/actions/files-import',
    summary: "Import the previous version's files (documented with runDraftAction)",
    undocumented: true,
  },
  reserveDraftPid: operationRoute(
    'POST',
    '/api/records/{id}/draft/pids/{scheme}',
    {
      operationId: 'reserveDraftPid',
      summary: 'Reserve a managed DOI for the draft',
      tags: TAGS,
      security: AUTHENTICATED,
      parameters: [schemeParam, accept],
      responses: { '201': record('The draft with `pids.doi` reserved.'), ...errors('400', '403', '404', '406', '410') },
    },
    [idParam, { name: 'scheme', in: 'path', required: true, schema: { type: 'string' } }],
  ),
  discardDraftPid: operationRoute(
    'DELETE',
    '/api/records/{id}/draft/pids/{scheme}',
    {
      operationId: 'discardDraftPid',
      summary: 'Discard the reserved (not registered) DOI',
      tags: TAGS,
      security: AUTHENTICATED,
      parameters: [schemeParam],
      responses: { '204': { description: 'Discarded.', headers: rate }, ...errors('400', '403', '404', '410') },
    },
    [idParam, { name: 'scheme', in: 'path', required: true, schema: { type: 'string' } }],
  ),
  createRecordVersion: operationRoute(
    'POST',
    '/api/records/{id}/versions',
    {
      operationId: 'createRecordVersion',
      summary: 'Create a new version (a draft)',
      description:
        'Metadata of the latest version, `publication_date` today, no `version`, pids or files. An existing new-version draft is returned. ' +
        'A deleted record, or one whose latest version is deleted, gets none (410): no draft of removed content is saved or published either.',
      tags: TAGS,
      security: AUTHENTICATED,
      parameters: [accept],
      responses: { '201': record('The new-version draft.'), ...errors('403', '404', '406', '410') },
    },
    [idParam],
  ),
  listRecordVersions: operationRoute(
    'GET',
    '/api/records/{id}/versions',
    {
      operationId: 'listRecordVersions',
      summary: 'List the published versions',
      description: 'Newest version first by default; restricted versions only for those allowed. `id` may be any version or the parent.',
      tags: TAGS,
      parameters: [
        ref('parameters', 'page'),
        { name: 'size', in: 'query', schema: { type: 'integer', minimum: 1, default: 25 } },
        { name: 'sort', in: 'query', schema: { type: 'string', enum: VERSION_SORTS } },
        accept,
      ],
      responses: {
        '200': {
          description: 'A page of versions (no facets: InvenioRDM has no `aggregations` here).',
          headers: rate,
          content: json(schemaRef('VersionList')),
        },
        ...errors('400', '403', '404', '406', '410'),
      },
    },
    [idParam],
    { list: true },
  ),
  readLatestRecordVersion: operationRoute(
    'GET',
    '/api/records/{id}/versions/latest',
    {
      operationId: 'readLatestRecordVersion',
      summary: 'The latest published version',
      tags: TAGS,
      parameters: [accept],
      responses: {
        '200': record('The latest version (200, not a redirect).', {
          'Content-Location': { schema: { type: 'string', format: 'uri' }, description: '`links.self` of the record served.' },
        }),
        ...errors('403', '404', '406', '410'),
      },
    },
    [idParam],
  ),
});

// ── schemas ──────────────────────────────────────────────────────────────────────────────────

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
const SCHEMA_ONE = new Set([
  'additionalProperties',
  'items',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/**
 * A copy of a validation schema fit for `components.schemas`: `$schema`, `$id`, `$defs` and `x-…`
 * keywords removed, `$ref`s rewritten by `mapRef` (which throws on a reference it cannot place).
 */
export function toComponentSchema(schema: unknown, mapRef: (ref: string) => string): unknown {
  if (typeof schema === 'boolean') return schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new Error('not a schema');
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$schema' || k === '$id' || k === '$defs' || k.startsWith('x-')) continue;
    if (k === '$ref') out.$ref = mapRef(String(v));
    else if (SCHEMA_MAPS.has(k)) {
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, toComponentSchema(s, mapRef)]));
    } else if (SCHEMA_ONE.has(k)) out[k] = toComponentSchema(v, mapRef);
    else if (SCHEMA_LISTS.has(k)) out[k] = (v as unknown[]).map((s) => toComponentSchema(s, mapRef));
    else out[k] = v;
  }
  return out;
}

const readSchema = (name: string) => JSON.parse(readFileSync(new URL(`../schema/${name}`, import.meta.url), 'utf8')) as Json;

/** The write-form schemas (src/schema/*.json) as components. */
export function writeFormSchemas(): Record<string, unknown> {
  const sources = [
    { name: 'RecordWrite', file: 'record-v1.0.0.json' },
    { name: 'RecordMetadataWrite', file: 'metadata-v1.0.0.json' },
  ];
  const loaded = sources.map((s) => ({ ...s, schema: readSchema(s.file) }));
  const byId = new Map(loaded.map((s) => [String(s.schema.$id), s.name]));
  const out: Record<string, unknown> = {};
  for (const { name, schema } of loaded) {
    const mapRef = (r: string): string => {
      const [base, pointer = ''] = r.split('#');
      const owner = base === '' ? name : byId.get(base);
      if (!owner) throw new Error(`${name}: cannot place $ref ${r}`);
      if (pointer === '') return `#/components/schemas/${owner}`;
      const m = /^\/\$defs\/([A-Za-z0-9_.-]+)$/.exec(pointer);
      if (!m) throw new Error(`${name}: cannot place $ref ${r}`);
      return `#/components/schemas/${owner}_${m[1]}`;
    };
    out[name] = toComponentSchema(schema, mapRef);
    for (const [def, s] of Object.entries((schema.$defs ?? {}) as Json)) out[`${name}_${def}`] = toComponentSchema(s, mapRef);
  }
  const metadata = out.RecordMetadataWrite as Json & { properties: Record<string, Json>; required?: string[] };
  const required = metadata.required ?? [];
  Reflect.deleteProperty(metadata, 'required');
  metadata.description =
    `${String(metadata.description ?? '')} Required to publish (a draft saves without them): ${required.map((r) => `\`${r}\``).join(', ')} ` +
    '(`resource_type` standing for `resource_types`).';
  metadata.properties.resource_type = {
    ...(metadata.properties.resource_types.items as Json),
    description: "InvenioRDM's name of `resource_types[0]` (ignored when `resource_types` is sent).",
  };
  metadata.properties.identifiers = {
    ...metadata.properties.alternate_identifiers,
    description: "InvenioRDM's name of `alternate_identifiers` (ignored when `alternate_identifiers` is sent).",
  };
  return out;
}

const str = { type: 'string' };
const url = { type: 'string', format: 'uri' };
const bool = { type: 'boolean' };
const int = { type: 'integer', minimum: 0 };
const obj = (properties: Json, required: string[] = [], extra: Json = {}) => ({ type: 'object', properties, required, ...extra });
const fieldErrors = {
  type: 'array',
  items: obj({ field: str, messages: { type: 'array', items: str } }, ['field', 'messages']),
};

function readSchemas(): Record<string, unknown> {
  const filesSummary = obj(
    {
      enabled: bool,
      order: { type: 'array', items: str },
      count: int,
      total_bytes: int,
      default_preview: str,
      entries: {
        type: 'object',
        description: 'By file key. Single record reads add per-file `links`.',
        additionalProperties: obj(
          {
            id: str,
            key: str,
            checksum: str,
            ext: { type: ['string', 'null'] },
            size: int,
            mimetype: str,
            storage_class: str,
            metadata: {},
            access: obj({ hidden: bool }),
            links: { type: 'object', additionalProperties: url },
          },
          ['key'],
        ),
      },
    },
    ['enabled'],
    { description: 'Callers who may not read the files get `{enabled}` only.' },
  );
  return {
    RecordPids: {
      type: 'object',
      description: 'Persistent identifiers by scheme (`doi`, `oai`…).',
      additionalProperties: obj(
        {
          identifier: str,
          provider: str,
          client: str,
          status: {
            type: 'string',
            enum: ['new', 'reserved', 'registered'],
            description: 'DOI_PROVIDER=datacite: where DataCite registration stands (read-only).',
          },
        },
        ['identifier', 'provider'],
      ),
    },
    Record: obj(
      {
        id: str,
        created: { type: 'string', format: 'date-time' },
        updated: { type: 'string', format: 'date-time' },
        revision_id: { type: 'integer' },
        parent: obj(
          {
            id: str,
            access: obj({
              owned_by: { type: ['object', 'null'], properties: { user: str } },
              settings: { type: 'object' },
              grants: { type: 'array', description: 'Only for those who may manage the record.' },
              links: { type: 'array', description: 'Secret links; only for those who may manage the record.' },
            }),
            communities: { type: 'object' },
            pids: schemaRef('RecordPids'),
          },
          ['id', 'access', 'communities', 'pids'],
        ),
        versions: obj({ is_latest: bool, is_latest_draft: { ...bool, description: 'Only for those who may edit.' }, index: int }, [
          'is_latest',
          'index',
        ]),
        is_published: bool,
        is_draft: bool,
        status: { type: 'string', description: '`draft`, `new_version_draft` or `published`.' },
        pids: schemaRef('RecordPids'),
        metadata: {
          type: 'object',
          description:
            "The stored metadata with vocabulary entries dereferenced (`id` plus `title`/`props`), and InvenioRDM's aliases " +
            '`resource_type` (= `resource_types[0]`) and `identifiers` (= `alternate_identifiers`).',
          properties: {
            title: str,
            publication_date: str,
            resource_type: { type: 'object' },
            resource_types: { type: 'array' },
            creators: { type: 'array' },
          },
        },
        custom_fields: { type: 'object' },
        access: obj(
          {
            record: { type: 'string', enum: ['public', 'restricted'] },
            files: { type: 'string', enum: ['public', 'restricted'] },
            embargo: obj({ active: bool, until: str, reason: { type: ['string', 'null'] } }, ['active']),
            status: { type: 'string', description: '`open`, `embargoed`, `restricted` or `metadata-only`.' },
          },
          ['record', 'files', 'embargo', 'status'],
        ),
        files: filesSummary,
        media_files: filesSummary,
        expires_at: { type: ['string', 'null'], description: 'Drafts only.' },
        deletion_status: obj({ is_deleted: bool, status: str }, [], { description: 'Records only.' }),
        stats: { type: 'object', description: 'Records only: `this_version` and `all_versions` counters.' },
        links: {
          type: 'object',
          required: ['self'],
          description: 'Absolute links (`self`, `self_html`, `files`, `versions`, `publish`, `thumbnails`…).',
          properties: { self: url, self_html: url, files: url, versions: url, latest: url, draft: url, record: url, publish: url },
          additionalProperties: { anyOf: [url, { type: 'object', additionalProperties: url }] },
        },
        errors: { ...fieldErrors, description: 'Drafts after a save: the values that were dropped, and why.' },
      },
      [
        'id',
        'created',
        'updated',
        'revision_id',
        'parent',
        'versions',
        'is_published',
        'is_draft',
        'status',
        'pids',
        'metadata',
        'custom_fields',
        'access',
        'files',
        'links',
      ],
      { description: 'The read form of a published record or a draft.' },
    ),
    RecordList: obj(
      {
        hits: obj({ hits: { type: 'array', items: schemaRef('Record') }, total: int }, ['hits', 'total']),
        aggregations: {
          type: 'object',
          description: 'Facets (`access_status`, `file_type`, `resource_types`/`resource_type`, `publication_date`, `is_published`).',
          additionalProperties: schemaRef('RecordAggregation'),
        },
        sortBy: str,
        links: obj({ self: url, prev: url, next: url }, ['self']),
      },
      ['hits', 'aggregations', 'sortBy', 'links'],
    ),
    VersionList: obj(
      {
        hits: obj({ hits: { type: 'array', items: schemaRef('Record') }, total: int }, ['hits', 'total']),
        sortBy: str,
        links: obj({ self: url, prev: url, next: url }, ['self']),
      },
      ['hits', 'sortBy', 'links'],
    ),
    RecordAggregation: obj({ label: str, buckets: { type: 'array', items: schemaRef('RecordAggregationBucket') } }, ['label', 'buckets']),
    RecordAggregationBucket: obj(
      {
        key: str,
        doc_count: int,
        label: str,
        is_selected: bool,
        inner: obj({ buckets: { type: 'array', items: schemaRef('RecordAggregationBucket') } }, ['buckets']),
      },
      ['key', 'doc_count', 'label', 'is_selected'],
    ),
    RecordFilesImport: obj(
      {
        enabled: bool,
        links: obj({ self: url, archive: url }, ['self', 'archive']),
        entries: { type: 'array', items: { type: 'object', description: 'A file entry (see the files service).' } },
        default_preview: { type: ['string', 'null'] },
        order: { type: 'array', items: str },
      },
      ['enabled', 'links', 'entries', 'default_preview', 'order'],
    ),
    Redirect: obj({ status: { const: 302 }, message: str, location: url }, ['status', 'message', 'location']),
  };
}

/** The records service's HTTP surface (koa's order is app.ts's binding order, not this one). */
export const API = defineApi({
  service: 'records',
  // Why this order: the gateway's route of a path takes the summary of its first declaration.
  tables: [
    SEARCH_ROUTES,
    RECORD_ROUTES,
    EXPORT_ROUTES,
    REVIEW_ROUTES,
    DELETION_ROUTES,
    ABUSE_ROUTES,
    ACCESS_ROUTES,
    ACCESS_REQUEST_ROUTES,
    OAI_ROUTES,
    SITEMAP_ROUTES,
  ],
  components: {
    schemas: {
      ...readSchemas(),
      ...writeFormSchemas(),
      ...reviewSchemas(),
      ...accessSchemas(),
      ...accessRequestSchemas(),
      ...lifecycleSchemas(),
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
