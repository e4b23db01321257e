import { describe, expect, it } from 'vitest';
import { RecordReadCache } from './record-read-cache.js';

describe(RecordReadCache.name, () => {
  it('should drop an entry whose stamp changed and bound its size', () => {
    const cache = new RecordReadCache({ maxEntries: 2, maxBodyBytes: 10 });
    const entry = (stamp: string, body = 'x') => ({ stamp, body: Buffer.from(body), etag: '"1"', link: 'l' });
    const key = cache.keyOf('a', { sub: null, roles: [] })!;
    cache.set(key, entry('1.1.P'));
    expect(cache.get(key, '1.1.P')?.stamp).toBe('1.1.P');
    expect(cache.get(key, '2.1.P')).toBeUndefined();
    expect(cache.has(key)).toBe(false);
    cache.set(key, entry('1.1.P', 'far too large a body'));
    expect(cache.has(key)).toBe(false);
    for (const id of ['a', 'b', 'c']) cache.set(cache.keyOf(id, { sub: '1', roles: [] })!, entry('1.1.P'));
    expect(cache.size).toBe(2);
    expect(cache.keyOf('a', { sub: '1', roles: [], linkToken: 't' })).toBeUndefined();
    expect(cache.keyOf('a', { sub: '1', roles: ['admin'] })).not.toBe(cache.keyOf('a', { sub: '1', roles: [] }));
  });
});
