import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, buildBaseDocument, mergeFragments, pathShape, toOpenApiPath } from './openapi.js';
import { ROUTES } from './routes.js';

const base = buildBaseDocument(ROUTES, { serverUrl: 'http://127.0.0.1:5000' });
type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, Record<string, unknown>> };

async function expectValid(doc: unknown) {
  const result = await new Validator().validate(doc as Record<string, unknown>);
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
  expect(result.valid).toBe(true);
}

describe(buildBaseDocument.name, () => {
  it('should be a valid OpenAPI 3.1 document', async () => {
    expect(base.openapi).toBe('3.1.0');
    await expectValid(base);
  });

  it('should list every route of the routing table with its methods', () => {
    const paths = (base as unknown as Doc).paths;
    for (const r of ROUTES) {
      // The web service's HTML pages are routes but no API operations.
      if (r.service === 'web') {
        expect(paths[toOpenApiPath(r.pattern)], r.pattern).toBeUndefined();
        continue;
      }
      const item = paths[toOpenApiPath(r.pattern)];
      expect(item, r.pattern).toBeDefined();
      for (const m of r.methods) expect(item[m.toLowerCase()], `${m} ${r.pattern}`).toBeDefined();
      expect(item['x-service']).toBe(r.service);
    }
    expect(paths[OPENAPI_PATH].get).toBeDefined();
  });

  it('should document list parameters, the error body and bearer security', () => {
    const doc = base as unknown as Doc & { security: unknown[] };
    const params = doc.paths['/api/records'].get.parameters.map((p: { $ref: string }) => p.$ref);
    expect(params).toEqual([
      '#/components/parameters/q',
      '#/components/parameters/page',
      '#/components/parameters/size',
      '#/components/parameters/sort',
    ]);
    expect(doc.components.schemas.Error).toMatchObject({ required: ['status', 'message'], properties: { errors: { type: 'array' } } });
    expect(doc.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.security).toContainEqual({ bearerAuth: [] });
  });

  it('should have unique operation ids and no two paths of the same shape', () => {
    const ids = new Set<string>();
    const shapes = new Set<string>();
    for (const [p, item] of Object.entries((base as unknown as Doc).paths)) {
      expect(shapes.has(pathShape(p)), p).toBe(false);
      shapes.add(pathShape(p));
      for (const op of Object.values(item)) {
        if (op && typeof op === 'object' && 'operationId' in op) {
          expect(ids.has(op.operationId), op.operationId).toBe(false);
          ids.add(op.operationId);
        }
      }
    }
  });
});

describe(mergeFragments.name, () => {
  it("should take a service's operations for its own paths, adopting its parameter names", async () => {
    const fragment = {
      openapi: '3.1.0',
      info: { title: 'records', version: '1' },
      paths: {
        '/api/records/{pid_value}/draft': {
          get: {
            operationId: 'records_read',
            summary: 'Read a record (from records)',
            parameters: [{ name: 'pid_value', in: 'path', required: true, schema: { type: 'string' } }],
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Record' } } } },
            },
          },
        },
        '/internal/reindex': { post: { responses: { '202': { description: 'x' } } } },
        '/api/users/{id}': { get: { responses: { '200': { description: 'stolen' } } } },
      },
      components: { schemas: { Record: { type: 'object' }, Error: { type: 'string' } } },
      tags: [{ name: 'records-extra' }],
    };
    const { doc, notes } = mergeFragments(base, [{ service: 'records', doc: fragment }]);
    const d = doc as unknown as Doc;
    expect(d.paths['/api/records/{id}/draft']).toBeUndefined();
    const item = d.paths['/api/records/{pid_value}/draft'];
    expect(item.get.summary).toBe('Read a record (from records)');
    expect(item.get.tags).toEqual(['records']);
    expect(item.delete).toBeDefined(); // kept from the base document
    expect(item.parameters[0].name).toBe('pid_value');
    expect(d.paths['/internal/reindex']).toBeUndefined();
    expect(d.paths['/api/users/{id}'].get.responses['200']).not.toEqual({ description: 'stolen' });
    expect(d.components.schemas.Record).toEqual({ type: 'object' });
    expect(d.components.schemas.Error).toMatchObject({ type: 'object' });
    expect(notes.length).toBe(3);
    await expectValid(doc);
  });

  it('should ignore a fragment without paths', () => {
    const { doc, notes } = mergeFragments(base, [{ service: 'users', doc: { hello: 1 } }]);
    expect(doc).toEqual(base);
    expect(notes).toEqual(['users: fragment has no paths']);
  });
});
