/**
 * The `q` fields of record search: InvenioRDM's document field names (`metadata.title`,
 * `metadata.creators.person_or_org.name`, `id`, `parent.id`, `pids.doi.identifier`, …) and a few
 * short aliases, mapped to SQL over `search_docs` columns and its `doc` jsonb for the platform's
 * `compileToSql`. Use `compileQuery(q)` from the search service; don't use it for facet filters.
 *
 * - Unfielded terms search the stored `search_vector` (GIN), built by the records service from
 *   the folded texts of `searchTexts` (title, creators, description, identifiers, …).
 * - Fielded text terms match `to_tsvector('simple', rdm_fold(<expr>))` (`rdm_fold` = SQL twin of
 *   `foldText`, migration 20250601000000). Title and creator names have GIN expression indexes.
 *   Every text field marked `inVector` is also part of `search_vector`, so `compileQuery` ANDs
 *   the same term unfielded beside it (`withVectorPrefilter`): same result, but the GIN index on
 *   `search_vector` narrows the rows before the per-row field check.
 * - Keyword fields inside `doc` use jsonb containment (`doc @> …`, GIN `jsonb_path_ops`) and
 *   compare exactly (case-sensitive, as an OpenSearch `keyword`).
 * - Unknown fields match nothing (OpenSearch's unmapped-field behaviour).
 * - File data (`files.types`, `files.count`, `files.entries.key`) is guarded: NULL unless the
 *   caller may read the document's files (column `rdm_files_readable`, see files-guard.ts); a
 *   compiled `q` reading it says so in `readsFiles`, and the repo then provides the column.
 * - Default operator AND (the project's choice, see the platform parser header).
 */
import {
  compileToSql,
  type FieldMap,
  type FieldSpec,
  parseQueryLenient,
  type QueryAst,
  rankSql,
  type SearchFields,
  sqlFields,
} from '@rdm/platform';
import { FILES_READABLE_COLUMN, guardedExpr } from './files-guard.js';
import type { Sql } from './sql.js';

/** A text field; `inVector` when its text is part of `search_vector` (see searchTexts). */
type TextSpec = Extract<FieldSpec, { kind: 'text' }> & { inVector?: boolean };

const folded = (expr: string) => `rdm_fold(${expr})`;
/** Text of a scalar at `path` (`{metadata,title}`). */
const at = (...path: string[]) => `doc #>> '{${path.join(',')}}'`;
/** All values of a jsonpath, as the text of a JSON array (tokenizes like the joined values). */
const all = (jsonPath: string) => `jsonb_path_query_array(doc, '${jsonPath}')::text`;

const text = (expr: string, inVector = true): TextSpec => ({ kind: 'text', expr: folded(expr), inVector });
/**
 * A text field over all values of a jsonpath: exists only with a non-empty value (the text of an
 * empty JSON array is `[]`, not NULL), as on the search engines where an empty list is no field.
 */
const texts = (jsonPath: string, inVector = true): TextSpec => ({
  ...text(all(jsonPath), inVector),
  // Why no jsonpath filter: its `?` would read as a query binding.
  exists: `EXISTS (SELECT 1 FROM jsonb_array_elements_text(jsonb_path_query_array(doc, '${jsonPath}')) AS v(t) WHERE t <> '')`,
});

/** Exact value inside `doc` by containment; `dotted` uses `[]` for arrays (`metadata.languages[].id`). */
function docKeyword(dotted: string): FieldSpec {
  const isArray = dotted.includes('[]');
  if (isArray) {
    const jsonPath = `$.${dotted.replace(/\[\]/g, '[*]')}`;
    return {
      kind: 'keyword_array',
      expr: `jsonb_path_query_array(doc, '${jsonPath}')`,
      caseSensitive: true,
      contains: { column: 'doc', path: dotted },
    };
  }
  return { kind: 'keyword', expr: at(...dotted.split('.')), caseSensitive: true, contains: { column: 'doc', path: dotted } };
}

