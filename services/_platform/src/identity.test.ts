import { describe, expect, it } from 'vitest';
import { signIdentity, verifyIdentity } from './identity.js';
import { administrator, authenticatedUser, definePolicy, owner } from './policy.js';

const secret = 'a-test-secret-of-length';

describe(verifyIdentity.name, () => {
  it('should round-trip a signed identity', () => {
    expect(verifyIdentity(signIdentity({ sub: '7', roles: ['admin'] }, secret), secret)).toEqual({ sub: '7', roles: ['admin'] });
  });
  it('should refuse a tampered payload or another secret', () => {
    const v = signIdentity({ sub: '7', roles: [] }, secret);
    const forged = `${Buffer.from(JSON.stringify({ sub: '1', roles: ['admin'] })).toString('base64url')}.${v.split('.')[1]}`;
    expect(verifyIdentity(forged, secret)).toBeNull();
    expect(verifyIdentity(v, 'another-secret-value')).toBeNull();
    expect(verifyIdentity('garbage', secret)).toBeNull();
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
