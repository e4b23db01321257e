/**
 * InvenioRDM's own vocabulary files, as invenio-vocabularies' `YamlReader` and `CSVReader` (and
 * invenio-rdm-records' fixture iterators) read them: a YAML **list** of entries, or a CSV file
 * with a header row whose `a__b` columns become nested `{a: {b}}` and whose `tags` column is a
 * comma list (`mapCsvRow`). Each element comes with its 0-based position; an element that cannot
 * be read (a CSV row with the wrong number of fields, a broken quote) comes with its `error`.
 *
 * When to use: `openSource` (`source.ts`) for the `yaml` and `csv` formats. YAML is parsed whole
 * (YAML has no streaming parser worth the name, and InvenioRDM's files are small): the caller
 * bounds the text's size first. CSV is streamed (csv-parse), one row in memory at a time; a row
 * longer than `maxRecordBytes` stops the file (`VocabularyFileError`), so a 2 GB line is never
 * buffered.
 */
import { parse as parseCsv } from 'csv-parse';
import { parseDocument } from 'yaml';
import { mapCsvRow } from '../domain/fixtures.js';
import type { ArrayElement } from './json-array.js';

/** A file that cannot be read as a whole (the run fails with the message). */
export class VocabularyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VocabularyFileError';
  }
}

/** The elements of a YAML vocabulary file: a list (an empty file has none); anything else is a `VocabularyFileError`. */
export function yamlElements(text: string): ArrayElement[] {
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const where = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
    throw new VocabularyFileError(`Not readable as YAML${where}: ${e.message.split('\n')[0]}`);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    throw new VocabularyFileError(`Not readable as YAML: ${(err as Error).message}`);
  }
  if (data === null || data === undefined) return [];
  if (!Array.isArray(data))
    throw new VocabularyFileError('The YAML file is not a list of entries (InvenioRDM vocabulary files are a YAML list).');
  return data.map((value, position) => ({ position, value }));
}

/** Options of the CSV reader. */
export interface CsvOptions {
  /** A longer row stops the file (default 16 MiB). */
  maxRecordBytes?: number;
}

/** The rows of a CSV vocabulary file, mapped as InvenioRDM maps them (`mapCsvRow`); `input` is the (inflated) bytes. */
export async function* csvElements(input: AsyncIterable<Buffer>, o: CsvOptions = {}): AsyncGenerator<ArrayElement> {
  const max = o.maxRecordBytes ?? 16 * 1024 * 1024;
  const skipped: { line: number; reason: string }[] = [];
  const parser = parseCsv({
    columns: (header: string[]) => {
      const names = header.map((h) => h.trim());
      if (names.length === 0 || names.every((h) => h === '')) throw new VocabularyFileError('The CSV file has no header row.');
      return names;
    },
    bom: true,
    skip_empty_lines: true,
    max_record_size: max,
    skip_records_with_error: true,
    info: true,
    on_skip: (err) => {
      // Why fatal: past the bound the parser would go on buffering the row.
      if (err && (err as { code?: string }).code === 'CSV_MAX_RECORD_SIZE') throw err;
      const line = (err as { lines?: number } | undefined)?.lines ?? 0;
      skipped.push({ line, reason: err ? err.message : 'Unreadable row.' });
    },
  });
  const feed = (async () => {
    try {
      for await (const chunk of input) {
        if (parser.destroyed) return;
        if (!parser.write(chunk)) {
          await new Promise((r) => {
            parser.once('drain', r);
            parser.once('close', r);
          });
        }
      }
      if (!parser.destroyed) parser.end();
    } catch (err) {
      parser.destroy(err as Error);
    }
  })();
  let position = 0;
  try {
    for await (const rec of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      while (skipped.length > 0 && skipped[0].line <= rec.info.lines) {
        const s = skipped.shift()!;
        yield { position: position++, error: `Malformed CSV row: ${s.reason}` };
      }
      yield { position: position++, value: mapCsvRow(rec.record) };
    }
    for (const s of skipped.splice(0)) yield { position: position++, error: `Malformed CSV row: ${s.reason}` };
  } catch (err) {
    if (err instanceof VocabularyFileError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'CSV_MAX_RECORD_SIZE') throw new VocabularyFileError(`A CSV row is larger than ${max} bytes: ${(err as Error).message}`);
    if (typeof code === 'string' && code.startsWith('CSV_'))
      throw new VocabularyFileError(`Not readable as CSV: ${(err as Error).message}`);
    throw err;
  } finally {
    if (!parser.writableEnded) parser.destroy();
    await feed;
  }
}
