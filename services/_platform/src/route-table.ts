/**
 * One route table per service: every HTTP route declared ONCE, as data (method, path, summary,
 * auth, parameters, body, responses), from which the platform builds the koa router
 * (`bindRoutes`), the service's OpenAPI fragment (`openapiFromRoutes`, served at the internal
 * `GET /openapi.json` by `openapiRouter`) and, through `pnpm gen:contracts`
 * (proto/tools/gen-contracts.ts), the gateway's routing table (`gatewayRoutesOf` →
 * services/gateway/src/routes.generated.ts).
 *
 * When to use: a service adds, changes or removes an HTTP route. Declare it in the service's
 * `src/http/routes.decl.ts` (no runtime imports there beyond the platform and constants: the
 * generator imports that file) and bind its handler where the router is built; a declared route
 * without a handler, or a handler without a declaration, does not compile.
 *
 * Paths are in spec form: `{id}` is one segment, `{key+}` one or more (koa `:key(.+)`). A route
 * whose koa pattern needs a regexp the spec form cannot say gives it in `koa`. Registration order
 * is declaration order (koa-router is first-match: declare hot paths first).
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { AppState } from './http.js';
import { AUTHENTICATED, type Json, ref } from './openapi.js';

/** Methods a route can declare (HEAD follows GET). */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The documentation fields of a route (what `values.per` may vary by value). */
export interface RouteDoc {
  /** One line for the OpenAPI operation and the gateway's table. */
  summary?: string;
  /** Longer OpenAPI description. */
  description?: string;
  /** Descriptions or schemas of path parameters, by name (merged over `{in: path, required, schema: string}`). */
  params?: Record<string, Json>;
  /** Query and header parameters: OpenAPI Parameter objects or `$ref`s (after the ones of `query`). */
  parameters?: Json[];
  /** Query parameters as one JSON Schema object (`properties`, `required`): one parameter per property. */
  query?: { properties: Record<string, Json>; required?: readonly string[] };
  /** Responses by status: OpenAPI Response objects or `$ref`s. */
  responses?: Record<string, Json>;
  /** Shared error responses of the gateway's components by status (400, 403, 404, 405, 413, 429, 503). */
  errors?: readonly number[];
}

/** One route. */
export interface RouteDecl extends RouteDoc {
  method: RouteMethod;
  /** Spec-form path: `/api/records/{id}/draft/files/{key+}`. */
  path: string;
  summary: string;
  /** Explicit koa pattern when the spec form cannot express it (`/api/:type(affiliations|funders)`). */
  koa?: string;
  /**
   * One path parameter restricted to fixed values: one koa pattern (`:param(a|b)`, unless `koa`
   * says otherwise), one gateway route and one documented operation per value (`per` varies its doc).
   */
  values?: { param: string; of: readonly string[]; per?: (value: string) => RouteDoc };
  /** OpenAPI operationId (default: the route's key; `<key>_<value>` per value). */
  operationId?: string;
  /** OpenAPI tags (default: the service's name). */
  tags?: string[];
  /** `user`: documents bearer / access-token security (the service still checks). */
  auth?: 'public' | 'user';
  /** Raw OpenAPI security requirements (wins over `auth`). */
  security?: Json[];
  /** Served by the service but never routed by the gateway (e.g. internal endpoints). */
  internal?: true;
  /** Served and routed, but left out of the OpenAPI fragment (documented by another declaration). */
  undocumented?: true;
  /**
   * Served and documented, but routed by the gateway through another declaration's pattern (a
   * literal path under `{param}`): no gateway route of its own. The pattern must be declared.
   */
  routedAs?: string;
  /** Raw-byte upload: no body limit at the gateway, no response-headers timeout. */
  upload?: true;
  /** GET is a search (`q`, `page`, `size`, `sort`): the gateway documents the list parameters. */
  list?: true;
  /**
   * GET only: also document a HEAD operation (koa-router answers HEAD with the GET handler; the
   * gateway routes HEAD wherever it routes GET), its doc given here over the GET's.
   */
  head?: RouteDoc & { operationId?: string };
  /** Request body: `octet-stream` (raw bytes) or a JSON Schema of a required JSON body, or a full OpenAPI RequestBody (`content` present). */
  body?: 'octet-stream' | Json;
}

/** A service's routes by operation name, in registration order. */
export type RouteTable = Readonly<Record<string, RouteDecl>>;

/** The path parameters of a spec-form path, by name: `'/a/{id}/b/{key+}'` → `{id: string; key: string}`. */
export type PathParams<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? { [K in N extends `${infer M}+` ? M : N]: string } & PathParams<Rest>
  : Record<never, never>;

/** Context of a route handler (`params`: the route's path parameters, typed when its path is a literal). */
export type RouteContext<P = Record<string, string>> = Context & { state: AppState; params: P };

/** A route's handler: koa middleware (or a chain of them, the last one answering). */
export type RouteHandler<P = Record<string, string>> =
  | ((ctx: RouteContext<P>, next: () => Promise<unknown>) => unknown)
  | Middleware<AppState>[];

