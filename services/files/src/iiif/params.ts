/**
 * IIIF Image API 2.1 request parameters (`{region}/{size}/{rotation}/{quality}.{format}`):
 * parsing, the checks the spec asks for (400 for bad syntax or an empty/out-of-image region), and
 * their resolution against an image's dimensions into one normalised operation (pixel region,
 * output size, rotation, mirroring, quality, format). The normalised form names the derivative
 * in the cache (derivatives.ts), so equivalent requests (`full` and `0,0,w,h`) share it.
 *
 * When to use: the image route (http/iiif.routes.ts) parses with `parseImageRequest`, then, once
 * the image's dimensions are known, `resolveImageRequest`. Pure functions, no I/O.
 */
import { AppError } from '@rdm/platform';

/** Output formats served (IIIF `format`), with their response media types. */
export const IIIF_OUTPUT_FORMATS = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp', tif: 'image/tiff' } as const;
/** An output format. */
export type IiifFormat = keyof typeof IIIF_OUTPUT_FORMATS;
/** Qualities served (level 2). */
export const IIIF_QUALITIES = ['default', 'color', 'gray', 'bitonal'] as const;
/** A quality. */
export type IiifQuality = (typeof IIIF_QUALITIES)[number];

/** A parsed region. */
export type RegionSpec = { kind: 'full' } | { kind: 'square' } | { kind: 'px' | 'pct'; x: number; y: number; w: number; h: number };
/** A parsed size (`upscale`: the Image API 3 `^` prefix, accepted as InvenioRDM's thumbnails use it). */
export type SizeSpec =
  | { kind: 'full' | 'max' }
  | { kind: 'w'; w: number }
  | { kind: 'h'; h: number }
  | { kind: 'pct'; pct: number }
  | { kind: 'wh'; w: number; h: number }
  | { kind: 'confined'; w: number; h: number };

/** One parsed image request. */
export interface ImageRequest {
  region: RegionSpec;
  size: SizeSpec;
  rotation: number;
  mirror: boolean;
  quality: IiifQuality;
  format: IiifFormat;
}

/** Limits of a served image (info.json's `maxWidth`, `maxHeight`, `maxArea`). */
export interface SizeLimits {
  maxWidth: number;
  maxHeight: number;
  maxArea: number;
}

/** An image request resolved against an image: pixels to cut, size to produce. */
export interface ResolvedImage {
  region: { left: number; top: number; width: number; height: number };
  width: number;
  height: number;
  rotation: number;
  mirror: boolean;
  quality: IiifQuality;
  format: IiifFormat;
}

/** A 400 of the image API (IIIF: a syntax error or an impossible request). */
export function iiifBadRequest(field: string, message: string): AppError {
  return new AppError('invalid_iiif_parameter', 400, message, { fieldErrors: [{ field, messages: [message] }] });
}

const NUM = /^\d+(\.\d+)?$/;
const INT = /^\d+$/;

/** Parse the region segment. */
export function parseRegion(s: string): RegionSpec {
  if (s === 'full') return { kind: 'full' };
  if (s === 'square') return { kind: 'square' };
  const pct = s.startsWith('pct:');
  const parts = (pct ? s.slice(4) : s).split(',');
  if (parts.length !== 4 || !parts.every((p) => (pct ? NUM : INT).test(p))) {
    throw iiifBadRequest('region', `Invalid region '${s}': expected full, square, x,y,w,h or pct:x,y,w,h.`);
  }
  const [x, y, w, h] = parts.map(Number);
  if (w <= 0 || h <= 0) throw iiifBadRequest('region', `Invalid region '${s}': width and height must be positive.`);
  if (pct && (x > 100 || y > 100)) throw iiifBadRequest('region', `Invalid region '${s}': percentages lie outside the image.`);
  return { kind: pct ? 'pct' : 'px', x, y, w, h };
}

/** Parse the size segment. */
export function parseSize(raw: string): SizeSpec {
  const s = raw.startsWith('^') ? raw.slice(1) : raw;
  const bad = () => iiifBadRequest('size', `Invalid size '${raw}': expected full, max, w,, ,h, pct:n, w,h or !w,h.`);
  if (s === 'full' || s === 'max') return { kind: s };
  if (s.startsWith('pct:')) {
    const v = s.slice(4);
    if (!NUM.test(v) || Number(v) <= 0) throw bad();
    return { kind: 'pct', pct: Number(v) };
  }
  const confined = s.startsWith('!');
  const body = confined ? s.slice(1) : s;
  const m = /^(\d*),(\d*)$/.exec(body);
  if (!m) throw bad();
  const [, ws, hs] = m;
  const w = ws === '' ? undefined : Number(ws);
  const h = hs === '' ? undefined : Number(hs);
  if (w === 0 || h === 0) throw iiifBadRequest('size', `Invalid size '${raw}': width and height must be positive.`);
  if (confined) {
    if (w === undefined || h === undefined) throw bad();
    return { kind: 'confined', w, h };
  }
  if (w !== undefined && h !== undefined) return { kind: 'wh', w, h };
  if (w !== undefined) return { kind: 'w', w };
  if (h !== undefined) return { kind: 'h', h };
  throw bad();
}

