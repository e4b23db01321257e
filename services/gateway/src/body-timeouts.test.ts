import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BodyClock, type BodyTimeoutReason, type BodyTimeouts } from './body-timeouts.js';

const limits: BodyTimeouts = { idleMs: 10_000, minRate: 500, windowMs: 20_000, totalMs: 60_000 };

describe(BodyClock.name, () => {
  let cut: BodyTimeoutReason[];
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    cut = [];
  });
  afterEach(() => vi.useRealTimers());

  /** Send `bytes` every `everyMs` for `forMs`. */
  function trickle(sut: BodyClock, bytes: number, everyMs: number, forMs: number): void {
    for (let t = 0; t < forMs; t += everyMs) {
      vi.advanceTimersByTime(everyMs);
      if (cut.length > 0) return;
      sut.bytes(bytes);
    }
  }

  it('should cut a body that stops sending after the idle time', () => {
    const sut = new BodyClock(limits, (r) => cut.push(r), false);
    sut.bytes(100_000);
    vi.advanceTimersByTime(9_999);
    expect(cut).toEqual([]);
    vi.advanceTimersByTime(2);
    expect(cut).toEqual(['idle']);
  });

  it('should cut a byte every 5 s (no gap long enough for the idle time) at the end of the first window', () => {
    const sut = new BodyClock(limits, (r) => cut.push(r), true);
    trickle(sut, 1, 5_000, 60_000);
    expect(cut).toEqual(['rate']);
    expect(performance.now()).toBeLessThanOrEqual(20_001);
  });

  it('should let a steady body above the minimum rate run as long as it takes on an upload route', () => {
    const sut = new BodyClock(limits, (r) => cut.push(r), true);
    trickle(sut, 64 * 1024, 1_000, 300_000);
    expect(cut).toEqual([]);
    sut.stop();
  });

  it('should bound the whole body on other routes, however steady', () => {
    const sut = new BodyClock(limits, (r) => cut.push(r), false);
    trickle(sut, 64 * 1024, 1_000, 120_000);
    expect(cut).toEqual(['total']);
  });

  it('should not count time the gateway holds the client back', () => {
    const sut = new BodyClock(limits, (r) => cut.push(r), true);
    sut.bytes(20_000);
    sut.pause();
    vi.advanceTimersByTime(120_000);
    expect(cut).toEqual([]);
    sut.resume();
    sut.bytes(20_000);
    vi.advanceTimersByTime(9_000);
    expect(cut).toEqual([]);
    vi.advanceTimersByTime(1_001);
    expect(cut).toEqual(['idle']);
  });

  it('should fire nothing once stopped, and nothing for switched-off bounds', () => {
    const sut = new BodyClock(limits, (r) => cut.push(r), false);
    sut.stop();
    vi.advanceTimersByTime(1_000_000);
    const off = new BodyClock({ idleMs: 0, minRate: 0, windowMs: 20_000, totalMs: 0 }, (r) => cut.push(r), false);
    vi.advanceTimersByTime(1_000_000);
    off.stop();
    expect(cut).toEqual([]);
  });
});
