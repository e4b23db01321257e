import { describe, expect, it } from 'vitest';
import { AggCache } from './agg-cache.js';

describe(AggCache.name, () => {
  const setup = (o: { freshMs?: number; staleMs?: number; maxEntries?: number } = {}) => {
    let now = 0;
    const cache = new AggCache<number>({ freshMs: 1000, staleMs: 10_000, ...o, now: () => now });
    let calls = 0;
    const compute = async () => ++calls;
    const tick = (ms: number) => {
      now += ms;
    };
    return { cache, compute, calls: () => calls, tick };
  };

  it('should serve a fresh entry without recomputing', async () => {
    const t = setup();
    expect(await t.cache.get('k', t.compute)).toBe(1);
    t.tick(999);
    expect(await t.cache.get('k', t.compute)).toBe(1);
    expect(t.calls()).toBe(1);
  });

  it('should serve a stale entry and refresh it in the background', async () => {
    const t = setup();
    await t.cache.get('k', t.compute);
    t.tick(5000);
    expect(await t.cache.get('k', t.compute)).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(await t.cache.get('k', t.compute)).toBe(2);
    expect(t.calls()).toBe(2);
  });

  it('should recompute synchronously past the stale window', async () => {
    const t = setup();
    await t.cache.get('k', t.compute);
    t.tick(10_001);
    expect(await t.cache.get('k', t.compute)).toBe(2);
  });

  it('should share one computation between concurrent misses', async () => {
    const t = setup();
    const [a, b] = await Promise.all([t.cache.get('k', t.compute), t.cache.get('k', t.compute)]);
    expect([a, b]).toEqual([1, 1]);
    expect(t.calls()).toBe(1);
  });

  it('should not cache failures', async () => {
    const t = setup();
    await expect(t.cache.get('k', async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await t.cache.get('k', t.compute)).toBe(1);
  });

  it('should evict the oldest keys beyond maxEntries', async () => {
    const t = setup({ maxEntries: 2 });
    for (const k of ['a', 'b', 'c']) await t.cache.get(k, t.compute);
    expect(t.cache.size).toBe(2);
    expect(await t.cache.get('a', t.compute)).toBe(4);
  });

  it('should compute every time when disabled', async () => {
    const t = setup({ freshMs: 0 });
    await t.cache.get('k', t.compute);
    await t.cache.get('k', t.compute);
    expect(t.calls()).toBe(2);
  });

  describe('with a write stamp', () => {
    const stamp = (value: string, settled = true) => ({ value, settled: async () => settled });

    it('should serve an exact entry of the same stamp whatever its age', async () => {
      const t = setup();
      await t.cache.get('k', t.compute, stamp('s1'));
      t.tick(60_000);
      expect(await t.cache.get('k', t.compute, stamp('s1'))).toBe(1);
      expect(await t.cache.exact('k', t.compute, stamp('s1'))).toBe(1);
      expect(t.calls()).toBe(1);
    });

    it('should never serve an exact value computed under another stamp', async () => {
      const t = setup();
      await t.cache.exact('k', t.compute, stamp('s1'));
      expect(await t.cache.exact('k', t.compute, stamp('s2'))).toBe(2);
      expect(await t.cache.exact('k', t.compute, stamp('s2'))).toBe(2);
      expect(t.calls()).toBe(2);
    });

    it('should not keep a value computed while a writer was in flight as exact', async () => {
      const t = setup();
      expect(await t.cache.exact('k', t.compute, stamp('s1', false))).toBe(1);
      expect(await t.cache.exact('k', t.compute, stamp('s1', false))).toBe(2);
      // Facet counts: an entry that is not exact is served while it is revalidated in the background.
      expect(await t.cache.get('k', t.compute, stamp('s1', false))).toBe(3);
      expect(await t.cache.get('k', t.compute, stamp('s1'))).toBe(3);
      await new Promise((r) => setImmediate(r));
      expect(await t.cache.exact('k', t.compute, stamp('s1'))).toBe(4);
      t.tick(20_000);
      expect(await t.cache.get('k', t.compute, stamp('s2', false))).toBe(5);
    });

    it('should keep the time rules for an entry of another stamp: fresh served, stale revalidated once', async () => {
      const t = setup();
      await t.cache.get('k', t.compute, stamp('s1'));
      t.tick(10);
      expect(await t.cache.get('k', t.compute, stamp('s2'))).toBe(1);
      await new Promise((r) => setImmediate(r));
      expect(t.calls()).toBe(1);
      t.tick(1500);
      expect(await t.cache.get('k', t.compute, stamp('s2'))).toBe(1);
      expect(await t.cache.get('k', t.compute, stamp('s3'))).toBe(1);
      await new Promise((r) => setImmediate(r));
      expect(t.calls()).toBe(2);
      expect(await t.cache.get('k', t.compute, stamp('s2'))).toBe(2);
      t.tick(20_000);
      expect(await t.cache.get('k', t.compute, stamp('s4'))).toBe(3);
    });

    it('should check for writers in flight after the stamp and before computing', async () => {
      const t = setup();
      const order: string[] = [];
      const s = {
        value: 's1',
        settled: async () => {
          order.push('settled');
          return true;
        },
      };
      await t.cache.exact(
        'k',
        async () => {
          order.push('compute');
          return 7;
        },
        s,
      );
      expect(order).toEqual(['settled', 'compute']);
    });

    it('should share one exact computation between concurrent callers of one stamp', async () => {
      const t = setup();
      const [a, b] = await Promise.all([t.cache.exact('k', t.compute, stamp('s1')), t.cache.exact('k', t.compute, stamp('s1'))]);
      expect([a, b]).toEqual([1, 1]);
      expect(t.calls()).toBe(1);
    });

    it('should compute again for a caller sharing a computation that turned out not exact', async () => {
      const t = setup();
      const [a, b] = await Promise.all([t.cache.exact('k', t.compute, stamp('s1', false)), t.cache.exact('k', t.compute, stamp('s1'))]);
      expect([a, b]).toEqual([1, 2]);
    });
  });
});
