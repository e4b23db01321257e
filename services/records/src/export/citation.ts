/**
 * Citation formats: CSL JSON (`application/vnd.citationstyles.csl+json`, CSL-data item with the
 * resource type's `props.csl` as `type`) and BibTeX (`application/x-bibtex`), after InvenioRDM's
 * CSLJSONSchema and BibTexSchema: entry type by resource type (article, book, inbook,
 * inproceedings, phdthesis, techreport, software, dataset, else misc), key
 * `<first creator family>_<year>_<id>`, organizations braced so BibTeX keeps them whole, every value
 * LaTeX-escaped (parsed back by a BibTeX parser in the tests).
 */
import type { ExportContext, RecordJson } from './util.js';
import * as util from './util.js';

function cslName(c: Record<string, any>): Record<string, string> | undefined {
  const p = c.person_or_org ?? {};
  if (p.type === 'organizational' || (!p.family_name && p.name)) return p.name ? { literal: String(p.name) } : undefined;
  if (!p.family_name) return undefined;
  return p.given_name ? { family: String(p.family_name), given: String(p.given_name) } : { family: String(p.family_name) };
}

/** The CSL JSON item of a record. */
export function cslJson(r: RecordJson, ctx: ExportContext): Record<string, any> {
  const m = r.metadata ?? {};
  const csl = ctx.props('resourcetypes', util.resourceTypeOf(r)?.id).csl;
  const out: Record<string, any> = { id: r.id, type: typeof csl === 'string' && csl ? csl : 'article', title: util.plain(m.title) };
  const authors = util.list(m.creators).map(cslName).filter(Boolean);
  if (authors.length) out.author = authors;
  const editors = util.list(m.contributors).map(cslName).filter(Boolean);
  if (editors.length) out.editor = editors;
  const parts = util.dateParts(m.publication_date);
  if (parts) out.issued = { 'date-parts': [parts] };
  const abstract = util.stripHtml(m.description);
  if (abstract) out.abstract = abstract;
  if (m.publisher) out.publisher = String(m.publisher);
  const doi = util.doiOf(r);
  if (doi) out.DOI = doi;
  out.URL = doi ? `https://doi.org/${doi}` : util.landingPage(r, ctx);
  if (m.version) out.version = String(m.version);
  const lang = util.list(m.languages)[0]?.id;
  if (lang) out.language = String(lang);
  const keywords = util
    .list(m.subjects)
    .map((s) => s.subject)
    .filter((s) => typeof s === 'string' && s);
  if (keywords.length) out.keyword = keywords.join(', ');
  for (const a of util.alternateIdentifiersOf(r)) {
    const scheme = String(a.scheme ?? '').toLowerCase();
    if (scheme === 'isbn' || scheme === 'issn') out[scheme.toUpperCase()] = a.identifier;
  }
  return out;
}

const BIBTEX_TYPES: Record<string, string> = {
  'publication-article': 'article',
  'publication-book': 'book',
  'publication-section': 'inbook',
  'publication-conferencepaper': 'inproceedings',
  'publication-conferenceproceeding': 'proceedings',
  'publication-thesis': 'phdthesis',
  'publication-report': 'techreport',
  'publication-technicalnote': 'techreport',
  'publication-workingpaper': 'unpublished',
  'publication-preprint': 'unpublished',
  software: 'software',
  'software-computationalnotebook': 'software',
  dataset: 'dataset',
};

const LATEX: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '<': '\\textless{}',
  '>': '\\textgreater{}',
};

/** Escape a value for a braced BibTeX field (LaTeX specials). */
export function latexEscape(value: string): string {
  return value.replace(/[\\{}&%$#_~^<>]/g, (c) => LATEX[c]).replace(/[\r\n\t]+/g, ' ');
}

function bibtexName(c: Record<string, any>): string | undefined {
  const p = c.person_or_org ?? {};
  if (p.type === 'organizational' || (!p.family_name && p.name)) return p.name ? `{${latexEscape(String(p.name))}}` : undefined;
  if (!p.family_name) return undefined;
  const family = latexEscape(String(p.family_name));
  return p.given_name ? `${family}, ${latexEscape(String(p.given_name))}` : family;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** The BibTeX entry of a record. */
export function bibtex(r: RecordJson, ctx: ExportContext): string {
  const m = r.metadata ?? {};
  const type = BIBTEX_TYPES[String(util.resourceTypeOf(r)?.id ?? '')] ?? 'misc';
  const creators = util.list(m.creators);
  const firstFamily = String(creators[0]?.person_or_org?.family_name ?? creators[0]?.person_or_org?.name ?? '')
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase();
  const year = util.yearOf(m.publication_date);
  const key = [firstFamily || 'record', year, r.id]
    .filter(Boolean)
    .join('_')
    .replace(/[^A-Za-z0-9_-]/g, '');
  const fields: [string, string | undefined][] = [];
  const authors = creators.map(bibtexName).filter(Boolean);
  fields.push(['author', authors.length ? authors.join(' and ') : undefined]);
  fields.push(['title', m.title ? `{${latexEscape(util.plain(m.title))}}` : undefined]);
  const parts = util.dateParts(m.publication_date);
  if (parts?.[1]) fields.push(['month', MONTHS[parts[1] - 1]]);
  fields.push(['year', year]);
  fields.push([
    type === 'techreport' || type === 'phdthesis' ? 'institution' : 'publisher',
    m.publisher ? latexEscape(String(m.publisher)) : undefined,
  ]);
  fields.push(['version', m.version ? latexEscape(String(m.version)) : undefined]);
  const doi = util.doiOf(r);
  fields.push(['doi', doi ? latexEscape(doi) : undefined]);
  fields.push(['url', latexEscape(doi ? `https://doi.org/${doi}` : util.landingPage(r, ctx))]);
  const body = fields
    .filter((f): f is [string, string] => typeof f[1] === 'string' && f[1] !== '')
    .map(([k, v]) => `  ${k.padEnd(9)} = {${v}}`)
    .join(',\n');
  return `@${type}{${key},\n${body}\n}\n`;
}
