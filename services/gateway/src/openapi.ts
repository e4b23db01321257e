/**
 * `/api/openapi.json`: one OpenAPI 3.1 document for the whole API.
 *
 * The gateway's base document lists every route of the routing table (methods, path parameters,
 * list parameters, the error body, bearer security). Each service MAY serve its own fragment at
 * `GET /openapi.json` (internal; never routed publicly); the gateway fetches the fragments at
 * start-up — retrying with back-off while a service is down, serving what it has meanwhile — and
 * merges them: a fragment's operations replace the base ones of the paths its service owns, its
 * components are added (the first definition of a name wins). Paths a service documents but the
 * routing table does not route are left out: they are not public.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '@rdm/platform';
import type { RouteSpec, ServiceName } from './routes.js';

/** A JSON object. */
export type Json = Record<string, unknown>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const COMPONENT_SECTIONS = [
  'schemas',
  'responses',
  'parameters',
  'examples',
  'requestBodies',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
];

/** The path of the document itself. */
export const OPENAPI_PATH = '/api/openapi.json';

/** `{key+}` → `{key}`: OpenAPI has no multi-segment parameters. */
export const toOpenApiPath = (pattern: string): string => pattern.replace(/\{([^}]+?)\+\}/g, '{$1}');

/** Path with parameter names erased, so `/a/{id}` and `/a/{x}` compare equal (OpenAPI treats them as the same path). */
export const pathShape = (path: string): string => path.replace(/\{[^}]*\}/g, '{}');

const paramNames = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

const errorResponse = (description: string, headers?: Json): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const rateHeaders: Json = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

function operationId(method: string, path: string): string {
  const body = path
    .replace(/^\/api\/?/, '')
    .replace(/\{([^}]+)\}/g, 'by_$1')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return `${method}_${body || 'root'}`;
}

function successStatus(method: string): string {
  if (method === 'post') return '2XX';
  if (method === 'delete') return '204';
  return '200';
}

function operation(route: RouteSpec, method: string, path: string): Json {
  const op: Json = {
    operationId: operationId(method, path),
    tags: [route.service],
    summary: route.summary ?? `${method.toUpperCase()} ${path}`,
  };
  if (method === 'get' && route.list) {
    op.parameters = [
      { $ref: '#/components/parameters/q' },
      { $ref: '#/components/parameters/page' },
      { $ref: '#/components/parameters/size' },
      { $ref: '#/components/parameters/sort' },
    ];
  }
  if (method === 'post' || method === 'put' || method === 'patch') {
    op.requestBody =
      route.upload && method === 'put'
        ? {
            required: true,
            content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
          }
        : { required: false, content: { 'application/json': { schema: {} } } };
  }
  const ok = successStatus(method);
  const responses: Json = {
    [ok]:
      ok === '204'
        ? { description: 'Done.', headers: rateHeaders }
        : { description: 'Success.', headers: rateHeaders, content: { 'application/json': { schema: {} } } },
    '400': { $ref: '#/components/responses/BadRequest' },
    '403': { $ref: '#/components/responses/PermissionDenied' },
    '404': { $ref: '#/components/responses/NotFound' },
    '405': { $ref: '#/components/responses/MethodNotAllowed' },
    '429': { $ref: '#/components/responses/TooManyRequests' },
    '503': { $ref: '#/components/responses/ServiceUnavailable' },
  };
  if (method !== 'get' && method !== 'delete') responses['413'] = { $ref: '#/components/responses/PayloadTooLarge' };
  if (method === 'get' && route.upload) {
    responses['200'] = {
      description: 'The content.',
      headers: rateHeaders,
      content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
    };
  }
  op.responses = responses;
  return op;
}

/** Options of buildBaseDocument. */
export interface BaseDocumentOptions {
  /** Public base URL (`PUBLIC_BASE_URL`). */
  serverUrl: string;
  version?: string;
}

