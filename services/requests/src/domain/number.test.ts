import { describe, expect, it } from 'vitest';
import { decodeNumber, encodeNumber } from './number.js';

describe(encodeNumber.name, () => {
  it('should render lowercase Crockford base32 as InvenioRDM', () => {
    expect([1, 9, 10, 17, 18, 31, 32, 1024].map(encodeNumber)).toEqual(['1', '9', 'a', 'h', 'j', 'z', '10', '100']);
  });
  it('should round-trip and refuse invalid strings', () => {
    for (const n of [1, 33, 123456789]) expect(decodeNumber(encodeNumber(n))).toBe(n);
    expect(decodeNumber('U')).toBeUndefined();
    expect(decodeNumber('1O')).toBe(32);
  });
});
