/**
 * Entry document ⇄ database row, and the texts the postgres search engine indexes.
 *
 * When to use: the loader and the write paths turn an `EntryDoc` into an `EntryRowInput` with
 * `toRowInput`; the repo turns a stored row back into the document with `rowToDoc`. Texts are
 * folded with the platform's `foldText` so that the query side (`compileToSql`) matches them.
 */
import { foldText } from '@rdm/platform';
import { contentHash, type EntryDoc } from './entry.js';
import { kindOf, specOf } from './kinds.js';

/** Columns that hold an entry field directly; every other field goes to `extra`. */
export const COLUMN_FIELDS = [
  'title',
  'description',
  'icon',
  'tags',
  'props',
  'acronym',
  'name',
  'scheme',
  'subject',
  'number',
  'country',
  'identifiers',
] as const;

/** The columns an entry row has both as written (`EntryRowInput`) and as read (`EntryRow`). */
interface EntryColumns {
  type: string;
  id: string;
  pid: string;
  description: Record<string, string> | null;
  icon: string | null;
  props: Record<string, unknown> | null;
  acronym: string | null;
  name: string | null;
  scheme: string | null;
  subject: string | null;
  number: string | null;
  country: string | null;
  identifiers: unknown[] | null;
}

/** An entry row ready to be written (texts not yet turned into tsvectors). */
export interface EntryRowInput extends EntryColumns {
  title: Record<string, string>;
  tags: string[];
  extra: Record<string, unknown>;
  sort_key: string | null;
  /** Folded text per searchable field (`title`, `title.en`, `props.type`, `acronym`, …) for fielded queries. */
  search_fields: Record<string, string>;
  /** Folded texts weighted A (identity: id, main title, acronym, name, subject) and B (the rest). */
  searchA: string;
  searchB: string;
  /** Folded texts `suggest` looks at, same weighting. */
  suggestA: string;
  suggestB: string;
  content_hash: string;
}

/** A stored entry row as the repo reads it (timestamps already formatted). */
export interface EntryRow extends EntryColumns {
  title: Record<string, string> | null;
  tags: string[] | null;
  extra: Record<string, unknown> | null;
  created: string;
  updated: string;
  revision_id: number;
}

const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const values = (v: unknown): string[] =>
  v && typeof v === 'object' && !Array.isArray(v)
    ? Object.values(v as Record<string, unknown>).flatMap((x) =>
        typeof x === 'string' ? [x] : Array.isArray(x) ? x.filter((y): y is string => typeof y === 'string') : [],
      )
    : [];
const idents = (v: unknown) => list(v).map((x) => s((x as { identifier?: unknown })?.identifier));
/** Printable ASCII: `foldText` of such a string is its lower case (no decomposition, no marks, no special letters). */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/**
 * `foldText`, memoised per document: an entry's texts are folded for the search vector, the
 * suggest vector and the fielded texts, and a bulk import folds hundreds of thousands of them.
 */
function folder(): (s: string) => string {
  const memo = new Map<string, string>();
  return (s) => {
    let f = memo.get(s);
    if (f === undefined) {
      f = PLAIN_ASCII.test(s) ? s.toLowerCase() : foldText(s);
      memo.set(s, f);
    }
    return f;
  };
}

/**
 * The folded texts of `parts`, one per line: the same string as `foldText(parts.join('\n'))`
 * (folding never crosses a line break: decomposition and lower-casing, even Greek final sigma,
 * stop at it), built from the memoised folds of each part.
 */
const joinWith = (fold: (s: string) => string) => (parts: Array<string | undefined | null>) =>
  parts
    .filter((p): p is string => !!p && p.trim() !== '')
    .map(fold)
    .join('\n');

/** Sort key of an entry: InvenioRDM's `title_sort` (title.en), `name_sort` or `subject_sort`. */
export function sortKeyOf(type: string, doc: EntryDoc): string | null {
  const spec = specOf(type);
  switch (spec.defaultSort) {
    case 'name':
      return s(doc.name) ?? null;
    case 'subject':
      return s(doc.subject) ?? null;
    case 'title':
      return s((doc.title as Record<string, unknown> | undefined)?.en) ?? null;
    default:
      return s((doc.title as Record<string, unknown> | undefined)?.en) ?? s(doc.number) ?? null;
  }
}

/** Texts for the search and suggest vectors of one entry, by kind (suggest fields from invenio-vocabularies' search options). */
export function textsOf(
  type: string,
  doc: EntryDoc,
  fold: (s: string) => string = folder(),
): Pick<EntryRowInput, 'searchA' | 'searchB' | 'suggestA' | 'suggestB'> {
  const join = joinWith(fold);
  const title = doc.title as Record<string, string> | undefined;
  const titleAll = values(doc.title);
  const common = [...titleAll, ...values(doc.description), ...list(doc.tags).map(s)];
  switch (kindOf(type)) {
    case 'affiliations':
    case 'funders':
      return {
        searchA: join([doc.id, s(doc.acronym), s(doc.name)]),
        searchB: join([
          ...list(doc.aliases).map(s),
          ...common,
          ...idents(doc.identifiers),
          s(doc.country),
          s(doc.country_name),
          s(doc.location_name),
          ...list(doc.types).map(s),
        ]),
        suggestA: join([s(doc.acronym), s(doc.name)]),
        suggestB: join([...list(doc.aliases).map(s), ...titleAll, ...idents(doc.identifiers), s(doc.country_name)]),
      };
    case 'awards': {
      const funder = doc.funder as { id?: unknown; name?: unknown } | undefined;
      return {
        searchA: join([doc.id, s(doc.number), s(doc.acronym)]),
        searchB: join([
          ...common,
          ...idents(doc.identifiers),
          s(doc.program),
          s(funder?.name),
          s(funder?.id),
          ...values(doc.short_description),
        ]),
        suggestA: join([s(doc.acronym), s(doc.number)]),
        suggestB: join([...idents(doc.identifiers)]),
      };
    }
    case 'names': {
      const affs = list(doc.affiliations) as Array<{ name?: unknown; acronym?: unknown }>;
      return {
        searchA: join([doc.id, s(doc.name), s(doc.given_name), s(doc.family_name)]),
        searchB: join([
          ...common,
          ...idents(doc.identifiers),
          ...affs.map((a) => s(a.name)),
          ...affs.map((a) => s(a.acronym)),
          ...values(doc.props),
        ]),
        suggestA: join([s(doc.name)]),
        suggestB: join([...affs.map((a) => s(a.acronym)), ...affs.map((a) => s(a.name)), ...idents(doc.identifiers)]),
      };
    }
    case 'subjects':
      return {
        searchA: join([doc.id, s(doc.subject)]),
        searchB: join([s(doc.scheme), ...common, ...list(doc.synonyms).map(s), ...idents(doc.identifiers), ...values(doc.props)]),
        suggestA: join([s(doc.subject)]),
        suggestB: join([s(doc.scheme), ...titleAll, ...list(doc.synonyms).map(s)]),
      };
    default:
      return {
        searchA: join([doc.id, title?.en]),
        searchB: join([...common, ...values(doc.props)]),
        suggestA: join([doc.id, title?.en]),
        suggestB: '',
      };
  }
}

