import { describe, expect, it } from 'vitest';
import { checksum, decodeId, encodeId, ID_RE, isValidId, newId } from './ids.js';

describe(newId.name, () => {
  it('should produce ids in the xxxxx-xxxNN form with a valid checksum', () => {
    for (let i = 0; i < 500; i++) {
      const sut = newId();
      expect(sut).toMatch(ID_RE);
      expect(isValidId(sut)).toBe(true);
    }
  });

  it('should produce distinct ids', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => newId()));
    expect(seen.size).toBe(1000);
  });
});

describe(encodeId.name, () => {
  it('should zero-pad and append the decimal checksum', () => {
    expect(encodeId(0)).toBe('00000-00098');
    expect(encodeId(1)).toBe(`00000-001${checksum(1)}`.slice(0, 11));
    expect(checksum(1)).toBe('95');
    expect(encodeId(1)).toBe('00000-00195');
  });

  it('should round-trip through decodeId', () => {
    for (const n of [0, 1, 31, 32, 1023, 123456789, 32 ** 8 - 1]) {
      expect(decodeId(encodeId(n))).toBe(n);
    }
  });

  it('should match a known InvenioRDM id', () => {
    // n = 32^8 - 1 → "zzzzzzzz"; 100*n mod 97 computed independently.
    const n = 32 ** 8 - 1;
    const c = String(98 - ((100 * n) % 97)).padStart(2, '0');
    expect(encodeId(n)).toBe(`zzzzz-zzz${c}`);
  });

  it('should refuse numbers out of range', () => {
    expect(() => encodeId(-1)).toThrow(RangeError);
    expect(() => encodeId(32 ** 8)).toThrow(RangeError);
  });
});

describe(isValidId.name, () => {
  it('should reject bad checksums, letters i l o u and wrong layouts', () => {
    const id = encodeId(987654321);
    const bad = `${id.slice(0, -2)}${id.slice(-2) === '02' ? '03' : '02'}`;
    expect(isValidId(bad)).toBe(false);
    expect(isValidId('abcde-fgi12')).toBe(false);
    expect(isValidId('ABCDE-FGH12')).toBe(false);
    expect(isValidId('abcdefgh12')).toBe(false);
    expect(checksum(2)).toMatch(/^\d\d$/);
  });
});
