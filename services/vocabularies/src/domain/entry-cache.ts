/**
 * A small in-process LRU of vocabulary entries keyed by (type, id), each holding the entry's
 * serialized JSON body (single-entry reads send it as-is) and its resolve form (the RPC).
 *
 * When to use: hot single-entry reads and `rdm.vocabularies.rpc.resolve`. Entries change only
 * when vocabularies are (re)loaded or written; every change ends with
 * `rdm.vocabularies.vocabulary.loaded`, and each replica clears its cache on that event
 * (`clear()`). The TTL bounds staleness should an event be missed. Misses (unknown ids) are cached
 * too, so a flood of lookups for a missing id does not reach the database.
 */

/** What is cached for one (type, id). */
export interface CachedEntry {
  /** Serialized JSON body of the entry (HTTP form), UTF-8 encoded once. */
  body: Buffer;
  /** `"<revision_id>"`. */
  etag: string;
  /** The compact form returned by the resolve RPC. */
  resolved: { id: string; title: unknown; props: unknown; tags: unknown; type: string };
  /** Entry is tagged `unlisted` (readable by the system only). */
  unlisted: boolean;
}

interface Slot {
  value: CachedEntry | null;
  expires: number;
}

/** LRU keyed by (type, id) with a TTL; `null` values record known misses. */
export class EntryCache {
  private readonly map = new Map<string, Slot>();
  private generation = 0;

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Cache key of (type, id). */
  static key(type: string, id: string): string {
    return `${type}\u0000${id}`;
  }

  /** The cached value (a `CachedEntry`, `null` for a known miss) or `undefined` when not cached. */
  get(type: string, id: string): CachedEntry | null | undefined {
    const k = EntryCache.key(type, id);
    const slot = this.map.get(k);
    if (!slot) return undefined;
    if (slot.expires <= this.now()) {
      this.map.delete(k);
      return undefined;
    }
    // Why: re-inserting moves the key to the end of the Map's insertion order (most recent).
    this.map.delete(k);
    this.map.set(k, slot);
    return slot.value;
  }

  /** Current generation; pass it back to `set` so a value read before a `clear()` is not stored after it. */
  get gen(): number {
    return this.generation;
  }

  /** Store a value read at generation `gen`. */
  set(type: string, id: string, value: CachedEntry | null, gen = this.generation): void {
    if (this.max <= 0 || gen !== this.generation) return;
    const k = EntryCache.key(type, id);
    this.map.delete(k);
    this.map.set(k, { value, expires: this.now() + this.ttlMs });
    while (this.map.size > this.max) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
    }
  }

  /** Forget everything (a vocabulary was reloaded or written). */
  clear(): void {
    this.generation += 1;
    this.map.clear();
  }

  /** Number of cached keys. */
  get size(): number {
    return this.map.size;
  }
}
