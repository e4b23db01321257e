/**
 * Index settings and mapping helpers shared by every service's index definitions. Use them when
 * writing an `IndexDefinition`: `baseIndexSettings` (one shard, the analysers) and the field helpers
 * (`textField`, `keywordField`, `dateField`, …) so that every index analyses text the way the postgres
 * engine folds it (`foldText`: lowercase + ASCII folding), and suggest fields use edge n-grams.
 */
import { MAX_REGEX_LENGTH } from '../regex.js';

/** Analysis and shard settings of every index (one shard: exact facet counts, as on postgres). */
export const baseIndexSettings = {
  number_of_shards: 1,
  number_of_replicas: 0,
  // Deleted versions are remembered this long, so a late index of an older revision stays ignored.
  'index.gc_deletes': '1h',
  // The engine's own cap on a regexp's length, the parser's (regex.ts): no other path sends a longer one.
  'index.max_regex_length': MAX_REGEX_LENGTH,
  analysis: {
    analyzer: {
      // Full text: words, lower-cased and ASCII-folded (`Römäns` → `romans`), like `foldText` + `simple`.
      folding: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'asciifolding'] },
      // Suggest (as-you-type): edge n-grams of each folded word, indexed; queries use `folding`.
      suggest: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'asciifolding', 'suggest_edge'] },
    },
    filter: {
      suggest_edge: { type: 'edge_ngram', min_gram: 1, max_gram: 20 },
    },
    normalizer: {
      // For sort keys and text ranges: the whole value, folded.
      folding: { type: 'custom', filter: ['lowercase', 'asciifolding'] },
    },
  },
} as const;

/** A full-text field analysed like `foldText`, with a folded keyword `.raw` (ranges, sorting). */
export function textField(opts: { suggest?: boolean } = {}): Record<string, unknown> {
  const fields: Record<string, unknown> = { raw: { type: 'keyword', normalizer: 'folding', ignore_above: 256 } };
  if (opts.suggest) fields.suggest = { type: 'text', analyzer: 'suggest', search_analyzer: 'folding' };
  return { type: 'text', analyzer: 'folding', fields };
}

/** The full-text field unfielded terms search (`search_text`: the same texts the postgres tsvector holds). */
export function fullTextField(): Record<string, unknown> {
  return { type: 'text', analyzer: 'folding' };
}

/** An exact-value field (ids, statuses, vocabulary ids); queries match it case-insensitively unless told. */
export function keywordField(): Record<string, unknown> {
  return { type: 'keyword', ignore_above: 1024 };
}

/** A date or timestamp field. */
export function dateField(): Record<string, unknown> {
  return { type: 'date', format: 'strict_date_optional_time||epoch_millis' };
}

/** A timestamp with the database's microseconds (ordered exactly as in SQL). */
export function nanosField(): Record<string, unknown> {
  return { type: 'date_nanos', format: 'strict_date_optional_time_nanos||epoch_millis' };
}

/** A numeric field. */
export function longField(): Record<string, unknown> {
  return { type: 'long' };
}

/** A stored-only object (returned in `_source`, never searched). */
export function storedObject(): Record<string, unknown> {
  return { type: 'object', enabled: false };
}

/**
 * The `search_text` value of a document from the same texts the postgres tsvector is built from
 * (`searchVectorSql(texts)`): joined by newlines into ONE value, so a phrase may span two texts on
 * both engines alike (an array would put a position gap between them).
 */
export function searchTextOf(texts: Array<string | null | undefined>): string {
  return texts.filter((t) => t).join('\n');
}

/** The field mappings by type, for an index definition: `mapping.keyword()`, `mapping.text({ suggest: true })`, … */
export const mapping = {
  keyword: keywordField,
  long: longField,
  date: dateField,
  nanos: nanosField,
  text: textField,
  fullText: fullTextField,
  stored: storedObject,
};
