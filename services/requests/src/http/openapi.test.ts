import { withGatewayComponents } from '@rdm/platform/testing';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import type { ActionsService } from '../domain/actions.service.js';
import type { CommentsService } from '../domain/comments.service.js';
import type { RequestsService } from '../domain/requests.service.js';
import { openapiFragment } from './openapi.js';
import { requestsRouter } from './requests.routes.js';

type Doc = { paths: Record<string, Record<string, any>> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'];

describe(openapiFragment.name, () => {
  const fragment = openapiFragment() as unknown as Doc;

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
