import { readFileSync } from 'node:fs';
import { openapiFromRoutes } from '@rdm/platform';
import { openapiLosses, withGatewayComponents } from '@rdm/platform/testing';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import type { ActionsService } from '../domain/actions.service.js';
import type { CommentsService } from '../domain/comments.service.js';
import type { RequestsService } from '../domain/requests.service.js';
import { requestsRouter } from './requests.routes.js';
import { API } from './routes.decl.js';

type Doc = { paths: Record<string, Record<string, any>> };
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

  it('should only document operations the router serves, each with a unique operationId', () => {
    const router = requestsRouter({ requests: {} as RequestsService, actions: {} as ActionsService, comments: {} as CommentsService });
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
