/**
 * Rendered record pages for anonymous visitors, keyed by record id and revision (the API's
 * `ETag`): a page is reused only while the record still answers the same ETag and for at most
 * `ttlMs` (versions, files and communities of a record change without bumping its revision), in a
 * bounded LRU. Never for a signed-in visitor or one with a secret link: what they see depends on
 * who they are.
 *
 * When to use: the record page handler, after reading the record (`get`), and after rendering (`set`).
 */
import { LRUCache } from 'lru-cache';

/** One cached page. */
export interface CachedPage {
  etag: string;
  html: string;
  /** The signposting `Link` header sent with it. */
  link?: string;
}

/** The bounded cache of rendered pages. */
export class PageCache {
  private readonly lru: LRUCache<string, CachedPage> | undefined;

  constructor(max: number, ttlMs: number) {
    this.lru = max > 0 && ttlMs > 0 ? new LRUCache<string, CachedPage>({ max, ttl: ttlMs }) : undefined;
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
