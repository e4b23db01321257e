/**
 * The export formats of a published record and the content negotiation that picks one: by
 * `?format=<name or media type>` (InvenioRDM's alias) first, else by `Accept` (q-values honoured,
 * `application/json` wins ties and is the default). Unknown → 406 listing every supported type.
 * Add a format by adding an entry here; routes and OAI-PMH pick it up.
 */
import { Errors } from '@rdm/platform';
import { citationParams, formatCitation } from './bibliography.js';
import { bibtex, cslJson } from './citation.js';
import { dataciteJson } from './datacite.js';
import { dataciteResourceXml } from './datacite-xml.js';
import { dublinCoreXml } from './dublincore.js';
import { dcatXml, geoJson } from './geo-dcat.js';
import { marcXml } from './marcxml.js';
import { schemaOrg } from './schemaorg.js';
import { landingLinks, linkset } from './signposting.js';
import { uiJson } from './ui.js';
import type { ExportContext, RecordJson } from './util.js';
import { xmlDocument } from './xml.js';

/** One export format. */
export interface ExportFormat {
  /** Name in `/export/<name>` and `?format=`. */
  name: string;
  /** Media type answered (and matched in `Accept`). */
  mediaType: string;
  /** Content-Type header (media type plus charset). */
  contentType: string;
  /** Render the record (a promise only for the formatted citation given `ctx.citations`). */
  render(r: RecordJson, ctx: ExportContext): string | Promise<string>;
  /** Only by `Accept` (no `/export/<name>`, no `?format=`), as InvenioRDM serves it: the formatted citation. */
  acceptOnly?: boolean;
}

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/** Every format, `json` first (the default). */
export const EXPORT_FORMATS: readonly ExportFormat[] = [
  { name: 'json', mediaType: 'application/json', contentType: 'application/json; charset=utf-8', render: (r) => json(r) },
  {
    name: 'ui-json',
    mediaType: 'application/vnd.inveniordm.v1+json',
    contentType: 'application/vnd.inveniordm.v1+json; charset=utf-8',
    render: (r, c) => json(uiJson(r, c)),
  },
  {
    name: 'json-ld',
    mediaType: 'application/ld+json',
    contentType: 'application/ld+json; charset=utf-8',
    render: (r, c) => json(schemaOrg(r, c)),
  },
  {
    name: 'datacite-json',
    mediaType: 'application/vnd.datacite.datacite+json',
    contentType: 'application/vnd.datacite.datacite+json; charset=utf-8',
    render: (r, c) => json(dataciteJson(r, c)),
  },
  {
    name: 'datacite-xml',
    mediaType: 'application/vnd.datacite.datacite+xml',
    contentType: 'application/vnd.datacite.datacite+xml; charset=utf-8',
    render: (r, c) => xmlDocument(dataciteResourceXml(dataciteJson(r, c))),
  },
  {
    name: 'csl',
    mediaType: 'application/vnd.citationstyles.csl+json',
    contentType: 'application/vnd.citationstyles.csl+json; charset=utf-8',
    render: (r, c) => json(cslJson(r, c)),
  },
  {
    name: 'citation',
    mediaType: 'text/x-bibliography',
    contentType: 'text/x-bibliography; charset=utf-8',
    acceptOnly: true,
    render: (r, c) => {
      const { style, locale } = citationParams(c.citation ?? {});
      return c.citations ? c.citations(cslJson(r, c), style, locale) : formatCitation(cslJson(r, c), style, locale);
    },
  },
  { name: 'bibtex', mediaType: 'application/x-bibtex', contentType: 'application/x-bibtex; charset=utf-8', render: (r, c) => bibtex(r, c) },
  {
    name: 'dublincore',
    mediaType: 'application/x-dc+xml',
    contentType: 'application/x-dc+xml; charset=utf-8',
    render: (r, c) => xmlDocument(dublinCoreXml(r, c)),
  },
  {
    name: 'marcxml',
    mediaType: 'application/marcxml+xml',
    contentType: 'application/marcxml+xml; charset=utf-8',
    render: (r, c) => xmlDocument(marcXml(r, c)),
  },
  {
    name: 'dcat-ap',
    mediaType: 'application/dcat+xml',
    contentType: 'application/dcat+xml; charset=utf-8',
    render: (r, c) => xmlDocument(dcatXml(r, c)),
  },
  {
    name: 'geojson',
    mediaType: 'application/vnd.geo+json',
    contentType: 'application/vnd.geo+json; charset=utf-8',
    render: (r) => json(geoJson(r)),
  },
  {
    name: 'linkset',
    mediaType: 'application/linkset+json',
    contentType: 'application/linkset+json; charset=utf-8',
    render: (r, c) => json(linkset(landingLinks(r, c, describedByTypes()))),
  },
];

/** Media types a record's metadata is available in (`describedby` of signposting: every format but the linkset and the formatted citation, which is not metadata). */
export function describedByTypes(): string[] {
  return EXPORT_FORMATS.filter((f) => f.name !== 'linkset' && f.name !== 'citation').map((f) => f.mediaType);
}

/** Aliases of format names (InvenioRDM's UI export names and common short forms). */
const ALIASES: Record<string, string> = {
  datacite: 'datacite-json',
  schemaorg: 'json-ld',
  'schema.org': 'json-ld',
  jsonld: 'json-ld',
  dc: 'dublincore',
  oai_dc: 'dublincore',
  marc21: 'marcxml',
  dcat: 'dcat-ap',
  'csl-json': 'csl',
  bib: 'bibtex',
  ui: 'ui-json',
  'linkset-json': 'linkset',
};

/** Every media type offered, in preference order (the 406 message lists them). */
export const MEDIA_TYPES: readonly string[] = EXPORT_FORMATS.map((f) => f.mediaType);

/** The format of a `/export/<name>` or `?format=` value (name, alias or media type), or undefined. */
export function formatByName(value: string): ExportFormat | undefined {
  const v = value.trim().toLowerCase();
  const name = ALIASES[v] ?? v;
  return EXPORT_FORMATS.find((f) => !f.acceptOnly && (f.name === name || f.mediaType === v));
}

/** What `ctx.accepts` offers: koa's Accept matcher (q-values, wildcards). */
export type AcceptsFn = (types: string[]) => string | false;

/**
 * The negotiated format: `?format=` (400-free: an unknown value is 406 like an unknown Accept),
 * else the best `Accept` match; no Accept header → JSON.
 */
export function negotiateFormat(accept: string | undefined, formatParam: unknown, accepts: AcceptsFn): ExportFormat {
  if (typeof formatParam === 'string' && formatParam !== '') {
    const f = formatByName(formatParam);
    if (!f) throw Errors.notAcceptable([...MEDIA_TYPES]);
    return f;
  }
  if (!accept) return EXPORT_FORMATS[0];
  const picked = accepts([...MEDIA_TYPES]);
  const f = picked ? EXPORT_FORMATS.find((x) => x.mediaType === picked) : undefined;
  if (!f) throw Errors.notAcceptable([...MEDIA_TYPES]);
  return f;
}
