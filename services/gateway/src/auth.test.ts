import { describe, expect, it, vi } from 'vitest';
import { TokenCache, type VerifiedToken, extractToken, tokenKey } from './auth.js';

const good: VerifiedToken = { userId: '7', roles: ['admin'], tokenId: 't1' };

function makeCache(answers: Record<string, VerifiedToken | null>, ttlMs = 5000, negativeTtlMs = 1500) {
  let now = 1_000_000;
  const verify = vi.fn(async (token: string) => {
    if (token === 'boom') throw new Error('rpc down');
    return answers[token] ?? null;
  });
  const sut = new TokenCache({ verify, ttlMs, negativeTtlMs, max: 3, now: () => now });
  return {
    sut,
    verify,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe(TokenCache.name, () => {
  it('should resolve a valid token to its identity and cache it for the TTL', async () => {
    const { sut, verify, advance } = makeCache({ abc: good });
    expect(await sut.resolve('abc')).toEqual({ identity: { sub: '7', roles: ['admin'] }, tokenId: 't1', rateKey: 't:t1' });
    await sut.resolve('abc');
    expect(verify).toHaveBeenCalledTimes(1);
    advance(5001);
    await sut.resolve('abc');
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('should cache unknown tokens for the shorter negative TTL', async () => {
    const { sut, verify, advance } = makeCache({});
    expect(await sut.resolve('nope')).toBeNull();
    advance(1000);
    expect(await sut.resolve('nope')).toBeNull();
    expect(verify).toHaveBeenCalledTimes(1);
    advance(600);
    await sut.resolve('nope');
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('should share one look-up between concurrent requests of one token', async () => {
    const { sut, verify } = makeCache({ abc: good });
    await Promise.all([sut.resolve('abc'), sut.resolve('abc'), sut.resolve('abc')]);
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('should propagate a users outage and not cache it', async () => {
    const { sut, verify } = makeCache({});
    await expect(sut.resolve('boom')).rejects.toThrow('rpc down');
    await expect(sut.resolve('boom')).rejects.toThrow('rpc down');
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('should drop entries of a revoked token or a deactivated user at once', async () => {
    const { sut, verify } = makeCache({
      abc: good,
      def: { userId: '7', roles: [], tokenId: 't2' },
      ghi: { userId: '8', roles: [], tokenId: 't3' },
    });
    await Promise.all(['abc', 'def', 'ghi'].map((t) => sut.resolve(t)));
    sut.invalidateToken('t1');
    expect(sut.size).toBe(2);
    sut.invalidateUser('7');
    expect(sut.size).toBe(1);
    await sut.resolve('ghi');
    expect(verify).toHaveBeenCalledTimes(3);
  });

  it('should not cache an answer that raced with an invalidation', async () => {
    let release!: (v: VerifiedToken) => void;
    const verify = vi.fn(
      () =>
        new Promise<VerifiedToken>((r) => {
          release = r;
        }),
    );
    const sut = new TokenCache({ verify, ttlMs: 5000, negativeTtlMs: 1000, max: 10 });
    const p = sut.resolve('abc');
    sut.invalidateToken('t1');
    release(good);
    await p;
    expect(sut.size).toBe(0);
  });

  it('should evict the least recently used entry beyond max', async () => {
    const { sut, verify } = makeCache({ a: good, b: good, c: good, d: good });
    for (const t of ['a', 'b', 'c']) await sut.resolve(t);
    await sut.resolve('a'); // a becomes most recent
    await sut.resolve('d'); // evicts b
    expect(sut.size).toBe(3);
    verify.mockClear();
    await sut.resolve('a');
    expect(verify).not.toHaveBeenCalled();
    await sut.resolve('b');
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('should answer a cached token synchronously with peek, and undefined when not cached or expired', async () => {
    const { sut, advance } = makeCache({ abc: good, bad: null });
    expect(sut.peek(tokenKey('abc'))).toBeUndefined();
    await sut.resolve('abc');
    await sut.resolve('bad');
    expect(sut.peek(tokenKey('abc'))?.tokenId).toBe('t1');
    expect(sut.peek(tokenKey('bad'))).toBeNull();
    advance(5001);
    expect(sut.peek(tokenKey('abc'))).toBeUndefined();
  });

  it('should key entries by a hash, never by the token', () => {
    expect(tokenKey('secret-token')).not.toContain('secret');
    expect(tokenKey('secret-token')).toHaveLength(43);
  });
});

describe(extractToken.name, () => {
  it('should read a bearer token, case-insensitively', () => {
    expect(extractToken('Bearer abc', '')).toBe('abc');
    expect(extractToken('bearer   abc ', '')).toBe('abc');
  });
  it('should fall back to access_token in the query string', () => {
    expect(extractToken(undefined, 'q=x&access_token=tok%2B1')).toBe('tok+1');
    expect(extractToken('Basic dXNlcjpwYXNz', 'access_token=qq')).toBe('qq');
  });
  it('should prefer the header and ignore other schemes and empty values', () => {
    expect(extractToken('Bearer h', 'access_token=q')).toBe('h');
    expect(extractToken('Basic dXNlcjpwYXNz', '')).toBeUndefined();
    expect(extractToken(undefined, 'access_token=')).toBeUndefined();
    expect(extractToken(undefined, 'my_access_token=1')).toBeUndefined();
  });
});
