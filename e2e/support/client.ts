/**
 * Black-box HTTP client for e2e specs: talks only to the gateway at E2E_BASE_URL (set by the
 * global setup). Never import services/* from e2e.
 *
 * `overloadRetries(n, fn)`: inside `fn` (and everything it awaits), a 503 — the stack overloaded
 * on a busy machine, never an answer a spec asserts there — is asked again up to `n` times after
 * its `Retry-After` (capped at 5 s). For fixture set-up only: a spec that asserts statuses calls
 * `api` outside it. Streamed bodies are never replayed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const retries = new AsyncLocalStorage<number>();

/** Run `fn` with 503s retried up to `n` times after their Retry-After (fixture set-up only). */
export function overloadRetries<T>(n: number, fn: () => Promise<T>): Promise<T> {
  return retries.run(n, fn);
}

/** Base URL of the gateway under test. */
export function baseUrl(): string {
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error('E2E_BASE_URL is not set (the e2e global setup sets it)');
  return url.replace(/\/$/, '');
}

/** A response with its parsed JSON body (undefined for empty / non-JSON bodies). */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Options of one call. */
export interface CallOptions {
  method?: string;
  token?: string;
  body?: unknown;
  /** Raw body (bytes or a stream); sent as-is with the given content type. */
  raw?: RequestInit['body'];
  headers?: Record<string, string>;
  redirect?: RequestInit['redirect'];
}

/** Call the API through the gateway. `path` starts with `/api/…` (or is an absolute URL). */
export async function api<T = any>(path: string, o: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let body: RequestInit['body'] | undefined;
  if (o.raw !== undefined) {
    body = o.raw;
    headers['content-type'] ??= 'application/octet-stream';
  } else if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const url = path.startsWith('http') ? path : `${baseUrl()}${path}`;
  // Why `duplex`: node's fetch needs it for streamed bodies; the DOM RequestInit type lacks it.
  const init = {
    method: o.method ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    body,
    redirect: o.redirect ?? 'manual',
    duplex: 'half',
  };
  let res = await fetch(url, init as RequestInit);
  const replayable = body === undefined || typeof body === 'string' || body instanceof Uint8Array;
  for (let left = replayable ? (retries.getStore() ?? 0) : 0; res.status === 503 && left > 0; left--) {
    const wait = Math.min(5, Math.max(1, Number(res.headers.get('retry-after')) || 1));
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, wait * 1000));
    res = await fetch(url, init as RequestInit);
  }
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}
