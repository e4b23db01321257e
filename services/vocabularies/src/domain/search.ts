/**
 * Entry search for the postgres engine: `q` (the shared query syntax), `suggest` (search as you
 * type), the `tags` filter and the sorts, compiled into an `EntrySearch` for the repo.
 *
 * When to use: the vocabularies service builds one per list request with `buildEntrySearch`.
 * - `q` goes through `parseQuery` (default operator OR, like InvenioRDM's plain `query_string`)
 *   and `compileToSql`: unfielded terms hit `search_vector` (id, titles, descriptions, props,
 *   tags and the special fields), fielded ones the folded `search_fields` or the columns.
 * - `suggest` is InvenioRDM's `bool_prefix` multi-match with operator AND: every word must be
 *   the prefix of a word of the kind's suggest fields (`suggest_vector`); an exact acronym or id
 *   match ranks first (affiliations `suggest=CERN`).
 * - sorts: `bestmatch` = rank, `title`/`name`/`subject` = the sort key (byte order, as a
 *   keyword sort), `newest`/`oldest` = created; ties broken by id.
 */
import {
  compileToSql,
  type FieldMap,
  foldText,
  parseQuery,
  type QueryAst,
  QuerySyntaxError,
  rankSql,
  Errors,
  type SearchField,
  type SearchFields,
  sqlFields,
} from '@rdm/platform';
import { type EntrySearch, pgTextArray } from '../repo/vocabularies.repo.js';
import { kindOf } from './kinds.js';

/** Path of a folded field text in the index, under `f` (`title.en` → `f.title%2Een`: a dot would make `title` an object). */
export function fieldPath(key: string): string {
  return `f.${key.replace(/%/g, '%25').replace(/\./g, '%2E')}`;
}

/** A folded text of `search_fields` (postgres) / under `f` (the index). */
const text = (key: string): SearchField => ({ kind: 'text', expr: `e.search_fields->>'${key}'`, path: fieldPath(key) });

/**
 * Fields every query may name, on both engines (the SQL and the path in the index,
 * search/entry-index.ts). Values of `props.*`, `title.*`, `description.*` are added per query.
 */
export const STATIC_SEARCH_FIELDS: SearchFields = {
  id: { kind: 'keyword', expr: 'e.id', path: 'id', caseSensitive: true },
  'id.text': text('id'),
  title: text('title'),
  description: text('description'),
  tags: { kind: 'keyword_array', expr: 'e.tags', arrayType: 'text[]', path: 'tags', caseSensitive: true },
  icon: { kind: 'keyword', expr: 'e.icon', path: 'icon', caseSensitive: true },
  created: { kind: 'date', expr: 'e.created', path: 'created' },
  updated: { kind: 'date', expr: 'e.updated', path: 'updated' },
  acronym: text('acronym'),
  'acronym.keyword': { kind: 'keyword', expr: 'e.acronym', path: 'acronym', caseSensitive: true },
  name: text('name'),
  given_name: text('given_name'),
  family_name: text('family_name'),
  country: { kind: 'keyword', expr: 'e.country', path: 'country' },
  country_name: text('country_name'),
  location_name: text('location_name'),
  status: { kind: 'keyword', expr: "e.extra->>'status'", path: 'status' },
  types: { kind: 'keyword_array', expr: "e.extra->'types'", path: 'types' },
  aliases: text('aliases'),
  'identifiers.identifier': {
    kind: 'keyword_array',
    expr: "jsonb_path_query_array(e.identifiers, '$[*].identifier')",
    path: 'identifier_values',
  },
  'identifiers.scheme': { kind: 'keyword_array', expr: "jsonb_path_query_array(e.identifiers, '$[*].scheme')", path: 'identifier_schemes' },
  scheme: { kind: 'keyword', expr: 'e.scheme', path: 'scheme', caseSensitive: true },
  subject: text('subject'),
  synonyms: text('synonyms'),
  number: { kind: 'keyword', expr: 'e.number', path: 'number' },
  program: text('program'),
  'funder.id': { kind: 'keyword', expr: "e.extra->'funder'->>'id'", path: 'funder_id' },
  'funder.name': text('funder.name'),
  'affiliations.id': {
    kind: 'keyword_array',
    expr: "jsonb_path_query_array(e.extra->'affiliations', '$[*].id')",
    path: 'affiliation_ids',
  },
  'affiliations.name': text('affiliations.name'),
  short_description: text('short_description'),
};

