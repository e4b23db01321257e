/**
 * Community logos through the platform's storage port (local filesystem or S3, the same
 * engines as files). A PUT streams the body into a NEW storage key (the engine writes it
 * atomically), then one transaction points the logo row at it; only after COMMIT is the old
 * object removed. A failure at any step deletes the new key, so nothing is half-written and the
 * previous logo stays intact. The size limit is checked on Content-Length and again while the
 * bytes stream (a lying or chunked client is cut off).
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Transform, type TransformCallback } from 'node:stream';
import { type Identity, type Knex, type Logger, type ObjectStorage, SizeLimitExceededError, withTransaction } from '@rdm/platform';
import { deleteLogo, findLogo, type LogoRow, upsertLogo } from '../repo/communities.repo.js';
import type { CommunitiesService } from './communities.service.js';
import { CommunityErrors, formatMb } from './errors.js';
import { SNIFF_BYTES, sniffContentType } from './sniff.js';

/** Keeps the first bytes passing through, for sniffing. */
class HeadCapture extends Transform {
  private chunks: Buffer[] = [];
  private size = 0;
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: TransformCallback): void {
    if (this.size < SNIFF_BYTES) {
      this.chunks.push(chunk.subarray(0, SNIFF_BYTES - this.size));
      this.size += Math.min(chunk.length, SNIFF_BYTES - this.size);
    }
    cb(null, chunk);
  }
  /** The captured head. */
  head(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Dependencies of the logo service. */
export interface LogoServiceDeps {
  db: Knex;
  storage: ObjectStorage;
  communities: CommunitiesService;
  maxBytes: number;
  logger: Pick<Logger, 'warn'>;
}

/** The logo service. */
export class LogoService {
  constructor(private readonly deps: LogoServiceDeps) {}

  /** Store a new logo (owners, administrators). */
  async put(identity: Identity, idOrSlug: string, body: Readable, contentLength?: number): Promise<LogoRow> {
    const c = await this.deps.communities.authorize(identity, idOrSlug, 'logo');
    const limit = this.deps.maxBytes;
    if (contentLength !== undefined && contentLength > limit) {
      body.resume();
      throw CommunityErrors.logoTooLarge(limit, formatMb(contentLength));
    }
    const key = `logos/${c.row.id}/${randomUUID()}`;
    const head = new HeadCapture();
    body.on('error', (e) => head.destroy(e));
    let stored: { size: number; md5: string };
    try {
      stored = await this.deps.storage.put(key, body.pipe(head), { size: contentLength, limit });
    } catch (e) {
      await this.deps.storage.delete(key).catch(() => undefined);
      if (e instanceof SizeLimitExceededError) throw CommunityErrors.logoTooLarge(limit, `more than ${formatMb(limit)}`);
      throw e;
    }
    let previous: string | undefined;
    try {
      const row = await withTransaction(this.deps.db, async (trx) => {
        const old = await findLogo(trx, c.row.id, { lock: true });
        previous = old?.storage_key;
        return upsertLogo(trx, {
          community_id: c.row.id,
          storage_key: key,
          size: stored.size,
          checksum: `md5:${stored.md5}`,
          mimetype: sniffContentType(head.head()),
        });
      });
      if (previous && previous !== key) await this.removeObject(previous);
      return row;
    } catch (e) {
      await this.removeObject(key);
      throw e;
    }
  }

  /** The logo row and its bytes (anyone who may read the community). */
  async get(identity: Identity, idOrSlug: string): Promise<{ row: LogoRow; stream: Readable }> {
    const c = await this.deps.communities.authorize(identity, idOrSlug, 'read');
    const row = await findLogo(this.deps.db, c.row.id);
    if (!row) throw CommunityErrors.noLogo();
    return { row, stream: await this.deps.storage.get(row.storage_key) };
  }

  /** Remove the logo (owners, administrators). */
  async delete(identity: Identity, idOrSlug: string): Promise<void> {
    const c = await this.deps.communities.authorize(identity, idOrSlug, 'logo');
    const key = await withTransaction(this.deps.db, async (trx) => {
      const row = await findLogo(trx, c.row.id, { lock: true });
      if (!row) throw CommunityErrors.noLogo();
      await deleteLogo(trx, c.row.id);
      return row.storage_key;
    });
    await this.removeObject(key);
  }

  private async removeObject(key: string): Promise<void> {
    await this.deps.storage.delete(key).catch((err) => this.deps.logger.warn({ err, key }, 'logo object not removed'));
  }
}
