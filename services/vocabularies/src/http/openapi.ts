/**
 * The service's OpenAPI fragment, served at `GET /openapi.json` (internal) and merged by the
 * gateway into `/api/openapi.json`: the vocabulary operations with their real query parameters
 * and response schemas. Shared components (`BadRequest`, `q`, `page`, …) are the gateway's.
 */
import { CUSTOM_TYPES, KINDS } from '../domain/kinds.js';
import { type Json, json, ref } from '@rdm/platform';

const errors = {
  '400': ref('responses', 'BadRequest'),
  '403': ref('responses', 'PermissionDenied'),
  '404': ref('responses', 'NotFound'),
  '429': ref('responses', 'TooManyRequests'),
  '503': ref('responses', 'ServiceUnavailable'),
};
const pathParam = (name: string, description?: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
  ...(description ? { description } : {}),
});

const listParams = (sorts: readonly string[]) => [
  ref('parameters', 'q'),
  {
    name: 'suggest',
    in: 'query',
    schema: { type: 'string' },
    description: 'Search as you type: every word must start a word of the suggest fields. Not with `q`.',
  },
  {
    name: 'tags',
    in: 'query',
    schema: { type: 'array', items: { type: 'string' } },
    style: 'form',
    explode: true,
    description: 'Entries carrying any of these tags.',
  },
  ref('parameters', 'page'),
  ref('parameters', 'size'),
  { name: 'sort', in: 'query', schema: { type: 'string', enum: [...sorts] } },
];

const list = (summary: string, sorts: readonly string[]): Json => ({
  summary,
  tags: ['vocabularies'],
  parameters: listParams(sorts),
  responses: {
    '200': { description: 'A page of entries.', content: json({ $ref: '#/components/schemas/VocabularyEntryList' }) },
    ...errors,
  },
});

const read = (summary: string): Json => ({
  summary,
  tags: ['vocabularies'],
  parameters: [{ name: 'If-None-Match', in: 'header', schema: { type: 'string' } }],
  responses: {
    '200': {
      description: 'The entry.',
      headers: { ETag: { schema: { type: 'string' }, description: '`"<revision_id>"`' } },
      content: json({ $ref: '#/components/schemas/VocabularyEntry' }),
    },
    '304': { description: 'Not modified (If-None-Match matched the ETag).' },
    ...errors,
  },
});

const write = (summary: string, status: string): Json => ({
  summary,
  tags: ['vocabularies'],
  ...(status !== '204' ? { requestBody: { required: true, content: json({ $ref: '#/components/schemas/VocabularyEntryInput' }) } } : {}),
  responses: {
    [status]:
      status === '204'
        ? { description: 'Deleted.' }
        : { description: 'The entry.', content: json({ $ref: '#/components/schemas/VocabularyEntry' }) },
    ...errors,
    '412': { description: 'If-Match does not match the revision.' },
  },
});

/** Build the fragment. */
export function openapiFragment(): Json {
  const paths: Record<string, Json> = {
    '/api/vocabularies': {
      get: {
        summary: 'List vocabulary types',
        tags: ['vocabularies'],
        parameters: [
          ref('parameters', 'q'),
          ref('parameters', 'page'),
          ref('parameters', 'size'),
          { name: 'sort', in: 'query', schema: { type: 'string', enum: ['id', 'name', 'count'] } },
        ],
        responses: {
          '200': { description: 'A page of vocabulary types.', content: json({ $ref: '#/components/schemas/VocabularyTypeList' }) },
          ...errors,
        },
      },
    },
    '/api/vocabularies/{type}': {
      parameters: [pathParam('type', 'Vocabulary type id, e.g. `resourcetypes`.')],
      get: list('Search the entries of a vocabulary', KINDS.generic.sorts),
      post: write('Create an entry (system and administrators)', '201'),
    },
    '/api/vocabularies/{type}/{id}': {
      parameters: [pathParam('type'), pathParam('id')],
      get: read('Read one vocabulary entry'),
      put: write('Replace an entry (system and administrators)', '200'),
      delete: write('Delete an entry (system and administrators)', '204'),
    },
  };
  for (const t of CUSTOM_TYPES) {
    paths[`/api/${t}`] = { get: list(`Search ${t}`, KINDS[t].sorts), post: write(`Create one of ${t}`, '201') };
    paths[`/api/${t}/{id}`] = {
      parameters: [pathParam('id', t === 'subjects' ? 'May contain `/` (a URI).' : undefined)],
      get: read(`Read one of ${t}`),
      put: write(`Replace one of ${t}`, '200'),
      delete: write(`Delete one of ${t}`, '204'),
    };
  }
  const links = { type: 'object', properties: { self: { type: 'string', format: 'uri' } }, required: ['self'] };
  const listOf = (item: Json) => ({
    type: 'object',
    required: ['hits', 'links'],
    properties: {
      hits: {
        type: 'object',
        required: ['hits', 'total'],
        properties: { hits: { type: 'array', items: item }, total: { type: 'integer' } },
      },
      aggregations: { type: 'object' },
      sortBy: { type: 'string' },
      links: { type: 'object', properties: { self: { type: 'string' }, prev: { type: 'string' }, next: { type: 'string' } } },
    },
  });
  const i18n = { type: 'object', additionalProperties: { type: 'string' } };
  return {
    openapi: '3.1.0',
    info: { title: 'vocabularies', version: '1.0.0' },
    paths,
    components: {
      schemas: {
        VocabularyType: {
          type: 'object',
          required: ['id', 'pid_type', 'count', 'is_custom_vocabulary', 'links'],
          properties: {
            id: { type: 'string' },
            pid_type: { type: 'string' },
            count: { type: 'integer' },
            is_custom_vocabulary: { type: 'boolean' },
            links,
          },
        },
        VocabularyTypeList: listOf({ $ref: '#/components/schemas/VocabularyType' }),
        VocabularyEntry: {
          type: 'object',
          description:
            'Generic entries carry title, icon, tags, props and type; special vocabularies (affiliations, funders, awards, names, subjects) their own fields.',
          required: ['id', 'created', 'updated', 'links', 'revision_id'],
          properties: {
            id: { type: 'string' },
            created: { type: 'string', format: 'date-time' },
            updated: { type: 'string', format: 'date-time' },
            links,
            revision_id: { type: 'integer' },
            title: i18n,
            description: i18n,
            icon: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
            props: { type: 'object' },
            type: { type: 'string' },
          },
        },
        VocabularyEntryList: listOf({ $ref: '#/components/schemas/VocabularyEntry' }),
        VocabularyEntryInput: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            title: i18n,
            description: i18n,
            icon: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
            props: { type: 'object' },
          },
        },
      },
    },
  };
}
