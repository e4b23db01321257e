/**
 * Record search on OpenSearch/Elasticsearch, part 1: the index (mappings), the document of a
 * `search_docs` row, and the `q` fields on it — the columns' fields are declared once with their
 * SQL in `RECORD_SEARCH_FIELDS` (fields.ts); the text and document keyword fields get theirs here by
 * name, from the values of the stored document, so every name a query may use means the same on both
 * engines (a unit test checks that every field of `RECORD_FIELDS` has its twin here).
 *
 * Layout of a document: the filter and sort columns of `search_docs` under their own names, the
 * texts of the `q` text fields as `t_<name>`, the keyword values inside the stored document as
 * `k_<name>`, the full text (`search_text`, the same texts as the postgres tsvector), and
 * permission data only the service's filters may read (`filterOnly`: grants, community ids, the
 * years of the publication date facet). `_source` is not kept: hits are read from `search_docs` by key.
 */
import {
  type DslFieldMap,
  type DslFieldSpec,
  dateField,
  engineFields,
  fullTextField,
  type IndexDefinition,
  type IndexDoc,
  keywordField,
  longField,
  searchTextOf,
  textField,
} from '@rdm/platform';
import { RECORD_SEARCH_FIELDS } from './fields.js';
import type { EngineSourceRow } from './search.repo.js';
import { searchTexts } from './search-doc.js';
import { boundVectorTexts } from './vector-bound.js';

/** Longest publication date range counted year by year (as facet-render.ts). */
const MAX_YEARS_PER_DOC = 200;

/** Text fields of `RECORD_FIELDS` read from the stored document: name → its values. */
const TEXT_VALUES: Readonly<Record<string, (d: Record<string, any>) => unknown[]>> = {
  'metadata.title': (d) => [d.metadata?.title],
  'metadata.description': (d) => [d.metadata?.description],
  'metadata.publisher': (d) => [d.metadata?.publisher],
  'metadata.copyright': (d) => [d.metadata?.copyright],
  'metadata.additional_titles.title': (d) => arr(d.metadata?.additional_titles).map((x) => x?.title),
  'metadata.additional_descriptions.description': (d) => arr(d.metadata?.additional_descriptions).map((x) => x?.description),
  'metadata.subjects.subject': (d) => arr(d.metadata?.subjects).map((x) => x?.subject),
  'metadata.funding.funder.name': (d) => arr(d.metadata?.funding).map((x) => x?.funder?.name),
  'metadata.references.reference': (d) => arr(d.metadata?.references).map((x) => x?.reference),
  'metadata.resource_type.title.en': (d) => [d.metadata?.resource_type?.title?.en],
  'metadata.locations.features.place': (d) => arr(d.metadata?.locations?.features).map((x) => x?.place),
  ...peopleTexts('creators'),
  ...peopleTexts('contributors'),
  // Guarded (see `filesGuard` in engine-index.ts): the keys joined, as the postgres `string_agg`.
  'files.entries.key': (d) => [Object.keys(d.files?.entries ?? {}).join(' ')],
};

/** Keyword fields of `RECORD_FIELDS` inside the stored document: name → dotted path (`[]` = array). */
const DOC_KEYWORDS: Readonly<Record<string, string>> = {
  status: 'status',
  'access.embargo.active': 'access.embargo.active',
  'pids.doi.identifier': 'pids.doi.identifier',
  'pids.doi.provider': 'pids.doi.provider',
  'pids.oai.identifier': 'pids.oai.identifier',
  'parent.pids.doi.identifier': 'parent.pids.doi.identifier',
  'parent.communities.ids': 'parent.communities.ids[]',
  'parent.communities.default': 'parent.communities.default',
  'parent.access.owned_by.user': 'parent.access.owned_by.user',
  'metadata.version': 'metadata.version',
  'metadata.languages.id': 'metadata.languages[].id',
  'metadata.rights.id': 'metadata.rights[].id',
  'metadata.subjects.id': 'metadata.subjects[].id',
  'metadata.subjects.scheme': 'metadata.subjects[].scheme',
  'metadata.identifiers.identifier': 'metadata.alternate_identifiers[].identifier',
  'metadata.identifiers.scheme': 'metadata.alternate_identifiers[].scheme',
  'metadata.related_identifiers.identifier': 'metadata.related_identifiers[].identifier',
  'metadata.related_identifiers.relation_type.id': 'metadata.related_identifiers[].relation_type.id',
  'metadata.funding.funder.id': 'metadata.funding[].funder.id',
  'metadata.funding.award.id': 'metadata.funding[].award.id',
  'metadata.funding.award.number': 'metadata.funding[].award.number',
  'files.enabled': 'files.enabled',
  ...peopleKeywords('creators'),
  ...peopleKeywords('contributors'),
};

