import { isAppError } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { parseIdentifier } from './identifier.js';
import { normalisedKey, parseImageRequest, resolveImageRequest } from './params.js';

const LIMITS = { maxWidth: 5000, maxHeight: 5000, maxArea: 10_000_000 };
/** Resolve `region/size/rotation/quality.format` against a 1000×800 image. */
const resolve = (url: string, w = 1000, h = 800) => {
  const [region, size, rotation, qf] = url.split('/');
  return resolveImageRequest(parseImageRequest(region, size, rotation, qf), w, h, LIMITS);
};
const status = (fn: () => unknown): number | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return isAppError(err) ? err.status : -1;
  }
};

describe(parseImageRequest.name, () => {
  it.each([
    ['full/full/0/default.jpg', { left: 0, top: 0, width: 1000, height: 800 }, 1000, 800],
    ['full/max/0/color.png', { left: 0, top: 0, width: 1000, height: 800 }, 1000, 800],
    ['square/full/0/default.jpg', { left: 100, top: 0, width: 800, height: 800 }, 800, 800],
    ['10,20,300,400/full/0/default.jpg', { left: 10, top: 20, width: 300, height: 400 }, 300, 400],
    ['900,700,300,400/full/0/default.jpg', { left: 900, top: 700, width: 100, height: 100 }, 100, 100],
    ['pct:10,10,50,50/full/0/default.jpg', { left: 100, top: 80, width: 500, height: 400 }, 500, 400],
    ['full/500,/0/default.jpg', { left: 0, top: 0, width: 1000, height: 800 }, 500, 400],
    ['full/,400/0/default.jpg', { left: 0, top: 0, width: 1000, height: 800 }, 500, 400],
    ['full/^250,/0/default.jpg', { left: 0, top: 0, width: 1000, height: 800 }, 250, 200],
    ['full/pct:25/0/default.jpg', { left: 0, top: 0, width: 1000, height: 800 }, 250, 200],
    ['full/300,300/0/default.jpg', { left: 0, top: 0, width: 1000, height: 800 }, 300, 300],
    ['full/!300,300/0/default.jpg', { left: 0, top: 0, width: 1000, height: 800 }, 300, 240],
    ['full/2000,/0/default.jpg', { left: 0, top: 0, width: 1000, height: 800 }, 2000, 1600],
  ])('should resolve %s', (url, region, width, height) => {
    const r = resolve(url);
    expect(r.region).toEqual(region);
    expect([r.width, r.height]).toEqual([width, height]);
  });

  it('should parse rotation, mirroring, quality and format', () => {
    const r = resolve('full/full/!90/gray.webp');
    expect(r).toMatchObject({ rotation: 90, mirror: true, quality: 'gray', format: 'webp' });
    expect(resolve('full/full/22.5/bitonal.tif')).toMatchObject({ rotation: 22.5, mirror: false, quality: 'bitonal', format: 'tif' });
    expect(resolve('full/full/360/default.jpg').rotation).toBe(0);
  });

  it('should scale full and max down to maxArea, keeping the aspect ratio', () => {
    const r = resolve('full/full/0/default.jpg', 8000, 4000);
    expect(r.width * r.height).toBeLessThanOrEqual(LIMITS.maxArea);
    expect(r.width).toBeLessThanOrEqual(LIMITS.maxWidth);
    expect(Math.abs(r.width / r.height - 2)).toBeLessThan(0.01);
  });

  it('should give equivalent requests the same normalised key', () => {
    expect(normalisedKey(resolve('full/full/0/default.jpg'))).toBe(normalisedKey(resolve('0,0,1000,800/1000,/0/color.jpg')));
    expect(normalisedKey(resolve('full/full/0/default.jpg'))).not.toBe(normalisedKey(resolve('full/full/0/default.png')));
  });

  it.each([
    'fullx/full/0/default.jpg',
    'full/full/0/default',
    'full/full/0/default.gif',
    'full/full/0/native.jpg',
    'full/full/0/.jpg',
    'full/full/361/default.jpg',
    'full/full/-90/default.jpg',
    'full/full/abc/default.jpg',
    'full/full/!/default.jpg',
    '0,0,0,10/full/0/default.jpg',
    '10,10,10/full/0/default.jpg',
    '-1,0,10,10/full/0/default.jpg',
    '1000,0,10,10/full/0/default.jpg',
    'pct:101,0,10,10/full/0/default.jpg',
    'pct:a,0,10,10/full/0/default.jpg',
    'full/0,/0/default.jpg',
    'full/,0/0/default.jpg',
    'full/,/0/default.jpg',
    'full/!100,/0/default.jpg',
    'full/pct:0/0/default.jpg',
    'full/pct:x/0/default.jpg',
    'full/10,10,10/0/default.jpg',
    'full/6000,/0/default.jpg',
    'full/4000,4000/0/default.jpg',
  ])('should answer 400 for %s', (url) => {
    expect(status(() => resolve(url))).toBe(400);
  });
});

describe(parseIdentifier.name, () => {
  it.each([
    ['record:abcde-12345', { scope: 'record', recordId: 'abcde-12345' }],
    ['draft:abcde-12345', { scope: 'draft', recordId: 'abcde-12345' }],
    ['record:abcde-12345:img.png', { scope: 'record', recordId: 'abcde-12345', key: 'img.png' }],
    ['record:abcde-12345:a%3Ab%2Fc%20d.png', { scope: 'record', recordId: 'abcde-12345', key: 'a:b/c d.png' }],
  ])('should parse %s', (raw, expected) => {
    expect(parseIdentifier(raw)).toEqual(expected);
  });

  it.each(['abcde', 'file:abc', 'record:', 'record:%E0%A4%A', '67352ccc-d1b0-11e1-89ae-279075081939'])(
    'should answer 404 for %s',
    (raw) => {
      expect(status(() => parseIdentifier(raw))).toBe(404);
    },
  );
});
