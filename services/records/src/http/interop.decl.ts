/**
 * Route tables of the interoperability routes (src/export, src/oai, src/sitemap; part of the
 * records API, routes.decl.ts): `GET /api/records/{id}/export/{format}` (and the format
 * negotiation of `GET /api/records/{id}`), the OAI-PMH provider `GET|POST /oai2d` and the sitemap.
 * OAI-PMH reports protocol errors inside a 200 `text/xml` answer (`<error code="badVerb">`), so
 * only transport errors are listed.
 *
 * When to edit: an export format, or the OAI routes' parameters or answers, change. Only the
 * platform and constants may be imported here (the gateway's route generator imports it).
 */
import { CITATION_LOCALES, CITATION_STYLES, DEFAULT_CITATION_STYLE } from '../export/bibliography.js';
import { EXPORT_FORMATS } from '../export/formats.js';
import { defineRoutes, type Json, operationRoute, rate, ref } from '@rdm/platform';

const common = (...codes: string[]): Json =>
  Object.fromEntries(
    [...codes, '429', '503'].map((c) => [
      c,
      ref(
        'responses',
        {
          '400': 'BadRequest',
          '403': 'PermissionDenied',
          '404': 'NotFound',
          '413': 'PayloadTooLarge',
          '429': 'TooManyRequests',
          '503': 'ServiceUnavailable',
        }[c] as string,
      ),
    ]),
  );
const errorBody = (description: string) => ({ description, content: { 'application/json': { schema: ref('schemas', 'Error') } } });
const text = { type: 'string' };
const xml = { 'text/xml': { schema: text } };

const OAI_ARGS = ['verb', 'identifier', 'metadataPrefix', 'from', 'until', 'set', 'resumptionToken'];

const NAMED_FORMATS = EXPORT_FORMATS.filter((f) => !f.acceptOnly);
const exportTypes = Object.fromEntries(NAMED_FORMATS.map((f) => [f.mediaType, { schema: {} }]));
const exportParams = [
  { name: 'id', in: 'path', required: true, schema: text, description: 'Record id (`abcde-12345`).' },
  {
    name: 'format',
    in: 'path',
    required: true,
    schema: text,
    description: `Export format: ${NAMED_FORMATS.map((f) => `\`${f.name}\``).join(', ')} (and aliases); another name is 404.`,
  },
];

/** `?style=` and `?locale=` of a formatted citation (`GET /api/records/{id}` with `Accept: text/x-bibliography`). */
export const CITATION_QUERY_PARAMS = [
  {
    name: 'style',
    in: 'query',
    required: false,
    schema: text,
    description: `Citation style of \`text/x-bibliography\`: ${CITATION_STYLES.map((s) => `\`${s.id}\``).join(', ')} (default \`${DEFAULT_CITATION_STYLE}\`); another is 400 listing them.`,
  },
  {
    name: 'locale',
    in: 'query',
    required: false,
    schema: text,
    description: `Language of \`text/x-bibliography\` (${CITATION_LOCALES.join(', ')}; another tag falls back to its language's main dialect, then en-US; default: the style's). Not a language tag: 400.`,
  },
];

/** Routes of export.routes.ts, in koa match order (before the records routes: `GET /api/records/{id}` negotiates the format first). */
export const EXPORT_ROUTES = defineRoutes({
  negotiateRecordFormat: {
    method: 'GET',
    path: '/api/records/{id}',
    summary: 'A published record in the format the `Accept` header or `?format=` asks (JSON falls through to readRecord)',
    undocumented: true,
  },
  exportRecord: operationRoute(
    'GET',
    '/api/records/{id}/export/{format}',
    {
      operationId: 'exportRecord',
      summary: 'The record in an export format',
      tags: ['records'],
      responses: {
        '200': { description: 'The record rendered in the format (its own media type).', headers: rate, content: exportTypes },
        '302': {
          description: 'The id is a parent (concept) id: the latest version in the same format.',
          headers: { Location: { schema: { type: 'string', format: 'uri' } } },
          content: { 'application/json': { schema: ref('schemas', 'Redirect') } },
        },
        ...common('400', '403', '404'),
        '401': ref('responses', 'InvalidToken'),
        '410': errorBody('The record has been deleted.'),
      },
    },
    [...exportParams],
  ),
});

/** Routes of oai.routes.ts. */
export const OAI_ROUTES = defineRoutes({
  oaiPmhGet: operationRoute(
    'GET',
    '/oai2d',
    {
      operationId: 'oaiPmhGet',
      summary: 'OAI-PMH 2.0 provider (all six verbs)',
      tags: ['records'],
      parameters: OAI_ARGS.map((name) => ({ name, in: 'query', required: false, schema: text })),
      responses: {
        '200': { description: 'The OAI-PMH answer (protocol errors included, as `<error>`).', headers: rate, content: xml },
        ...common('400'),
        '401': ref('responses', 'InvalidToken'),
      },
    },
    [],
  ),
  oaiPmhPost: operationRoute(
    'POST',
    '/oai2d',
    {
      operationId: 'oaiPmhPost',
      summary: 'OAI-PMH 2.0 provider, arguments in a form body',
      tags: ['records'],
      requestBody: {
        required: false,
        content: {
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', properties: Object.fromEntries(OAI_ARGS.map((a) => [a, text])) },
          },
        },
      },
      responses: {
        '200': { description: 'The OAI-PMH answer (protocol errors included, as `<error>`).', headers: rate, content: xml },
        ...common('400', '413'),
        '401': ref('responses', 'InvalidToken'),
        '415': errorBody('The body is not `application/x-www-form-urlencoded`.'),
      },
    },
    [],
  ),
});

/** Routes of sitemap.routes.ts. */
export const SITEMAP_ROUTES = defineRoutes({
  sitemap: operationRoute(
    'GET',
    '/sitemap.xml',
    {
      operationId: 'sitemap',
      summary: 'Sitemap of the public records (sitemaps.org 0.9): a urlset, or past 50,000 records a sitemap index',
      tags: ['records'],
      responses: {
        '200': {
          description: '`urlset` of landing pages with `lastmod`, or `sitemapindex` of `/sitemaps/records-<n>.xml`.',
          headers: rate,
          content: { 'application/xml': { schema: text } },
        },
        '401': ref('responses', 'InvalidToken'),
      },
    },
    [],
  ),
  sitemapPage: operationRoute(
    'GET',
    '/sitemaps/{name}',
    {
      operationId: 'sitemapPage',
      summary: 'One page of the sitemap index (`records-<n>.xml`)',
      tags: ['records'],
      parameters: [{ name: 'name', in: 'path', required: true, schema: text }],
      responses: {
        '200': {
          description: 'A `urlset` of up to 50,000 landing pages.',
          headers: rate,
          content: { 'application/xml': { schema: text } },
        },
        ...common('404'),
        '401': ref('responses', 'InvalidToken'),
      },
    },
    [],
  ),
});
