/**
 * Streamed reading of an import source — `ror-v2`: the elements of the JSON array inside a ROR
 * dump zip; `jsonl`: the lines of InvenioRDM's JSON-lines vocabulary files; `csv`: the rows of its
 * CSV vocabulary files; `yaml`: the list of its YAML vocabulary files, read whole but refused above
 * a configured size (gzipped files accepted for the three, by their magic bytes); `orcid`: the
 * record summaries of ORCID's public data file (tar.gz of XML, `orcid.ts`); `openaire`, `cordis`:
 * project dumps (`awards.ts`: JSON lines or a tar of them; CORDIS XML/CSV, zipped or not); `skos`,
 * `mesh`: subject schemes (`subjects.ts`: RDF/XML or Turtle, read twice; MeSH descriptor XML) — one
 * at a time with their position, memory flat in the file's size (yauzl reads the zip's central
 * directory and inflates one member as a stream; `json-array.ts` splits it into elements, parsed
 * one at a time; the consumer's pace is the reader's pace). An element that is not valid JSON or
 * too large comes with its `error` (rejected, the run goes on).
 *
 * When to use: the import runner opens a run's source with `openSource(format, path)` and iterates
 * `elements()`. A file that cannot be read at all (not a zip, truncated, no JSON member, not a JSON
 * array, broken JSON) throws `SourceError` with a clear message: the run fails with it.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';
import { JsonArrayError, jsonArrayElements } from './json-array.js';
import { jsonLines } from './json-lines.js';
import { orcidElements } from './orcid.js';
import { isTurtle, meshElements, skosElements } from './subjects.js';
import { cordisElements, cordisZipElements, openaireElements, type ZipMember } from './awards.js';
import { csvElements, VocabularyFileError, yamlElements } from './vocabulary-files.js';

/** A source the runner cannot read (the run fails with this message). */
export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}

/** The import formats. */
export const IMPORT_FORMATS = ['ror-v2', 'jsonl', 'csv', 'yaml', 'orcid', 'openaire', 'cordis', 'skos', 'mesh'] as const;
/** An import format. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One element of a source: its 0-based position and its parsed value, or why it could not be read (the run rejects it). */
export type SourceElement =
  | { position: number; value: unknown; error?: undefined }
  | { position: number; error: string; value?: undefined };

/** An opened source. */
export interface Source {
  /** The elements from the first one; `bytesRead` grows as they are read. */
  elements(): AsyncIterable<SourceElement>;
  /** Uncompressed bytes of the data read so far. */
  readonly bytesRead: number;
  /** Uncompressed size of the data (for progress), when known. */
  readonly bytesTotal: number | null;
  close(): void;
}

const openZip = (path: string) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: false }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );

/** Every member of the zip (its central directory only; nothing is inflated). */
function zipEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const out: yauzl.Entry[] = [];
    zip.on('entry', (e: yauzl.Entry) => {
      out.push(e);
      zip.readEntry();
    });
    zip.once('end', () => resolve(out));
    zip.once('error', reject);
    zip.readEntry();
  });
}

/** The ROR dump's schema v2 JSON member: `…_schema_v2.json`, else the only `.json` member. */
export function pickRorMember(names: string[]): string | undefined {
  const json = names.filter((n) => n.toLowerCase().endsWith('.json') && !n.endsWith('/'));
  return json.find((n) => /schema_v2\.json$/i.test(n)) ?? (json.length === 1 ? json[0] : undefined);
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Open `path` as a ROR v2 dump (zip holding the JSON array). */
async function openRorZip(path: string): Promise<Source> {
  try {
    await stat(path);
  } catch (err) {
    throw new SourceError(`Cannot read the source file ${path}: ${reason(err)}`);
  }
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch (err) {
    throw new SourceError(`The source is not a readable zip file (truncated or corrupt?): ${reason(err)}`);
  }
  let entries: yauzl.Entry[];
  try {
    entries = await zipEntries(zip);
  } catch (err) {
    zip.close();
    throw new SourceError(`The zip's directory is unreadable: ${reason(err)}`);
  }
  const name = pickRorMember(entries.map((e) => e.fileName));
  const entry = entries.find((e) => e.fileName === name);
  if (!entry) {
    zip.close();
    throw new SourceError(
      `The zip holds no ROR schema v2 JSON file (…_schema_v2.json or a single .json); members: ${entries
        .map((e) => e.fileName)
        .slice(0, 10)
        .join(', ')}`,
    );
  }
  let bytesRead = 0;
  let opened = false;
  return {
    get bytesRead() {
      return bytesRead;
    },
    bytesTotal: entry.uncompressedSize,
    close: () => zip.close(),
    async *elements() {
      if (opened) throw new Error('A source is read once.');
      opened = true;
      let raw: Readable;
      try {
        raw = await new Promise<Readable>((resolve, reject) =>
          zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s as Readable))),
        );
      } catch (err) {
        throw new SourceError(`Cannot read ${entry.fileName} in the zip: ${reason(err)}`);
      }
      const counted = async function* () {
        for await (const chunk of raw as AsyncIterable<Buffer>) {
          bytesRead += chunk.length;
          yield chunk;
        }
      };
      try {
        yield* jsonArrayElements(counted());
      } catch (err) {
        if (err instanceof JsonArrayError) throw new SourceError(`${entry.fileName} is not a readable JSON array: ${reason(err)}`);
        throw new SourceError(`${entry.fileName} cannot be read from the zip (corrupt or truncated member?): ${reason(err)}`);
      } finally {
        raw.destroy();
      }
    },
  };
}

