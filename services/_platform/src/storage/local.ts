/**
 * Local filesystem engine of the storage port (the default).
 *
 * Layout under the root: `<key>` for objects, `.partial/<uuid>` while a put is in flight.
 * A put streams into a partial file, fsyncs it, renames it onto the key (atomic on one
 * filesystem) and fsyncs the directory, so a crash never leaves a half-written object under a
 * real key. `copy` hard-links (no bytes move), falling back to a byte copy when the filesystem
 * refuses links. Multipart uploads keep their parts in `.multipart/<upload id>/<part>` (each part
 * written like a put: partial file, fsync, rename) and are concatenated by streaming, through
 * one md5, into the key on completion.
 */
import { randomUUID } from 'node:crypto';
import { constants, copyFile, link, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HashingLimiter } from './hashing.js';
import {
  type ByteRange,
  type CompletedPart,
  ObjectNotFoundError,
  type PartResult,
  type ObjectStat,
  type ObjectStorage,
  type PutOptions,
  type PutResult,
  assertStorageKey,
} from './port.js';

const PARTIAL_DIR = '.partial';
const MULTIPART_DIR = '.multipart';
const UPLOAD_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const IO_CHUNK = 1024 * 1024;

/** Filesystem storage rooted at `root`. */
export class LocalStorage implements ObjectStorage {
  readonly kind = 'local' as const;
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async init(): Promise<void> {
    await mkdir(join(this.root, PARTIAL_DIR), { recursive: true });
    await mkdir(join(this.root, MULTIPART_DIR), { recursive: true });
  }

  /** Folder of a multipart upload; refuses ids this engine did not make. */
  private uploadDir(uploadId: string): string {
    if (!UPLOAD_ID_RE.test(uploadId)) throw new Error(`Invalid multipart upload id ${JSON.stringify(uploadId)}`);
    return join(this.root, MULTIPART_DIR, uploadId);
  }

  /** Absolute path of a key; refuses anything that would leave the root. */
  private path(key: string): string {
    assertStorageKey(key);
    const p = resolve(this.root, key);
    if (!p.startsWith(this.root + sep)) throw new Error(`Storage key escapes the root: ${key}`);
    return p;
  }

  async put(key: string, stream: Readable, opts: PutOptions = {}): Promise<PutResult> {
    const target = this.path(key);
    const partial = join(this.root, PARTIAL_DIR, randomUUID());
    await mkdir(dirname(partial), { recursive: true });
    const { size, md5 } = await this.publish(stream, opts, partial, async () => {
      await mkdir(dirname(target), { recursive: true });
      await rename(partial, target);
      await this.syncDir(dirname(target));
    });
    return { size, md5 };
  }

  /**
   * Write `stream` (hashed, limited) to the new file `partial`, then `publish` it (rename it into
   * place); on any failure the partial file is removed and the source stopped.
   */
  private async publish(stream: Readable, opts: PutOptions, partial: string, publish: () => Promise<void>): Promise<HashingLimiter> {
    const hasher = new HashingLimiter(opts.limit);
    const fh = await open(partial, 'wx', 0o640);
    // Why: `flush` fsyncs the file before the stream closes it, so a rename never publishes unsynced bytes.
    const out = fh.createWriteStream({ highWaterMark: IO_CHUNK, flush: true } as Parameters<typeof fh.createWriteStream>[0]);
    try {
      await pipeline(stream, hasher, out);
      await publish();
      return hasher;
    } catch (err) {
      out.destroy();
      await fh.close().catch(() => undefined);
      await unlink(partial).catch(() => undefined);
      // Why: a failed pipeline must not leave the source flowing into nowhere.
      if (!stream.destroyed) stream.destroy();
      throw err;
    }
  }

  async createMultipart(key: string): Promise<string> {
    this.path(key);
    const id = randomUUID();
    await mkdir(this.uploadDir(id), { recursive: true });
    return id;
  }

  async putPart(key: string, uploadId: string, part: number, stream: Readable, opts: PutOptions = {}): Promise<PartResult> {
    this.path(key);
    if (!Number.isSafeInteger(part) || part < 1) throw new Error(`Invalid part number ${part}`);
    const dir = this.uploadDir(uploadId);
    try {
      await stat(dir);
    } catch {
      if (!stream.destroyed) stream.destroy();
      throw new ObjectNotFoundError(`${key} (multipart upload ${uploadId})`);
    }
    const partial = join(dir, `${part}.${randomUUID()}.partial`);
    const { size, md5 } = await this.publish(stream, opts, partial, async () => {
      await rename(partial, join(dir, String(part)));
      await this.syncDir(dir);
    });
    return { size, md5, etag: md5 };
  }

