/**
 * How the pages read data: the public HTTP API of the owning services (records, files,
 * communities), called at their internal URLs **as the visitor**. The gateway already verified
 * the visitor (token, rate limit) and forwarded a signed identity; the web service signs that same
 * identity again for each API call it makes (bound to that call's method, target and request id,
 * as the gateway does), so every service applies its own permission checks exactly as for an API
 * client: an anonymous visitor sees what an anonymous API call sees, a secret link's `?token=`
 * is passed on in the query and opens what it opens through the API.
 *
 * Why not through the gateway's URL: the gateway never forwards credentials (`Authorization`,
 * `Cookie`) to a service, so the web service could not call it as the visitor; and every page
 * view would count several times against the visitor's rate limit under the web service's address.
 *
 * How: `undici.request` over one keep-alive connection pool per process (`apiAgent`), not the
 * global `fetch` (2–3× its CPU per call, measured; the cached landing page is mostly this call).
 *
 * When to use: every page handler; never read a database or import a service.
 */
import { Errors, type Identity, signIdentity } from '@rdm/platform';
import { Agent, request } from 'undici';

/** Where each service's API lives (internal base URLs, no trailing slash). */
export interface ApiUpstreams {
  records: string;
  files: string;
  communities: string;
}

/** The answer headers of an API call (lower-case names). */
export interface AnswerHeaders {
  get(name: string): string | null;
}

/** One API answer. */
export interface ApiAnswer<T = any> {
  status: number;
  headers: AnswerHeaders;
  /** Parsed JSON (undefined when the body is not JSON). */
  body: T;
  text: string;
}

/** Options of one call. */
export interface ApiCall {
  /** `Accept` header (default `application/json`). */
  accept?: string;
  /** `If-None-Match`: the ETag of a copy held (a conditional read: 304 when unchanged). */
  ifNoneMatch?: string;
}

/** Keep-alive connections kept per upstream origin. */
export const API_CONNECTIONS = 64;

let agent: Agent | undefined;

/** The process's connection pool to the services read (keep-alive, `API_CONNECTIONS` per origin). */
export function apiAgent(): Agent {
  agent ??= new Agent({ connections: API_CONNECTIONS, keepAliveTimeout: 4_000, pipelining: 1 });
  return agent;
}

function headersOf(raw: Record<string, string | string[] | undefined>): AnswerHeaders {
  return {
    get(name) {
      const v = raw[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
  };
}

/** A client of the public API bound to one visitor's request. */
export class ApiClient {
  constructor(
    private readonly upstreams: ApiUpstreams,
    private readonly secret: string,
    private readonly identity: Identity,
    private readonly requestId: string,
    private readonly timeoutMs: number,
    /** The visitor's `User-Agent`, passed on so records' statistics tell robots from people as for an API call. */
    private readonly userAgent?: string,
  ) {}

  /** GET `path` (with its query) from `service`, as the visitor. Unreachable service → 503 AppError. */
  async get<T = any>(service: keyof ApiUpstreams, path: string, o: ApiCall = {}): Promise<ApiAnswer<T>> {
    const { sub, roles, clientIp } = this.identity;
    const identity: Identity = clientIp ? { sub, roles, clientIp } : { sub, roles };
    const header = signIdentity(identity, this.secret, { method: 'GET', target: path, requestId: this.requestId });
    const headers: Record<string, string> = {
      accept: o.accept ?? 'application/json',
      'x-rdm-identity': header,
      'x-request-id': this.requestId,
    };
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    if (o.ifNoneMatch) headers['if-none-match'] = o.ifNoneMatch;
    let status: number;
    let raw: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const res = await request(`${this.upstreams[service]}${path}`, {
        method: 'GET',
        headers,
        dispatcher: apiAgent(),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      status = res.statusCode;
      raw = res.headers;
      text = await res.body.text();
    } catch {
      throw Errors.serviceUnavailable();
    }
    let body: any;
    if (/json/.test(String(raw['content-type'] ?? ''))) {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    return { status, headers: headersOf(raw), body: body as T, text };
  }
}

/** Build a query string (`?a=1&b=2`, empty when nothing is set) from defined values. */
export function queryOf(params: Record<string, string | number | undefined | readonly string[]>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') continue;
    if (Array.isArray(v)) for (const one of v) q.append(k, one);
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
