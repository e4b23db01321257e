import { readFileSync } from 'node:fs';
import { openapiFromRoutes } from '@rdm/platform';
import { openapiLosses, withGatewayComponents } from '@rdm/platform/testing';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { API } from './routes.decl.js';

/** The fragment built from the route table (routes.decl.ts). */
const openapiFragment = () => openapiFromRoutes(API);
/** The hand-written fragment this service served before its routes were declared. */
const before = JSON.parse(readFileSync(new URL('../../test/fixtures/openapi-before.json', import.meta.url), 'utf8'));

describe(openapiFromRoutes.name, () => {
  it('should document every path, method, parameter, response and schema the hand-written fragment did', () => {
    expect(openapiLosses(before, openapiFragment() as never)).toEqual([]);
  });
  it('should be a valid OpenAPI 3.1 document whose references resolve (with the gateway components)', async () => {
    const validator = new Validator();
    const result = await validator.validate(withGatewayComponents(openapiFragment()));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
  });
  it('should document every communities path', () => {
    const paths = Object.keys((openapiFragment() as { paths: Record<string, unknown> }).paths);
    expect(paths).toContain('/api/communities/{id}/invitations');
    expect(paths).toContain('/api/community-schema-extension/schema/{schema_id}/jsonschema');
    expect(paths).toHaveLength(16);
  });
  it('should list PUT …/membership-requests (served since issue 19, item 4) beside GET and POST', () => {
    const item = (openapiFragment() as { paths: Record<string, Record<string, unknown>> }).paths[
      '/api/communities/{id}/membership-requests'
    ];
    expect(
      Object.keys(item)
        .filter((k) => k !== 'parameters')
        .sort(),
    ).toEqual(['get', 'post', 'put']);
  });
});