/** The postgres half of `STATIC_SEARCH_FIELDS`. */
export const STATIC_FIELDS = sqlFields(STATIC_SEARCH_FIELDS);

/** Languages always addressable as `title.<lang>` (field globs like `title.*` expand over them). */
export const LANGS = ['ar', 'cs', 'de', 'en', 'es', 'fi', 'fr', 'it', 'nl', 'pt', 'sv'];
const SAFE_KEY = /^[A-Za-z0-9_.:-]{1,100}$/;

function collectFields(ast: QueryAst, out: Set<string>): void {
  switch (ast.type) {
    case 'and':
    case 'or':
      for (const c of ast.children) collectFields(c, out);
      return;
    case 'not':
      collectFields(ast.child, out);
      return;
    case 'all':
      return;
    default:
      if (ast.field) out.add(ast.field);
  }
}

/**
 * Text fields of one query beyond the static ones and `title.<lang>`/`description.<lang>`: the
 * `props.*`, `title.*`, `description.*`, `short_description.*` names it uses.
 */
export function dynamicTextFields(ast: QueryAst): string[] {
  const named = new Set<string>();
  collectFields(ast, named);
  return [...named].filter((f) => {
    const m = /^(props|title|description|short_description)\.(.+)$/.exec(f);
    // Why: the key is inlined into SQL as a literal; only plain names are accepted (others match nothing).
    return m && SAFE_KEY.test(m[2]) && !m[2].includes('*') && !Object.hasOwn(STATIC_FIELDS, f);
  });
}

/** The static fields and `title.<lang>`, `description.<lang>` (built once). */
const QUERY_FIELDS: SearchFields = {
  ...STATIC_SEARCH_FIELDS,
  ...Object.fromEntries(LANGS.flatMap((l) => [`title.${l}`, `description.${l}`].map((f) => [f, text(f)]))),
};
const QUERY_SQL_FIELDS = sqlFields(QUERY_FIELDS);

/** The dynamic `props.*`, `title.*`, … fields a query names beyond `QUERY_FIELDS`. */
function dynamicFields(ast: QueryAst): SearchFields {
  return Object.fromEntries(
    dynamicTextFields(ast)
      .filter((f) => !Object.hasOwn(QUERY_FIELDS, f))
      .map((f) => [f, text(f)]),
  );
}

/** The fields of one query on both engines: the static fields, `title.<lang>`, `description.<lang>` and the dynamic `props.*`, … it names. */
export function searchFieldsFor(ast: QueryAst): SearchFields {
  return { ...QUERY_FIELDS, ...dynamicFields(ast) };
}

/** The postgres field map of one query (`searchFieldsFor`; the static part built once). */
export function fieldsFor(ast: QueryAst): FieldMap {
  const dynamic = dynamicFields(ast);
  return Object.keys(dynamic).length ? { ...QUERY_SQL_FIELDS, ...sqlFields(dynamic) } : QUERY_SQL_FIELDS;
}

/** Parse `q`, mapping a syntax error to InvenioRDM's 400. */
export function parseQ(q: string): QueryAst {
  try {
    return parseQuery(q, { defaultOperator: 'OR' });
  } catch (e) {
    if (e instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(e);
    throw e;
  }
}

/** Input of `buildEntrySearch`. */
export interface EntrySearchInput {
  type: string;
  q: string;
  suggest: string;
  tags: string[];
  sort: string;
  limit: number;
  offset: number;
  /** Hide entries tagged `unlisted` (everyone but the system). */
  hideUnlisted: boolean;
}

/** Words of a suggest string (folded; punctuation splits words). */
export function suggestWords(s: string): string[] {
  return foldText(s)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0)
    .slice(0, 20);
}

