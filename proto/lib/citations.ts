/**
 * The citation styles and locales records serves formatted citations in (`GET /api/records/<id>`
 * with `Accept: text/x-bibliography`, `?style=` / `?locale=`), said once: records renders them
 * (its export/bibliography.ts, with the CSL files it ships for exactly these), the web service
 * lists them in the landing page's style selector.
 *
 * When to use: any code that names, lists or offers a citation style or locale. Adding a style
 * means adding its CSL file to records' `src/export/csl/styles/` (and its file name to records'
 * `STYLE_FILES` when it differs from the id) in the same change.
 */

/** A citation style offered: its name in `?style=` and the label shown on landing pages. */
export interface CitationStyle {
  /** Name in `?style=` (the CSL repository's style id). */
  id: string;
  /** Human label (InvenioRDM's `RDM_CITATION_STYLES` labels). */
  title: string;
}

/** Styles served, in the order a style selector lists them (APA first: the default). */
export const CITATION_STYLES: readonly CitationStyle[] = [
  { id: 'apa', title: 'APA' },
  { id: 'harvard-cite-them-right', title: 'Harvard' },
  { id: 'modern-language-association', title: 'MLA' },
  { id: 'vancouver', title: 'Vancouver' },
  { id: 'chicago-author-date', title: 'Chicago (author-date)' },
  { id: 'chicago-notes-bibliography', title: 'Chicago (notes and bibliography)' },
  { id: 'ieee', title: 'IEEE' },
  { id: 'nature', title: 'Nature' },
];

/** The default style (InvenioRDM's `RDM_CITATION_STYLES_DEFAULT`). */
export const DEFAULT_CITATION_STYLE = 'apa';

/** Locales shipped (records' `csl/locales/locales-<tag>.xml`). */
export const CITATION_LOCALES: readonly string[] = [
  'en-US',
  'en-GB',
  'de-DE',
  'fr-FR',
  'es-ES',
  'it-IT',
  'nl-NL',
  'pt-PT',
  'pt-BR',
  'cs-CZ',
  'sv-SE',
  'zh-CN',
  'ja-JP',
];
