/**
 * ROR schema v2 organisation → affiliation and funder entries (invenio-vocabularies' ROR
 * transformer): the `ror_display` name, labels by language as `title`, acronyms, aliases, country
 * and city of the first location, types, status, and the identifiers (ror, grid, isni, wikidata;
 * a funder also carries its FundRef id as a `10.13039/…` DOI). Only organisations with a FundRef id
 * become funders. A withdrawn or inactive organisation is tagged `deprecated`.
 *
 * When to use: an import of a ROR dump (`ror-v2` format) maps each array element with
 * `mapRorRecord`; a malformed element throws `EntryError` (the run rejects it with the reason).
 */
import { EntryError, type EntryDoc, normalizeEntry } from '../domain/entry.js';

/** The tag of an entry withdrawn from its source (still resolvable, no longer offered). */
export const DEPRECATED_TAG = 'deprecated';
/** ROR ids as the registry mints them: `0` + 6 base-32 characters + 2 checksum digits. */
const ROR_ID = /^0[a-hj-km-np-tv-z0-9]{6}[0-9]{2}$/;
/** Crossref's prefix of the Funder Registry DOIs. */
const FUNDREF_PREFIX = '10.13039/';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function list(field: string, v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new EntryError(field, 'Not a valid list.');
  return v;
}

function text(field: string, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new EntryError(field, 'Not a valid string.');
  return v;
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** True when the 2 last digits are the ISO 7064 mod 97-10 checksum of the 6 base-32 characters before them. */
export function rorChecksumOk(id: string): boolean {
  let n = 0n;
  for (const c of id.slice(1, 7)) n = n * 32n + BigInt(CROCKFORD.indexOf(c));
  return String(98n - ((n * 100n) % 97n)).padStart(2, '0') === id.slice(7);
}

/** The ROR id (`01ggx4157`) of `https://ror.org/01ggx4157` (or of a bare id). */
export function rorIdOf(v: unknown): string {
  const raw = text('id', v);
  if (raw === undefined || raw.trim() === '') throw new EntryError('id', 'Missing PID.');
  const id = raw.trim().replace(/^https?:\/\/ror\.org\//i, '');
  if (!ROR_ID.test(id) || !rorChecksumOk(id)) throw new EntryError('id', `Not a ROR id: ${JSON.stringify(raw.slice(0, 100))}.`);
  return id;
}

/** The entries one ROR v2 organisation becomes: its affiliation, and its funder when it has a FundRef id. */
export interface RorEntries {
  id: string;
  affiliation: EntryDoc;
  funder?: EntryDoc;
}

/** Map one ROR v2 record; throws `EntryError` naming the bad field. */
export function mapRorRecord(raw: unknown): RorEntries {
  if (!isObj(raw)) throw new EntryError('_schema', 'Invalid input type.');
  const id = rorIdOf(raw.id);
  let name: string | undefined;
  const title: Record<string, string> = {};
  const acronyms: string[] = [];
  const aliases: string[] = [];
  list('names', raw.names).forEach((n, i) => {
    if (!isObj(n)) throw new EntryError(`names.${i}`, 'Invalid input type.');
    const value = text(`names.${i}.value`, n.value)?.trim();
    if (!value) throw new EntryError(`names.${i}.value`, 'Missing data for required field.');
    const types = list(`names.${i}.types`, n.types).map((t, j) => text(`names.${i}.types.${j}`, t));
    const lang = text(`names.${i}.lang`, n.lang)?.toLowerCase();
    if (types.includes('ror_display')) name ??= value;
    if (types.includes('acronym')) acronyms.push(value);
    if (types.includes('alias')) aliases.push(value);
    if ((types.includes('label') || types.includes('ror_display')) && lang && /^[a-z]{2}$/.test(lang)) title[lang] ??= value;
  });
  if (!name) throw new EntryError('names', 'No name of type ror_display.');
  if (!title.en) title.en = name;

  const location = list('locations', raw.locations)[0];
  if (location !== undefined && !isObj(location)) throw new EntryError('locations.0', 'Invalid input type.');
  const geo = location?.geonames_details;
  if (geo !== undefined && !isObj(geo)) throw new EntryError('locations.0.geonames_details', 'Invalid input type.');

  const external: Record<string, string> = {};
  list('external_ids', raw.external_ids).forEach((x, i) => {
    if (!isObj(x)) throw new EntryError(`external_ids.${i}`, 'Invalid input type.');
    const type = text(`external_ids.${i}.type`, x.type)?.toLowerCase();
    const all = list(`external_ids.${i}.all`, x.all).map((v, j) => text(`external_ids.${i}.all.${j}`, v));
    const value = text(`external_ids.${i}.preferred`, x.preferred) ?? all.find((v) => v);
    if (type && value && !external[type]) external[type] = value;
  });

  const status = text('status', raw.status) ?? 'active';
  const types = list('types', raw.types).map((t, i) => text(`types.${i}`, t) ?? '');
  const website = list('links', raw.links)
    .filter(isObj)
    .find((l) => l.type === 'website')?.value;
  const common: Record<string, unknown> = {
    id,
    name,
    title,
    acronym: acronyms[0],
    aliases: aliases.length ? aliases : undefined,
    country: geo?.country_code,
    country_name: geo?.country_name,
    location_name: geo?.name,
    status,
    types: types.length ? types : undefined,
    tags: status === 'active' ? undefined : [DEPRECATED_TAG],
  };
  const ids = (schemes: string[]) => [
    { scheme: 'ror', identifier: id },
    ...schemes.filter((s) => external[s]).map((s) => ({ scheme: s, identifier: external[s] })),
  ];
  const affiliation = normalizeEntry('affiliations', {
    ...common,
    website: typeof website === 'string' ? website : undefined,
    domains: list('domains', raw.domains).length ? raw.domains : undefined,
    identifiers: ids(['grid', 'isni', 'wikidata']),
  });
  const fundref = external.fundref;
  const funder = fundref
    ? normalizeEntry('funders', {
        ...common,
        identifiers: [...ids(['grid', 'isni', 'wikidata']), { scheme: 'doi', identifier: `${FUNDREF_PREFIX}${fundref}` }],
      })
    : undefined;
  return { id, affiliation, funder };
}
