import { describe, expect, it } from 'vitest';
import { generateToken, hashToken, isTokenCandidate } from './tokens.js';

describe(generateToken.name, () => {
  it('should produce a 256-bit base64url token and its sha256 hex hash', () => {
    const sut = generateToken();
    expect(sut.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(sut.token, 'base64url')).toHaveLength(32);
    expect(sut.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(sut.hash).toBe(hashToken(sut.token));
    expect(sut.hash).not.toContain(sut.token);
  });

  it('should never repeat a token', () => {
    const seen = new Set(Array.from({ length: 200 }, () => generateToken().token));
    expect(seen.size).toBe(200);
  });
});

describe(isTokenCandidate.name, () => {
  it('should refuse empty, non-string, spaced and over-long values', () => {
    expect(isTokenCandidate('abc')).toBe(true);
    expect(isTokenCandidate('')).toBe(false);
    expect(isTokenCandidate(42)).toBe(false);
    expect(isTokenCandidate('a b')).toBe(false);
    expect(isTokenCandidate('x'.repeat(513))).toBe(false);
  });
});
