import { beforeAll, describe, expect, it } from 'vitest';
import {
  CITATION_LOCALES,
  CITATION_STYLES,
  citationParams,
  formatCitation,
  MAX_NAMES,
  resolveCitationLocale,
  styleDefaultLocale,
} from './bibliography.js';
import { cslJson } from './citation.js';
import { describedByTypes, EXPORT_FORMATS, formatByName, negotiateFormat } from './formats.js';
import { fixtureContext, fixtureRecord } from './test-fixture.js';

/** A dataset with a DOI, two people, a version: the shape every style documents. */
function dataset(): Record<string, any> {
  return {
    id: 'abcde-fgh12',
    type: 'dataset',
    title: 'Ocean temperatures',
    author: [
      { family: 'Brown', given: 'Troy' },
      { family: 'Smith', given: 'Jane Ann' },
    ],
    issued: { 'date-parts': [[2024, 3, 5]] },
    publisher: 'Zenodo',
    DOI: '10.5281/zenodo.123',
    URL: 'https://doi.org/10.5281/zenodo.123',
    version: 'v1',
    abstract: 'Not printed.',
  };
}

// Each style's documented shape of a dataset (the official CSL files rendered by citeproc-js).
const EXPECTED: Record<string, string> = {
  apa: 'Brown, T., & Smith, J. A. (2024). Ocean temperatures (Version v1) [Dataset]. Zenodo. https://doi.org/10.5281/zenodo.123',
  'harvard-cite-them-right':
    'Brown, T. and Smith, J.A. (2024) “Ocean temperatures.” Zenodo. Available at: https://doi.org/10.5281/zenodo.123.',
  'modern-language-association':
    'Brown, Troy, and Jane Ann Smith. “Ocean Temperatures.” Version v1, Zenodo, 5 Mar. 2024, https://doi.org/10.5281/zenodo.123.',
  vancouver:
    '1. Brown T, Smith JA. Ocean temperatures [Internet]. Zenodo; 2024. Available from: https://doi.org/10.5281/zenodo.123 doi:10.5281/zenodo.123',
  'chicago-author-date':
    'Brown, Troy, and Jane Ann Smith. 2024. “Ocean Temperatures.” Version v1. Zenodo, March 5. https://doi.org/10.5281/zenodo.123.',
  'chicago-notes-bibliography':
    'Brown, Troy, and Jane Ann Smith. “Ocean Temperatures.” Version v1. Zenodo, March 5, 2024. https://doi.org/10.5281/zenodo.123.',
  ieee: '[1] T. Brown and J. A. Smith, “Ocean temperatures.” Zenodo, Mar. 05, 2024. doi: 10.5281/zenodo.123.',
  nature: '1. Brown, T. & Smith, J. A. Ocean temperatures. Zenodo https://doi.org/10.5281/zenodo.123 (2024).',
};

// Compiling a style's engine takes seconds on a loaded machine (once per style and locale, then
// reused): the engines are built once here, each within a generous bound.
const COMPILE_MS = 120_000;

describe(formatCitation.name, () => {
  beforeAll(() => {
    for (const s of CITATION_STYLES) formatCitation({ ...dataset(), title: 'warm-up' }, s.id);
    for (const l of ['de-DE', 'fr-FR', 'en-US', 'en-GB']) formatCitation({ ...dataset(), title: 'warm-up' }, 'apa', l);
  }, COMPILE_MS);

  it.each(CITATION_STYLES.map((s) => s.id))('should render a dataset in %s as the style documents it', (style) => {
    expect(formatCitation(dataset(), style)).toBe(EXPECTED[style]);
  });

  it('should offer at least the styles InvenioRDM and the issue name', () => {
    const ids = CITATION_STYLES.map((s) => s.id);
    for (const s of [
      'apa',
      'harvard-cite-them-right',
      'chicago-author-date',
      'ieee',
      'vancouver',
      'modern-language-association',
      'nature',
    ]) {
      expect(ids).toContain(s);
    }
    expect(CITATION_LOCALES).toEqual(expect.arrayContaining(['en-US', 'en-GB', 'de-DE', 'fr-FR']));
  });

  it(
    'should render the terms of the locale asked',
    () => {
      expect(formatCitation(dataset(), 'apa', 'de-DE')).toContain('[Datensatz]');
      expect(formatCitation(dataset(), 'apa', 'fr-FR')).toContain('[Jeu de données]');
      expect(formatCitation(dataset(), 'nature', 'en-US')).toBe(EXPECTED.nature);
    },
    COMPILE_MS,
  );

  it(
    "should use the style's default-locale without ?locale= (nature: en-GB)",
    () => {
      expect(styleDefaultLocale('nature')).toBe('en-GB');
      expect(styleDefaultLocale('apa')).toBe('en-US');
      const item = { ...dataset(), title: 'Ocean "warm" temperatures', type: 'article-journal', 'container-title': 'Sea' };
      expect(formatCitation(item, 'harvard-cite-them-right', 'en-GB')).toContain('‘Ocean');
      expect(formatCitation(item, 'harvard-cite-them-right')).toContain('“Ocean');
    },
    COMPILE_MS,
  );

  it('should never answer an earlier record for another one (engines are reused)', () => {
    const a = formatCitation(dataset(), 'apa');
    const b = formatCitation({ ...dataset(), title: 'Sea levels', author: [{ family: 'Ng', given: 'Li' }] }, 'apa');
    expect(a).toContain('Ocean temperatures');
    expect(b).toMatch(/^Ng, L\. \(2024\)\. Sea levels/);
    expect(formatCitation(dataset(), 'apa')).toBe(a);
  });

  it('should render a record with 10,000 creators in bounded time (first names, ellipsis, last name)', () => {
    const many = { ...dataset(), author: Array.from({ length: 10_000 }, (_, i) => ({ family: `Fam${i}`, given: 'Given' })) };
    formatCitation({ ...many, title: 'warm-up' }, 'apa');
    const started = performance.now();
    const out = formatCitation(many, 'apa');
    const elapsed = performance.now() - started;
    expect(out).toMatch(/^Fam0, G\., Fam1, G\., .*Fam18, G\., … Fam9999, G\. \(2024\)\. Ocean temperatures/);
    expect(out).not.toContain('Fam19,');
    expect(out.length).toBeLessThan(1000);
    expect(elapsed).toBeLessThan(2000);
    expect(MAX_NAMES).toBeLessThan(100);
  });

  it('should render the CSL JSON export of a record (the project fixture)', () => {
    const out = formatCitation(cslJson(fixtureRecord(), fixtureContext()), 'apa');
    // An organisation as second author: citeproc-js puts no comma before the ampersand.
    expect(out).toMatch(/^Brown, T\. & Mars Institute\. \(2020\)\. A Romans story & <friends>/);
    expect(out).toContain('https://doi.org/10.1234/abcde-fgh12');
  });
});

