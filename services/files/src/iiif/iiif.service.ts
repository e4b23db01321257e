/**
 * The IIIF image server of the files service (Image API 2.1, level 2, rendered by sharp/libvips)
 * and the data of the presentation manifests. Every operation first takes the SAME decision as
 * the file's download (`FilesService.content`: records' `authorize-files` grant, secret-link
 * token included, then the entry) — restricted files answer 403/404 exactly as their content
 * does; only then the derivative cache (derivatives.ts) or the renderer is reached.
 *
 * Bounded: a source over `FILES_IIIF_MAX_INPUT_BYTES` or whose header declares more than
 * `FILES_IIIF_MAX_PIXELS` is refused (422) after reading its first bytes only, never decoded;
 * sharp's own `limitInputPixels` is the second line; at most `FILES_IIIF_CONCURRENCY` renders run
 * at once (the others wait their turn), each on `FILES_IIIF_THREADS` libvips threads, and no
 * output exceeds `maxWidth`/`maxHeight`/`maxArea` (info.json). A file sharp cannot read is 415.
 *
 * When to use: from http/iiif.routes.ts only.
 */
import { IIIF_EXTENSIONS, isIiifImage as isIiifImageKey } from '../domain/links.js';
import { Readable } from 'node:stream';
import { AppError, type Knex, type Logger } from '@rdm/platform';
import type Sharp from 'sharp';
import type { FilesTarget } from '../domain/authorizer.js';
import type { FilesService } from '../domain/files.service.js';
import { keyExtension } from '../domain/keys.js';
import type { BucketGrant } from '../domain/authorizer.js';
import type { FileRow } from '../repo/files.repo.js';
import type { ObjectStorage } from '../storage/index.js';
import { DerivativeCache, derivativeKey } from './derivatives.js';
import {
  IIIF_OUTPUT_FORMATS,
  type ImageRequest,
  normalisedKey,
  type ResolvedImage,
  resolveImageRequest,
  type SizeLimits,
} from './params.js';

/** Extensions offered through IIIF (records' IIIF_FORMATS, InvenioRDM's default). */
export const IIIF_SOURCE_EXTENSIONS = IIIF_EXTENSIONS;

/** Bytes read to find an image's dimensions before anything is decoded. */
const HEAD_BYTES = 256 * 1024;

/** Limits and options of the image server. */
export interface IiifOptions extends SizeLimits {
  /** Largest source file rendered (bytes). */
  maxInputBytes: number;
  /** Largest source image rendered (width × height as its header declares). */
  maxInputPixels: number;
  /** Renders running at once. */
  concurrency: number;
  /** libvips threads per render (sharp.concurrency). */
  threads?: number;
  /** Derivative cache bound in bytes (0: no cache). */
  cacheBytes: number;
}

/** Dependencies of the image server. */
export interface IiifServiceDeps {
  files: FilesService;
  storage: ObjectStorage;
  db: Knex;
  logger: Pick<Logger, 'warn'>;
  options: IiifOptions;
}

/** An image's dimensions. */
export interface Dimensions {
  width: number;
  height: number;
}

/** A rendered (or cached) derivative. */
export interface ImageResult {
  body: Readable | Buffer;
  size: number;
  mediaType: string;
  cached: boolean;
  etag: string;
}

/** An image file of a record with its dimensions (manifests). */
export interface ManifestImage {
  file: FileRow;
  dims: Dimensions;
}

/** 422: the source is too large to render. */
export const imageTooLarge = (why: string): AppError => new AppError('image_too_large', 422, `Image too large to process: ${why}.`);
/** 415: the source is not an image this server reads. */
export const unreadableImage = (key: string): AppError =>
  new AppError('unsupported_image', 415, `File '${key}' is not an image this server can read.`);

type SharpFactory = typeof Sharp;
let sharpModule: Promise<SharpFactory> | undefined;
/**
 * sharp, loaded on the first IIIF request with `threads` libvips threads per image. Why lazily: libvips
 * adds tens of MB of RSS, which a process serving only uploads and downloads should not pay.
 */