/** Parse the rotation segment (`!` mirrors first). */
export function parseRotation(s: string): { rotation: number; mirror: boolean } {
  const mirror = s.startsWith('!');
  const v = mirror ? s.slice(1) : s;
  if (!NUM.test(v) || Number(v) > 360)
    throw iiifBadRequest('rotation', `Invalid rotation '${s}': expected a number from 0 to 360, optionally after '!'.`);
  return { rotation: Number(v) % 360, mirror };
}

/** Parse the `{quality}.{format}` segment. */
export function parseQualityFormat(s: string): { quality: IiifQuality; format: IiifFormat } {
  const dot = s.lastIndexOf('.');
  if (dot <= 0) throw iiifBadRequest('format', `Invalid '${s}': expected {quality}.{format}.`);
  const quality = s.slice(0, dot);
  const format = s.slice(dot + 1);
  if (!(IIIF_QUALITIES as readonly string[]).includes(quality)) {
    throw iiifBadRequest('quality', `Unsupported quality '${quality}': one of ${IIIF_QUALITIES.join(', ')}.`);
  }
  if (!Object.hasOwn(IIIF_OUTPUT_FORMATS, format)) {
    throw iiifBadRequest('format', `Unsupported format '${format}': one of ${Object.keys(IIIF_OUTPUT_FORMATS).join(', ')}.`);
  }
  return { quality: quality as IiifQuality, format: format as IiifFormat };
}

/** Parse the four segments of an image request (each already percent-decoded). */
export function parseImageRequest(region: string, size: string, rotation: string, qualityFormat: string): ImageRequest {
  return {
    region: parseRegion(region),
    size: parseSize(size),
    ...parseRotation(rotation),
    ...parseQualityFormat(qualityFormat),
  };
}

/** The largest size within `limits` keeping the aspect ratio of `w`×`h` (never upscaled). */
function fitLimits(w: number, h: number, limits: SizeLimits): { width: number; height: number } {
  let scale = Math.min(1, limits.maxWidth / w, limits.maxHeight / h, Math.sqrt(limits.maxArea / (w * h)));
  if (scale >= 1) return { width: w, height: h };
  let width = Math.max(1, Math.floor(w * scale));
  let height = Math.max(1, Math.floor(h * scale));
  // Why: rounding can leave the area a pixel row over the limit.
  while (width * height > limits.maxArea && scale > 0) {
    scale *= 0.999;
    width = Math.max(1, Math.floor(w * scale));
    height = Math.max(1, Math.floor(h * scale));
  }
  return { width, height };
}

/** Resolve a parsed request against an image of `imgW`×`imgH` within `limits` (400 when impossible). */
export function resolveImageRequest(req: ImageRequest, imgW: number, imgH: number, limits: SizeLimits): ResolvedImage {
  let left = 0;
  let top = 0;
  let rw = imgW;
  let rh = imgH;
  const r = req.region;
  if (r.kind === 'square') {
    const side = Math.min(imgW, imgH);
    left = Math.floor((imgW - side) / 2);
    top = Math.floor((imgH - side) / 2);
    rw = side;
    rh = side;
  } else if (r.kind === 'px' || r.kind === 'pct') {
    const [x, y, w, h] =
      r.kind === 'px' ? [r.x, r.y, r.w, r.h] : [(r.x * imgW) / 100, (r.y * imgH) / 100, (r.w * imgW) / 100, (r.h * imgH) / 100];
    left = Math.round(x);
    top = Math.round(y);
    if (left >= imgW || top >= imgH) throw iiifBadRequest('region', 'The region lies outside the image.');
    rw = Math.min(Math.max(1, Math.round(w)), imgW - left);
    rh = Math.min(Math.max(1, Math.round(h)), imgH - top);
  }
  let width: number;
  let height: number;
  const s = req.size;
  switch (s.kind) {
    case 'full':
    case 'max':
      ({ width, height } = fitLimits(rw, rh, limits));
      break;
    case 'w':
      width = s.w;
      height = Math.max(1, Math.round((rh * s.w) / rw));
      break;
    case 'h':
      height = s.h;
      width = Math.max(1, Math.round((rw * s.h) / rh));
      break;
    case 'pct':
      width = Math.max(1, Math.round((rw * s.pct) / 100));
      height = Math.max(1, Math.round((rh * s.pct) / 100));
      break;
    case 'wh':
      width = s.w;
      height = s.h;
      break;
    case 'confined': {
      const scale = Math.min(s.w / rw, s.h / rh);
      width = Math.max(1, Math.min(s.w, Math.round(rw * scale)));
      height = Math.max(1, Math.min(s.h, Math.round(rh * scale)));
      break;
    }
  }
  if (width > limits.maxWidth || height > limits.maxHeight || width * height > limits.maxArea) {
    throw iiifBadRequest(
      'size',
      `The requested size ${width}x${height} exceeds the server's limits (maxWidth ${limits.maxWidth}, maxHeight ${limits.maxHeight}, maxArea ${limits.maxArea}).`,
    );
  }
  return {
    region: { left, top, width: rw, height: rh },
    width,
    height,
    rotation: req.rotation,
    mirror: req.mirror,
    quality: req.quality === 'color' ? 'default' : req.quality,
    format: req.format,
  };
}

/** The canonical text of a resolved request: the derivative cache's key material. */
export function normalisedKey(r: ResolvedImage): string {
  const q = r.quality;
  return `${r.region.left},${r.region.top},${r.region.width},${r.region.height}/${r.width},${r.height}/${r.mirror ? '!' : ''}${r.rotation}/${q}.${r.format}`;
}
