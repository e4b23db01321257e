import { describe, expect, it } from 'vitest';
import { type CachedEntry, EntryCache } from './entry-cache.js';

const v = (id: string): CachedEntry => ({
  body: Buffer.from(`{"id":"${id}"}`),
  etag: '"1"',
  resolved: { id, title: {}, props: {}, tags: [], type: 't' },
  unlisted: false,
});

describe(EntryCache.name, () => {
  it('should evict the least recently used key when full', () => {
    const sut = new EntryCache(2, 60_000);
    sut.set('t', 'a', v('a'));
    sut.set('t', 'b', v('b'));
    expect(sut.get('t', 'a')?.body.toString()).toBe('{"id":"a"}'); // a is now the most recent
    sut.set('t', 'c', v('c'));
    expect(sut.get('t', 'b')).toBeUndefined();
    expect(sut.get('t', 'a')).toBeDefined();
    expect(sut.size).toBe(2);
  });

  it('should remember misses as null and expire entries after the TTL', () => {
    let now = 0;
    const sut = new EntryCache(10, 100, () => now);
    sut.set('t', 'missing', null);
    expect(sut.get('t', 'missing')).toBeNull();
    now = 150;
    expect(sut.get('t', 'missing')).toBeUndefined();
  });

  it('should not store a value read before a clear()', () => {
    const sut = new EntryCache(10, 60_000);
    const gen = sut.gen;
    sut.clear();
    sut.set('t', 'a', v('a'), gen);
    expect(sut.get('t', 'a')).toBeUndefined();
  });

  it('should keep types apart', () => {
    const sut = new EntryCache(10, 60_000);
    sut.set('x', 'a', v('a'));
    expect(sut.get('y', 'a')).toBeUndefined();
  });
});