/** A `suggest` value taken apart: subjects' scheme filter, the folded words, the whole folded text. */
export interface ParsedSuggest {
  /** Subjects only: `MeSH,FOS:term` restricts to those schemes (SubjectsSearchOptions, filter_field "scheme"). */
  schemes: string[];
  /** Every word must be the prefix of a word of the suggest fields. */
  words: string[];
  /** The folded text after the schemes: exact acronym/id/title matches rank first. */
  whole: string;
}

/** Parse a `suggest` value of vocabulary `type`. */
export function parseSuggest(type: string, suggest: string): ParsedSuggest {
  let text = suggest;
  let schemes: string[] = [];
  if (kindOf(type) === 'subjects') {
    const colon = text.indexOf(':');
    if (colon >= 0) {
      schemes = text
        .slice(0, colon)
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      text = text.slice(colon + 1);
    }
  }
  return { schemes, words: suggestWords(text), whole: foldText(text.trim()) };
}

/** Build the repo search of one list request. */
export function buildEntrySearch(i: EntrySearchInput): EntrySearch {
  const where: EntrySearch['where'] = [];
  let rank: { sql: string; bindings: unknown[] } = { sql: '0', bindings: [] };
  if (i.q) {
    const ast = parseQ(i.q);
    const fields = fieldsFor(ast);
    try {
      where.push(compileToSql(ast, fields, { fullText: { tsvector: 'e.search_vector', config: 'simple' } }));
      rank = rankSql(ast, fields, { fullText: { tsvector: 'e.search_vector', config: 'simple' } });
    } catch (e) {
      if (e instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(e);
      throw e;
    }
  } else if (i.suggest) {
    const { schemes, words, whole } = parseSuggest(i.type, i.suggest);
    if (schemes.length) where.push({ sql: 'e.scheme = ANY(?::text[])', bindings: [pgTextArray(schemes)] });
    if (words.length > 0) {
      const tsq = words.map((w) => `'${w}':*`).join(' & ');
      where.push({ sql: `e.suggest_vector @@ to_tsquery('simple', ?)`, bindings: [tsq] });
      // Like a bool_prefix multi-match scored with BM25: exact acronym/id/title hits first, then
      // titles starting with the text, then the rank normalised by document length (shorter first).
      rank = {
        sql: `(CASE WHEN lower(e.acronym) = ? THEN 10 ELSE 0 END
          + CASE WHEN lower(e.id) = ? THEN 5 ELSE 0 END
          + CASE WHEN coalesce(e.search_fields->>'title.en', e.search_fields->>'name', e.search_fields->>'subject') = ? THEN 4 ELSE 0 END
          + CASE WHEN starts_with(coalesce(e.search_fields->>'title.en', e.search_fields->>'name', e.search_fields->>'subject', ''), ?) THEN 3 ELSE 0 END
          + ts_rank_cd(e.suggest_vector, to_tsquery('simple', ?), 1))`,
        bindings: [whole, whole, whole, whole, tsq],
      };
    }
  }
  if (i.tags.length > 0) {
    // Repeated `tags` args are OR-ed (a terms filter), like InvenioRDM's FilterParam.
    where.push({ sql: 'e.tags && ?::text[]', bindings: [pgTextArray(i.tags)] });
  }
  if (i.hideUnlisted) where.push({ sql: `NOT (e.tags @> '{unlisted}'::text[])`, bindings: [] });
  let orderBy: EntrySearch['orderBy'];
  switch (i.sort) {
    case 'bestmatch':
      // Why: a bare `0` in ORDER BY would be read as a column position.
      orderBy =
        rank.sql.trim() === '0'
          ? { sql: 'e.sort_key COLLATE "C" ASC NULLS LAST, e.id ASC', bindings: [] }
          : { sql: `(${rank.sql}) DESC, e.sort_key COLLATE "C" ASC NULLS LAST, e.id ASC`, bindings: rank.bindings };
      break;
    case 'newest':
      orderBy = { sql: 'e.created DESC, e.id ASC', bindings: [] };
      break;
    case 'oldest':
      orderBy = { sql: 'e.created ASC, e.id ASC', bindings: [] };
      break;
    default:
      orderBy = { sql: 'e.sort_key COLLATE "C" ASC NULLS LAST, e.id ASC', bindings: [] };
  }
  return { type: i.type, where, orderBy, limit: i.limit, offset: i.offset };
}