/** Text and keyword sub-fields of a person list (creators, contributors). */
function people(list: 'creators' | 'contributors'): Record<string, FieldSpec | string> {
  const m = `metadata.${list}`;
  const po = `$.metadata.${list}[*].person_or_org`;
  return {
    [`${m}.person_or_org.name`]: texts(`${po}.name`),
    [`${m}.person_or_org.given_name`]: texts(`${po}.given_name`),
    [`${m}.person_or_org.family_name`]: texts(`${po}.family_name`),
    [`${m}.person_or_org.type`]: docKeyword(`metadata.${list}[].person_or_org.type`),
    [`${m}.person_or_org.identifiers.identifier`]: docKeyword(`metadata.${list}[].person_or_org.identifiers[].identifier`),
    [`${m}.person_or_org.identifiers.scheme`]: docKeyword(`metadata.${list}[].person_or_org.identifiers[].scheme`),
    [`${m}.affiliations.name`]: texts(`$.metadata.${list}[*].affiliations[*].name`),
    [`${m}.affiliations.id`]: docKeyword(`metadata.${list}[].affiliations[].id`),
    [`${m}.role.id`]: docKeyword(`metadata.${list}[].role.id`),
  };
}

/**
 * Every field a record query may name: its SQL, and for the columns of `search_docs` its field in
 * the engine index too (`path`; the text and document keyword fields have theirs by name,
 * engine-fields.ts).
 */