describe(citationParams.name, () => {
  it('should default to APA and accept renamed and case-variant names', () => {
    expect(citationParams({})).toEqual({ style: 'apa', locale: undefined });
    expect(citationParams({ style: 'IEEE' }).style).toBe('ieee');
    expect(citationParams({ style: 'harvard1' }).style).toBe('harvard-cite-them-right');
    expect(citationParams({ style: 'chicago-fullnote-bibliography' }).style).toBe('chicago-notes-bibliography');
  });

  it('should refuse an unknown style with a 400 listing every style', () => {
    let err: any;
    try {
      citationParams({ style: 'no-such-style' });
    } catch (e) {
      err = e;
    }
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^Citation string style not found\./);
    for (const s of CITATION_STYLES) expect(err.message).toContain(s.id);
    expect(err.fieldErrors[0].field).toBe('style');
    expect(() => citationParams({ style: ['apa', 'ieee'] })).toThrow(/style not found/);
  });

  it('should fall back for a locale not shipped and refuse what is not a language tag', () => {
    expect(resolveCitationLocale('de')).toBe('de-DE');
    expect(resolveCitationLocale('pt_br')).toBe('pt-BR');
    expect(resolveCitationLocale('en-AU')).toBe('en-US');
    expect(resolveCitationLocale('fr-CA')).toBe('fr-FR');
    expect(resolveCitationLocale('xx-YY')).toBe('en-US');
    expect(() => resolveCitationLocale('../../etc/passwd')).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => resolveCitationLocale('<script>')).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('text/x-bibliography format', () => {
  const accepts = (offer: string) => (types: string[]) => (types.includes(offer) ? offer : false);

  it('should be negotiated by Accept and render with ?style=', { timeout: COMPILE_MS }, () => {
    const f = negotiateFormat('text/x-bibliography', undefined, accepts('text/x-bibliography'));
    expect(f.contentType).toBe('text/x-bibliography; charset=utf-8');
    const ctx = { ...fixtureContext(), citation: { style: 'ieee' } };
    expect(f.render(fixtureRecord(), ctx)).toMatch(
      /^\[1\] T\. Brown and Mars Institute, A Romans story & <friends>\. InvenioRDM, 2020\. doi: 10\.1234\/abcde-fgh12\.$/,
    );
    expect(f.render(fixtureRecord(), fixtureContext())).toMatch(/^Brown, T\. & Mars Institute\. \(2020\)/);
  });

  it('should be served by Accept only, as InvenioRDM does (no /export/<name>, no ?format=)', () => {
    expect(formatByName('citation')).toBeUndefined();
    expect(formatByName('text/x-bibliography')).toBeUndefined();
    expect(() => negotiateFormat(undefined, 'text/x-bibliography', accepts('x'))).toThrow(expect.objectContaining({ status: 406 }));
  });

  it('should not be announced as metadata in signposting', () => {
    expect(EXPORT_FORMATS.map((f) => f.mediaType)).toContain('text/x-bibliography');
    expect(describedByTypes()).not.toContain('text/x-bibliography');
  });
});
