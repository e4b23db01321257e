/**
 * OpenAPI of the interoperability routes (src/export, src/oai): `GET /api/records/{id}/export/{format}`
 * and the OAI-PMH provider `GET|POST /oai2d`, merged into the records fragment (openapi.ts).
 * OAI-PMH reports protocol errors inside a 200 `text/xml` answer (`<error code="badVerb">`), so
 * only transport errors are listed.
 *
 * When to edit: an export format, or the OAI routes' parameters or answers, change.
 */
import { EXPORT_FORMATS } from '../export/formats.js';
import { type Json, rate, ref } from '@rdm/platform';

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

/** The interoperability paths of the records fragment. */
export function interopPaths(): Json {
  const exportTypes = Object.fromEntries(EXPORT_FORMATS.map((f) => [f.mediaType, { schema: {} }]));
  return {
    '/api/records/{id}/export/{format}': {
      parameters: [
        { name: 'id', in: 'path', required: true, schema: text, description: 'Record id (`abcde-12345`).' },
        {
          name: 'format',
          in: 'path',
          required: true,
          schema: text,
          description: `Export format: ${EXPORT_FORMATS.map((f) => `\`${f.name}\``).join(', ')} (and aliases); another name is 404.`,
        },
      ],
      get: {
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
    },
    '/sitemap.xml': {
      get: {
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
    },
    '/sitemaps/{name}': {
      get: {
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
    },
    '/oai2d': {
      get: {
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
      post: {
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
    },
  };
}