function loadSharp(threads: number): Promise<SharpFactory> {
  sharpModule ??= import('sharp').then((m) => {
    const sharp = m.default;
    sharp.concurrency(threads);
    return sharp;
  });
  return sharpModule;
}

/** A counting semaphore (renders running at once). */
class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of stream) {
    n += (c as Buffer).length;
    if (n > limit) {
      stream.destroy();
      throw imageTooLarge(`more than ${limit} bytes`);
    }
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Whether `key` is offered through IIIF (its extension; the one rule files' links follow too). */
export const isIiifImage = isIiifImageKey;

/** The IIIF image server (see header). */
export class IiifService {
  private readonly renders: Semaphore;
  private readonly cache: DerivativeCache;
  /** Dimensions by source checksum (bounded; cheap to recompute). */
  private readonly dims = new Map<string, Dimensions>();

  constructor(private readonly d: IiifServiceDeps) {
    this.renders = new Semaphore(Math.max(1, d.options.concurrency));
    this.cache = new DerivativeCache({ db: d.db, storage: d.storage, logger: d.logger, maxBytes: d.options.cacheBytes });
  }

  private sharp(): Promise<SharpFactory> {
    return loadSharp(this.d.options.threads ?? 1);
  }

  /** info.json limits. */
  get limits(): SizeLimits {
    const { maxWidth, maxHeight, maxArea } = this.d.options;
    return { maxWidth, maxHeight, maxArea };
  }

  /** The derivative cache (tests). */
  get derivatives(): DerivativeCache {
    return this.cache;
  }

  /** The committed image file `key` of `t`, under the download's access decision. */
  private async source(t: FilesTarget, key: string): Promise<{ file: FileRow; storageKey: string; grant: BucketGrant }> {
    const r = await this.d.files.content(t, key);
    if (!isIiifImage(key)) throw unreadableImage(key);
    return { file: r.file, storageKey: r.storageKey, grant: r.grant };
  }

  /** Dimensions of an image file from its header (first bytes only; the whole file only when the header needs more). */
  async dimensionsOf(file: FileRow, storageKey: string): Promise<Dimensions> {
    const known = file.checksum ? this.dims.get(file.checksum) : undefined;
    if (known) return known;
    const size = file.size ?? 0;
    if (size <= 0) throw unreadableImage(file.key);
    const sharp = await this.sharp();
    const probe = async (buf: Buffer) => {
      const m = await sharp(buf, { limitInputPixels: false }).metadata();
      if (!m.width || !m.height) throw new Error('no dimensions');
      return { width: m.width, height: m.height };
    };
    const head = await readAll(await this.d.storage.get(storageKey, { start: 0, end: Math.min(size, HEAD_BYTES) - 1 }), HEAD_BYTES);
    let dims: Dimensions;
    try {
      dims = await probe(head);
    } catch {
      if (size <= HEAD_BYTES) throw unreadableImage(file.key);
      if (size > this.d.options.maxInputBytes) throw imageTooLarge(`the file has more than ${this.d.options.maxInputBytes} bytes`);
      try {
        dims = await probe(await readAll(await this.d.storage.get(storageKey), this.d.options.maxInputBytes));
      } catch (err) {
        if (err instanceof AppError) throw err;
        throw unreadableImage(file.key);
      }
    }
    if (file.checksum) {
      if (this.dims.size >= 5000) this.dims.delete(this.dims.keys().next().value as string);
      this.dims.set(file.checksum, dims);
    }
    return dims;
  }

  /** Dimensions of image `key` of `t` (info.json, canvases). */
  async info(t: FilesTarget, key: string): Promise<Dimensions> {
    const src = await this.source(t, key);
    const dims = await this.dimensionsOf(src.file, src.storageKey);
    this.checkBounds(src.file, dims);
    return dims;
  }

  /** Render (or read from the cache) the derivative `req` of image `key` of `t`. */
  async image(t: FilesTarget, key: string, req: ImageRequest): Promise<ImageResult> {
    const src = await this.source(t, key);
    const dims = await this.dimensionsOf(src.file, src.storageKey);
    const resolved = resolveImageRequest(req, dims.width, dims.height, this.limits);
    const params = normalisedKey(resolved);
    const cacheKey = derivativeKey(src.file.checksum ?? '', params);
    const etag = `"${cacheKey.slice(5).replace('/', '-')}"`;
    const mediaType = IIIF_OUTPUT_FORMATS[resolved.format];
    const hit = await this.cache.get(cacheKey);
    if (hit) return { body: hit.stream, size: hit.size, mediaType, cached: true, etag };
    this.checkBounds(src.file, dims);
    const bytes = await this.renders.run(() => this.render(src.storageKey, key, resolved, dims));
    await this.cache.put(cacheKey, bytes);
    return { body: bytes, size: bytes.length, mediaType, cached: false, etag };
  }

  private checkBounds(file: FileRow, dims: Dimensions): void {
    const { maxInputBytes, maxInputPixels } = this.d.options;
    if ((file.size ?? 0) > maxInputBytes) throw imageTooLarge(`the file has more than ${maxInputBytes} bytes`);
    if (dims.width * dims.height > maxInputPixels) {
      throw imageTooLarge(`${dims.width}x${dims.height} is more than ${maxInputPixels} pixels`);
    }
  }

  /** region → size → mirror → rotation → quality → format, as the Image API orders them. */
  private async render(storageKey: string, key: string, r: ResolvedImage, dims: Dimensions): Promise<Buffer> {
    const sharp = await this.sharp();
    const input = await readAll(await this.d.storage.get(storageKey), this.d.options.maxInputBytes);
    const opts = { limitInputPixels: this.d.options.maxInputPixels, failOn: 'none' as const };
    try {
      let img = sharp(input, opts);
      const whole = r.region.left === 0 && r.region.top === 0 && r.region.width === dims.width && r.region.height === dims.height;
      // Why only when cut: without a pre-extract libvips shrinks JPEG and WebP on load (a thumbnail decodes 1/8 of the pixels).
      if (!whole) img = img.extract(r.region);
      img = img.resize(r.width, r.height, { fit: 'fill' });
      if (r.mirror) img = img.flop();
      if (r.rotation !== 0) {
        // Why a second pass: sharp applies rotate() before extract/resize within one pipeline.
        const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
        img = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
        const transparent = r.format === 'png' || r.format === 'webp' || r.format === 'tif';
        img = img.rotate(r.rotation, { background: transparent ? { r: 0, g: 0, b: 0, alpha: 0 } : '#ffffff' });
      }
      if (r.quality === 'gray') img = img.grayscale();
      if (r.quality === 'bitonal') img = img.grayscale().threshold(128);
      img = img.timeout({ seconds: 60 });
      switch (r.format) {
        case 'jpg':
          return await img.flatten({ background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer();
        case 'png':
          return await img.png().toBuffer();
        case 'webp':
          return await img.webp().toBuffer();
        case 'tif':
          return await img.tiff().toBuffer();
      }
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      if (/pixel limit/i.test(msg)) throw imageTooLarge('too many pixels');
      if (/unsupported image format|corrupt|premature|bad|invalid/i.test(msg)) throw unreadableImage(key);
      throw err;
    }
  }

  /** The files and descriptive metadata of `t` for a manifest: its committed image files in the record's order, with dimensions. */
  async manifestData(t: FilesTarget): Promise<{ grant: BucketGrant; images: ManifestImage[] }> {
    const { grant, files } = await this.d.files.listWithMetadata(t);
    const order = new Map(grant.order.map((k, i) => [k, i]));
    const candidates = files
      .filter((f) => f.status === 'completed' && f.storage_key && isIiifImage(f.key))
      .sort((a, b) => (order.get(a.key) ?? order.size) - (order.get(b.key) ?? order.size) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const images: ManifestImage[] = [];
    for (const file of candidates) {
      try {
        const dims = await this.dimensionsOf(file, file.storage_key as string);
        this.checkBounds(file, dims);
        images.push({ file, dims });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        this.d.logger.warn({ key: file.key, err: err.message }, 'iiif manifest: image left out');
      }
    }
    return { grant, images };
  }
}

/** Bytes of a cached or rendered body as a stream. */
export function bodyStream(body: Readable | Buffer): Readable {
  return Buffer.isBuffer(body) ? Readable.from([body]) : body;
}
