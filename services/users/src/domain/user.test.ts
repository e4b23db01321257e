import { describe, expect, it } from 'vitest';
import { emailDomain, isEmail, isUserId, isUsername } from './user.js';

describe(isUserId.name, () => {
  it('should accept canonical positive integers only', () => {
    expect(isUserId('1')).toBe(true);
    expect(isUserId('123456789012345678')).toBe(true);
    for (const bad of ['abc', '0', '01', '-1', '1.5', '', ' 1', '1234567890123456789', '1e3']) expect(isUserId(bad)).toBe(false);
    expect(isUserId(1 as unknown)).toBe(false);
  });
});

describe(isEmail.name, () => {
  it('should accept ordinary addresses and refuse malformed ones', () => {
    expect(isEmail('a@b.co')).toBe(true);
    for (const bad of ['a', 'a@b', '@b.co', 'a b@c.d', 'a@@b.co']) expect(isEmail(bad)).toBe(false);
  });
});

describe(isUsername.name, () => {
  it('should follow InvenioRDM default username rule', () => {
    expect(isUsername('jose')).toBe(true);
    expect(isUsername('j_b-1')).toBe(true);
    for (const bad of ['jo', '1abc', 'a b c', 'ab!c']) expect(isUsername(bad)).toBe(false);
  });
});

describe(emailDomain.name, () => {
  it('should lower-case the domain', () => {
    expect(emailDomain('X@CERN.CH')).toBe('cern.ch');
  });
});