export const RECORD_SEARCH_FIELDS: SearchFields = {
  // identity and state
  id: { kind: 'keyword', expr: 'id', path: 'id', caseSensitive: true },
  recid: 'id',
  'parent.id': { kind: 'keyword', expr: 'parent_id', path: 'parent_id', caseSensitive: true },
  conceptrecid: 'parent.id',
  is_published: { kind: 'keyword', expr: 'is_published::text', path: 'is_published', caseSensitive: true },
  is_draft: { kind: 'keyword', expr: "(kind = 'draft')::text", path: 'is_draft', caseSensitive: true },
  status: { kind: 'keyword', expr: at('status'), caseSensitive: true },
  'versions.index': { kind: 'number', expr: 'version_index', path: 'version_index' },
  'versions.is_latest': { kind: 'keyword', expr: 'is_latest::text', path: 'is_latest', caseSensitive: true },
  'versions.is_latest_draft': { kind: 'keyword', expr: 'is_latest_draft::text', path: 'is_latest_draft', caseSensitive: true },
  'deletion_status.status': { kind: 'keyword', expr: 'deletion_status', path: 'deletion_status', caseSensitive: true },
  created: { kind: 'date', expr: 'created', path: 'created' },
  updated: { kind: 'date', expr: 'updated', path: 'updated' },

  // access
  'access.record': { kind: 'keyword', expr: 'access_record', path: 'access_record', caseSensitive: true },
  'access.files': { kind: 'keyword', expr: 'access_files', path: 'access_files', caseSensitive: true },
  'access.status': { kind: 'keyword', expr: 'access_status', path: 'access_status', caseSensitive: true },
  access_status: 'access.status',
  'access.embargo.active': { kind: 'keyword', expr: at('access', 'embargo', 'active'), caseSensitive: true },

  // persistent identifiers
  'pids.doi.identifier': docKeyword('pids.doi.identifier'),
  doi: 'pids.doi.identifier',
  'pids.doi.provider': docKeyword('pids.doi.provider'),
  'pids.oai.identifier': docKeyword('pids.oai.identifier'),
  'parent.pids.doi.identifier': docKeyword('parent.pids.doi.identifier'),
  conceptdoi: 'parent.pids.doi.identifier',

  // parent
  'parent.communities.ids': docKeyword('parent.communities.ids[]'),
  'parent.communities.default': docKeyword('parent.communities.default'),
  'parent.access.owned_by.user': docKeyword('parent.access.owned_by.user'),

  // metadata: texts
  'metadata.title': text(at('metadata', 'title')),
  title: 'metadata.title',
  'metadata.description': text(at('metadata', 'description')),
  description: 'metadata.description',
  'metadata.publisher': text(at('metadata', 'publisher')),
  publisher: 'metadata.publisher',
  'metadata.copyright': text(at('metadata', 'copyright')),
  'metadata.additional_titles.title': texts('$.metadata.additional_titles[*].title'),
  'metadata.additional_descriptions.description': texts('$.metadata.additional_descriptions[*].description'),
  'metadata.subjects.subject': texts('$.metadata.subjects[*].subject'),
  subjects: 'metadata.subjects.subject',
  keywords: 'metadata.subjects.subject',
  'metadata.funding.funder.name': texts('$.metadata.funding[*].funder.name'),
  'metadata.references.reference': texts('$.metadata.references[*].reference'),
  'metadata.resource_type.title.en': text(at('metadata', 'resource_type', 'title', 'en')),
  'metadata.locations.features.place': texts('$.metadata.locations.features[*].place', false),

  // metadata: people (creators.creator is the spec's example field)
  ...people('creators'),
  ...people('contributors'),
  'creators.person_or_org.name': 'metadata.creators.person_or_org.name',
  'creators.name': 'metadata.creators.person_or_org.name',
  'creators.creator': 'metadata.creators.person_or_org.name',
  creators: 'metadata.creators.person_or_org.name',
  creator: 'metadata.creators.person_or_org.name',
  'creators.affiliations.name': 'metadata.creators.affiliations.name',
  'contributors.person_or_org.name': 'metadata.contributors.person_or_org.name',
  contributors: 'metadata.contributors.person_or_org.name',

  // metadata: keywords and dates
  'metadata.publication_date': {
    kind: 'date',
    expr: 'publication_date_start',
    endExpr: 'publication_date_end',
    type: 'date',
    path: 'pub_start',
    endPath: 'pub_end',
  },
  publication_date: 'metadata.publication_date',
  'metadata.resource_type.id': { kind: 'keyword', expr: 'resource_type_id', path: 'resource_type_id', caseSensitive: true },
  'metadata.resource_types.id': 'metadata.resource_type.id',
  resource_type: 'metadata.resource_type.id',
  'metadata.resource_type.props.type': { kind: 'keyword', expr: 'resource_type_type', path: 'rt_type', caseSensitive: true },
  'metadata.resource_type.props.subtype': { kind: 'keyword', expr: 'resource_type_subtype', path: 'rt_subtype', caseSensitive: true },
  'metadata.version': docKeyword('metadata.version'),
  'metadata.languages.id': docKeyword('metadata.languages[].id'),
  'metadata.rights.id': docKeyword('metadata.rights[].id'),
  'metadata.subjects.id': docKeyword('metadata.subjects[].id'),
  'metadata.subjects.scheme': docKeyword('metadata.subjects[].scheme'),
  'metadata.identifiers.identifier': docKeyword('metadata.alternate_identifiers[].identifier'),
  'metadata.alternate_identifiers.identifier': 'metadata.identifiers.identifier',
  'metadata.identifiers.scheme': docKeyword('metadata.alternate_identifiers[].scheme'),
  'metadata.related_identifiers.identifier': docKeyword('metadata.related_identifiers[].identifier'),
  'metadata.related_identifiers.relation_type.id': docKeyword('metadata.related_identifiers[].relation_type.id'),
  'metadata.funding.funder.id': docKeyword('metadata.funding[].funder.id'),
  'metadata.funding.award.id': docKeyword('metadata.funding[].award.id'),
  'metadata.funding.award.number': docKeyword('metadata.funding[].award.number'),

  // files: only `files.enabled` is public; the rest is NULL unless the caller may read the files (files-guard.ts)
  'files.types': { kind: 'keyword_array', expr: guardedExpr('file_types'), arrayType: 'text[]', path: 'file_types', caseSensitive: true },
  file_type: 'files.types',
  'files.enabled': { kind: 'keyword', expr: at('files', 'enabled'), caseSensitive: true },
  'files.count': { kind: 'number', expr: guardedExpr(`(${at('files', 'count')})::numeric`), path: 'files_count' },
  'files.entries.key': text(guardedExpr(`(SELECT string_agg(k, ' ') FROM jsonb_object_keys(doc #> '{files,entries}') AS k)`), false),
};

