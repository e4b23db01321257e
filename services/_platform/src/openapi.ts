/**
 * Building blocks of the services' OpenAPI fragments (built from their route tables by
 * route-table.ts, or hand-written in `src/http/openapi*.ts` by services without one; served at
 * `GET /openapi.json` and merged by the gateway): references into the gateway's shared
 * components, JSON content, the rate-limit headers every answer carries. Use them instead of
 * re-declaring the same helpers in each fragment.
 */

/** A JSON object of an OpenAPI document. */
export type Json = Record<string, unknown>;

/** `{$ref: '#/components/<section>/<name>'}`. */
export const ref = (section: string, name: string): Json => ({ $ref: `#/components/${section}/${name}` });

/** A reference to a schema of the shared or the service's components. */
export const schemaRef = (name: string): Json => ref('schemas', name);

/** `application/json` content with `schema`. */
export const json = (schema: Json): Json => ({ 'application/json': { schema } });

/** The `X-RateLimit-*` response headers (components of the gateway's document). */
export const rate: Json = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
};

/** Security of calls that need a personal access token (header or `access_token`). */
export const AUTHENTICATED: Json[] = [{ bearerAuth: [] }, { accessToken: [] }];
