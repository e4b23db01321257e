import { describe, expect, it } from 'vitest';
import { boundVectorTexts, cutUtf8 } from './vector-bound.js';

describe(boundVectorTexts.name, () => {
  it('should return small documents unchanged', () => {
    const texts = ['Römäns', 'A title'];
    expect(boundVectorTexts(texts)).toBe(texts);
  });

  it('should keep the folded texts in order within the byte bound, cutting the last one', () => {
    const sut = boundVectorTexts(['Ärger', 'b'.repeat(50), 'c'.repeat(50)], 60);
    expect(sut[0]).toBe('arger');
    expect(sut[1]).toBe('b'.repeat(50));
    expect(sut).toHaveLength(3);
    expect(Buffer.byteLength(sut.join('\n'))).toBeLessThanOrEqual(60);
  });

  it('should bound by folded bytes, not by characters (U+FDFD folds to 18 characters)', () => {
    const sut = boundVectorTexts(['\uFDFD'.repeat(1000)], 1000);
    expect(Buffer.byteLength(sut.join('\n'))).toBeLessThanOrEqual(1000);
  });
});

describe(cutUtf8.name, () => {
  it('should never cut inside a character', () => {
    expect(cutUtf8('aé€😀', 1)).toBe('a');
    expect(cutUtf8('aé€😀', 2)).toBe('a');
    expect(cutUtf8('aé€😀', 3)).toBe('aé');
    expect(cutUtf8('aé€😀', 9)).toBe('aé€');
    expect(cutUtf8('aé€😀', 10)).toBe('aé€😀');
  });
});
