import { readFileSync } from 'node:fs';
import { createLogger, openapiFromRoutes } from '@rdm/platform';
import { openapiLosses, withGatewayComponents } from '@rdm/platform/testing';
import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import type { FilesAuthorizer } from '../domain/authorizer.js';
import type { FilesService } from '../domain/files.service.js';
import { FileLinks } from '../domain/links.js';
import type { ObjectStorage } from '../storage/index.js';
import type { IiifService } from '../iiif/iiif.service.js';
import { filesRouter } from './files.routes.js';
import { iiifRouter } from './iiif.routes.js';
import { API } from './routes.decl.js';

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, Record<string, any>> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'];

/** The fragment built from the route table (routes.decl.ts). */
const openapiFragment = () => openapiFromRoutes(API);
/** The hand-written fragment this service served before its routes were declared. */
const before = JSON.parse(readFileSync(new URL('../../test/fixtures/openapi-before.json', import.meta.url), 'utf8'));

describe(openapiFromRoutes.name, () => {
  const fragment = openapiFragment() as unknown as Doc;

  it('should document every path, method, parameter, response and schema the hand-written fragment did', () => {
    expect(openapiLosses(before, fragment)).toEqual([]);
  });

  it('should be a valid OpenAPI 3.1 document whose references resolve (with the gateway components)', async () => {
    const validator = new Validator();
    const result = await validator.validate(withGatewayComponents(fragment as unknown as Record<string, unknown>));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  // Issue 19, item 6: `pids` of a published file is always `{}`; the document says so (and the fuzz
  // run checks every answer against it).
  it("should describe a published file's pids as what is served: an empty object", () => {
    const pids = fragment.components.schemas.FileEntry.properties.pids;
    expect(pids).toMatchObject({ type: 'object', maxProperties: 0 });
    expect(pids.description).toMatch(/Always `\{\}`/);
  });

  it('should document draft and record files, upload, commit, ranged download and archives', () => {
    const ops = Object.entries(fragment.paths).flatMap(([p, item]) => METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${p}`));
    const D = '/api/records/{id}/draft';
    const R = '/api/records/{id}';
    expect(ops.sort()).toEqual(
      [
        `GET ${D}/files`,
        `POST ${D}/files`,
        `DELETE ${D}/files`,
        `GET ${D}/files/{key}`,
        `PUT ${D}/files/{key}`,
        `DELETE ${D}/files/{key}`,
        `GET ${D}/files/{key}/content`,
        `HEAD ${D}/files/{key}/content`,
        `PUT ${D}/files/{key}/content`,
        `PUT ${D}/files/{key}/content/{part}`,
        `POST ${D}/files/{key}/commit`,
        `GET ${D}/files-archive`,
        `GET ${R}/files`,
        `GET ${R}/files/{key}`,
        `GET ${R}/files/{key}/content`,
        `HEAD ${R}/files/{key}/content`,
        `GET ${R}/files-archive`,
      ]
        .flatMap((op) => [op, op.replace('/files-archive', '/media-files-archive').replace(/\/files(\/|$)/, '/media-files$1')])
        // A published record's media files are written through the same routes as a draft's.
        .concat([
          `POST ${R}/media-files`,
          `DELETE ${R}/media-files`,
          `PUT ${R}/media-files/{key}`,
          `DELETE ${R}/media-files/{key}`,
          `PUT ${R}/media-files/{key}/content`,
          `PUT ${R}/media-files/{key}/content/{part}`,
          `POST ${R}/media-files/{key}/commit`,
        ])
        // IIIF (issue 24): Image API 2.1 and Presentation documents.
        .concat([
          'GET /api/iiif/{uuid}',
          'GET /api/iiif/{uuid}/info.json',
          'GET /api/iiif/{uuid}/manifest',
          'GET /api/iiif/{uuid}/sequence/default',
          'GET /api/iiif/{uuid}/canvas/{key}',
          'GET /api/iiif/{uuid}/{region}/{size}/{rotation}/{quality_format}',
        ])
        .sort(),
    );
    expect(fragment.paths[`${R}/media-files/{key}/content/{part}`].put.operationId).toBe('uploadRecordMediaFilePart');
    expect(Object.keys(fragment.paths[`${R}/media-files/{key}/content/{part}`].put.responses)).toEqual(
      expect.arrayContaining(['200', '400', '403', '404', '415', '501']),
    );
    const part = fragment.paths[`${D}/files/{key}/content/{part}`].put;
    expect(part.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/FileEntry' });
    expect(fragment.paths[`${D}/media-files`].post.operationId).toBe('initDraftMediaFiles');
    expect(fragment.paths[`${D}/media-files`].post.responses['501']).toBeDefined();
    const upload = fragment.paths[`${D}/files/{key}/content`].put;
    expect(Object.keys(upload.requestBody.content)).toEqual(['application/octet-stream']);
    expect(upload.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/FileEntry' });
    expect(upload.responses['415']).toBeDefined();
    const dl = fragment.paths[`${R}/files/{key}/content`].get;
    expect(Object.keys(dl.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '400', '416']));
    expect(dl.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['Range', 'If-Range', 'If-None-Match']));
    expect(dl.responses['206'].headers['Content-Range']).toBeDefined();
    expect(fragment.paths[`${D}/files`].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/FileList',
    });
    expect(fragment.paths[`${D}/files-archive`].get.responses['200'].content['application/zip']).toBeDefined();
    expect(fragment.components.schemas.FileEntry.required).toEqual(expect.arrayContaining(['key', 'status', 'links']));
  });

  it('should document the 400 every path can answer (a NUL or bad encoding in it) and the 415 of part uploads', () => {
    for (const [p, item] of Object.entries(fragment.paths)) {
      for (const m of METHODS.filter((x) => item[x] && x !== 'head')) expect(item[m].responses['400'], `${m} ${p}`).toBeDefined();
    }
    expect(fragment.paths['/api/records/{id}/draft/files/{key}/content/{part}'].put.responses['415']).toBeDefined();
  });

  it('should only document operations the files router serves, each with a unique operationId', () => {
    const files = filesRouter({ service: {} as FilesService, links: new FileLinks('http://x') });
    const iiif = iiifRouter({ iiif: {} as IiifService, baseUrl: 'http://x' });
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(fragment.paths)) {
      const router = path.startsWith('/api/iiif/') ? iiif : files;
      const concrete = path
        .replace('{key}', path.startsWith('/api/iiif/') ? 'a.png' : 'dir/a.txt')
        .replace('{id}', 'abcde-12345')
        .replace('{uuid}', 'record:abcde-12345:a.png')
        .replace('{region}/{size}/{rotation}/{quality_format}', 'full/max/0/default.jpg');
      for (const m of METHODS.filter((k) => item[k])) {
        // koa-router answers HEAD with the GET route.
        const method = m === 'head' ? 'GET' : m.toUpperCase();
        const matched = router.match(concrete, method);
        expect(matched.route, `${m} ${concrete}`).toBe(true);
        // Why: published records' write routes exist only to answer 405; the documented ones must be real handlers.
        expect(matched.pathAndMethod.length, `${m} ${concrete}`).toBeGreaterThan(0);
        expect(ids.has(item[m].operationId), item[m].operationId).toBe(false);
        ids.add(item[m].operationId);
      }
    }
  });
});

describe('GET /openapi.json', () => {
  it('should serve the fragment', async () => {
    const { app } = createApp({
      config: {
        IDENTITY_SECRET: 's',
        PUBLIC_BASE_URL: 'http://127.0.0.1:5000',
        FILES_MAX_COUNT: 100,
        FILES_MAX_RECORD_BYTES: 1000,
        FILES_MAX_FILE_BYTES: 1000,
        FILES_UPLOAD_STALE_MS: 1000,
        FILES_JANITOR_INTERVAL_MS: 1000,
      },
      logger: createLogger('files', 'silent'),
      db: {} as never,
      storage: {} as ObjectStorage,
      authorizer: {} as FilesAuthorizer,
    });
    const res = await request(app.callback()).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual(openapiFragment());
  });
});