/** Size of `path` and whether it is gzipped (magic bytes); `SourceError` when it cannot be read. */
async function probe(path: string): Promise<{ size: number; gzipped: boolean }> {
  try {
    const size = (await stat(path)).size;
    const fh = await open(path, 'r');
    try {
      const magic = Buffer.alloc(2);
      await fh.read(magic, 0, 2, 0);
      return { size, gzipped: magic[0] === 0x1f && magic[1] === 0x8b };
    } finally {
      await fh.close();
    }
  } catch (err) {
    throw new SourceError(`Cannot read the source file ${path}: ${reason(err)}`);
  }
}

/**
 * Open `path` as a streamed file of elements (`split`: its inflated bytes → elements), gzipped when
 * it starts with gzip's magic bytes; progress counts the file's bytes.
 */
async function openStreamed(
  path: string,
  what: string,
  split: (bytes: AsyncIterable<Buffer>) => AsyncIterable<SourceElement>,
): Promise<Source> {
  const { size, gzipped } = await probe(path);
  let bytesRead = 0;
  let file: Readable | undefined;
  return {
    get bytesRead() {
      return bytesRead;
    },
    bytesTotal: size,
    close: () => file?.destroy(),
    async *elements() {
      const f = createReadStream(path);
      file = f;
      f.on('data', (c) => {
        bytesRead += c.length;
      });
      const bytes: AsyncIterable<Buffer> = gzipped ? f.pipe(createGunzip()) : f;
      try {
        yield* split(bytes);
      } catch (err) {
        throw new SourceError(
          `${basename(path)} cannot be read${gzipped ? ' (corrupt or truncated gzip?)' : ''} as ${what}: ${reason(err)}`,
        );
      } finally {
        f.destroy();
      }
    },
  };
}

/** Inflate `path` (when gzipped) into one buffer of at most `maxBytes`; `SourceError` beyond. */
async function readBounded(path: string, gzipped: boolean, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  const f = createReadStream(path);
  try {
    for await (const chunk of (gzipped ? f.pipe(createGunzip()) : f) as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        throw new SourceError(
          `${basename(path)} holds more than ${maxBytes} bytes of YAML; YAML sources are read whole and limited to VOCABULARIES_IMPORT_YAML_MAX_BYTES (${maxBytes}): convert it to JSON lines (format jsonl) or raise the limit.`,
        );
      }
      parts.push(chunk);
    }
  } catch (err) {
    if (err instanceof SourceError) throw err;
    throw new SourceError(`${basename(path)} cannot be read${gzipped ? ' (corrupt or truncated gzip?)' : ''}: ${reason(err)}`);
  } finally {
    f.destroy();
  }
  return Buffer.concat(parts);
}

/** Open `path` as an InvenioRDM YAML vocabulary file (a list), refused above `maxBytes`. */
async function openYaml(path: string, maxBytes: number): Promise<Source> {
  const { size, gzipped } = await probe(path);
  if (!gzipped && size > maxBytes) {
    throw new SourceError(
      `${basename(path)} is ${size} bytes; YAML sources are read whole and limited to VOCABULARIES_IMPORT_YAML_MAX_BYTES (${maxBytes}): convert it to JSON lines (format jsonl) or raise the limit.`,
    );
  }
  let bytesRead = 0;
  return {
    get bytesRead() {
      return bytesRead;
    },
    bytesTotal: size,
    close: () => {},
    async *elements() {
      const text = (await readBounded(path, gzipped, maxBytes)).toString('utf8');
      let elements: SourceElement[];
      try {
        elements = yamlElements(text);
      } catch (err) {
        if (err instanceof VocabularyFileError) throw new SourceError(`${basename(path)}: ${err.message}`);
        throw err;
      }
      bytesRead = size;
      yield* elements;
    },
  };
}

