/**
 * CORS at the edge: services never see preflights. With CORS_ORIGINS `*` (the default) any
 * origin may read responses, without credentials; with a list, only those origins are echoed
 * (and `Vary: Origin` is sent), optionally with credentials.
 */
import type { Context, Middleware, Next } from 'koa';

/** Options of corsMiddleware. */
export interface CorsOptions {
  /** `*` or exact origins. */
  origins: '*' | string[];
  /** Send `Access-Control-Allow-Credentials: true` (only honoured with an origin list). */
  credentials: boolean;
  maxAgeSeconds: number;
}

/** Parse CORS_ORIGINS (`*` or a comma-separated list). */
export function parseOrigins(value: string): '*' | string[] {
  const list = value
    .split(',')
    .map((s) => s.trim().replace(/\/$/, ''))
    .filter(Boolean);
  return list.length === 0 || list.includes('*') ? '*' : list;
}

/** Methods a browser may use. */
export const CORS_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
/** Request headers allowed when the preflight names none. */
export const CORS_DEFAULT_HEADERS = 'Authorization, Content-Type, If-Match, Accept, X-Request-Id';
/** Response headers a browser script may read. */
export const CORS_EXPOSE_HEADERS =
  'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id, ETag, Link, Location, Content-Disposition, Content-Length';

/**
 * The CORS headers of an actual (not preflight) request, as a flat `[name, value, …]` list
 * computed once per allowed origin: `origin` → the headers to add (empty without an Origin).
 * The same answer as corsMiddleware gives, for the gateway's lean path (edge.ts).
 */
export function corsHeaders(opts: CorsOptions): (origin: string | undefined) => readonly string[] {
  const none: readonly string[] = Object.freeze([]);
  if (opts.origins === '*') {
    const all = Object.freeze(['Access-Control-Allow-Origin', '*', 'Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS]);
    return (origin) => (origin ? all : none);
  }
  const refused = Object.freeze(['Vary', 'Origin']);
  const byOrigin = new Map<string, readonly string[]>();
  for (const o of opts.origins) {
    const h = ['Vary', 'Origin', 'Access-Control-Allow-Origin', o];
    if (opts.credentials) h.push('Access-Control-Allow-Credentials', 'true');
    h.push('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    byOrigin.set(o, Object.freeze(h));
  }
  return (origin) => (origin ? (byOrigin.get(origin) ?? refused) : none);
}

/** The CORS middleware; answers preflights (OPTIONS with Access-Control-Request-Method) itself. */
export function corsMiddleware(opts: CorsOptions): Middleware {
  const any = opts.origins === '*';
  const allowed = new Set(any ? [] : (opts.origins as string[]));
  const credentials = opts.credentials && !any;
  const maxAge = String(opts.maxAgeSeconds);
  return async (ctx: Context, next: Next) => {
    const origin = ctx.get('origin');
    if (!origin) return next();
    if (!any) ctx.vary('Origin');
    const ok = any || allowed.has(origin);
    const preflight = ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '';
    if (ok) {
      ctx.set('Access-Control-Allow-Origin', any ? '*' : origin);
      if (credentials) ctx.set('Access-Control-Allow-Credentials', 'true');
    }
    if (preflight) {
      if (ok) {
        ctx.set('Access-Control-Allow-Methods', CORS_METHODS);
        ctx.set('Access-Control-Allow-Headers', ctx.get('access-control-request-headers') || CORS_DEFAULT_HEADERS);
        ctx.set('Access-Control-Max-Age', maxAge);
        if (!any) ctx.vary('Access-Control-Request-Headers');
      }
      ctx.status = 204;
      return;
    }
    if (ok) ctx.set('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    return next();
  };
}
