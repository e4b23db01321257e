import { describe, expect, it } from 'vitest';
import { RecordReadCache, StampBatcher } from './record-read-cache.js';

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

describe(StampBatcher.name, () => {
  it('should ask once for the reads waiting, and never answer a read from a statement started before it arrived', async () => {
    const calls: { ids: readonly string[]; answer: (m: Map<string, string>) => void }[] = [];
    const b = new StampBatcher((ids) => new Promise((answer) => calls.push({ ids, answer })));
    const first = b.stamp('a');
    expect(calls.map((c) => c.ids)).toEqual([['a']]);
    // Arrive while the first statement is in flight: they wait for the next one, together.
    const second = b.stamp('a');
    const third = b.stamp('b');
    const fourth = b.stamp('a');
    expect(calls).toHaveLength(1);
    calls[0]!.answer(new Map([['a', '1.1.P']]));
    expect(await first).toBe('1.1.P');
    expect(calls.map((c) => c.ids)).toEqual([['a'], ['a', 'b']]);
    // A write committed in between shows in the answers of the reads that waited.
    calls[1]!.answer(new Map([['a', '2.1.P']]));
    expect(await Promise.all([second, third, fourth])).toEqual(['2.1.P', undefined, '2.1.P']);
  });

  it('should fail the reads of a failed statement and go on with the next', async () => {
    let n = 0;
    const b = new StampBatcher(async () => {
      n++;
      if (n === 1) throw new Error('db down');
      return new Map([['a', '1.1.P']]);
    });
    const failing = b.stamp('a');
    const next = b.stamp('a');
    await expect(failing).rejects.toThrow('db down');
    expect(await next).toBe('1.1.P');
  });
});
