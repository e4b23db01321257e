import { readFileSync } from 'node:fs';
import { createHttpApp, createLogger, mountRouter, openapiFromRoutes } from '@rdm/platform';
import { openapiLosses } from '@rdm/platform/testing';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { JobsService } from '../domain/jobs.service.js';
import type { VocabulariesService } from '../domain/vocabularies.service.js';
import { jobsRouter } from './jobs.routes.js';
import { API } from './routes.decl.js';
import { vocabulariesRouter } from './vocabularies.routes.js';

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, Record<string, unknown>> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** The hand-written fragment this service served before its routes were declared (routes.decl.ts). */
const before = JSON.parse(readFileSync(new URL('../../test/fixtures/openapi-before.json', import.meta.url), 'utf8')) as Doc;

describe(openapiFromRoutes.name, () => {
  const fragment = openapiFromRoutes(API) as unknown as Doc;

  it('should document every path, method, parameter, response and schema the hand-written fragment did', () => {
    expect(openapiLosses(before, fragment)).toEqual([]);
  });

  it('should only document operations the router serves, each with a unique operationId', () => {
    const routers = [vocabulariesRouter({} as VocabulariesService), jobsRouter({} as JobsService)];
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(fragment.paths)) {
      const concrete = path.replace(/\{[^}]+\}/g, 'x');
      for (const m of METHODS.filter((k) => item[k])) {
        expect(
          routers.some((r) => r.match(concrete, m.toUpperCase()).route),
          `${m} ${path}`,
        ).toBe(true);
        expect(ids.has(item[m].operationId), item[m].operationId).toBe(false);
        ids.add(item[m].operationId);
      }
    }
  });
});

describe('GET /openapi.json', () => {
  it('should serve the fragment built from the route table', async () => {
    const { app } = createHttpApp({ name: 'vocabularies', logger: createLogger('vocabularies', 'silent') });
    mountRouter(app, vocabulariesRouter({} as VocabulariesService));
    const res = await request(app.callback()).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual(openapiFromRoutes(API));
  });
});
