import { describe, expect, it } from 'vitest';
import { detectSchemes, isDoi, isIsni, isOrcid, normalizeIdentifier, VALIDATORS } from './identifiers.js';

describe('identifiers', () => {
  it('should validate DOIs in their usual forms', () => {
    expect(isDoi('10.1234/abcde-fgh12')).toBe(true);
    expect(isDoi('doi:10.1234/x')).toBe(true);
    expect(isDoi('https://doi.org/10.1234/x')).toBe(true);
    expect(isDoi('10.12/x')).toBe(false);
    expect(isDoi('not a doi')).toBe(false);
    expect(normalizeIdentifier('https://doi.org/10.1234/X', 'doi')).toBe('10.1234/X');
  });

  it('should check ORCID and ISNI check digits', () => {
    expect(isOrcid('0000-0002-1825-0097')).toBe(true);
    expect(isOrcid('0000-0002-1825-0098')).toBe(false);
    expect(isOrcid('https://orcid.org/0000-0002-1694-233X')).toBe(true);
    expect(normalizeIdentifier('https://orcid.org/0000-0002-1694-233x', 'orcid')).toBe('0000-0002-1694-233X');
    expect(isIsni('0000 0001 2156 142X')).toBe(true);
    expect(isIsni('0000 0001 2156 1421')).toBe(false);
  });

  it('should validate ror, url, isbn and issn', () => {
    expect(VALIDATORS.ror('01ggx4157')).toBe(true);
    expect(VALIDATORS.ror('https://ror.org/01ggx4157')).toBe(true);
    expect(VALIDATORS.url('https://example.org/a?b=c')).toBe(true);
    expect(VALIDATORS.url('example.org')).toBe(false);
    expect(VALIDATORS.isbn('978-3-16-148410-0')).toBe(true);
    expect(VALIDATORS.isbn('0-306-40615-2')).toBe(true);
    expect(VALIDATORS.isbn('0-306-40615-3')).toBe(false);
    expect(VALIDATORS.issn('0317-8471')).toBe(true);
    expect(VALIDATORS.issn('0317-8472')).toBe(false);
  });

  it('should detect the scheme of an identifier sent without one', () => {
    expect(detectSchemes('10.1234/foo')[0]).toBe('doi');
    expect(detectSchemes('https://example.org')).toEqual(['url']);
    expect(detectSchemes('0000-0002-1825-0097')[0]).toBe('orcid');
    expect(detectSchemes('nothing known')).toEqual([]);
  });
});
