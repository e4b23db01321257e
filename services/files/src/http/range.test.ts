import { describe, expect, it } from 'vitest';
import { etagMatches } from '@rdm/platform';
import { parseRange } from './range.js';

describe(parseRange.name, () => {
  it('should ignore a missing or malformed header', () => {
    expect(parseRange(undefined, 100)).toEqual({ kind: 'none' });
    expect(parseRange('items=0-1', 100)).toEqual({ kind: 'none' });
    expect(parseRange('bytes=abc', 100)).toEqual({ kind: 'none' });
    expect(parseRange('bytes=-', 100)).toEqual({ kind: 'none' });
    expect(parseRange('bytes=5-2', 100)).toEqual({ kind: 'none' });
  });

  it('should parse closed, open and suffix ranges', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ kind: 'range', start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ kind: 'range', start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ kind: 'range', start: 90, end: 99 });
    expect(parseRange(' Bytes = 3-3 ', 100)).toEqual({ kind: 'range', start: 3, end: 3 });
  });

  it('should clamp ends past the body and suffixes longer than it', () => {
    expect(parseRange('bytes=50-1000', 100)).toEqual({ kind: 'range', start: 50, end: 99 });
    expect(parseRange('bytes=-1000', 100)).toEqual({ kind: 'range', start: 0, end: 99 });
  });

  it('should clamp positions of any length (RFC 9110: bytes=0-<huge> is the whole body as 206)', () => {
    const huge = '9'.repeat(40);
    expect(parseRange(`bytes=0-${huge}`, 100)).toEqual({ kind: 'range', start: 0, end: 99 });
    expect(parseRange(`bytes=-${huge}`, 100)).toEqual({ kind: 'range', start: 0, end: 99 });
    expect(parseRange(`bytes=${huge}-`, 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange(`bytes=${huge}-${huge}`, 100)).toEqual({ kind: 'unsatisfiable' });
  });

  it('should report unsatisfiable ranges', () => {
    expect(parseRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=200-300', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
  });

  it('should answer multiple ranges with the whole body', () => {
    expect(parseRange('bytes=0-1, 5-6', 100)).toEqual({ kind: 'none' });
  });
});

describe(etagMatches.name, () => {
  it('should match exact, weak, listed and * values', () => {
    const etag = '"md5:abc"';
    expect(etagMatches('"md5:abc"', etag)).toBe(true);
    expect(etagMatches('W/"md5:abc"', etag)).toBe(true);
    expect(etagMatches('"x", "md5:abc"', etag)).toBe(true);
    expect(etagMatches('*', etag)).toBe(true);
    expect(etagMatches('"md5:abd"', etag)).toBe(false);
    expect(etagMatches(undefined, etag)).toBe(false);
  });
});
