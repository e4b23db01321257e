/**
 * The kinds of vocabulary and what differs between them: which fields an entry carries, how a
 * list is sorted, which fields `suggest` looks at, who may read it, and where it is served.
 *
 * When to use: every layer asks `kindOf(typeId)` instead of testing type ids by hand. Generic
 * vocabularies (resourcetypes, licenses, languages, …) share one shape; the five "special"
 * vocabularies of invenio-vocabularies (affiliations, funders, awards, names, subjects — its
 * `VOCABULARIES_CUSTOM_VOCABULARY_TYPES`) have their own fields and sort options and are also
 * served at the API root (`/api/affiliations`, …).
 */

/** The kind of a vocabulary: `generic` or one of the special (custom) vocabularies. */
export type VocabularyKind = 'generic' | 'affiliations' | 'funders' | 'awards' | 'names' | 'subjects';

/** What a kind looks like over HTTP. */
export interface KindSpec {
  kind: VocabularyKind;
  /** Accepted `sort` values. */
  sorts: readonly string[];
  /** Sort without `q`/`suggest`. */
  defaultSort: string;
  /** Entry fields besides id/created/updated/revision_id/links, in output order. */
  fields: readonly string[];
  /** Only authenticated callers may search and read (names). */
  authenticatedOnly: boolean;
  /** Listed with `is_custom_vocabulary: true` and served at `/api/<type>`. */
  custom: boolean;
}

const BASE = ['title', 'description', 'icon', 'tags'] as const;

/** Per-kind specification (sorts and fields from invenio-vocabularies v14 configs and schemas). */
export const KINDS: Record<VocabularyKind, KindSpec> = {
  generic: {
    kind: 'generic',
    sorts: ['bestmatch', 'title', 'newest', 'oldest'],
    defaultSort: 'title',
    fields: ['title', 'description', 'icon', 'tags', 'props', 'type'],
    authenticatedOnly: false,
    custom: false,
  },
  affiliations: {
    kind: 'affiliations',
    sorts: ['bestmatch', 'name', 'newest', 'oldest'],
    defaultSort: 'name',
    fields: [
      'name',
      'acronym',
      'identifiers',
      ...BASE,
      'country',
      'country_name',
      'location_name',
      'website',
      'domains',
      'aliases',
      'status',
      'types',
    ],
    authenticatedOnly: false,
    custom: true,
  },
  funders: {
    kind: 'funders',
    sorts: ['bestmatch', 'name', 'newest', 'oldest'],
    defaultSort: 'name',
    fields: ['name', 'acronym', 'identifiers', ...BASE, 'country', 'country_name', 'location_name', 'aliases', 'status', 'types'],
    authenticatedOnly: false,
    custom: true,
  },
  awards: {
    kind: 'awards',
    // records-resources' default SearchOptions: bestmatch with a query, newest without.
    sorts: ['bestmatch', 'newest', 'oldest'],
    defaultSort: 'newest',
    fields: [
      'number',
      ...BASE,
      'identifiers',
      'funder',
      'acronym',
      'program',
      'website',
      'short_description',
      'subjects',
      'organizations',
      'start_date',
      'end_date',
    ],
    authenticatedOnly: false,
    custom: true,
  },
  names: {
    kind: 'names',
    sorts: ['bestmatch', 'name', 'newest', 'oldest'],
    defaultSort: 'name',
    fields: ['name', 'given_name', 'family_name', 'identifiers', 'affiliations', ...BASE, 'props'],
    authenticatedOnly: true,
    custom: true,
  },
  subjects: {
    kind: 'subjects',
    sorts: ['bestmatch', 'subject', 'newest', 'oldest'],
    defaultSort: 'subject',
    fields: ['scheme', 'subject', ...BASE, 'props', 'identifiers', 'synonyms'],
    authenticatedOnly: false,
    custom: true,
  },
};

/** Ids of the special vocabularies, served at `/api/<id>` as well. */
export const CUSTOM_TYPES = ['affiliations', 'awards', 'funders', 'names', 'subjects'] as const;

/** pid_type of each vocabulary type InvenioRDM ships (rdm-records fixtures; subjects from its subjects provider). */
export const KNOWN_PID_TYPES: Readonly<Record<string, string>> = {
  affiliations: 'aff',
  awards: 'awa',
  communitytypes: 'comtyp',
  contributorsroles: 'cor',
  creatorsroles: 'crr',
  datetypes: 'dat',
  descriptiontypes: 'dty',
  funders: 'fun',
  languages: 'lng',
  licenses: 'lic',
  names: 'names',
  relationtypes: 'rlt',
  removalreasons: 'rem',
  resourcetypes: 'rsrct',
  subjects: 'sub',
  titletypes: 'ttyp',
  'code:developmentStatus': 'ds',
  'code:programmingLanguages': 'pl',
};

/** The kind of a vocabulary type id. */
export function kindOf(typeId: string): VocabularyKind {
  return (CUSTOM_TYPES as readonly string[]).includes(typeId) ? (typeId as VocabularyKind) : 'generic';
}

/** The spec of a vocabulary type id. */
export function specOf(typeId: string): KindSpec {
  return KINDS[kindOf(typeId)];
}

/**
 * The large vocabularies (names, affiliations, funders, awards, subjects: up to millions of entries),
 * indexed in and searched on OpenSearch/Elasticsearch when `SEARCH_ENGINE` is not `postgres`; the
 * small generic ones always search PostgreSQL.
 */
export const INDEXED_TYPES: readonly string[] = CUSTOM_TYPES;

/** True when entries of `typeId` live in the search engine index (when there is one). */
export function isIndexedType(typeId: string): boolean {
  return INDEXED_TYPES.includes(typeId);
}
