import { describe, expect, it } from 'vitest';
import { RateLimiter, rateLimitHeaders } from './rate-limit.js';

describe(RateLimiter.name, () => {
  it('should allow a burst of `limit` requests, then refuse with Retry-After', () => {
    const sut = new RateLimiter({ windowMs: 60_000 });
    const t0 = 1_700_000_000_000;
    const remaining = [0, 1, 2].map(() => sut.take('k', 3, t0).remaining);
    expect(remaining).toEqual([2, 1, 0]);
    const refused = sut.take('k', 3, t0);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, limit: 3, retryAfter: 20 });
  });

  it('should refill one request per window/limit', () => {
    const sut = new RateLimiter({ windowMs: 60_000 });
    const t0 = 1_700_000_000_000;
    for (let i = 0; i < 3; i++) sut.take('k', 3, t0);
    expect(sut.take('k', 3, t0 + 19_999).allowed).toBe(false);
    const d = sut.take('k', 3, t0 + 20_000);
    expect(d).toMatchObject({ allowed: true, remaining: 0 });
    expect(sut.take('k', 3, t0 + 20_000).allowed).toBe(false);
  });

  it('should never exceed the bucket: at most limit + elapsed × limit / window requests in any interval', () => {
    const sut = new RateLimiter({ windowMs: 1000 });
    const t0 = 1_700_000_000_000;
    const allowedAt: number[] = [];
    for (let t = 0; t < 5000; t += 7) if (sut.take('k', 10, t0 + t).allowed) allowedAt.push(t);
    for (let i = 0; i < allowedAt.length; i++) {
      for (let j = i; j < allowedAt.length; j++) {
        expect(j - i + 1).toBeLessThanOrEqual(10 + ((allowedAt[j] - allowedAt[i]) * 10) / 1000 + 1e-9);
      }
    }
    // Long-run rate: the burst, then about 10 per second.
    expect(allowedAt.length).toBeGreaterThanOrEqual(10 + 48);
    expect(allowedAt.length).toBeLessThanOrEqual(10 + 50);
  });

  it('should report the reset time as the moment the allowance is full again', () => {
    const sut = new RateLimiter({ windowMs: 60_000 });
    const t0 = 1_700_000_000_000;
    expect(sut.take('k', 60, t0).reset).toBe(Math.ceil((t0 + 1000) / 1000));
    expect(sut.take('k', 60, t0).reset).toBe(Math.ceil((t0 + 2000) / 1000));
  });

  it('should keep clients apart and forget idle ones', () => {
    const sut = new RateLimiter({ windowMs: 1000 });
    const t0 = 1_700_000_000_000;
    expect(sut.take('a', 1, t0).allowed).toBe(true);
    expect(sut.take('a', 1, t0).allowed).toBe(false);
    expect(sut.take('b', 1, t0).allowed).toBe(true);
    sut.sweep(t0 + 5000);
    expect(sut.size).toBe(0);
  });

  it('should bound the number of tracked clients', () => {
    const sut = new RateLimiter({ windowMs: 60_000, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) sut.take(`k${i}`, 10, 1_700_000_000_000);
    expect(sut.size).toBeLessThanOrEqual(100);
  });
});

describe(rateLimitHeaders.name, () => {
  it('should render the X-RateLimit headers and Retry-After when refused', () => {
    expect(rateLimitHeaders({ allowed: true, limit: 5, remaining: 4, reset: 100 })).toEqual({
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '4',
      'X-RateLimit-Reset': '100',
    });
    expect(rateLimitHeaders({ allowed: false, limit: 5, remaining: 0, reset: 100, retryAfter: 3 })['Retry-After']).toBe('3');
  });
});
