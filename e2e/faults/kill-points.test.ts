/**
 * The bar of the fault trials (support/kill-points.ts), without a stack: a point never reached or
 * always answered before the kill fails the run; misses are tried again, within the bound.
 */
import { describe, expect, it } from 'vitest';
import { KillPointTally } from './support/kill-points.js';

/** Drive one point as review-saga.test.ts does: attempt while `more`, each outcome from `outcomes`. */
function drive(t: KillPointTally, point: string, outcomes: boolean[]): number {
  let i = 0;
  while (t.more(point)) t.record(point, outcomes[i++] ?? false);
  return i;
}

describe('kill point tally', () => {
  it('a point never reached fails the run, after the bounded number of attempts', () => {
    const t = new KillPointTally(3, 9);
    expect(drive(t, 'records@publish-commit', [])).toBe(9);
    expect(t.shortfalls(['records@publish-commit'])).toEqual(['records@publish-commit: hit 0 of 9 attempt(s) (needs 3)']);
  });

  it('a point hit fewer times than the bar fails; one hit the bar passes, misses tried again', () => {
    const t = new KillPointTally(3, 9);
    expect(drive(t, 'a', [true, false, true, false, false, true])).toBe(6);
    expect(drive(t, 'b', [false, true, false, false, false, false, false, false, true])).toBe(9);
    expect(drive(t, 'c', [true, true, true, true])).toBe(3);
    expect(t.shortfalls(['a', 'b', 'c'])).toEqual(['b: hit 2 of 9 attempt(s) (needs 3)']);
    expect(t.summary('a')).toBe('hit 3 of 6 attempt(s) (needs 3)');
  });

  it('a point not attempted at all is short too', () => {
    expect(new KillPointTally(1, 1).shortfalls(['never tried'])).toEqual(['never tried: hit 0 of 0 attempt(s) (needs 1)']);
  });

  it('refuses a bar that is zero or cannot be met', () => {
    expect(() => new KillPointTally(0, 5)).toThrow(/at least 1/);
    expect(() => new KillPointTally(4, 3)).toThrow(/could never be met/);
  });
});
