/**
 * Persistent-identifier scheme validators, detection and normalization: the subset of
 * python `idutils` that InvenioRDM's metadata schemas use (creators' `identifiers`,
 * `identifiers`/`alternate_identifiers`, `related_identifiers`, `references`, locations), and
 * the allowed-scheme tables of `RDM_RECORDS_*_SCHEMES`.
 */

type Validator = (v: string) => boolean;

/** A scheme entry: label for messages and a validator. */
export interface SchemeDef {
  label: string;
  validate: Validator;
}

const always: Validator = () => true;

const DOI_RE = /^(?:(?:doi:\s*|https?:\/\/(?:dx\.)?doi\.org\/|https?:\/\/handle\.test\.datacite\.org\/))?(10\.\d{4,9}\/\S+)$/i;

/** True for a DOI (bare, `doi:` or resolver URL forms). */
export const isDoi: Validator = (v) => DOI_RE.test(v.trim());

/** Strip resolver/`doi:` prefixes from a DOI. */
export function normalizeDoi(v: string): string {
  const m = DOI_RE.exec(v.trim());
  return m ? m[1] : v.trim();
}

/** ISO 7064 mod 11-2 check over the digits of `base` (ORCID, ISNI). */
function mod112(base: string): string {
  let total = 0;
  for (const ch of base) total = (total + Number(ch)) * 2;
  const r = (12 - (total % 11)) % 11;
  return r === 10 ? 'X' : String(r);
}

const ORCID_RE = /^(?:https?:\/\/orcid\.org\/|orcid:)?(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dX])$/i;

/** True for an ORCID iD with a correct check digit. */
export const isOrcid: Validator = (v) => {
  const m = ORCID_RE.exec(v.trim());
  if (!m) return false;
  const digits = `${m[1]}${m[2]}${m[3]}${m[4]}`.toUpperCase();
  const n = Number(digits.slice(0, 15));
  // ORCIDs live in 0000-0001-5000-0007..0000-0003-5000-0001 (idutils checks the range too).
  if (n < 15000000 || n > 35000000) return false;
  return mod112(digits.slice(0, 15)) === digits[15];
};

const ISNI_RE = /^(?:isni:|https?:\/\/isni\.org\/isni\/)?(\d{4})\s?(\d{4})\s?(\d{4})\s?(\d{3}[\dX])$/i;

/** True for an ISNI with a correct check digit. */
export const isIsni: Validator = (v) => {
  const m = ISNI_RE.exec(v.trim());
  if (!m) return false;
  const digits = `${m[1]}${m[2]}${m[3]}${m[4]}`.toUpperCase();
  return mod112(digits.slice(0, 15)) === digits[15];
};

