/**
 * Streamed XML records: a sax (strict, namespace-aware) parser over a file's bytes that hands out
 * each **record element** (one ORCID record summary, one MeSH `DescriptorRecord`, one CORDIS
 * `project`, one SKOS `Concept`) as a small tree, one at a time; nothing outside the current record
 * is kept, so memory is flat in the file's size. A record larger than `maxRecordChars` is skipped
 * (an element with its `error`), never buffered.
 *
 * When to use: the XML importers (`orcid.ts`, `mesh.ts`, `cordis.ts`, `skos.ts`) iterate
 * `xmlRecords(bytes, isRecord)` and map each tree. Malformed XML throws `XmlError` (sax cannot
 * resynchronise): a whole-file source fails its run with it, an ORCID tar member is rejected.
 */
import { StringDecoder } from 'node:string_decoder';
import sax from 'sax';

/** One XML element: namespace URI, local name, attributes by local name (and `prefix:local`), children, text. */
export interface XNode {
  uri: string;
  name: string;
  attrs: Record<string, string>;
  children: XNode[];
  text: string;
}

/** The XML cannot be parsed. */
export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlError';
  }
}

/** A record handed out: its tree, or why it was skipped. */
export type XmlRecord = { node: XNode; error?: undefined } | { node?: undefined; error: string };

/** Options of `xmlRecords`. */
export interface XmlRecordsOptions {
  /** A record holding more characters (text and attribute values) is skipped (default 4 Mi). */
  maxRecordChars?: number;
}

/** Children of `n` with local name `name` (any namespace). */
export const kids = (n: XNode | undefined, name: string): XNode[] => (n ? n.children.filter((c) => c.name === name) : []);
/** First child of `n` with local name `name`. */
export const kid = (n: XNode | undefined, name: string): XNode | undefined => n?.children.find((c) => c.name === name);
/** The node at the path of local names below `n`. */
export const at = (n: XNode | undefined, ...path: string[]): XNode | undefined => path.reduce((x, p) => kid(x, p), n);
/** Trimmed text at the path (undefined when absent or blank). */
export const textAt = (n: XNode | undefined, ...path: string[]): string | undefined => {
  const t = at(n, ...path)?.text.trim();
  return t ? t : undefined;
};

/**
 * The record elements of the XML read from `input`: `isRecord(uri, localName, depth)` says which
 * elements are records (depth 0 is the root); records are not nested.
 */
export async function* xmlRecords(
  input: AsyncIterable<Buffer>,
  isRecord: (uri: string, name: string, depth: number) => boolean,
  o: XmlRecordsOptions = {},
): AsyncGenerator<XmlRecord> {
  const max = o.maxRecordChars ?? 4 * 1024 * 1024;
  const parser = sax.parser(true, { xmlns: true, position: true });
  const out: XmlRecord[] = [];
  let depth = 0;
  let recordDepth = -1;
  let stack: XNode[] = [];
  let size = 0;
  let oversized = false;
  let failure: Error | undefined;
  parser.onerror = (err) => {
    failure ??= err;
  };
  parser.onopentag = (tag) => {
    const t = tag as sax.QualifiedTag;
    if (recordDepth < 0 && isRecord(t.uri, t.local, depth)) {
      recordDepth = depth;
      stack = [];
      size = 0;
      oversized = false;
    }
    if (recordDepth >= 0 && !oversized) {
      const attrs: Record<string, string> = {};
      for (const a of Object.values(t.attributes)) {
        if (a.prefix === 'xmlns' || a.name === 'xmlns') continue;
        attrs[a.local] = a.value;
        if (a.prefix) attrs[`${a.prefix}:${a.local}`] = a.value;
        size += a.value.length;
      }
      const node: XNode = { uri: t.uri, name: t.local, attrs, children: [], text: '' };
      stack[stack.length - 1]?.children.push(node);
      stack.push(node);
      if (size > max) oversized = true;
    }
    depth++;
  };
  const onText = (s: string) => {
    if (recordDepth < 0 || oversized) return;
    size += s.length;
    if (size > max) {
      oversized = true;
      return;
    }
    const top = stack[stack.length - 1];
    if (top) top.text += s;
  };
  parser.ontext = onText;
  parser.oncdata = onText;
  parser.onclosetag = () => {
    depth--;
    // Why: past an error sax goes on closing tags; nothing after it is a record of the file.
    if (recordDepth < 0 || failure) return;
    const node = oversized ? stack[0] : stack.pop();
    if (depth === recordDepth) {
      recordDepth = -1;
      if (oversized) out.push({ error: `XML record larger than ${max} characters: skipped.` });
      else if (node) out.push({ node });
      stack = [];
    }
  };
  const decoder = new StringDecoder('utf8');
  const feed = (s: string) => {
    if (failure) return;
    try {
      parser.write(s);
    } catch (err) {
      failure ??= err as Error;
    }
  };
  for await (const chunk of input) {
    feed(decoder.write(chunk));
    yield* out.splice(0);
    if (failure) throw new XmlError(`Malformed XML: ${failure.message.split('\n').join(' ')}`);
  }
  feed(decoder.end());
  if (!failure) {
    try {
      parser.close();
    } catch (err) {
      failure = err as Error;
    }
  }
  yield* out.splice(0);
  if (failure) throw new XmlError(`Malformed XML: ${failure.message.split('\n').join(' ')}`);
}