/** The gateway's own document: every API route of the table, plus shared components. */
export function buildBaseDocument(routes: readonly RouteSpec[], opts: BaseDocumentOptions): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    // Why: the web service's pages are HTML for people and crawlers, not API operations.
    if (route.service === 'web') continue;
    const path = toOpenApiPath(route.pattern);
    const greedy = new Set([...route.pattern.matchAll(/\{([^}]+?)\+\}/g)].map((m) => m[1]));
    paths[path] ??= {
      'x-service': route.service,
      parameters: paramNames(path).map((name) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
        ...(greedy.has(name) ? { description: 'May contain `/` (sent unescaped).' } : {}),
      })),
    };
    const item = paths[path];
    for (const m of route.methods) item[m.toLowerCase()] = operation(route, m.toLowerCase(), path);
  }
  paths[OPENAPI_PATH] = {
    'x-service': 'gateway',
    get: {
      operationId: 'get_openapi_json',
      tags: ['gateway'],
      summary: 'This document',
      security: [{}],
      responses: { '200': { description: 'The OpenAPI document.', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };
  const services = [...new Set(routes.filter((r) => r.service !== 'web').map((r) => r.service))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Research data repository API',
      version: opts.version ?? '1.0.0',
      description:
        'InvenioRDM-compatible REST API: records, files, requests, communities, vocabularies and users. ' +
        'Errors are `{status, message, errors?}`. Every response carries `X-RateLimit-*` headers.',
    },
    servers: [{ url: opts.serverUrl }],
    security: [{}, { bearerAuth: [] }, { accessToken: [] }],
    tags: [
      ...services.map((name) => ({ name, description: `Served by the ${name} service.` })),
      { name: 'gateway', description: 'Served by the gateway.' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Personal access token: `Authorization: Bearer <token>`.' },
        accessToken: { type: 'apiKey', in: 'query', name: 'access_token', description: 'Personal access token as a query parameter.' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['status', 'message'],
          properties: {
            status: { type: 'integer' },
            message: { type: 'string' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                required: ['field', 'messages'],
                properties: { field: { type: 'string' }, messages: { type: 'array', items: { type: 'string' } } },
              },
            },
          },
        },
      },
      parameters: {
        q: {
          name: 'q',
          in: 'query',
          required: false,
          schema: { type: 'string' },
          description: 'Search query (terms, "phrases", field:value, AND/OR/NOT).',
        },
        page: { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } },
        size: { name: 'size', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 25 } },
        sort: { name: 'sort', in: 'query', required: false, schema: { type: 'string' } },
      },
      headers: {
        'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests allowed per window.' },
        'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left right now.' },
        'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix time (s) at which the allowance is full again.' },
        'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' },
      },
      responses: {
        BadRequest: errorResponse('Invalid input.'),
        PermissionDenied: errorResponse('Permission denied (anonymous callers included).'),
        NotFound: errorResponse('Not found.'),
        MethodNotAllowed: errorResponse('The method is not allowed for the requested URL.', { Allow: { schema: { type: 'string' } } }),
        PayloadTooLarge: errorResponse('Request body over the limit.'),
        TooManyRequests: errorResponse('Rate limit exceeded.', {
          ...rateHeaders,
          'Retry-After': { $ref: '#/components/headers/Retry-After' },
        }),
        ServiceUnavailable: errorResponse('The owning service cannot be reached.'),
      },
    },
  };
}