function peopleTexts(list: 'creators' | 'contributors'): Record<string, (d: Record<string, any>) => unknown[]> {
  const people = (d: Record<string, any>) => arr(d.metadata?.[list]);
  return {
    [`metadata.${list}.person_or_org.name`]: (d) => people(d).map((p) => p?.person_or_org?.name),
    [`metadata.${list}.person_or_org.given_name`]: (d) => people(d).map((p) => p?.person_or_org?.given_name),
    [`metadata.${list}.person_or_org.family_name`]: (d) => people(d).map((p) => p?.person_or_org?.family_name),
    [`metadata.${list}.affiliations.name`]: (d) => people(d).flatMap((p) => arr(p?.affiliations).map((a) => a?.name)),
  };
}

function peopleKeywords(list: 'creators' | 'contributors'): Record<string, string> {
  return {
    [`metadata.${list}.person_or_org.type`]: `metadata.${list}[].person_or_org.type`,
    [`metadata.${list}.person_or_org.identifiers.identifier`]: `metadata.${list}[].person_or_org.identifiers[].identifier`,
    [`metadata.${list}.person_or_org.identifiers.scheme`]: `metadata.${list}[].person_or_org.identifiers[].scheme`,
    [`metadata.${list}.affiliations.id`]: `metadata.${list}[].affiliations[].id`,
    [`metadata.${list}.role.id`]: `metadata.${list}[].role.id`,
  };
}

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** Values at a dotted path (`a.b[].c`), arrays flattened; scalars as postgres `#>>` prints them. */
export function valuesAt(doc: unknown, dotted: string): string[] {
  let cur: unknown[] = [doc];
  for (const part of dotted.split('.')) {
    const isArray = part.endsWith('[]');
    const key = isArray ? part.slice(0, -2) : part;
    const next: unknown[] = [];
    for (const c of cur) {
      const v = c && typeof c === 'object' && !Array.isArray(c) ? (c as Record<string, unknown>)[key] : undefined;
      if (isArray) next.push(...arr(v));
      else if (v !== undefined && v !== null) next.push(v);
    }
    cur = next;
  }
  return cur.filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean').map(String);
}

/** Engine field of a text field (`metadata.title` → `t_metadata__title`). */
const textPath = (name: string) => `t_${name.replace(/\./g, '__')}`;
/** Engine field of a keyword inside the document. */
const keywordPath = (name: string) => `k_${name.replace(/\./g, '__')}`;

/** Fields only the service's own filters use (never reachable from `q`). */
export const FILTER_FIELDS: Readonly<Record<string, DslFieldSpec>> = {
  '#kind': { kind: 'keyword', path: 'kind', caseSensitive: true, filterOnly: true },
  '#owner': { kind: 'keyword', path: 'owner_id', caseSensitive: true, filterOnly: true },
  '#has_draft': { kind: 'keyword', path: 'has_draft', caseSensitive: true, filterOnly: true },
  '#grants': { kind: 'keyword_array', path: 'grants', caseSensitive: true, filterOnly: true },
  '#communities': { kind: 'keyword_array', path: 'community_ids', caseSensitive: true, filterOnly: true },
  '#pub_start': { kind: 'date', path: 'pub_start', type: 'date', filterOnly: true },
  '#pub_end': { kind: 'date', path: 'pub_end', type: 'date', filterOnly: true },
};

/** Fields whose data only callers who may read a document's files may search (files-guard.ts). */
export const GUARDED_FIELDS = ['files.types', 'files.count', 'files.entries.key'] as const;

/** Every `q` field of `RECORD_SEARCH_FIELDS` on the index, aliases included, plus the filter fields. */
export const RECORD_DSL_FIELDS: DslFieldMap = (() => {
  // The columns' fields (`path` in RECORD_SEARCH_FIELDS) and the aliases.
  const out: Record<string, DslFieldSpec | string> = { ...engineFields(RECORD_SEARCH_FIELDS), ...FILTER_FIELDS };
  for (const name of Object.keys(TEXT_VALUES)) out[name] = { kind: 'text', path: textPath(name) };
  for (const name of Object.keys(DOC_KEYWORDS)) {
    out[name] = { kind: DOC_KEYWORDS[name].includes('[]') ? 'keyword_array' : 'keyword', path: keywordPath(name), caseSensitive: true };
  }
  return out;
})();

