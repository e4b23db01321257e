import { readFileSync } from 'node:fs';
import { createLogger, openapiFromRoutes } from '@rdm/platform';
import { openapiLosses, withGatewayComponents } from '@rdm/platform/testing';
import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import type { UsersService } from '../domain/users.service.js';
import { API } from './routes.decl.js';
import { usersRouter } from './users.routes.js';

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, Record<string, unknown>> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'];
/** The hand-written fragment this service served before its routes were declared (routes.decl.ts). */
const before = JSON.parse(readFileSync(new URL('../../test/fixtures/openapi-before.json', import.meta.url), 'utf8')) as Doc;

describe(openapiFromRoutes.name, () => {
  const fragment = openapiFromRoutes(API) as unknown as Doc;

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

  it('should document the user routes with their response schemas', () => {
    expect(Object.keys(fragment.paths).sort()).toEqual(['/api/me', '/api/users', '/api/users/{id}', '/api/users/{id}/avatar.svg']);
    const ok = (path: string) => fragment.paths[path].get.responses['200'].content;
    expect(ok('/api/users')['application/json'].schema).toEqual({ $ref: '#/components/schemas/UserList' });
    expect(ok('/api/users/{id}')['application/json'].schema).toEqual({ $ref: '#/components/schemas/User' });
    expect(ok('/api/me')['application/json'].schema).toEqual({ $ref: '#/components/schemas/User' });
    expect(ok('/api/users/{id}/avatar.svg')['image/svg+xml']).toBeDefined();
    expect(fragment.paths['/api/users/{id}'].get.responses['404']).toBeDefined();
    expect(fragment.paths['/api/me'].get.responses['403']).toEqual({ $ref: '#/components/responses/PermissionDenied' });
    expect(fragment.paths['/api/me'].get.security).toContainEqual({ bearerAuth: [] });
    const sort = fragment.paths['/api/users'].get.parameters.find((p: { name?: string }) => p.name === 'sort');
    expect(sort.schema.enum).toEqual(['bestmatch', 'newest', 'oldest']);
    expect(fragment.components.schemas.User).toMatchObject({ required: expect.arrayContaining(['id', 'links', 'profile', 'preferences']) });
  });

  it('should only document operations the users router serves, each with an operationId', () => {
    const router = usersRouter({ users: {} as UsersService, baseUrl: 'http://x' });
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(fragment.paths)) {
      const concrete = path.replace(/\{[^}]+\}/g, '1');
      for (const m of METHODS.filter((k) => item[k])) {
        expect(router.match(concrete, m.toUpperCase()).route, `${m} ${path}`).toBe(true);
        expect(ids.has(item[m].operationId), item[m].operationId).toBe(false);
        ids.add(item[m].operationId);
      }
    }
  });
});

describe('GET /openapi.json', () => {
  it('should serve the fragment', async () => {
    const { app } = createApp({
      config: { IDENTITY_SECRET: 'secret', PUBLIC_BASE_URL: 'http://127.0.0.1:5000' },
      logger: createLogger('users', 'silent'),
      db: {} as never,
      users: {} as UsersService,
    });
    const res = await request(app.callback()).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual(openapiFromRoutes(API));
  });
});
