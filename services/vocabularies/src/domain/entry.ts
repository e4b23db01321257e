/**
 * The vocabulary entry document and its normalisation: what one fixture row (or a create/update
 * body) becomes before it is stored. One function per kind keeps only the fields InvenioRDM's
 * schema for that kind knows (invenio-vocabularies `VocabularySchema`, `AffiliationSchema`,
 * `FunderSchema`, `AwardSchema`, `NameSchema`, `SubjectSchema`) and reports bad rows instead of
 * storing them.
 */
import { createHash } from 'node:crypto';
import { type KindSpec, type VocabularyKind, kindOf, specOf } from './kinds.js';

/** A normalised entry: `id` plus the kind's fields (no timestamps, no links, no revision). */
export interface EntryDoc {
  id: string;
  [field: string]: unknown;
}

/** A problem with one input row. */
export class EntryError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'EntryError';
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{lang: string}` maps (title, description); keys must be 2-letter codes like InvenioRDM's `i18n_strings`. */
function i18n(field: string, v: unknown): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw new EntryError(field, 'Not a valid mapping type.');
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (!/^[a-z]{2}$/.test(k)) throw new EntryError(`${field}.${k}`, 'String does not match expected pattern.');
    if (typeof val !== 'string') throw new EntryError(`${field}.${k}`, 'Not a valid string.');
    out[k] = val;
  }
  return out;
}

function str(field: string, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v !== 'string') throw new EntryError(field, 'Not a valid string.');
  return v;
}

function strList(field: string, v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new EntryError(field, 'Not a valid list.');
  return v.map((x, i) => {
    const s = str(`${field}.${i}`, x);
    if (s === undefined) throw new EntryError(`${field}.${i}`, 'Field may not be null.');
    return s;
  });
}

/** `props`: string values for generic vocabularies (YAML scalars become strings), anything JSON for the others. */
function props(field: string, v: unknown, stringsOnly: boolean): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw new EntryError(field, 'Not a valid mapping type.');
  if (!stringsOnly) return v;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    const s = str(`${field}.${k}`, val);
    out[k] = s ?? '';
  }
  return out;
}

/** `identifiers: [{identifier, scheme}]`. */
function identifiers(field: string, v: unknown): Array<Record<string, string>> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new EntryError(field, 'Not a valid list.');
  return v.map((x, i) => {
    if (!isObj(x)) throw new EntryError(`${field}.${i}`, 'Invalid input type.');
    const out: Record<string, string> = {};
    const identifier = str(`${field}.${i}.identifier`, x.identifier);
    const scheme = str(`${field}.${i}.scheme`, x.scheme);
    if (identifier !== undefined) out.identifier = identifier;
    if (scheme !== undefined) out.scheme = scheme;
    return out;
  });
}

function objList(field: string, v: unknown): Record<string, unknown>[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every(isObj)) throw new EntryError(field, 'Not a valid list.');
  return v as Record<string, unknown>[];
}

function obj(field: string, v: unknown): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw new EntryError(field, 'Not a valid mapping type.');
  return v;
}

function required(field: string, v: string | undefined, message = 'Missing data for required field.'): string {
  if (v === undefined || v.trim() === '') throw new EntryError(field, message);
  return v;
}

type FieldParser = (field: string, v: unknown) => unknown;

const FIELD_PARSERS: Record<string, FieldParser> = {
  title: i18n,
  description: i18n,
  short_description: i18n,
  icon: str,
  tags: strList,
  acronym: str,
  name: str,
  given_name: str,
  family_name: str,
  country: str,
  country_name: str,
  location_name: str,
  website: str,
  status: str,
  number: str,
  program: str,
  start_date: str,
  end_date: str,
  scheme: str,
  subject: str,
  domains: strList,
  aliases: strList,
  types: strList,
  synonyms: strList,
  identifiers,
  funder: obj,
  subjects: objList,
  organizations: objList,
  affiliations: objList,
};

/**
 * Normalise one input object of vocabulary `type` into an entry document. Unknown keys are
 * dropped (the schema excludes them); a bad value throws `EntryError` naming the field.
 */
export function normalizeEntry(type: string, raw: unknown): EntryDoc {
  if (!isObj(raw)) throw new EntryError('_schema', 'Invalid input type.');
  const spec: KindSpec = specOf(type);
  const kind: VocabularyKind = spec.kind;
  const id = required(
    'id',
    str('id', raw.id),
    kind === 'generic' || kind === 'subjects' ? 'Missing data for required field.' : 'Missing PID.',
  );
  const doc: EntryDoc = { id: id.trim() };
  for (const field of spec.fields) {
    if (field === 'type') continue;
    const v = raw[field];
    if (v === undefined || v === null) continue;
    const parsed = field === 'props' ? props(field, v, kind === 'generic') : (FIELD_PARSERS[field] ?? obj)(field, v);
    if (parsed !== undefined) doc[field] = parsed;
  }
  switch (kind) {
    case 'affiliations':
    case 'funders':
      required('name', doc.name as string | undefined, 'Name cannot be blank.');
      break;
    case 'awards':
      required('number', doc.number as string | undefined, 'Number cannot be blank.');
      break;
    case 'names': {
      const family = doc.family_name as string | undefined;
      const given = doc.given_name as string | undefined;
      // NameSchema: the name is composed from family and given names when both are present.
      if (family && given) doc.name = `${family}, ${given}`;
      else if (!doc.name && family) doc.name = family;
      if (!doc.name) throw new EntryError('family_name', 'A name or the family name together with the given name must be present.');
      break;
    }
    case 'subjects': {
      // SubjectSchema: the subject defaults to the title in the default language.
      if (!doc.subject) {
        const title = doc.title as Record<string, string> | undefined;
        const fromTitle = title?.en ?? (title ? Object.values(title)[0] : undefined);
        if (fromTitle) doc.subject = fromTitle;
      }
      required('scheme', doc.scheme as string | undefined);
      required('subject', doc.subject as string | undefined);
      break;
    }
    default:
      break;
  }
  return doc;
}

/** JSON with object keys sorted, so equal documents hash equally whatever their key order. */
export function canonicalJson(v: unknown): string {
  // Why loops and string appends: a bulk import hashes every entry; this is its hottest helper.
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + canonicalJson(v[i]);
    return `${out}]`;
  }
  if (isObj(v)) {
    const keys = Object.keys(v).sort();
    let out = '{';
    let first = true;
    for (const k of keys) {
      const x = v[k];
      if (x === undefined) continue;
      out += `${first ? '' : ','}${JSON.stringify(k)}:${canonicalJson(x)}`;
      first = false;
    }
    return `${out}}`;
  }
  return JSON.stringify(v);
}

/** Content hash of a document: the loader compares it to decide whether an entry changed. */
export function contentHash(doc: EntryDoc): string {
  return createHash('sha256').update(canonicalJson(doc)).digest('base64url');
}

/** True when `typeId` is a special vocabulary (not generic). */
export const isCustomType = (typeId: string) => kindOf(typeId) !== 'generic';
