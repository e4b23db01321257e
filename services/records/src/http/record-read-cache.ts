/**
 * Rendered bodies of `GET /api/records/{id}` (published records), reused while the record is
 * unchanged.
 *
 * When to use: only for that route. A published record is read far more often than it changes,
 * and building its document (two rows with large jsonb columns, `buildDoc`, `serializeItem`,
 * `JSON.stringify`) costs several times the read itself. Every read still asks the database for
 * the record's stamp (record and parent revision ids plus deletion status, one narrow statement
 * shared by the reads arriving together: `StampBatcher` below), so a write by any replica is seen
 * by the next read (read-your-writes holds across processes) and nothing needs invalidating.
 *
 * Why a hit may skip the permission check: the body depends on the caller only through the
 * permission checks, and a rendering is kept only when every input of its read decision is in
 * the key or the stamp — the caller's id and roles (key); owner, grants, communities, protection,
 * deletion (the stamped record and parent rows). Decisions with inputs elsewhere are never kept:
 * secret-link readers (`identity.linkToken`: the link may be revoked) and reads allowed by a
 * community role (the membership lives in the communities service: records.service `readRecord`
 * gives them no stamp). So the next read after any change of those inputs is decided afresh.
 * Bounded: `maxEntries` (LRU), bodies over `maxBodyBytes` are not kept.
 */
import type { Identity } from '@rdm/platform';

/** A cached rendering. */
export interface CachedRecordBody {
  stamp: string;
  body: Buffer;
  etag: string;
  link: string;
}

/** LRU of rendered record bodies keyed by record id and caller. */
export class RecordReadCache {
  private readonly entries = new Map<string, CachedRecordBody>();

  constructor(private readonly o: { maxEntries: number; maxBodyBytes: number } = { maxEntries: 2000, maxBodyBytes: 256 * 1024 }) {}

  /** The cache key of a read, or undefined when this caller's reads are not cached. */
  keyOf(id: string, identity: Identity): string | undefined {
    if (identity.linkToken) return undefined;
    return `${id}\u0000${identity.sub ?? ''}\u0000${identity.roles.join(',')}`;
  }

  /** True when something is cached under `key` (whatever its stamp). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The entry under `key` if it was rendered from rows with this `stamp`. */
  get(key: string, stamp: string): CachedRecordBody | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.stamp !== stamp) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  /** Keep a rendering (ignored when too large). */
  set(key: string, entry: CachedRecordBody): void {
    if (entry.body.length > this.o.maxBodyBytes) return;
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.o.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Number of cached bodies. */
  get size(): number {
    return this.entries.size;
  }
}

interface StampWaiter {
  resolve(stamp: string | undefined): void;
  reject(err: unknown): void;
}

/**
 * The stamp checks of concurrent reads, coalesced: at most one statement in flight; reads arriving
 * meanwhile wait for the next one, which asks for all their ids at once (`recordStamps`).
 *
 * Why it stays exact: a read's stamp comes from a statement started after the read arrived (never
 * from the one already in flight when it came), so it sees every write committed before the read
 * began, from any replica — the same guarantee as one statement per read, at a fraction of the
 * cost under load (one round trip, one plan execution, one pool checkout for many reads).
 */
export class StampBatcher {
  private queued: Map<string, StampWaiter[]> | undefined;
  private busy = false;

  constructor(private readonly load: (ids: readonly string[]) => Promise<Map<string, string>>) {}

  /** The current stamp of record `id` (undefined: no such record). */
  stamp(id: string): Promise<string | undefined> {
    return new Promise<string | undefined>((resolve, reject) => {
      this.queued ??= new Map();
      const waiters = this.queued.get(id);
      if (waiters === undefined) this.queued.set(id, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      if (!this.busy) this.flush();
    });
  }

  private flush(): void {
    const batch = this.queued;
    this.queued = undefined;
    if (batch === undefined) return;
    this.busy = true;
    this.load([...batch.keys()]).then(
      (stamps) => {
        for (const [id, waiters] of batch) for (const w of waiters) w.resolve(stamps.get(id));
        this.next();
      },
      (err: unknown) => {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
        this.next();
      },
    );
  }

  private next(): void {
    this.busy = false;
    this.flush();
  }
}