/** One handler per declared route, no more, no less; each sees its own path parameters. */
export type RouteHandlers<T extends RouteTable> = { [K in keyof T]: RouteHandler<PathParams<T[K]['path']>> };

/** A service's whole HTTP surface: its tables (one per resource file) and its OpenAPI components. */
export interface ServiceApi {
  /** Owning service (the gateway's `ServiceName`). */
  service: string;
  tables: readonly RouteTable[];
  /** Components of the fragment (`schemas`, `responses`, …); shared ones are the gateway's. */
  components?: Record<string, Json>;
}

/** Declare a route table (typed identity: keeps the keys for `RouteHandlers`). */
export const defineRoutes = <const T extends RouteTable>(table: T): T => table;

/** Declare a service's HTTP surface. */
export const defineApi = (api: ServiceApi): ServiceApi => api;

/**
 * A route declared from an OpenAPI Operation object and its path item's parameters (the form of a
 * hand-written fragment moved into a table): `requestBody` becomes `body`, path parameters `params`
 * (an operation's own path parameter wins over the path item's), the others `parameters`. Fields
 * a declaration cannot say are refused (thrown at import), so nothing is dropped silently.
 */
export function operationRoute(
  method: RouteMethod,
  path: string,
  op: Json,
  pathParameters: readonly Json[] = [],
  extra: Partial<RouteDecl> = {},
): RouteDecl {
  const { operationId, summary, description, tags, security, parameters = [], requestBody, responses, ...rest } = op;
  if (Object.keys(rest).length > 0)
    throw new Error(`${method} ${path}: operation fields a route cannot declare: ${Object.keys(rest).join(', ')}`);
  const params: Record<string, Json> = {};
  const others: Json[] = [];
  for (const p of [...pathParameters, ...(parameters as Json[])]) {
    if (p.in !== 'path') {
      others.push(p);
      continue;
    }
    const { name, in: _in, required: _required, ...doc } = p;
    params[String(name)] = doc;
  }
  return {
    method,
    path,
    summary: String(summary),
    ...(operationId !== undefined ? { operationId: String(operationId) } : {}),
    ...(description !== undefined ? { description: String(description) } : {}),
    ...(tags !== undefined ? { tags: tags as string[] } : {}),
    ...(security !== undefined ? { security: security as Json[] } : {}),
    ...(Object.keys(params).length > 0 ? { params } : {}),
    ...(others.length > 0 ? { parameters: others } : {}),
    ...(requestBody !== undefined ? { body: requestBody as Json } : {}),
    ...(responses !== undefined ? { responses: responses as Record<string, Json> } : {}),
    ...extra,
  };
}

/** One route of the gateway's table, as `gatewayRoutesOf` gives it. */
export interface GatewayRoute {
  pattern: string;
  methods: RouteMethod[];
  service: string;
  upload?: boolean;
  list?: boolean;
  summary?: string;
}

const METHOD_ORDER: RouteMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const paramNames = (path: string): string[] => [...path.matchAll(/\{([^}+]+)\+?\}/g)].map((m) => m[1]);

/** Spec-form path → koa pattern: `{id}` → `:id`, `{key+}` → `:key(.+)`. */
export function koaPattern(path: string): string {
  return path.replace(/\{([^}+]+)\+\}/g, ':$1(.+)').replace(/\{([^}]+)\}/g, ':$1');
}

/** The koa pattern a declaration is registered under. */
function koaPathOf(decl: RouteDecl): string {
  if (decl.koa) return decl.koa;
  const base = koaPattern(decl.path);
  if (!decl.values) return base;
  const { param, of } = decl.values;
  return base.replace(new RegExp(`:${param}(?![\\w(])`), `:${param}(${of.join('|')})`);
}

/** Each concrete (path, doc) of a declaration: one, or one per fixed value. */
function expand(key: string, decl: RouteDecl): { key: string; path: string; decl: RouteDecl }[] {
  if (!decl.values) return [{ key, path: decl.path, decl }];
  const { param, of, per } = decl.values;
  return of.map((v) => ({
    key: `${key}_${v}`,
    path: decl.path.replace(`{${param}}`, v),
    decl: { ...decl, ...(per?.(v) ?? {}) },
  }));
}

/**
 * Register every route of `table` on `router` (a new one by default) in declaration order, each
 * with its handler. Router-wide middleware (`router.use`) goes on the router before this call.
 */
export function bindRoutes<T extends RouteTable>(table: T, handlers: RouteHandlers<T>, router = new Router<AppState>()): Router<AppState> {
  for (const [key, decl] of Object.entries(table)) {
    const handler = handlers[key as keyof T];
    if (!handler) throw new Error(`route ${key} has no handler`);
    const chain = (Array.isArray(handler) ? handler : [handler]) as Middleware<AppState>[];
    router.register(koaPathOf(decl), [decl.method], chain, { name: key });
  }
  return router;
}