const GND_RE = /^(?:gnd:|https?:\/\/d-nb\.info\/gnd\/)?(?:1[012]?\d{7}[0-9X]|[47]\d{6}-\d|[1-9]\d{0,7}-[0-9X]|3\d{7}[0-9X])$/i;
const ROR_RE = /^(?:https?:\/\/ror\.org\/)?(0[0-9a-hjkmnp-tv-z]{6}\d{2})$/i;
const URL_RE = /^(?:https?|ftp):\/\/[^\s/$.?#][^\s]*$/i;
const ARK_RE = /^(?:https?:\/\/[^/]+\/)?ark:\/?\d{5,9}\/\S+$/i;
const ARXIV_RE = /^(?:arxiv:)?(?:\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?\/\d{7}(?:v\d+)?)$/i;
const ADS_RE = /^(?:ads:|https?:\/\/ui\.adsabs\.harvard\.edu\/abs\/)?\d{4}[A-Za-z&.]{5}[\w.]{4}[ELPQ-Z.][\d.]{4}[A-Z]$/;
const HANDLE_RE = /^(?:hdl:|https?:\/\/hdl\.handle\.net\/)?\d[\d.]*\/\S+$/i;
const LSID_RE = /^urn:lsid:[^:]+(?::[^:]+){2,3}$/i;
const PMID_RE = /^(?:pmid:|https?:\/\/pubmed\.ncbi\.nlm\.nih\.gov\/)?\d{1,9}\/?$/i;
const PURL_RE = /^https?:\/\/purl\.[^\s]+$/i;
const RRID_RE = /^RRID:\s?[A-Za-z]+_\S+$/i;
const URN_RE = /^urn:[a-z0-9][a-z0-9-]{0,31}:\S+$/i;
const WIKIDATA_RE = /^(?:wikidata:|https?:\/\/(?:www\.)?wikidata\.org\/wiki\/)?Q\d+$/i;
const ISTC_RE = /^[0-9A-F]{3}-?[0-9A-F]{4}-?[0-9A-F]{8}-?[0-9A-F]$/i;
const CSTR_RE = /^(?:cstr:)?\d{5}\.\d{2}\.\S+$/i;

function isbnCheck(raw: string): boolean {
  const s = raw
    .replace(/^(?:isbn:?\s*)/i, '')
    .replace(/[-\s]/g, '')
    .toUpperCase();
  if (/^\d{9}[\dX]$/.test(s)) {
    let sum = 0;
    for (let i = 0; i < 10; i++) sum += (s[i] === 'X' ? 10 : Number(s[i])) * (10 - i);
    return sum % 11 === 0;
  }
  if (/^97[89]\d{10}$/.test(s)) return ean13Check(s);
  return false;
}

function ean13Check(s: string): boolean {
  if (!/^\d{13}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(s[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(s[12]);
}

function issnCheck(raw: string): boolean {
  const s = raw
    .replace(/^issn:?\s*/i, '')
    .replace('-', '')
    .toUpperCase();
  if (!/^\d{7}[\dX]$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 7; i++) sum += Number(s[i]) * (8 - i);
  const c = (11 - (sum % 11)) % 11;
  return (c === 10 ? 'X' : String(c)) === s[7];
}

const re =
  (r: RegExp): Validator =>
  (v) =>
    r.test(v.trim());

/** Validators by scheme name. */
export const VALIDATORS: Record<string, Validator> = {
  doi: isDoi,
  orcid: isOrcid,
  isni: isIsni,
  gnd: re(GND_RE),
  ror: re(ROR_RE),
  url: re(URL_RE),
  ark: re(ARK_RE),
  arxiv: re(ARXIV_RE),
  ads: re(ADS_RE),
  handle: re(HANDLE_RE),
  isbn: isbnCheck,
  issn: issnCheck,
  eissn: issnCheck,
  lissn: issnCheck,
  ean13: (v) => ean13Check(v.trim()),
  lsid: re(LSID_RE),
  pmid: re(PMID_RE),
  purl: re(PURL_RE),
  rrid: re(RRID_RE),
  urn: re(URN_RE),
  wikidata: re(WIKIDATA_RE),
  istc: re(ISTC_RE),
  cstr: re(CSTR_RE),
};

function table(entries: [string, string][]): Record<string, SchemeDef> {
  const out: Record<string, SchemeDef> = {};
  for (const [k, label] of entries) out[k] = { label, validate: VALIDATORS[k] ?? always };
  return out;
}

/** `RDM_RECORDS_PERSONORG_SCHEMES`. */
export const PERSONORG_SCHEMES = table([
  ['orcid', 'ORCID'],
  ['isni', 'ISNI'],
  ['gnd', 'GND'],
  ['ror', 'ROR'],
]);

/** `RDM_RECORDS_IDENTIFIERS_SCHEMES` (also used for related identifiers and references). */
export const RECORD_SCHEMES = table([
  ['ark', 'ARK'],
  ['arxiv', 'arXiv'],
  ['ads', 'Bibcode'],
  ['crossreffunderid', 'Crossref Funder ID'],
  ['cstr', 'CSTR'],
  ['doi', 'DOI'],
  ['ean13', 'EAN13'],
  ['eissn', 'EISSN'],
  ['grid', 'GRID'],
  ['handle', 'Handle'],
  ['igsn', 'IGSN'],
  ['isbn', 'ISBN'],
  ['isni', 'ISNI'],
  ['issn', 'ISSN'],
  ['istc', 'ISTC'],
  ['lissn', 'LISSN'],
  ['lsid', 'LSID'],
  ['pmid', 'PMID'],
  ['purl', 'PURL'],
  ['rrid', 'RRID'],
  ['upc', 'UPC'],
  ['url', 'URL'],
  ['urn', 'URN'],
  ['wikidata', 'Wikidata'],
  ['w3id', 'W3ID'],
  ['other', 'Other'],
]);

/** `RDM_RECORDS_LOCATION_SCHEMES`. */
export const LOCATION_SCHEMES: Record<string, SchemeDef> = {
  wikidata: { label: 'Wikidata', validate: VALIDATORS.wikidata },
  geonames: { label: 'GeoNames', validate: always },
};

/** Order in which schemes are tried when a client sends an identifier without a scheme. */
const DETECTION_ORDER = [
  'doi',
  'ark',
  'arxiv',
  'ads',
  'orcid',
  'isni',
  'ror',
  'isbn',
  'issn',
  'pmid',
  'lsid',
  'urn',
  'wikidata',
  'purl',
  'handle',
  'gnd',
  'url',
];

/** Schemes `value` matches, most specific first (as idutils.detect_identifier_schemes). */
export function detectSchemes(value: string): string[] {
  return DETECTION_ORDER.filter((s) => VALIDATORS[s]?.(value));
}

/** Normalize an identifier for its scheme (strip resolver prefixes; the rest unchanged). */
export function normalizeIdentifier(value: string, scheme: string): string {
  const v = value.trim();
  switch (scheme) {
    case 'doi':
      return normalizeDoi(v);
    case 'orcid': {
      const m = ORCID_RE.exec(v);
      return m ? `${m[1]}-${m[2]}-${m[3]}-${m[4].toUpperCase()}` : v;
    }
    case 'ror': {
      const m = ROR_RE.exec(v);
      return m ? m[1].toLowerCase() : v;
    }
    case 'isni': {
      const m = ISNI_RE.exec(v);
      return m ? `${m[1]}${m[2]}${m[3]}${m[4].toUpperCase()}` : v;
    }
    case 'arxiv':
      return v.replace(/^arxiv:/i, 'arXiv:').replace(/^(?!arXiv:)/, 'arXiv:');
    default:
      return v;
  }
}