  async completeMultipart(key: string, uploadId: string, parts: CompletedPart[]): Promise<PutResult> {
    const dir = this.uploadDir(uploadId);
    const ordered = [...parts].sort((a, b) => a.part - b.part);
    // Why check first: a missing part must fail before anything is written under the key.
    for (const p of ordered) if (!(await this.isFile(join(dir, String(p.part))))) throw new ObjectNotFoundError(`${key} part ${p.part}`);
    async function* concatenated(): AsyncGenerator<Buffer> {
      for (const p of ordered) {
        const fh = await open(join(dir, String(p.part)), constants.O_RDONLY);
        try {
          yield* fh.createReadStream({ highWaterMark: IO_CHUNK, autoClose: false }) as AsyncIterable<Buffer>;
        } finally {
          await fh.close();
        }
      }
    }
    const result = await this.put(key, Readable.from(concatenated(), { objectMode: false }));
    await rm(dir, { recursive: true, force: true });
    return result;
  }

  async abortMultipart(_key: string, uploadId: string): Promise<void> {
    await rm(this.uploadDir(uploadId), { recursive: true, force: true });
  }

  private async isFile(p: string): Promise<boolean> {
    try {
      return (await stat(p)).isFile();
    } catch {
      return false;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const p = this.path(key);
    const fh = await open(p, constants.O_RDONLY).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw new ObjectNotFoundError(key);
      throw err;
    });
    return fh.createReadStream({ autoClose: true, highWaterMark: IO_CHUNK, ...(range ? { start: range.start, end: range.end } : {}) });
  }

  async stat(key: string): Promise<ObjectStat | null> {
    try {
      const s = await stat(this.path(key));
      return s.isFile() ? { size: s.size } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async copy(from: string, to: string): Promise<void> {
    const src = this.path(from);
    const dst = this.path(to);
    await mkdir(dirname(dst), { recursive: true });
    try {
      await link(src, dst);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new ObjectNotFoundError(from);
      if (code === 'EEXIST') {
        await rm(dst, { force: true });
        await link(src, dst);
      } else if (code === 'EXDEV' || code === 'EPERM' || code === 'ENOTSUP' || code === 'EMLINK') {
        // Why: some filesystems (and cross-device roots) refuse hard links; copy through a partial file to stay atomic.
        const partial = join(this.root, PARTIAL_DIR, randomUUID());
        await copyFile(src, partial);
        await rename(partial, dst);
      } else {
        throw err;
      }
    }
    await this.syncDir(dirname(dst));
  }

  async *list(prefix: string): AsyncIterable<string> {
    const base = prefix ? this.path(prefix.replace(/\/+$/, '')) : this.root;
    const walk = async function* (dir: string, root: string): AsyncIterable<string> {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return;
        throw err;
      }
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) yield* walk(full, root);
        else yield relative(root, full).split(sep).join('/');
      }
    };
    yield* walk(base, this.root);
  }

  async sweepStale(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    let removed = await this.sweepMultipart(cutoff);
    const dir = join(this.root, PARTIAL_DIR);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return removed;
    }
    for (const name of names) {
      const p = join(dir, name);
      try {
        // Why mtime: a live put writes continuously; one untouched that long belongs to a dead process.
        if ((await stat(p)).mtimeMs >= cutoff) continue;
        await unlink(p);
        removed++;
      } catch {
        // gone meanwhile (finished or removed by another replica)
      }
    }
    return removed;
  }

  /** Remove multipart folders created before `cutoff` (their id folder's birth, else its mtime). */
  private async sweepMultipart(cutoff: number): Promise<number> {
    const base = join(this.root, MULTIPART_DIR);
    let names: string[];
    try {
      names = await readdir(base);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      const p = join(base, name);
      try {
        const s = await stat(p);
        // Why birth time: an upload may not outlive FILES_UPLOAD_STALE_MS from its start, like S3's sweep by initiation.
        const started = s.birthtimeMs > 0 ? s.birthtimeMs : s.mtimeMs;
        if (started >= cutoff) continue;
        await rm(p, { recursive: true, force: true });
        removed++;
      } catch {
        // gone meanwhile
      }
    }
    return removed;
  }

  /** Keys of unfinished puts (tests: a failed upload must leave none). */
  async partials(): Promise<string[]> {
    try {
      return await readdir(join(this.root, PARTIAL_DIR));
    } catch {
      return [];
    }
  }

  async check(): Promise<void> {
    await stat(this.root);
  }

  private async syncDir(dir: string): Promise<void> {
    try {
      const d = await open(dir, constants.O_RDONLY);
      try {
        await d.sync();
      } finally {
        await d.close();
      }
    } catch {
      // Why: directory fsync is best effort (not supported everywhere); the rename itself is atomic.
    }
  }
}
