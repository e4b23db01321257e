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
 *
 * With a write stamp (`Stamp`, the table's write stamp read by the search): an entry computed
 * under the caller's stamp while no writer was in flight is exact (nothing committed since was
 * missed) and is served whatever its age. `exact(key, compute, stamp)` serves ONLY such entries
 * (totals and pages, which must reflect every committed write: read-your-writes); `get` applies
 * the time rules above to any other entry (facet counts: they lag a write by at most about
 * `freshMs` plus one recomputation, and a stream of writes costs one aggregation per `freshMs`).
 * Why exact: a write changes the stamp before it commits; an entry is cached as settled only when
 * no transaction held a write lock on the table between reading the stamp and the computation's
 * snapshot, so every write drawn under that stamp was committed and seen.
 */

/** The write stamp of the cached table, as one search read it. */
export interface Stamp {
  /** Changes with every write of the table (before the write commits). */
  value: string;
  /** Whether no writer of the table is in flight: called after `value` was read, before computing. */
  settled: () => Promise<boolean>;
}

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
  /** Stamp the value was computed under, and whether it is exact for it. */
  stamp?: string;
  settled?: boolean;
  /** A computation under `pendingStamp`, and whether it turned out exact. */
  pendingExact?: Promise<{ value: T; settled: boolean }>;
  pendingStamp?: string;
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

  /**
   * The cached value of `key`, computing it with `compute` when missing, expired or stale (with a
   * `stamp`: an exact entry of that stamp is never stale).
   */
  async get(key: string, compute: () => Promise<T>, stamp?: Stamp): Promise<T> {
    if (this.fresh <= 0) return compute();
    const now = this.now();
    const e = this.entries.get(key);
    if (e?.value !== undefined) {
      if (stamp && e.settled && e.stamp === stamp.value) return e.value;
      const age = now - e.at;
      // Another stamp (or not exact): still served as is while fresh, so that a stream of writes
      // costs at most one recomputation per `freshMs`, never one per write.
      if (age <= this.fresh) return e.value;
      if (age <= this.stale) {
        if (!e.pending) this.refresh(key, e, compute, stamp).catch(() => undefined);
        return e.value;
      }
    }
    if (e?.pending) return e.pending;
    return this.refresh(key, e ?? this.create(key), compute, stamp);
  }

  /**
   * The value of `key` exact for `stamp`: cached only when computed under that stamp with no
   * writer in flight; else computed now (concurrent callers of one stamp share a computation that
   * turns out exact). Never a value that could miss a write committed before the call.
   */
  async exact(key: string, compute: () => Promise<T>, stamp: Stamp): Promise<T> {
    if (this.fresh <= 0) return compute();
    const e = this.entries.get(key);
    if (e?.value !== undefined && e.settled && e.stamp === stamp.value) return e.value;
    if (e?.pendingExact && e.pendingStamp === stamp.value) {
      const shared = await e.pendingExact;
      if (shared.settled) return shared.value;
      return compute();
    }
    const entry = e ?? this.create(key);
    const started = this.now();
    const p = this.computeStamped(compute, stamp);
    entry.pendingExact = p;
    entry.pendingStamp = stamp.value;
    try {
      const r = await p;
      if (r.settled) this.store(key, entry, r.value, started, stamp.value, true);
      return r.value;
    } finally {
      if (entry.pendingExact === p) entry.pendingExact = entry.pendingStamp = undefined;
      if (entry.value === undefined && !entry.pending && !entry.pendingExact) this.entries.delete(key);
    }
  }

  /** Whether values are cached at all (`freshMs` > 0). */
  get enabled(): boolean {
    return this.fresh > 0;
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

  private async computeStamped(compute: () => Promise<T>, stamp: Stamp): Promise<{ value: T; settled: boolean }> {
    // Order matters: the stamp was read before, the lock check now, the snapshot in `compute`.
    const settled = await stamp.settled();
    return { value: await compute(), settled };
  }

  private store(key: string, e: Entry<T>, value: T, at: number, stamp: string | undefined, settled: boolean): void {
    e.value = value;
    e.at = at;
    e.stamp = stamp;
    e.settled = settled;
    // Re-insert: most recently computed keys are evicted last.
    this.entries.delete(key);
    this.entries.set(key, e);
  }

  private refresh(key: string, e: Entry<T>, compute: () => Promise<T>, stamp?: Stamp): Promise<T> {
    const started = this.now();
    const run = stamp ? this.computeStamped(compute, stamp) : compute().then((value) => ({ value, settled: false }));
    const p = run.then(
      (r) => {
        e.pending = undefined;
        this.store(key, e, r.value, started, stamp?.value, r.settled);
        return r.value;
      },
      (err: unknown) => {
        e.pending = undefined;
        if (e.value === undefined && !e.pendingExact) this.entries.delete(key);
        throw err;
      },
    );
    e.pending = p;
    return p;
  }
}
