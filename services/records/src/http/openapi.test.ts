import { readFileSync } from 'node:fs';
import { ANONYMOUS, type AppState, createLogger, openapiFromRoutes, Router } from '@rdm/platform';
import { openapiLosses, withGatewayComponents } from '@rdm/platform/testing';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import { defaultAccess } from '../domain/access.js';
import type { ParentRow, RecordRow } from '../domain/model.js';
import type { RecordsService } from '../domain/records.service.js';
import { buildDoc, serializeItem } from '../domain/serializers.js';
import type { FilesPort } from '../domain/ports.js';
import type { VocabulariesPort } from '../domain/ports.js';
import { registerExportRoutes } from '../export/export.routes.js';
import { registerSitemapRoutes } from '../sitemap/sitemap.routes.js';
import { registerOaiRoutes } from '../oai/oai.routes.js';
import { API, toComponentSchema, writeFormSchemas } from './routes.decl.js';
import { registerAbuseRoutes } from './abuse.routes.js';
import { registerAccessRequestRoutes } from './access-request.routes.js';
import { registerAccessRoutes } from './access.routes.js';
import { registerDeletionRoutes } from './deletion.routes.js';
import { registerRecordsRoutes } from './records.routes.js';
import { registerReviewRoutes } from './review.routes.js';
import { registerSearchRoutes } from './search.routes.js';

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, Record<string, any>> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'];
const BASE = 'http://127.0.0.1:5000';
const logger = createLogger('records', 'silent');
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

/** An ajv validator of one component schema (component `$ref`s mapped to `$defs`). */
function componentValidator(schemas: Record<string, unknown>, name: string) {
  const defs = JSON.parse(JSON.stringify(schemas).replaceAll('"#/components/schemas/', '"#/$defs/'));
  const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv.compile({ $defs: defs, $ref: `#/$defs/${name}` });
}

function parentRow(): ParentRow {
  return {
    id: 'ppppp-ppp11',
    owner_id: '7',
    created: new Date('2024-01-01T00:00:00Z'),
    updated: new Date('2024-01-01T00:00:00Z'),
    revision_id: 1,
    access: {
      owned_by: { user: '7' },
      settings: { allow_user_requests: false, allow_guest_requests: false, accept_conditions_text: null, secret_link_expiration: 0 },
      grants: [],
      links: [],
    },
    communities: {},
    pids: {},
    latest_id: 'rrrrr-rrr22',
    latest_index: 1,
    next_draft_id: null,
  };
}

function recordRow(): RecordRow {
  return {
    id: 'rrrrr-rrr22',
    parent_id: 'ppppp-ppp11',
    index: 1,
    created: new Date('2024-02-03T04:05:06.789Z'),
    updated: new Date('2024-02-03T04:05:06.789Z'),
    revision_id: 3,
    draft_revision_id: 2,
    metadata: { title: 'T', resource_types: [{ id: 'image-photo', title: { en: 'Photo' } }] },
    custom_fields: {},
    access: defaultAccess(),
    files: {
      enabled: true,
      order: [],
      default_preview: 'a.png',
      count: 1,
      total_bytes: 5,
      entries: { 'a.png': { id: 'f1', key: 'a.png', size: 5, checksum: 'md5:x', ext: 'png', mimetype: 'image/png', storage_class: 'L' } },
    },
    media_files: { enabled: false, order: [] },
    pids: { doi: { identifier: '10.1234/rrrrr-rrr22', provider: 'datacite', client: 'datacite' } },
    bucket_id: 'rrrrr-rrr22',
    deletion_status: 'P',
    resource_type_type: 'image',
    resource_type_subtype: 'image-photo',
  } as RecordRow;
}

/** The fragment built from the route tables (routes.decl.ts and the *.decl.ts it gathers). */
const openapiFragment = () => openapiFromRoutes(API);
/** The hand-written fragment this service served before its routes were declared. */
const before = JSON.parse(readFileSync(new URL('../../test/fixtures/openapi-before.json', import.meta.url), 'utf8'));