/** The records index (alias `records-records`, documents `<kind>:<id>`). */
export const RECORDS_INDEX: IndexDefinition = {
  alias: 'records-records',
  version: 1,
  mappings: {
    dynamic: 'strict',
    _source: { enabled: false },
    properties: {
      id: keywordField(),
      kind: keywordField(),
      parent_id: keywordField(),
      owner_id: keywordField(),
      is_published: keywordField(),
      is_draft: keywordField(),
      is_latest: keywordField(),
      is_latest_draft: keywordField(),
      has_draft: keywordField(),
      deletion_status: keywordField(),
      access_record: keywordField(),
      access_files: keywordField(),
      access_status: keywordField(),
      resource_type_id: keywordField(),
      rt_type: keywordField(),
      rt_subtype: keywordField(),
      file_types: keywordField(),
      files_count: longField(),
      community_ids: keywordField(),
      grants: keywordField(),
      pub_start: { type: 'date', format: 'strict_date' },
      pub_end: { type: 'date', format: 'strict_date' },
      pub_years: { type: 'integer' },
      created: dateField(),
      updated: dateField(),
      version_index: longField(),
      views: longField(),
      downloads: longField(),
      search_text: fullTextField(),
      ...Object.fromEntries(Object.keys(TEXT_VALUES).map((n) => [textPath(n), textField()])),
      ...Object.fromEntries(Object.keys(DOC_KEYWORDS).map((n) => [keywordPath(n), keywordField()])),
    },
  },
};

/** Grant keys of a parent: `<type>:<id>` (any level) and `<type>:<id>:<permission>`. */
export function grantKeys(grants: unknown): string[] {
  const out = new Set<string>();
  for (const g of arr(grants)) {
    const s = g?.subject;
    if (!s?.type || s.id === undefined) continue;
    out.add(`${s.type}:${s.id}`);
    if (g.permission) out.add(`${s.type}:${s.id}:${g.permission}`);
  }
  return [...out];
}

/** Years a publication date range counts in (the facet), clipped as facet-render.ts does. */
function years(start: string | null, end: string | null): number[] {
  const s = start ?? end;
  const e = end ?? start;
  if (!s || !e) return [];
  const ys = Number(s.slice(0, 4));
  const ye = Math.min(Number(e.slice(0, 4)), ys + MAX_YEARS_PER_DOC - 1);
  const out: number[] = [];
  for (let y = ys; y <= ye; y++) out.push(y);
  return out;
}

const joined = (values: unknown[]) => {
  const texts = values.filter((v): v is string => typeof v === 'string' && v !== '');
  return texts.length ? texts.join('\n') : undefined;
};

/** The engine document of a `search_docs` row (id `<kind>:<id>`, version `index_version`). */
export function engineDoc(r: EngineSourceRow): IndexDoc {
  const d = r.doc as unknown as Record<string, any>;
  const md = d.metadata ?? {};
  const source: Record<string, unknown> = {
    id: r.id,
    kind: r.kind,
    parent_id: r.parent_id,
    owner_id: r.owner_id,
    is_published: String(r.is_published),
    is_draft: String(r.kind === 'draft'),
    is_latest: String(r.is_latest),
    is_latest_draft: String(r.is_latest_draft),
    has_draft: String(r.has_draft),
    deletion_status: r.deletion_status,
    access_record: r.access_record,
    access_files: r.access_files,
    access_status: r.access_status,
    resource_type_id: r.resource_type_id,
    rt_type: r.resource_type_type,
    rt_subtype: r.resource_type_subtype,
    file_types: r.file_types ?? [],
    files_count: typeof d.files?.count === 'number' ? d.files.count : undefined,
    community_ids: r.community_ids ?? [],
    grants: grantKeys(d.parent?.access?.grants),
    pub_start: r.publication_date_start,
    pub_end: r.publication_date_end,
    pub_years: years(r.publication_date_start, r.publication_date_end),
    created: new Date(r.created).toISOString(),
    updated: new Date(r.updated).toISOString(),
    version_index: r.version_index,
    views: Number(r.views ?? 0),
    downloads: Number(r.downloads ?? 0),
    search_text: searchTextOf(boundVectorTexts(searchTexts(r.id, md, d.pids ?? {}))),
  };
  for (const [name, values] of Object.entries(TEXT_VALUES)) {
    const v = joined(values(d));
    if (v !== undefined) source[textPath(name)] = v;
  }
  for (const [name, path] of Object.entries(DOC_KEYWORDS)) {
    const v = valuesAt(d, path);
    if (v.length) source[keywordPath(name)] = path.includes('[]') ? v : v[0];
  }
  return { id: `${r.kind}:${r.id}`, version: Number(r.index_version), source };
}
