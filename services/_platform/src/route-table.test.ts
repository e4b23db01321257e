import Koa from 'koa';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { AppState } from './http.js';
import { bindRoutes, defineApi, defineRoutes, gatewayRoutesOf, koaPattern, openapiFromRoutes, operationRoute } from './route-table.js';
import { openapiLosses } from './testing/index.js';

const TABLE = defineRoutes({
  readFile: {
    method: 'GET',
    path: '/api/r/{id}/files/{key+}',
    summary: 'Read',
    errors: [404],
    responses: { '200': { description: 'ok' } },
    head: { operationId: 'probeFile', summary: 'Headers of a file', responses: { '200': { description: 'headers' } } },
  },
  putContent: {
    method: 'PUT',
    path: '/api/r/{id}/files/{key+}/content',
    summary: 'Upload',
    upload: true,
    body: 'octet-stream',
    responses: {},
  },
  searchRoot: {
    method: 'GET',
    path: '/api/{type}',
    summary: 'Search',
    list: true,
    values: { param: 'type', of: ['funders', 'names'], per: (t) => ({ summary: `Search ${t}` }) },
  },
  secret: { method: 'GET', path: '/internal', summary: 'Internal', internal: true },
  fixedName: { method: 'GET', path: '/api/r/{id}/files/named', summary: 'A literal path', routedAs: '/api/r/{id}/files/{key+}' },
});
const API = defineApi({ service: 'demo', tables: [TABLE] });

describe(koaPattern.name, () => {
  it('should turn spec-form parameters into koa ones', () => {
    expect(koaPattern('/api/r/{id}/files/{key+}/content')).toBe('/api/r/:id/files/:key(.+)/content');
  });
});

describe(bindRoutes.name, () => {
  it('should register each declaration with its handler, fixed values as one alternation', async () => {
    const router = bindRoutes(TABLE, {
      readFile: (ctx) => {
        ctx.body = { id: ctx.params.id, key: ctx.params.key };
      },
      putContent: (ctx) => {
        ctx.status = 204;
      },
      searchRoot: (ctx) => {
        ctx.body = { type: ctx.params.type };
      },
      secret: (ctx) => {
        ctx.body = 'internal';
      },
      fixedName: (ctx) => {
        ctx.body = 'named';
      },
    });
    const app = new Koa<AppState>();
    app.use(router.routes());
    const agent = request(app.callback());
    expect((await agent.get('/api/r/1/files/a/b.txt')).body).toEqual({ id: '1', key: 'a/b.txt' });
    expect((await agent.put('/api/r/1/files/a/content')).status).toBe(204);
    expect((await agent.get('/api/names')).body).toEqual({ type: 'names' });
    expect((await agent.get('/api/other')).status).toBe(404);
  });
});

describe(openapiFromRoutes.name, () => {
  it('should document each route (fixed values one path each, internal ones left out)', () => {
    const doc = openapiFromRoutes(API) as { paths: Record<string, Record<string, any>> };
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/funders',
      '/api/names',
      '/api/r/{id}/files/named',
      '/api/r/{id}/files/{key}',
      '/api/r/{id}/files/{key}/content',
    ]);
    const read = doc.paths['/api/r/{id}/files/{key}'].get;
    expect(read.operationId).toBe('readFile');
    expect(read.parameters.map((p: { name: string }) => p.name)).toEqual(['id', 'key']);
    expect(read.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    expect(doc.paths['/api/r/{id}/files/{key}'].head).toMatchObject({
      operationId: 'probeFile',
      summary: 'Headers of a file',
      responses: { '200': { description: 'headers' }, '404': { $ref: '#/components/responses/NotFound' } },
    });
    expect(doc.paths['/api/names'].get).toMatchObject({ operationId: 'searchRoot_names', summary: 'Search names' });
    expect(doc.paths['/api/r/{id}/files/{key}/content'].put.requestBody.content['application/octet-stream']).toBeDefined();
  });

  it('should be found less precise than a document it drops a response of', () => {
    const doc = openapiFromRoutes(API) as { paths: Record<string, Record<string, any>> };
    const before = structuredClone(doc);
    before.paths['/api/names'].get.responses['410'] = { description: 'Gone.' };
    before.paths['/api/funders'].get.parameters = [{ name: 'q', in: 'query' }];
    expect(openapiLosses(before, doc)).toEqual(['get /api/funders parameter query:q', 'get /api/names response 410']);
    expect(openapiLosses(doc, doc)).toEqual([]);
  });
});

describe(gatewayRoutesOf.name, () => {
  it('should refuse a route routed as a pattern no route declares', () => {
    const bad = defineRoutes({ x: { method: 'GET', path: '/a/b', summary: 'X', routedAs: '/a/{n}' } });
    expect(() => gatewayRoutesOf(defineApi({ service: 'demo', tables: [bad] }))).toThrow('/a/{n}');
  });

  it('should give one gateway route per pattern, flags and methods merged, internal and routedAs routes left out', () => {
    expect(gatewayRoutesOf(API)).toEqual([
      { pattern: '/api/r/{id}/files/{key+}', methods: ['GET'], service: 'demo', summary: 'Read' },
      { pattern: '/api/r/{id}/files/{key+}/content', methods: ['PUT'], service: 'demo', summary: 'Upload', upload: true },
      { pattern: '/api/funders', methods: ['GET'], service: 'demo', summary: 'Search funders', list: true },
      { pattern: '/api/names', methods: ['GET'], service: 'demo', summary: 'Search names', list: true },
    ]);
  });
});

describe(operationRoute.name, () => {
  const op = {
    operationId: 'reserve',
    summary: 'Reserve',
    tags: ['demo'],
    security: [{ bearerAuth: [] }],
    parameters: [
      { name: 'scheme', in: 'path', required: true, schema: { type: 'string', enum: ['doi'] } },
      { name: 'Accept', in: 'header', schema: { type: 'string' } },
    ],
    requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } } } },
    responses: { '201': { description: 'Reserved.' } },
  };
  const pathParams = [
    { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Id.' },
    { name: 'scheme', in: 'path', required: true, schema: { type: 'string' } },
  ];

  it('should declare a route the fragment documents exactly as the operation (path parameters, body, responses)', () => {
    const table = defineRoutes({ reserve: operationRoute('POST', '/api/r/{id}/pids/{scheme}', op, pathParams, { list: true }) });
    expect(table.reserve).toMatchObject({ method: 'POST', list: true, params: { id: { description: 'Id.' } } });
    const doc = openapiFromRoutes(defineApi({ service: 'demo', tables: [table] }));
    const before = { paths: { '/api/r/{id}/pids/{scheme}': { parameters: pathParams, post: op } } };
    expect(openapiLosses(before, doc as never)).toEqual([]);
    const params = (doc as { paths: Record<string, Record<string, { parameters: { name: string }[] }>> }).paths['/api/r/{id}/pids/{scheme}']
      .post.parameters;
    expect(params.map((p) => p.name)).toEqual(['id', 'scheme', 'Accept']);
  });

  it('should refuse an operation field a route cannot declare', () => {
    expect(() => operationRoute('GET', '/x', { summary: 'X', deprecated: true })).toThrow('deprecated');
  });
});
