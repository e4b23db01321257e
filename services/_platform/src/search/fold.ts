/**
 * Text folding shared by the query side (`compileToSql`) and the document side (every service that
 * writes a search document for the postgres engine). Both sides must fold the same way, or `romans`
 * stops matching `Römäns`. It mirrors InvenioRDM's analyzer (lowercase + asciifolding) without needing
 * the `unaccent` extension: documents are stored pre-folded, queries are folded in JS.
 */

const SPECIAL: Record<string, string> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  Æ: 'ae',
  œ: 'oe',
  Œ: 'oe',
  ø: 'o',
  Ø: 'o',
  đ: 'd',
  Đ: 'd',
  ð: 'd',
  Ð: 'd',
  ł: 'l',
  Ł: 'l',
  þ: 'th',
  Þ: 'th',
  ı: 'i',
  ħ: 'h',
  Ħ: 'h',
  ŧ: 't',
  Ŧ: 't',
};
const SPECIAL_RE = new RegExp(`[${Object.keys(SPECIAL).join('')}]`, 'gu');

/** Lowercases and strips accents (`Römäns Straße` → `romans strasse`): NFKD, drop marks, fold ß/æ/ø/ł…. */
export function foldText(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(SPECIAL_RE, (c) => SPECIAL[c])
    .toLowerCase();
}

/**
 * SQL for the document side of the default full-text target: `to_tsvector('<config>', ?)` bound to the
 * folded, newline-joined texts. Use it in the repo when writing a row, e.g.
 * `search_vector: knex.raw(v.sql, v.bindings)`; null/undefined/empty entries are skipped.
 */
export function searchVectorSql(texts: Array<string | null | undefined>, config = 'simple'): { sql: string; bindings: string[] } {
  return { sql: `to_tsvector(${regconfigLiteral(config)}, ?)`, bindings: [foldText(texts.filter((t) => t).join('\n'))] };
}

/** A validated `'name'::regconfig` literal (configuration names are code, never user input). */
export function regconfigLiteral(config: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(config)) {
    throw new Error(`Invalid text search configuration name: ${config}`);
  }
  return `'${config}'::regconfig`;
}