/** Entry fields whose folded text is kept for fielded text queries (`name:cern`). */
const TEXT_FIELDS = ['acronym', 'name', 'given_name', 'family_name', 'country_name', 'location_name', 'subject', 'program'] as const;

/** Folded text of every searchable field, keyed by query field name. */
export function searchFieldsOf(doc: EntryDoc, fold: (s: string) => string = folder()): Record<string, string> {
  const join = joinWith(fold);
  const out: Record<string, string> = { id: fold(doc.id) };
  const put = (k: string, v: string[]) => {
    const t = join(v);
    if (t) out[k] = t;
  };
  for (const f of ['title', 'description', 'short_description'] as const) {
    const m = doc[f] as Record<string, string> | undefined;
    if (!m) continue;
    put(f, Object.values(m));
    for (const [lang, v] of Object.entries(m)) put(`${f}.${lang}`, [v]);
  }
  const p = doc.props as Record<string, unknown> | undefined;
  if (p) for (const [k, v] of Object.entries(p)) put(`props.${k}`, typeof v === 'string' ? [v] : values({ v }));
  for (const f of TEXT_FIELDS)
    put(
      f,
      [s(doc[f])].filter((x): x is string => !!x),
    );
  put(
    'aliases',
    list(doc.aliases)
      .map(s)
      .filter((x): x is string => !!x),
  );
  put(
    'synonyms',
    list(doc.synonyms)
      .map(s)
      .filter((x): x is string => !!x),
  );
  const funder = doc.funder as { name?: unknown } | undefined;
  if (funder)
    put(
      'funder.name',
      [s(funder.name)].filter((x): x is string => !!x),
    );
  put(
    'affiliations.name',
    (list(doc.affiliations) as { name?: unknown }[]).map((a) => s(a?.name)).filter((x): x is string => !!x),
  );
  return out;
}

/** Turn a normalised document of vocabulary `type` into a row to upsert (`hash`: its `contentHash`, when already known). */
export function toRowInput(type: string, doc: EntryDoc, hash?: string): EntryRowInput {
  const fold = folder();
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    if (k === 'id' || (COLUMN_FIELDS as readonly string[]).includes(k)) continue;
    extra[k] = v;
  }
  return {
    type,
    id: doc.id,
    pid: doc.id,
    title: (doc.title as Record<string, string> | undefined) ?? {},
    description: (doc.description as Record<string, string> | undefined) ?? null,
    icon: s(doc.icon) ?? null,
    tags: (doc.tags as string[] | undefined) ?? [],
    props: (doc.props as Record<string, unknown> | undefined) ?? null,
    acronym: s(doc.acronym) ?? null,
    name: s(doc.name) ?? null,
    scheme: s(doc.scheme) ?? null,
    subject: s(doc.subject) ?? null,
    number: s(doc.number) ?? null,
    country: s(doc.country) ?? null,
    identifiers: (doc.identifiers as unknown[] | undefined) ?? null,
    extra,
    sort_key: sortKeyOf(type, doc),
    search_fields: searchFieldsOf(doc, fold),
    ...textsOf(type, doc, fold),
    content_hash: hash ?? contentHash(doc),
  };
}

/** A copy of `v` whose object keys are sorted at every level (InvenioRDM's JSON is key-sorted; jsonb is not). */
export function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o).sort()) out[k] = sortKeysDeep(o[k]);
    return out;
  }
  return v;
}

/** Rebuild the entry document (fields in the kind's output order) from a stored row. */
export function rowToDoc(row: EntryRow): EntryDoc {
  const spec = specOf(row.type);
  const doc: EntryDoc = { id: row.id };
  const colValue = (f: string): unknown => {
    const v = (row as unknown as Record<string, unknown>)[f];
    if (f === 'title' && v && Object.keys(v as object).length === 0 && spec.kind !== 'generic') return undefined;
    if (f === 'tags' && Array.isArray(v) && v.length === 0 && spec.kind !== 'generic') return undefined;
    return v;
  };
  for (const f of spec.fields) {
    if (f === 'type') continue;
    const v = (COLUMN_FIELDS as readonly string[]).includes(f) ? colValue(f) : row.extra?.[f];
    if (v !== undefined && v !== null) doc[f] = typeof v === 'object' ? sortKeysDeep(v) : v;
  }
  return doc;
}
