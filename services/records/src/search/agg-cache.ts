/**
 * A small stale-while-revalidate cache of facet counts, for the part of a search scope that
 * every caller of a kind shares (public records; see `Scope.shareable`). With 100,000 records a
 * broad query (no `q`, a common word) aggregates most of the table; OpenSearch answers those
 * from per-refresh caches too. Hits and totals are never cached: a writer's next search sees its
 * write at once; only facet counts may lag a write by about `freshMs` (like the search engine's
 * 1 s refresh interval).
 *
 * When to use: one instance per app (`RecordSearchService`), `get(key, compute)` per search.
 * - Younger than `freshMs`: served. Between `freshMs` and `staleMs`: served, and recomputed once
 *   in the background. Older, or absent: computed while the caller waits.
 * - Concurrent misses of one key share one computation; at most `maxEntries` keys (oldest
 *   evicted). `freshMs: 0` disables caching.
 */

/** Tuning of the cache. */
export interface AggCacheOptions {
  /** Age up to which an entry is served as is (ms). Default 1000; 0 disables the cache. */
  freshMs?: number;
  /** Age up to which a stale entry is served while it is recomputed (ms). Default 15000. */
  staleMs?: number;
  /** Most keys kept. Default 500. */
  maxEntries?: number;
  /** Clock (tests). */
  now?: () => number;
}

interface Entry<T> {
  value?: T;
  at: number;
  pending?: Promise<T>;
}

/** Stale-while-revalidate cache with single-flight computation. */
export class AggCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly fresh: number;
  private readonly stale: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(o: AggCacheOptions = {}) {
    this.fresh = o.freshMs ?? 1000;
    this.stale = Math.max(o.staleMs ?? 15_000, this.fresh);
    this.max = o.maxEntries ?? 500;
    this.now = o.now ?? Date.now;
  }

  /** The cached value of `key`, computing it with `compute` when missing, expired or stale. */
  async get(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.fresh <= 0) return compute();
    const now = this.now();
    const e = this.entries.get(key);
    if (e?.value !== undefined) {
      const age = now - e.at;
      if (age <= this.fresh) return e.value;
      if (age <= this.stale) {
        if (!e.pending) this.refresh(key, e, compute).catch(() => undefined);
        return e.value;
      }
    }
    if (e?.pending) return e.pending;
    return this.refresh(key, e ?? this.create(key), compute);
  }

  /** Number of keys held. */
  get size(): number {
    return this.entries.size;
  }

  private create(key: string): Entry<T> {
    const e: Entry<T> = { at: 0 };
    this.entries.set(key, e);
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return e;
  }

  private refresh(key: string, e: Entry<T>, compute: () => Promise<T>): Promise<T> {
    const started = this.now();
    const p = compute().then(
      (value) => {
        e.value = value;
        e.at = started;
        e.pending = undefined;
        // Re-insert: most recently computed keys are evicted last.
        this.entries.delete(key);
        this.entries.set(key, e);
        return value;
      },
      (err: unknown) => {
        e.pending = undefined;
        if (e.value === undefined) this.entries.delete(key);
        throw err;
      },
    );
    e.pending = p;
    return p;
  }
}
