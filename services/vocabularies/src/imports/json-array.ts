/**
 * A streaming splitter of a top-level JSON array into its elements' texts: it scans bytes once
 * (tracking strings, escapes and nesting), hands each element's bytes to `JSON.parse` (native, far
 * faster than a token-level streaming parser) and keeps only one element in memory, so memory is
 * flat in the file's size. An element that is not valid UTF-8 or JSON on its own, or larger than
 * `maxElementBytes` (its bytes are skipped, never buffered), becomes a rejected element with its
 * reason; only a broken structure (no array, unbalanced brackets or strings, truncated text) throws
 * `JsonArrayError`, since nothing after it can be trusted.
 *
 * When to use: sources that are one big JSON array (ROR dumps) — `for await (const el of
 * jsonArrayElements(stream))`.
 */
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';

/** A structural error of the array (the rest of the text cannot be read). */
export class JsonArrayError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonArrayError';
  }
}

/** One element: its position and value, or the reason it was rejected. */
export type ArrayElement = { position: number; value: unknown } | { position: number; error: string };

/** Options of the splitter. */
export interface JsonArrayOptions {
  /** Larger elements are rejected (default 16 MiB). */
  maxElementBytes?: number;
}

/** Where the scanner is: before the array, between elements, inside one, after the array. */
type State = 'start' | 'before' | 'in' | 'done';
const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const [QUOTE, BACKSLASH, LBRACKET, RBRACKET, LBRACE, RBRACE, COMMA] = [0x22, 0x5c, 0x5b, 0x5d, 0x7b, 0x7d, 0x2c];

/** The elements of the JSON array read from `input` (bytes), in order. */
export async function* jsonArrayElements(input: Readable | AsyncIterable<Buffer>, o: JsonArrayOptions = {}): AsyncGenerator<ArrayElement> {
  const max = o.maxElementBytes ?? 16 * 1024 * 1024;
  let state = 'start' as State;
  let depth = 0; // nesting inside the current element
  let inString = false;
  let escaped = false;
  let parts: Buffer[] = [];
  let size = 0;
  let oversized = false;
  let position = 0;
  let offset = 0;
  let bomBytes = 0;
  /** The UTF-8 byte order mark's bytes, once, before the array. */
  const bomAt = (c: number) => bomBytes < 3 && c === [0xef, 0xbb, 0xbf][bomBytes] && ++bomBytes > 0;

  const finish = (): ArrayElement => {
    const pos = position++;
    if (oversized) return { position: pos, error: `Entry larger than ${max} bytes (${size} bytes): skipped.` };
    const bytes = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
    parts = [];
    // Why check: `toString('utf8')` would turn invalid bytes into U+FFFD, a silent change of the data.
    if (!isUtf8(bytes)) return { position: pos, error: 'Malformed JSON: the entry is not valid UTF-8.' };
    try {
      return { position: pos, value: JSON.parse(bytes.toString('utf8')) };
    } catch (err) {
      return { position: pos, error: `Malformed JSON: ${(err as Error).message}` };
    }
  };
  const keep = (chunk: Buffer, from: number, to: number) => {
    size += to - from;
    if (oversized || size > max) {
      oversized = true;
      parts = [];
      return;
    }
    if (to > from) parts.push(chunk.subarray(from, to));
  };

  for await (const raw of input as AsyncIterable<Buffer>) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    let i = 0;
    let start = state === 'in' ? i : -1; // where the current element's bytes begin in this chunk
    const out: ArrayElement[] = [];
    for (; i < chunk.length; i++) {
      const c = chunk[i];
      if (state === 'in') {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
          continue;
        }
        if (c === QUOTE) inString = true;
        else if (c === LBRACE || c === LBRACKET) depth++;
        else if (c === RBRACE || c === RBRACKET) {
          if (depth === 0) {
            if (c === RBRACE) throw new JsonArrayError(`Unexpected '}' at byte ${offset + i}.`);
            keep(chunk, start, i);
            out.push(finish());
            state = 'done';
            continue;
          }
          depth--;
        } else if (c === COMMA && depth === 0) {
          keep(chunk, start, i);
          out.push(finish());
          state = 'before';
        }
        continue;
      }
      if (WS.has(c)) continue;
      if (state === 'start' && bomAt(c)) continue;
      if (state === 'start') {
        if (c !== LBRACKET)
          throw new JsonArrayError(`The text is not a JSON array (starts with ${JSON.stringify(String.fromCharCode(c))}).`);
        state = 'before';
      } else if (state === 'before') {
        if (c === RBRACKET && position === 0) state = 'done';
        else if (c === COMMA || c === RBRACKET) throw new JsonArrayError(`Unexpected '${String.fromCharCode(c)}' at byte ${offset + i}.`);
        else {
          state = 'in';
          start = i;
          size = 0;
          oversized = false;
          depth = 0;
          if (c === QUOTE) inString = true;
          else if (c === LBRACE || c === LBRACKET) depth = 1; // a scalar (depth 0) ends at the next ',' or ']'
        }
      } else {
        throw new JsonArrayError(`Unexpected data after the end of the array at byte ${offset + i}.`);
      }
    }
    if (state === 'in') keep(chunk, start, chunk.length);
    offset += chunk.length;
    for (const el of out) yield el;
  }
  if ((state as State) !== 'done')
    throw new JsonArrayError((state as State) === 'start' ? 'The text is empty.' : 'The array is truncated (no closing bracket).');
}
