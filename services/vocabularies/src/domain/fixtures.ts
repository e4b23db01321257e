/**
 * Reading the shipped vocabulary fixtures (`src/fixtures/`, copied from invenio-rdm-records).
 *
 * When to use: the `migrate` command reads them with `readFixtures()` and hands the result to
 * `loadVocabularies`. Parsing follows invenio-rdm-records' fixture iterators: YAML lists as
 * they are; CSV rows where `a__b` columns become nested `{a: {b}}` and `tags` is a comma list.
 * A data file listed in `vocabularies.yaml` but absent (names_orcid.yaml and awards.yaml were
 * not copied) yields a type with no entries, as InvenioRDM's empty files do. The `subjects`
 * type, which InvenioRDM creates without data, is added too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import { parse as parseYaml } from 'yaml';
import { type EntryDoc, EntryError, normalizeEntry } from './entry.js';
import { KNOWN_PID_TYPES } from './kinds.js';

/** Default fixtures directory (next to this module's parent). */
export const FIXTURES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** One vocabulary type read from the fixtures. */
export interface FixtureVocabulary {
  /** Vocabulary type id (`resourcetypes`, `code:developmentStatus`, …). */
  type: string;
  /** InvenioRDM pid type (`rsrct`, `lng`, …). */
  pidType: string;
  /** Data file relative to the fixtures directory; undefined when the type has none. */
  dataFile?: string;
  /** True when the listed data file is not shipped. */
  missingFile: boolean;
  entries: EntryDoc[];
}

/** A row that could not be normalised. */
export interface FixtureProblem {
  type: string;
  index: number;
  field: string;
  message: string;
}

/** Result of reading the fixtures. */
export interface FixtureSet {
  vocabularies: FixtureVocabulary[];
  problems: FixtureProblem[];
}

/** Map one CSV record (header → value) the way invenio-rdm-records' CSVIterator does. */
export function mapCsvRow(row: Record<string, string>): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  for (const [attr, raw] of Object.entries(row)) {
    const value: unknown = attr === 'tags' ? raw.split(',').map((x) => x.trim()) : raw;
    const keys = attr.split('__');
    if (keys.length === 1) entry[keys[0]] = value;
    else if (keys.length === 2) {
      if (!entry[keys[0]]) entry[keys[0]] = {};
      (entry[keys[0]] as Record<string, unknown>)[keys[1]] = value;
    }
  }
  return entry;
}

/** Parse the raw rows of a data file (`.yaml` list or `.csv` with a header). */
export function parseDataFile(path: string): unknown[] {
  const text = readFileSync(path, 'utf8');
  if (/\.ya?ml$/i.test(path)) {
    const data = parseYaml(text) as unknown;
    if (data === null || data === undefined) return [];
    if (!Array.isArray(data)) throw new Error(`${path}: expected a YAML list`);
    return data;
  }
  if (/\.csv$/i.test(path)) {
    const rows = parseCsv(text, { columns: true, skip_empty_lines: true, relax_column_count: true }) as Record<string, string>[];
    return rows.map(mapCsvRow);
  }
  if (/\.jsonl$/i.test(path)) {
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as unknown);
  }
  throw new Error(`${path}: unknown data format`);
}

/** Normalise the rows of one type, collecting problems; later duplicates of an id replace earlier ones. */
export function normalizeRows(type: string, rows: unknown[], problems: FixtureProblem[]): EntryDoc[] {
  const byId = new Map<string, EntryDoc>();
  rows.forEach((row, index) => {
    try {
      const doc = normalizeEntry(type, row);
      byId.set(doc.id, doc);
    } catch (e) {
      if (!(e instanceof EntryError)) throw e;
      problems.push({ type, index, field: e.field, message: e.message });
    }
  });
  return [...byId.values()];
}

/** Read `vocabularies.yaml` and every data file it lists, plus the data-less `subjects` type. */
export function readFixtures(dir: string = FIXTURES_DIR): FixtureSet {
  const index = parseYaml(readFileSync(join(dir, 'vocabularies.yaml'), 'utf8')) as Record<
    string,
    { 'pid-type'?: string; 'data-file'?: string } | null
  >;
  const problems: FixtureProblem[] = [];
  const vocabularies: FixtureVocabulary[] = [];
  for (const [type, conf] of Object.entries(index ?? {})) {
    const pidType = conf?.['pid-type'] ?? KNOWN_PID_TYPES[type];
    if (!pidType) throw new Error(`vocabularies.yaml: ${type} has no pid-type`);
    const dataFile = conf?.['data-file'];
    const path = dataFile ? join(dir, dataFile) : undefined;
    const missingFile = path !== undefined && !existsSync(path);
    const rows = path && !missingFile ? parseDataFile(path) : [];
    vocabularies.push({ type, pidType, dataFile, missingFile, entries: normalizeRows(type, rows, problems) });
  }
  // invenio-rdm-records' vocabularies.yaml: "'subjects' type needs to be created to prevent
  // querying errors in the facets", with no default data.
  if (!vocabularies.some((v) => v.type === 'subjects')) {
    vocabularies.push({ type: 'subjects', pidType: KNOWN_PID_TYPES.subjects, missingFile: false, entries: [] });
  }
  return { vocabularies, problems };
}
