import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  CLOCK_SKEW_SECONDS,
  IDENTITY_HEADER,
  IDENTITY_TTL_SECONDS,
  identityOf,
  ReplayGuard,
  signIdentity,
  verifyIdentity,
} from './identity.js';
import { administrator, authenticatedUser, definePolicy, owner } from './policy.js';

const secret = 'a-test-secret-of-length';

const bind = { method: 'GET', target: '/api/records/abc?x=1', requestId: 'r-1' };
const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);

describe(verifyIdentity.name, () => {
  it('should round-trip a signed identity bound to its request', () => {
    const v = verifyIdentity(
      signIdentity({ sub: '7', roles: ['admin'], clientIp: '203.0.113.9' }, secret, bind, T0),
      secret,
      bind,
      T0 + 1000,
    );
    expect(v).toMatchObject({ identity: { sub: '7', roles: ['admin'], clientIp: '203.0.113.9' } });
  });
  it('should refuse a tampered payload or another secret', () => {
    const v = signIdentity({ sub: '7', roles: [] }, secret, bind, T0);
    const forged = `${Buffer.from(JSON.stringify({ sub: '1', roles: ['admin'] })).toString('base64url')}.${v.split('.')[1]}`;
    expect(verifyIdentity(forged, secret, bind, T0)).toEqual({ refused: 'signature' });
    expect(verifyIdentity(v, 'another-secret-value', bind, T0)).toEqual({ refused: 'signature' });
    expect(verifyIdentity('garbage', secret, bind, T0)).toEqual({ refused: 'malformed' });
  });
  it('should refuse a header past its lifetime (clock skew allowed)', () => {
    const v = signIdentity({ sub: '7', roles: [] }, secret, bind, T0);
    const ttl = (IDENTITY_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000;
    expect(verifyIdentity(v, secret, bind, T0 + ttl)).toHaveProperty('identity');
    expect(verifyIdentity(v, secret, bind, T0 + ttl + 1000)).toEqual({ refused: 'expired' });
    // Issued in the future beyond the skew: refused too.
    expect(verifyIdentity(v, secret, bind, T0 - (CLOCK_SKEW_SECONDS + 1) * 1000)).toEqual({ refused: 'expired' });
  });
  it('should refuse a header presented with another method, target or request id', () => {
    const v = signIdentity({ sub: '7', roles: [] }, secret, bind, T0);
    expect(verifyIdentity(v, secret, { ...bind, method: 'POST' }, T0)).toEqual({ refused: 'unbound' });
    expect(verifyIdentity(v, secret, { ...bind, target: '/api/records/other' }, T0)).toEqual({ refused: 'unbound' });
    expect(verifyIdentity(v, secret, { ...bind, target: '/api/records/abc?x=2' }, T0)).toEqual({ refused: 'unbound' });
    expect(verifyIdentity(v, secret, { ...bind, requestId: 'r-2' }, T0)).toEqual({ refused: 'unbound' });
  });
  it('should refuse a validly signed payload without lifetime or nonce (the old format)', () => {
    const payload = Buffer.from(JSON.stringify({ sub: '7', roles: [], iat: T0 / 1000 })).toString('base64url');
    const sig = createHmac('sha256', secret).update(payload).digest('base64url');
    expect(verifyIdentity(`${payload}.${sig}`, secret, bind, T0)).toEqual({ refused: 'unbound' });
  });
});

describe(identityOf.name, () => {
  const req = (headers: Record<string, string>, method = bind.method, url = bind.target) =>
    ({ method, url, headers: { 'x-request-id': bind.requestId, ...headers } }) as unknown as IncomingMessage;
  it('should take a header once per process and refuse its replay', () => {
    const guard = new ReplayGuard();
    const header = signIdentity({ sub: '7', roles: [] }, secret, bind);
    const first = req({ [IDENTITY_HEADER]: header });
    expect(identityOf(first, secret, guard)).toMatchObject({ sub: '7' });
    // The same request looked at twice (a fast path handing over to koa) is not a replay.
    expect(identityOf(first, secret, guard)).toMatchObject({ sub: '7' });
    expect(identityOf(req({ [IDENTITY_HEADER]: header }), secret, guard)).toBe('replayed');
  });
  it('should take no header as anonymous and a refused one as its reason', () => {
    expect(identityOf(req({}), secret, new ReplayGuard())).toEqual({ sub: null, roles: [] });
    expect(identityOf(req({ [IDENTITY_HEADER]: 'x.y' }), secret, new ReplayGuard())).toBe('signature');
  });
});

describe(ReplayGuard.name, () => {
  it('should remember a nonce for at least the lifetime of its header, and forget it after two windows', () => {
    const g = new ReplayGuard(0, 10);
    expect(g.firstUse('a', 0)).toBe(true);
    expect(g.firstUse('a', 9_999)).toBe(false);
    expect(g.firstUse('b', 10_000)).toBe(true); // swap: 'a' moves to the previous generation
    expect(g.firstUse('a', 19_999)).toBe(false);
    expect(g.firstUse('c', 20_000)).toBe(true); // swap: 'a' forgotten ('b' kept)
    expect(g.firstUse('b', 20_001)).toBe(false);
    expect(g.firstUse('a', 20_002)).toBe(true);
  });
});

describe(definePolicy.name, () => {
  const sut = definePolicy<'read' | 'create' | 'manage', { owner: string }>({
    read: [authenticatedUser],
    create: [authenticatedUser],
    manage: [owner((c) => c.owner)],
  });
  it('should grant by generator', () => {
    expect(sut.can('read', { sub: '1', roles: [] })).toBe(true);
    expect(sut.can('read', { sub: null, roles: [] })).toBe(false);
    expect(sut.can('manage', { sub: '1', roles: [] }, { owner: '1' })).toBe(true);
    expect(sut.can('manage', { sub: '2', roles: [] }, { owner: '1' })).toBe(false);
  });
  it('should always grant administrators', () => {
    expect(sut.can('manage', { sub: '9', roles: ['admin'] }, { owner: '1' })).toBe(true);
    expect(administrator({ sub: '9', roles: ['admin'] }, undefined)).toBe(true);
  });
  it('should throw 403 Permission denied.', () => {
    expect(() => sut.require('create', { sub: null, roles: [] })).toThrow('Permission denied.');
  });
});
