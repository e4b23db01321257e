/**
 * A streaming splitter of JSON lines (InvenioRDM's `.jsonl` vocabulary files, gzipped or not): one
 * element per non-blank line, parsed with `JSON.parse`, one line in memory at a time. A line that is
 * not valid JSON, or longer than `maxLineBytes` (its bytes are skipped, never buffered), becomes a
 * rejected element with its reason; the rest of the file is read on.
 *
 * When to use: `for await (const el of jsonLines(bytes))` over a file's (inflated) bytes.
 */
import type { ArrayElement } from './json-array.js';

/** Options of the splitter. */
export interface JsonLinesOptions {
  /** Longer lines are rejected (default 16 MiB). */
  maxLineBytes?: number;
}

/** The elements of the JSON lines read from `input`, in order (blank lines are skipped, not counted). */
export async function* jsonLines(input: AsyncIterable<Buffer>, o: JsonLinesOptions = {}): AsyncGenerator<ArrayElement> {
  const max = o.maxLineBytes ?? 16 * 1024 * 1024;
  let parts: Buffer[] = [];
  let size = 0;
  let position = 0;
  const finish = (): ArrayElement | undefined => {
    const oversized = size > max;
    const text = oversized ? '' : (parts.length === 1 ? parts[0] : Buffer.concat(parts)).toString('utf8');
    const bytes = size;
    parts = [];
    size = 0;
    if (!oversized && text.trim() === '') return undefined;
    const pos = position++;
    if (oversized) return { position: pos, error: `Entry larger than ${max} bytes (${bytes} bytes): skipped.` };
    try {
      return { position: pos, value: JSON.parse(text) };
    } catch (err) {
      return { position: pos, error: `Malformed JSON: ${(err as Error).message}` };
    }
  };
  for await (const chunk of input) {
    let from = 0;
    const out: ArrayElement[] = [];
    for (let nl = chunk.indexOf(0x0a, from); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      size += nl - from;
      if (size <= max) parts.push(chunk.subarray(from, nl));
      const el = finish();
      if (el) out.push(el);
      from = nl + 1;
    }
    size += chunk.length - from;
    if (size <= max && from < chunk.length) parts.push(chunk.subarray(from));
    else if (size > max) parts = [];
    for (const el of out) yield el;
  }
  const last = finish();
  if (last) yield last;
}
