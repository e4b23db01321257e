/**
 * Rendered record pages for anonymous visitors, keyed by record id and revision (the API's
 * `ETag`): a page is reused only while the record still answers the same ETag and for at most
 * `ttlMs` (versions, files and communities of a record change without bumping its revision), in a
 * bounded LRU. Never for a signed-in visitor or one with a secret link: what they see depends on
 * who they are.
 *
 * A page is kept as bytes, plain and gzip-compressed once (served as they are to a client
 * accepting gzip), with an ETag of its own (a digest of the HTML) for browsers' conditional
 * requests (`If-None-Match` → 304).
 *
 * When to use: the record page handler: `peek` before reading the record (its revision is then
 * checked with a conditional read), `get` after a full read, `set` after rendering.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';

/** One cached page. */
export interface CachedPage {
  /** The record's ETag (revision) it was rendered at. */
  etag: string;
  /** The page, UTF-8. */
  html: Buffer;
  /** The page, gzip-compressed. */
  gzip: Buffer;
  /** The page's own ETag (browsers). */
  pageEtag: string;
  /** The signposting `Link` header sent with it. */
  link?: string;
}

/** A page as the cache keeps it: its bytes, compressed once, and its ETag. */
export function cachedPage(etag: string, html: string, link?: string): CachedPage {
  const bytes = Buffer.from(html, 'utf8');
  const pageEtag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { etag, html: bytes, gzip: gzipSync(bytes, { level: 6 }), pageEtag, ...(link ? { link } : {}) };
}

/** The bounded cache of rendered pages. */
export class PageCache {
  private readonly lru: LRUCache<string, CachedPage> | undefined;

  constructor(max: number, ttlMs: number) {
    this.lru = max > 0 && ttlMs > 0 ? new LRUCache<string, CachedPage>({ max, ttl: ttlMs }) : undefined;
  }

  /** The page of `id` at whatever revision it was rendered (to be checked against the record's ETag), if still cached. */
  peek(id: string): CachedPage | undefined {
    return this.lru?.get(id);
  }

  /** The page of `id` rendered at revision `etag`, if still cached. */
  get(id: string, etag: string): CachedPage | undefined {
    const hit = this.lru?.get(id);
    return hit && hit.etag === etag ? hit : undefined;
  }

  /** Keep a page rendered at revision `page.etag`. */
  set(id: string, page: CachedPage): void {
    this.lru?.set(id, page);
  }

  /** Pages held. */
  get size(): number {
    return this.lru?.size ?? 0;
  }
}
