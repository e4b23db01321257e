/**
 * Conditional requests, one implementation for every service: `ETag` + `If-None-Match` (304 on
 * reads) and `If-Match` (InvenioRDM's bare revision id, 412 on a stale write).
 *
 * When to use: a read route that sets an `ETag` calls `notModified(ctx, etag)` and returns when it
 * answers true; a write route passes `ifMatch(ctx)` to its service, which calls
 * `checkRevision(ifMatch, row.revision_id)` on the row it locked.
 */
import type { Context } from 'koa';
import { Errors } from './errors.js';

/** Does an `If-None-Match` header match `etag`? Weak comparison (RFC 9110 §13.1.2): `W/` ignored, lists and `*` accepted. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const want = etag.replace(/^W\//, '');
  return header.split(',').some((raw) => {
    const t = raw.trim();
    return t === '*' || t.replace(/^W\//, '') === want;
  });
}

/**
 * Set `ETag` and, when the request's `If-None-Match` matches it, answer 304 with no body.
 * True when the route must stop there (the 304 is set).
 */
export function notModified(ctx: Context, etag: string): boolean {
  ctx.set('ETag', etag);
  if (!etagMatches(ctx.get('if-none-match') || undefined, etag)) return false;
  ctx.status = 304;
  return true;
}

/** Parse an `If-Match` header as InvenioRDM does (bare integer, quotes and `W/` tolerated); undefined when absent, 400 when not a revision. */
export function ifMatch(ctx: Context): number | undefined {
  const raw = ctx.get('if-match') || ctx.get('if_match');
  if (!raw) return undefined;
  const cleaned = raw
    .trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1');
  if (!/^\d+$/.test(cleaned)) throw Errors.badRequest('Invalid If-Match header.', undefined, 'invalid_if_match');
  return Number(cleaned);
}

/** 412 `Revision id provided(…) doesn't match …` when an `If-Match` revision was given and differs from `current`. */
export function checkRevision(expected: number | undefined, current: number): void {
  if (expected !== undefined && expected !== current) throw Errors.revisionMismatch(expected, current);
}