describe(openapiFromRoutes.name, () => {
  const fragment = openapiFragment() as unknown as Doc;

  it('should document every path, method, parameter, response and schema the hand-written fragment did', () => {
    expect(openapiLosses(before, fragment)).toEqual([]);
  });
  const schemas = fragment.components.schemas;

  it('should be a valid OpenAPI 3.1 document whose references resolve (with the gateway components)', async () => {
    const validator = new Validator();
    const result = await validator.validate(withGatewayComponents(fragment as unknown as Record<string, unknown>));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('should document search, records, drafts, publish, pids, versions, files import, reviews, record communities and community records', () => {
    const ops = Object.entries(fragment.paths).flatMap(([p, item]) => METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${p}`));
    expect(ops.sort()).toEqual(
      [
        'GET /api/records',
        'POST /api/records',
        'GET /api/records/{id}',
        'GET /api/records/{id}/draft',
        'POST /oai2d',
        'DELETE /api/records/{id}/delete',
        'POST /api/records/{id}/delete',
        'POST /api/records/{id}/restore',
        'POST /api/records/{id}/report-abuse',
        'POST /api/records/{id}/request-deletion',
        'POST /api/records/{id}/file-modification',
        'POST /api/records/{id}/quota-increase',
        'PUT /api/records/{id}/draft',
        'POST /api/records/{id}/draft',
        'DELETE /api/records/{id}/draft',
        'POST /api/records/{id}/draft/actions/{action}',
        'POST /api/records/{id}/draft/pids/{scheme}',
        'DELETE /api/records/{id}/draft/pids/{scheme}',
        'GET /api/records/{id}/export/{format}',
        'GET /api/records/{id}/versions',
        'POST /api/records/{id}/versions',
        'GET /api/records/{id}/versions/latest',
        'GET /api/user/records',
        'GET /oai2d',
        'GET /sitemap.xml',
        'GET /sitemaps/{name}',
        'GET /api/communities/{id}/records',
        'DELETE /api/communities/{id}/records',
        'GET /api/records/{id}/draft/review',
        'PUT /api/records/{id}/draft/review',
        'DELETE /api/records/{id}/draft/review',
        'POST /api/records/{id}/draft/actions/submit-review',
        'GET /api/records/{id}/communities',
        'POST /api/records/{id}/communities',
        'DELETE /api/records/{id}/communities',
        'GET /api/records/{id}/communities-suggestions',
        'GET /api/records/{id}/access/links',
        'POST /api/records/{id}/access/links',
        'GET /api/records/{id}/access/links/{link_id}',
        'PATCH /api/records/{id}/access/links/{link_id}',
        'DELETE /api/records/{id}/access/links/{link_id}',
        'GET /api/records/{id}/access/grants',
        'POST /api/records/{id}/access/grants',
        'GET /api/records/{id}/access/grants/{grant_id}',
        'PATCH /api/records/{id}/access/grants/{grant_id}',
        'DELETE /api/records/{id}/access/grants/{grant_id}',
        'GET /api/records/{id}/access/users',
        'POST /api/records/{id}/access/users',
        'GET /api/records/{id}/access/users/{user_id}',
        'PATCH /api/records/{id}/access/users/{user_id}',
        'DELETE /api/records/{id}/access/users/{user_id}',
        'POST /api/records/{id}/access/request',
        'GET /api/records/{id}/access/request/confirm',
        'POST /api/records/{id}/access/request/confirm',
        'PUT /api/records/{id}/access',
        'PATCH /api/records/{id}/access',
      ].sort(),
    );
    const search = fragment.paths['/api/records'].get;
    expect(search.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RecordList' });
    const names = search.parameters.map((p: { name?: string; $ref?: string }) => p.name ?? p.$ref);
    expect(names).toEqual(
      expect.arrayContaining([
        '#/components/parameters/q',
        'size',
        'sort',
        'allversions',
        'access_status',
        'resource_types',
        'publication_date',
      ]),
    );
    expect(fragment.paths['/api/user/records'].get.parameters.map((p: { name?: string }) => p.name)).toContain('is_published');
    expect(fragment.paths['/api/records'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RecordWrite',
    });
    expect(Object.keys(fragment.paths['/api/records'].post.responses)).toEqual([
      '201',
      '400',
      '401',
      '403',
      '406',
      '413',
      '415',
      '429',
      '503',
    ]);
    expect(Object.keys(fragment.paths['/api/records/{id}/draft/actions/{action}'].post.responses)).toEqual(
      expect.arrayContaining(['201', '202', '400']),
    );
    expect(fragment.paths['/api/records/{id}'].get.responses['410']).toBeDefined();
    expect(fragment.paths['/api/records/{id}/draft'].put.responses['412']).toBeDefined();
  });

  it('should only document operations the records router serves, each with a unique operationId', () => {
    const router = new Router<AppState>();
    registerSearchRoutes(router, { search: {} as never, baseUrl: BASE, doiResolverUrl: 'https://doi.org' });
    registerRecordsRoutes(router, { service: {} as RecordsService, baseUrl: BASE, doiResolverUrl: 'https://doi.org' });
    registerReviewRoutes(router, { review: {} as never, communities: {} as never, communityRecords: {} as never, baseUrl: BASE });
    registerExportRoutes(router, {} as never);
    registerOaiRoutes(router, {} as never);
    registerSitemapRoutes(router, { db: {} as never, baseUrl: BASE });
    registerAccessRoutes(router, {} as never, {} as never);
    registerDeletionRoutes(router, {} as never);
    registerAbuseRoutes(router, {} as never);
    registerAccessRequestRoutes(router, {} as never);
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(fragment.paths)) {
      for (const m of METHODS.filter((k) => item[k])) {
        const action = item[m].parameters?.find((p: { name?: string }) => p.name === 'action')?.schema.enum ?? ['x'];
        for (const a of action) {
          const concrete = path.replace('{action}', a).replace(/\{[^}]+\}/g, 'abcde-12345');
          expect(router.match(concrete, m.toUpperCase()).route, `${m} ${concrete}`).toBe(true);
        }
        expect(ids.has(item[m].operationId), item[m].operationId).toBe(false);
        ids.add(item[m].operationId);
      }
    }
  });

  it('should describe the read form the serializer renders, for records and drafts', () => {
    const validate = componentValidator(schemas, 'Record');
    const parent = parentRow();
    const rec = serializeItem(buildDoc({ kind: 'record', row: recordRow(), parent, isPublished: true, files: {} as never }), {
      baseUrl: BASE,
      identity: { sub: '7', roles: [] },
      kind: 'record',
      fileLinks: true,
    });
    expect(validate(rec), JSON.stringify(validate.errors)).toBe(true);
    const draft = serializeItem(
      buildDoc({
        kind: 'draft',
        row: { ...recordRow(), expires_at: null },
        parent: { ...parent, latest_id: null },
        isPublished: false,
        files: { count: 0, total_bytes: 0, entries: {} },
      }),
      { baseUrl: BASE, identity: ANONYMOUS, kind: 'draft' },
    );
    draft.errors = [{ field: 'metadata.title', messages: ['Missing data for required field.'] }];
    expect(validate(draft), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ id: 'x' })).toBe(false);
  });
});

describe(writeFormSchemas.name, () => {
  const schemas = openapiFragment().components as { schemas: Record<string, unknown> };

  it('should keep no $id, $schema, $defs or x- keyword, and point every $ref at a component', () => {
    const text = JSON.stringify(writeFormSchemas());
    expect(text).not.toMatch(/"\$id"|"\$schema"|"\$defs"|"x-[a-z-]+"\s*:/);
    for (const m of text.matchAll(/"\$ref":"([^"]+)"/g)) {
      const name = m[1].replace('#/components/schemas/', '');
      expect(schemas.schemas[name], m[1]).toBeDefined();
    }
  });

  it('should accept a complete write form and refuse what the service refuses', () => {
    const validate = componentValidator(schemas.schemas, 'RecordWrite');
    const body = {
      access: { record: 'public', files: 'restricted', embargo: { active: false } },
      files: { enabled: true },
      pids: {},
      metadata: {
        resource_types: [{ id: 'image-photo' }],
        title: 'A Romans story',
        publication_date: '2020-06-01',
        creators: [{ person_or_org: { type: 'personal', given_name: 'Troy', family_name: 'Brown' }, affiliations: [{ name: 'Uni' }] }],
        identifiers: [{ identifier: '10.1234/x', scheme: 'doi' }],
      },
    };
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...body, access: { record: 'nope', files: 'public' } })).toBe(false);
    expect(validate({ ...body, metadata: { ...body.metadata, unknown_field: 1 } })).toBe(false);
    expect(validate({ metadata: { title: 'Saved without the publish requirements' } })).toBe(true);
  });

  it('should refuse to copy a reference it cannot place', () => {
    expect(() =>
      toComponentSchema({ $ref: 'https://elsewhere/x.json' }, (r) => {
        throw new Error(r);
      }),
    ).toThrow('https://elsewhere/x.json');
  });
});

describe('GET /openapi.json', () => {
  it('should serve the fragment', async () => {
    const { app } = createApp({
      config: {
        PUBLIC_BASE_URL: BASE,
        IDENTITY_SECRET: 's',
        DOI_PREFIX: '10.1234',
        DOI_RESOLVER_URL: 'https://doi.org',
        OAI_ID_PREFIX: 'x',
        SITE_NAME: 'x',
      },
      logger,
      db: {} as never,
      files: {} as FilesPort,
      vocabularies: {} as VocabulariesPort,
    });
    const res = await request(app.callback()).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual(openapiFragment());
  });
});