/** The postgres half of `RECORD_SEARCH_FIELDS` (built once). */
export const RECORD_FIELDS: FieldMap = sqlFields(RECORD_SEARCH_FIELDS);

/** Resolve a field name through aliases. */
function lookup(name: string): FieldSpec | undefined {
  let v: FieldSpec | string | undefined = Object.hasOwn(RECORD_FIELDS, name) ? RECORD_FIELDS[name] : undefined;
  for (let hops = 0; typeof v === 'string' && hops < 8; hops++) v = Object.hasOwn(RECORD_FIELDS, v) ? RECORD_FIELDS[v] : undefined;
  return typeof v === 'string' ? undefined : v;
}

/** True for a wildcard the full-text compiler turns into an indexable prefix query (`foo*`). */
const isPrefixPattern = (v: string) => /^[\p{L}\p{N}]+\*+$/u.test(v);

/**
 * Adds the same term unfielded beside every fielded text term or phrase whose field is part of
 * `search_vector`. Equivalent (field match ⇒ vector match, also under NOT), and indexable.
 */
export function withVectorPrefilter(ast: QueryAst): QueryAst {
  switch (ast.type) {
    case 'and':
    case 'or':
      return { ...ast, children: ast.children.map(withVectorPrefilter) };
    case 'not':
      return { ...ast, child: withVectorPrefilter(ast.child) };
    case 'term':
    case 'phrase': {
      if (ast.field === undefined || /[*?]/.test(ast.field)) return ast;
      if (ast.type === 'term' && ast.wildcard && !isPrefixPattern(ast.value)) return ast;
      const spec = lookup(ast.field) as TextSpec | undefined;
      if (spec?.kind !== 'text' || !spec.inVector) return ast;
      const { field: _f, ...unfielded } = ast;
      return { type: 'and', children: [unfielded as QueryAst, ast] };
    }
    default:
      return ast;
  }
}

/** A compiled `q`: the WHERE fragment and the bestmatch rank expression. */
export interface CompiledQuery {
  /** True when `q` is empty or match-all (no condition, rank 0). */
  matchAll: boolean;
  where: Sql;
  rank: Sql;
  /** Whether `where` or `rank` read guarded file data (column `rdm_files_readable` needed). */
  readsFiles: boolean;
}

/**
 * Parse and compile `q`. A `q` the parser cannot read falls back to a plain word search (InvenioRDM's
 * `multi_match` fallback, reference §4.1: 200); `QuerySyntaxError` only for what the engine itself
 * rejects (a value a field refuses, a NUL) and for the length/depth limits.
 */
export function compileQuery(q: string, now?: Date): CompiledQuery {
  // InvenioRDM sets no default_operator, so OpenSearch ORs side-by-side words; bestmatch ranks
  // records matching more of them first.
  const ast = parseQueryLenient(q, { defaultOperator: 'OR' });
  if (ast.type === 'all') {
    return { matchAll: true, where: { sql: 'TRUE', bindings: [] }, rank: { sql: '0', bindings: [] }, readsFiles: false };
  }
  const opts = { fullText: { tsvector: 'search_vector', config: 'simple' }, now };
  const where = compileToSql(withVectorPrefilter(ast), RECORD_FIELDS, opts);
  const rank = rankSql(ast, RECORD_FIELDS, opts);
  // Field expressions are trusted code and user input is only ever bound: the name is ours.
  const readsFiles = where.sql.includes(FILES_READABLE_COLUMN) || rank.sql.includes(FILES_READABLE_COLUMN);
  return { matchAll: false, where, rank, readsFiles };
}
