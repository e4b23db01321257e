/**
 * Storage garbage collection: the only way bytes leave storage.
 *
 * Whenever a transaction releases storage keys (an object's last reference went away, an upload
 * was replaced or its entry deleted) it inserts them into `storage_gc` in the SAME transaction.
 * After the commit the caller runs `collect(keys)` to remove them at once; if that fails or the
 * process dies, the janitor loop (`start()`, a `Worker`) removes every due key later. Uploads in
 * flight register their temporary key with a delay (`FILES_UPLOAD_STALE_MS`), so a crash
 * mid-upload is cleaned up too, while a live upload adopts (unqueues) its key when it ends.
 * What the storage engine itself leaves when a process dies inside a put (the local engine's
 * `.partial/` files, S3's incomplete multipart uploads) is swept by age (`staleMs`, the same
 * `FILES_UPLOAD_STALE_MS`) at start and every `staleSweepIntervalMs`.
 *
 * Never delete storage objects directly from domain code: a rollback after a direct delete
 * would leave rows pointing at nothing.
 */
import type { Knex, Logger, Worker } from '@rdm/platform';
import * as repo from '../repo/files.repo.js';
import type { ObjectStorage } from '../storage/index.js';

/** Options of StorageGc. */
export interface StorageGcOptions {
  db: Knex;
  storage: ObjectStorage;
  logger: Pick<Logger, 'warn' | 'error' | 'debug'>;
  /** Janitor period. */
  intervalMs: number;
  /** Retry delay after a failed removal (default 60 s). */
  retryMs?: number;
  /** Age after which the engine's leftovers of unfinished puts are removed (undefined: never). */
  staleMs?: number;
  /** How often those leftovers are swept (default 15 min; also at start). */
  staleSweepIntervalMs?: number;
}

/** Removes released storage keys now (collect) and later (janitor). */
export class StorageGc implements Worker {
  readonly name = 'storage-gc';
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private lastStaleSweep = 0;

  constructor(private readonly o: StorageGcOptions) {}

  /** Remove one item: abort its multipart upload (if any), then delete its key. */
  private async remove(item: repo.GcItem): Promise<void> {
    if (typeof item !== 'string') await this.o.storage.abortMultipart(item.key, item.uploadId);
    await this.o.storage.delete(repo.gcKey(item));
  }

  /** Remove keys (and abort uploads) released by a committed transaction; failures stay queued for the janitor. */
  async collect(items: repo.GcItem[]): Promise<void> {
    for (const item of items) {
      const key = repo.gcKey(item);
      try {
        await this.remove(item);
        await repo.unqueueGc(this.o.db, [key]);
      } catch (err) {
        this.o.logger.warn({ err, key }, 'storage removal failed; the janitor will retry');
        await repo.gcFailed(this.o.db, key, String((err as Error).message ?? err), this.o.retryMs ?? 60_000).catch(() => undefined);
      }
    }
  }

  /** Remove every due key (in batches); returns how many were removed. */
  runOnce(): Promise<number> {
    this.running ??= this.sweep().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Remove the storage engine's leftovers of puts that never finished; returns how many. */
  async sweepStale(): Promise<number> {
    const { staleMs, storage } = this.o;
    if (staleMs === undefined || !storage.sweepStale) return 0;
    this.lastStaleSweep = Date.now();
    const n = await storage.sweepStale(staleMs);
    if (n > 0) this.o.logger.warn({ removed: n, staleMs }, 'removed leftovers of unfinished uploads');
    return n;
  }

  private async sweep(): Promise<number> {
    if (Date.now() - this.lastStaleSweep >= (this.o.staleSweepIntervalMs ?? 15 * 60_000)) {
      await this.sweepStale().catch((err) => this.o.logger.error({ err }, 'sweeping unfinished uploads failed'));
    }
    let removed = 0;
    for (;;) {
      const n = await this.o.db.transaction(async (trx) => {
        const keys = await repo.dueGc(trx, 100);
        const done: string[] = [];
        for (const item of keys) {
          const key = repo.gcKey(item);
          try {
            await this.remove(item);
            done.push(key);
          } catch (err) {
            this.o.logger.warn({ err, key }, 'storage removal failed; will retry');
            await repo.gcFailed(trx, key, String((err as Error).message ?? err), this.o.retryMs ?? 60_000);
          }
        }
        await repo.unqueueGc(trx, done);
        return { keys: keys.length, done: done.length };
      });
      removed += n.done;
      if (n.keys < 100) return removed;
    }
  }

  start(): void {
    const tick = () => {
      this.runOnce()
        .catch((err) => this.o.logger.error({ err }, 'storage janitor failed'))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, this.o.intervalMs).unref();
        });
    };
    this.timer = setTimeout(tick, Math.min(this.o.intervalMs, 1000)).unref();
  }

  async stop(): Promise<void> {
    const t = this.timer;
    this.timer = undefined;
    if (t) clearTimeout(t);
    await this.running?.catch(() => undefined);
  }
}
