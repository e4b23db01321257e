/**
 * Read-cache hits of `GET /api/records/<id>` answered without koa: the same answer as the full
 * path (status, headers, body with the live stats block), at a fraction of its cost.
 *
 * When it answers: `GET`, path exactly `/api/records/<id>` (no `%`, no query string, so no
 * `?token=` or `?format=`), Accept absent or `application/json`, no `traceparent`, OpenTelemetry
 * off, a valid (or absent) identity header, and a current read-cache entry for this caller
 * (records.routes.ts `cachedRead`). Anything else — a miss, another Accept, a bad signature, an
 * error on the way — goes to koa, which answers it in full (a stamp asked here is not reused:
 * koa asks again).
 *
 * How: a fast path of the platform's app (http.ts `fastPath`), registered by app.ts. What it does
 * for the platform and the app (http.ts, app.ts), in their order: the request id, identity (the
 * platform's steps, request-steps.ts, as koa takes them), the export negotiation's `Vary: Accept`, the cached body and headers, the view event
 * and the stats splice (stats.middleware.ts), the access log line (only when `info` is on) and
 * the request duration histogram under the route `/api/records/:id`. A conditional read
 * (`If-None-Match` naming the record's ETag: the web service's page cache checking a revision)
 * answers 304 without a body, as koa's conditional step (app.ts) does; the view still counts.
 *
 * Why: on a hit the koa context, compose, the platform middlewares, the router's matching over
 * every route and `ctx.accepts` cost more than the hit itself (the gateway's figure (b),
 * scripts/bench/gateway.bench.ts). record-read-lean.test compares both answers header by header.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  clientAddress,
  type FastPath,
  type Identity,
  identityOf,
  type Logger,
  logRequest,
  type NodeHandler,
  observeRequest,
  requestIdOf,
} from '@rdm/platform';
import type { CachedRecordBody } from './record-read-cache.js';
import type { StatsEdge } from './stats.middleware.js';

const PREFIX = '/api/records/';
const ROUTE = '/api/records/:id';

/** What the lean path needs. */
export interface LeanReadParts {
  logger: Logger;
  identitySecret: string;
  cachedRead(id: string, identity: Identity): Promise<CachedRecordBody | undefined>;
  /** Statistics on (`STATS_ENABLED`): the view event and the live block. */
  stats?: StatsEdge;
}

/** The record id of a request the lean path may take, else undefined. */
function leanId(req: IncomingMessage): string | undefined {
  if (req.method !== 'GET') return undefined;
  const url = req.url as string;
  if (!url.startsWith(PREFIX) || url.length === PREFIX.length) return undefined;
  const id = url.slice(PREFIX.length);
  if (id.includes('/') || id.includes('?') || id.includes('%') || id.includes('#')) return undefined;
  const h = req.headers;
  const accept = h.accept;
  if (accept !== undefined && accept !== '' && accept !== 'application/json') return undefined;
  if (h.traceparent !== undefined) return undefined;
  return id;
}

/** True when an `If-None-Match` value names `etag` (weak comparison, `*` included), as koa's `ctx.fresh`. */
export function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (typeof header !== 'string' || header === '') return false;
  if (header.trim() === '*') return true;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  const want = strip(etag);
  return header.split(',').some((t) => strip(t) === want);
}

/** The fast path (`take`, for the platform app's `fastPath`) answering read-cache hits itself; koa answers everything else. */
export class LeanRecordReads {
  /** Requests answered here (not by koa). */
  answered = 0;

  constructor(private readonly p: LeanReadParts) {}

  /** The fast path: takes the requests `leanId` accepts; a miss (or any failure before the answer) goes to `koa`. */
  readonly take: FastPath = (req, res, koa) => {
    const id = leanId(req);
    if (id === undefined) return false;
    this.answer(req, res, id, koa).catch(() => {
      // Nothing written yet (writeHead is the last step that can fail before the answer is out): koa answers in full.
      if (!res.headersSent) koa(req, res);
    });
    return true;
  };

  private async answer(req: IncomingMessage, res: ServerResponse, id: string, koa: NodeHandler): Promise<void> {
    const p = this.p;
    const started = performance.now();
    // The platform's check (identityOf: once per request, so koa's own look is not a replay): a refused header is koa's 401.
    const identity = identityOf(req, p.identitySecret);
    if (typeof identity === 'string') return koa(req, res);
    const hit = await p.cachedRead(id, identity);
    if (hit === undefined) return koa(req, res);
    let body = hit.body;
    const unchanged = etagMatches(req.headers['if-none-match'], hit.etag);
    if (p.stats) {
      const h = req.headers;
      const ua = typeof h['user-agent'] === 'string' ? h['user-agent'] : '';
      p.stats.viewed(id, ua, clientAddress(identity, req));
      if (!unchanged) body = (await p.stats.live(id, body)) ?? body;
    }
    const requestId = requestIdOf(req.headers['x-request-id']);
    if (unchanged) {
      res.writeHead(304, ['X-Request-Id', requestId, 'Vary', 'Accept', 'ETag', hit.etag, 'Link', hit.link]);
      res.end();
      this.answered++;
      return;
    }
    res.writeHead(200, [
      'X-Request-Id',
      requestId,
      'Vary',
      'Accept',
      'ETag',
      hit.etag,
      'Link',
      hit.link,
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Length',
      String(body.length),
    ]);
    res.end(body);
    this.answered++;
    observeRequest('GET', ROUTE, 200, started);
    logRequest(p.logger, requestId, undefined, 'GET', req.url as string, 200, started);
  }
}
