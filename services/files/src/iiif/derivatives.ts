/**
 * The IIIF derivative cache: rendered images kept in the files service's own object store (the
 * same engine as the files' bytes) under `iiif/<md5 of the source>/<sha256 of the normalised
 * parameters>`, indexed in `iiif_derivatives` (size, last served). Bounded: after each store the
 * least recently served derivatives are evicted until the total is at most `maxBytes`
 * (`FILES_IIIF_CACHE_BYTES`; 0 turns the cache off). Keyed by the source's checksum, so a new
 * version of a file never meets an old derivative, and files with the same bytes share them.
 *
 * When to use: only from the image route (iiif.service.ts), and only AFTER the caller's access
 * to the source file was decided — the cache sits behind the access check, never in front of it.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Knex, Logger } from '@rdm/platform';
import type { ObjectStorage } from '../storage/index.js';

/** Dependencies of the cache. */
export interface DerivativeCacheDeps {
  db: Knex;
  storage: ObjectStorage;
  logger: Pick<Logger, 'warn'>;
  /** Total bytes kept; 0 = no cache. */
  maxBytes: number;
}

/** Storage key of the derivative of the source with `checksum` (`md5:<hex>`) for normalised parameters `params`. */
export function derivativeKey(checksum: string, params: string): string {
  const md5 = checksum
    .replace(/^md5:/, '')
    .toLowerCase()
    .replace(/[^a-f0-9]/g, '');
  return `iiif/${md5}/${createHash('sha256').update(params).digest('hex').slice(0, 40)}`;
}

/** Derivatives in the object store, bounded in total size (see header). */
export class DerivativeCache {
  private evicting: Promise<void> | undefined;

  constructor(private readonly d: DerivativeCacheDeps) {}

  /** Whether the cache is on. */
  get enabled(): boolean {
    return this.d.maxBytes > 0;
  }

  /** The stored derivative (stream and size), or undefined; marks it served. */
  async get(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    if (!this.enabled) return undefined;
    const stat = await this.d.storage.stat(key);
    if (!stat) return undefined;
    try {
      const stream = await this.d.storage.get(key);
      this.d.db
        .raw("UPDATE iiif_derivatives SET last_used = now() WHERE storage_key = ? AND last_used < now() - interval '10 seconds'", [key])
        .catch((err: unknown) => this.d.logger.warn({ err }, 'iiif derivative: last_used not updated'));
      return { stream, size: stat.size };
    } catch {
      return undefined;
    }
  }

  /** Keep `bytes` as `key`, then evict beyond the bound (errors are logged: the answer is already rendered). */
  async put(key: string, bytes: Buffer): Promise<void> {
    if (!this.enabled || bytes.length > this.d.maxBytes) return;
    try {
      await this.d.storage.put(key, Readable.from([bytes]), { size: bytes.length });
      await this.d.db.raw(
        `INSERT INTO iiif_derivatives (storage_key, bytes) VALUES (?, ?)
         ON CONFLICT (storage_key) DO UPDATE SET bytes = excluded.bytes, last_used = now()`,
        [key, bytes.length],
      );
      this.evicting ??= this.evict().finally(() => {
        this.evicting = undefined;
      });
      await this.evicting;
    } catch (err) {
      this.d.logger.warn({ err, key }, 'iiif derivative not cached');
    }
  }

  /** Total bytes of the cached derivatives (tests, tooling). */
  async totalBytes(): Promise<number> {
    const { rows } = await this.d.db.raw('SELECT coalesce(sum(bytes), 0)::bigint AS total FROM iiif_derivatives');
    return Number(rows[0].total);
  }

  /** Drop the least recently served derivatives until the total fits `maxBytes`. */
  private async evict(): Promise<void> {
    const { rows } = await this.d.db.raw(
      `WITH ranked AS (
         SELECT storage_key, sum(bytes) OVER (ORDER BY last_used DESC, storage_key) AS running FROM iiif_derivatives
       )
       DELETE FROM iiif_derivatives d USING ranked r
        WHERE d.storage_key = r.storage_key AND r.running > ?
        RETURNING d.storage_key`,
      [this.d.maxBytes],
    );
    for (const row of rows as { storage_key: string }[]) await this.d.storage.delete(row.storage_key);
  }
}