/** One service's fragment. */
export interface Fragment {
  service: ServiceName;
  doc: Json;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Merge service fragments into a copy of `base`. Returns the document and notes about what was
 * skipped (for the log).
 */
export function mergeFragments(base: Json, fragments: Fragment[]): { doc: Json; notes: string[] } {
  const doc = structuredClone(base) as Json & { paths: Record<string, Json>; components: Record<string, Json>; tags: Json[] };
  const notes: string[] = [];
  const byShape = new Map<string, string>();
  for (const p of Object.keys(doc.paths)) byShape.set(pathShape(p), p);

  for (const { service, doc: frag } of fragments) {
    if (!isObject(frag) || !isObject(frag.paths)) {
      notes.push(`${service}: fragment has no paths`);
      continue;
    }
    for (const [fragPath, fragItem] of Object.entries(frag.paths)) {
      if (!isObject(fragItem)) continue;
      const baseKey = byShape.get(pathShape(fragPath));
      if (!baseKey) {
        notes.push(`${service}: ${fragPath} is not a public route; skipped`);
        continue;
      }
      const baseItem = doc.paths[baseKey];
      if (baseItem['x-service'] !== service) {
        notes.push(`${service}: ${fragPath} belongs to ${String(baseItem['x-service'])}; skipped`);
        continue;
      }
      const merged: Json = { ...baseItem };
      if (fragPath !== baseKey) {
        // The service names its parameters differently: adopt its names, position by position.
        const names = paramNames(fragPath);
        const baseParams = (baseItem.parameters as Json[]) ?? [];
        merged.parameters = baseParams.map((p, i) => ({ ...p, name: names[i] ?? p.name }));
      }
      for (const m of HTTP_METHODS) {
        const op = fragItem[m];
        if (!isObject(op)) continue;
        merged[m] = { tags: [service], ...op };
      }
      if (typeof fragItem.summary === 'string') merged.summary = fragItem.summary;
      if (typeof fragItem.description === 'string') merged.description = fragItem.description;
      if (fragPath !== baseKey) {
        delete doc.paths[baseKey];
        byShape.set(pathShape(fragPath), fragPath);
      }
      doc.paths[fragPath] = merged;
    }
    if (isObject(frag.components)) {
      for (const section of COMPONENT_SECTIONS) {
        const src = frag.components[section];
        if (!isObject(src)) continue;
        doc.components[section] ??= {};
        const dst = doc.components[section] as Json;
        for (const [name, value] of Object.entries(src)) {
          if (!(name in dst)) dst[name] = value;
          else if (!isDeepStrictEqual(dst[name], value))
            notes.push(`${service}: components.${section}.${name} already defined; kept the first`);
        }
      }
    }
    if (Array.isArray(frag.tags)) {
      const known = new Set(doc.tags.map((t) => t.name));
      for (const t of frag.tags) if (isObject(t) && typeof t.name === 'string' && !known.has(t.name)) doc.tags.push(t);
    }
  }
  return { doc, notes };
}

/** Options of OpenApiAssembler. */
export interface AssemblerOptions {
  base: Json;
  /** Service name → base URL (`http://127.0.0.1:5103`). */
  upstreams: { name: ServiceName; origin: string }[];
  attempts: number;
  logger: Logger;
  /** First retry delay (doubles up to 30 s). */
  initialDelayMs?: number;
  fetchTimeoutMs?: number;
}

/** Fetches service fragments (with retries) and keeps the merged document ready to serve. */
export class OpenApiAssembler {
  private readonly fragments = new Map<ServiceName, Json>();
  private body: string;
  private timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly opts: AssemblerOptions) {
    this.body = JSON.stringify(opts.base);
  }

  /** The current document, serialised. */
  json(): string {
    return this.body;
  }

  /** Services whose fragment is merged. */
  merged(): ServiceName[] {
    return [...this.fragments.keys()];
  }

  /** Start fetching every fragment in the background; resolves after the first round. */
  async start(): Promise<void> {
    this.stopped = false;
    await Promise.all(this.opts.upstreams.map((u) => this.attempt(u, 1)));
  }

  /** Stop retrying. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private async attempt(u: { name: ServiceName; origin: string }, n: number): Promise<void> {
    if (this.stopped || n > this.opts.attempts) return;
    const outcome = await this.fetchFragment(u.origin);
    if (outcome === 'absent') return;
    if (outcome === 'retry') {
      if (n >= this.opts.attempts) {
        this.opts.logger.warn({ service: u.name }, 'openapi fragment unavailable; serving without it');
        return;
      }
      const delay = Math.min(30_000, (this.opts.initialDelayMs ?? 500) * 2 ** (n - 1));
      const t = setTimeout(() => {
        this.timers.delete(t);
        void this.attempt(u, n + 1);
      }, delay);
      t.unref();
      this.timers.add(t);
      return;
    }
    this.fragments.set(u.name, outcome);
    this.rebuild();
  }

  private async fetchFragment(origin: string): Promise<Json | 'absent' | 'retry'> {
    try {
      const res = await fetch(`${origin}/openapi.json`, { signal: AbortSignal.timeout(this.opts.fetchTimeoutMs ?? 2000) });
      if (res.status === 404 || res.status === 405) {
        await res.body?.cancel();
        return 'absent';
      }
      if (!res.ok) {
        await res.body?.cancel();
        return 'retry';
      }
      const body = (await res.json()) as unknown;
      return isObject(body) ? body : 'absent';
    } catch {
      return 'retry';
    }
  }

  private rebuild(): void {
    const fragments = [...this.fragments].map(([service, doc]) => ({ service, doc }));
    const { doc, notes } = mergeFragments(this.opts.base, fragments);
    for (const note of notes) this.opts.logger.debug({ note }, 'openapi merge');
    this.body = JSON.stringify(doc);
    this.opts.logger.info({ services: this.merged() }, 'openapi document rebuilt');
  }
}