const ERROR_RESPONSES: Record<number, string> = {
  400: 'BadRequest',
  403: 'PermissionDenied',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  413: 'PayloadTooLarge',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
};

const OCTET = { type: 'string', contentMediaType: 'application/octet-stream' };

function requestBody(body: RouteDecl['body']): Json | undefined {
  if (body === undefined) return undefined;
  if (body === 'octet-stream') return { required: true, content: { 'application/octet-stream': { schema: OCTET } } };
  if ('content' in body) return body;
  return { required: true, content: { 'application/json': { schema: body } } };
}

function operation(key: string, path: string, decl: RouteDecl, service: string): Json {
  const params: Json[] = paramNames(path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    ...(decl.params?.[name] ?? {}),
  }));
  for (const [name, schema] of Object.entries(decl.query?.properties ?? {})) {
    const { description, ...rest } = schema as Json & { description?: string };
    params.push({
      name,
      in: 'query',
      ...(decl.query?.required?.includes(name) ? { required: true } : {}),
      schema: rest,
      ...(description ? { description } : {}),
    });
  }
  params.push(...(decl.parameters ?? []));
  const responses: Json = { ...(decl.responses ?? {}) };
  for (const status of decl.errors ?? []) {
    const name = ERROR_RESPONSES[status];
    if (!name) throw new Error(`${key}: no shared error response for ${status}`);
    responses[String(status)] ??= ref('responses', name);
  }
  const security = decl.security ?? (decl.auth === 'user' ? AUTHENTICATED : undefined);
  const body = requestBody(decl.body);
  return {
    operationId: decl.operationId ?? key,
    summary: decl.summary,
    ...(decl.description ? { description: decl.description } : {}),
    tags: decl.tags ?? [service],
    ...(security ? { security } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/** `{key+}` → `{key}`: OpenAPI has no multi-segment parameters. */
const openApiPath = (path: string): string => path.replace(/\{([^}]+?)\+\}/g, '{$1}');

/** The service's OpenAPI 3.1 fragment (what `GET /openapi.json` serves and the gateway merges). */
export function openapiFromRoutes(api: ServiceApi): Json {
  const paths: Record<string, Json> = {};
  for (const table of api.tables) {
    for (const [name, d] of Object.entries(table)) {
      if (d.internal || d.undocumented) continue;
      for (const { key, path, decl } of expand(name, d)) {
        const p = openApiPath(path);
        paths[p] ??= {};
        const m = decl.method.toLowerCase();
        if (paths[p][m]) throw new Error(`${api.service}: ${decl.method} ${p} is documented twice (${key})`);
        paths[p][m] = operation(decl.values ? key : (decl.operationId ?? key), p, decl, api.service);
        if (decl.head) {
          if (decl.method !== 'GET') throw new Error(`${api.service}: ${key} documents HEAD but is not a GET`);
          const { operationId, ...doc } = decl.head;
          paths[p].head = operation(operationId ?? `${key}Head`, p, { ...decl, ...doc }, api.service);
        }
      }
    }
  }
  return { openapi: '3.1.0', info: { title: api.service, version: '1.0.0' }, paths, components: api.components ?? {} };
}

/** The internal `GET /openapi.json` route serving the fragment (serialised once, on first call). */
export function openapiRouter(api: ServiceApi): Router<AppState> {
  const router = new Router<AppState>();
  let body: string | undefined;
  router.get('/openapi.json', (ctx) => {
    body ??= JSON.stringify(openapiFromRoutes(api));
    ctx.type = 'application/json';
    ctx.body = body;
  });
  return router;
}

/**
 * The gateway's routes of a service: one per spec-form pattern (fixed values expanded), its
 * methods the union of the declarations', `upload`/`list` when any declaration says so, the
 * summary of the first declaration. Internal routes, and routes `routedAs` another pattern, are left out.
 */
export function gatewayRoutesOf(api: ServiceApi): GatewayRoute[] {
  const byPattern = new Map<string, GatewayRoute>();
  const routedAs: [string, string][] = [];
  for (const table of api.tables) {
    for (const [name, d] of Object.entries(table)) {
      if (d.internal) continue;
      if (d.routedAs) {
        routedAs.push([name, d.routedAs]);
        continue;
      }
      for (const { path, decl } of expand(name, d)) {
        let r = byPattern.get(path);
        if (!r) {
          r = { pattern: path, methods: [], service: api.service, summary: decl.summary };
          byPattern.set(path, r);
        }
        if (!r.methods.includes(decl.method)) r.methods.push(decl.method);
        if (decl.upload) r.upload = true;
        if (decl.list) r.list = true;
      }
    }
  }
  for (const [name, pattern] of routedAs)
    if (!byPattern.has(pattern)) throw new Error(`${api.service}: ${name} is routed as ${pattern}, which no route declares`);
  for (const r of byPattern.values()) r.methods.sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
  return [...byPattern.values()];
}
