import { describe, expect, it } from 'vitest';
import { RepeatFilter } from './repeat-filter.js';

describe(RepeatFilter.name, () => {
  it('should admit the first event of a pair, drop repeats within the window, and admit again after it', () => {
    const f = new RepeatFilter(30_000);
    expect(f.admit('v1', 'r1', 0)).toBe(true);
    expect(f.admit('v1', 'r1', 29_999)).toBe(false);
    expect(f.admit('v1', 'r1', 30_000)).toBe(true);
    // The window restarts at the last admitted event, as the consumer's last counted view.
    expect(f.admit('v1', 'r1', 45_000)).toBe(false);
    expect(f.admit('v1', 'r1', 60_000)).toBe(true);
  });

  it('should keep visitors and records apart', () => {
    const f = new RepeatFilter(30_000);
    expect(f.admit('v1', 'r1', 0)).toBe(true);
    expect(f.admit('v2', 'r1', 1)).toBe(true);
    expect(f.admit('v1', 'r2', 2)).toBe(true);
    expect(f.admit('v1', 'r1', 3)).toBe(false);
  });

  it('should stay within its bound by forgetting the oldest pair (which is then merely published again)', () => {
    const f = new RepeatFilter(30_000, 2);
    f.admit('a', 'r', 0);
    f.admit('b', 'r', 1);
    f.admit('c', 'r', 2);
    expect(f.size).toBe(2);
    expect(f.admit('a', 'r', 3)).toBe(true);
    expect(f.admit('c', 'r', 4)).toBe(false);
  });
});
