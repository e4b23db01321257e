import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash, EntryError, normalizeEntry } from './entry.js';

describe(normalizeEntry.name, () => {
  it('should keep the generic fields, drop unknown keys and turn props scalars into strings', () => {
    const doc = normalizeEntry('resourcetypes', {
      id: ' x ',
      title: { en: 'X' },
      tags: ['a'],
      props: { n: 1, b: true },
      type: 'other',
      junk: 1,
    });
    expect(doc).toEqual({ id: 'x', title: { en: 'X' }, tags: ['a'], props: { n: '1', b: 'true' } });
  });

  it('should refuse a missing id, non-2-letter title languages and non-list tags', () => {
    expect(() => normalizeEntry('licenses', { title: { en: 'x' } })).toThrow(EntryError);
    expect(() => normalizeEntry('licenses', { id: 'a', title: { eng: 'x' } })).toThrow(/pattern/);
    expect(() => normalizeEntry('licenses', { id: 'a', tags: 'x' })).toThrow(/list/);
  });

  it('should require a name for affiliations and funders, a number for awards', () => {
    expect(() => normalizeEntry('affiliations', { id: 'a' })).toThrow('Name cannot be blank.');
    expect(() => normalizeEntry('funders', { id: 'a', name: ' ' })).toThrow('Name cannot be blank.');
    expect(() => normalizeEntry('awards', { id: 'a' })).toThrow('Number cannot be blank.');
    expect(normalizeEntry('awards', { id: 'a', number: '123', funder: { id: 'f' } })).toEqual({
      id: 'a',
      number: '123',
      funder: { id: 'f' },
    });
  });

  it('should compose a person name from family and given names', () => {
    expect(normalizeEntry('names', { id: '0000-0001', given_name: 'Ada', family_name: 'Lovelace' }).name).toBe('Lovelace, Ada');
    expect(() => normalizeEntry('names', { id: 'x', given_name: 'Ada' })).toThrow(/family name/);
  });

  it('should default a subject to its English title and require a scheme', () => {
    expect(normalizeEntry('subjects', { id: 'https://x/1', scheme: 'FOS', title: { en: 'Physics' } }).subject).toBe('Physics');
    expect(() => normalizeEntry('subjects', { id: 'https://x/1', subject: 'Physics' })).toThrow(EntryError);
  });
});

describe(contentHash.name, () => {
  it('should not depend on key order', () => {
    expect(contentHash({ id: 'a', title: { en: 'x', de: 'y' } })).toBe(contentHash({ title: { de: 'y', en: 'x' }, id: 'a' }));
    expect(contentHash({ id: 'a', title: { en: 'x' } })).not.toBe(contentHash({ id: 'a', title: { en: 'z' } }));
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
  });
});