/** True when `path` starts with a zip's local header signature. */
async function isZip(path: string): Promise<boolean> {
  await probe(path);
  const fh = await open(path, 'r');
  try {
    const magic = Buffer.alloc(4);
    await fh.read(magic, 0, 4, 0);
    return magic.readUInt32LE(0) === 0x04034b50;
  } finally {
    await fh.close();
  }
}

/**
 * Open the zip at `path` whose members (in directory order, each inflated as a stream when it is
 * reached) `split` turns into elements; progress counts the members' uncompressed bytes.
 */
async function openZipMembers(
  path: string,
  what: string,
  split: (members: AsyncIterable<ZipMember>) => AsyncIterable<SourceElement>,
): Promise<Source> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch (err) {
    throw new SourceError(`${basename(path)} is not a readable zip file (truncated or corrupt?): ${reason(err)}`);
  }
  let entries: yauzl.Entry[];
  try {
    entries = (await zipEntries(zip)).filter((e) => !e.fileName.endsWith('/'));
  } catch (err) {
    zip.close();
    throw new SourceError(`The zip's directory is unreadable: ${reason(err)}`);
  }
  let bytesRead = 0;
  const members = async function* (): AsyncGenerator<ZipMember> {
    for (const entry of entries) {
      const raw = await new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s as Readable))),
      );
      try {
        yield {
          name: entry.fileName,
          body: (async function* () {
            for await (const chunk of raw as AsyncIterable<Buffer>) {
              bytesRead += chunk.length;
              yield chunk;
            }
          })(),
        };
      } finally {
        raw.destroy();
      }
    }
  };
  return {
    get bytesRead() {
      return bytesRead;
    },
    bytesTotal: entries.reduce((n, e) => n + e.uncompressedSize, 0),
    close: () => zip.close(),
    async *elements() {
      try {
        yield* split(members());
      } catch (err) {
        throw new SourceError(`${basename(path)} cannot be read as ${what} (corrupt or truncated zip?): ${reason(err)}`);
      }
    },
  };
}

/** Open `path` as a SKOS file (RDF/XML or Turtle, gzip accepted), read twice (`subjects.ts`); progress counts the second pass. */
async function openSkos(path: string): Promise<Source> {
  const { size, gzipped } = await probe(path);
  const bytesOf = (count: boolean): AsyncIterable<Buffer> => {
    const f = createReadStream(path);
    if (count) {
      f.on('data', (c) => {
        bytesRead += c.length;
      });
    }
    streams.push(f);
    if (!gzipped) return f;
    const gunzip = f.pipe(createGunzip());
    f.on('error', (err) => gunzip.destroy(err));
    return gunzip;
  };
  const streams: Readable[] = [];
  let bytesRead = 0;
  return {
    get bytesRead() {
      return bytesRead;
    },
    bytesTotal: size,
    close: () => {
      for (const s of streams) s.destroy();
    },
    async *elements() {
      let head = '';
      for await (const chunk of bytesOf(false) as AsyncIterable<Buffer>) {
        head = chunk.subarray(0, 256).toString('utf8');
        break;
      }
      let pass = 0;
      try {
        yield* skosElements(() => bytesOf(pass++ > 0), isTurtle(path, head));
      } catch (err) {
        throw new SourceError(`${basename(path)} cannot be read${gzipped ? ' (corrupt or truncated gzip?)' : ''} as SKOS: ${reason(err)}`);
      }
    },
  };
}

/** Options of `openSource`. */
export interface SourceOptions {
  /** Largest YAML source (bytes, inflated), read whole (default 64 MiB). */
  yamlMaxBytes?: number;
}

/** Open a source of `format` at `path`; throws `SourceError` when it cannot be read at all. */
export async function openSource(format: ImportFormat, path: string, o: SourceOptions = {}): Promise<Source> {
  switch (format) {
    case 'ror-v2':
      return openRorZip(path);
    case 'jsonl':
      return openStreamed(path, 'JSON lines', jsonLines);
    case 'csv':
      return openStreamed(path, 'CSV', csvElements);
    case 'yaml':
      return openYaml(path, o.yamlMaxBytes ?? 64 * 1024 * 1024);
    case 'orcid':
      return openStreamed(path, "ORCID's public data file (a tar of record-summary XML)", orcidElements);
    case 'openaire':
      return openStreamed(path, 'an OpenAIRE project dump (JSON lines, or a tar of gzipped JSON lines)', openaireElements);
    case 'cordis':
      return (await isZip(path))
        ? openZipMembers(path, 'a CORDIS package', cordisZipElements)
        : openStreamed(path, 'CORDIS projects (XML or CSV)', cordisElements);
    case 'mesh':
      return openStreamed(path, 'MeSH descriptor XML', meshElements);
    case 'skos':
      return openSkos(path);
  }
}
