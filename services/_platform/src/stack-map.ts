/**
 * Lazy stack mapping for bundled builds: turns the `file.js:line:col` frames of an error's stack
 * into the TypeScript positions they came from, reading `<file>.map` only when a logged error
 * names that file, and keeping nothing of it afterwards.
 *
 * Use it where an error's stack is written (the logger's `err` serializer does). Why not
 * `node --enable-source-maps`: Node then parses and keeps the whole source map of every bundle a
 * stack passes through, for the process's life (tens of MB per service for one logged error,
 * issue 28). Here one frame costs one pass over that map's `mappings` string (a few ms for a
 * 1.6 MB map), decoded as a running fold with O(1) memory; results are kept in a small bounded
 * cache of frames. Files without a `.map` beside them (tsx in development: its stacks are already
 * TypeScript positions) are left as they are. Never throws: a frame it cannot map stays as it was.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) DIGIT[B64.charCodeAt(i)] = i;

/** An original position: source path (absolute), 1-based line and column. */
export interface OriginalPosition {
  source: string;
  line: number;
  column: number;
}

/**
 * The original position of generated (1-based `line`, 1-based `column`) in a source map's
 * `mappings` (version 3), or null when no segment covers it. `sources` are resolved by the caller.
 */
export function originalPosition(
  mappings: string | Uint8Array,
  line: number,
  column: number,
  start = 0,
  end = mappings.length,
): { sourceIndex: number; line: number; column: number } | null {
  const code = typeof mappings === 'string' ? (k: number) => mappings.charCodeAt(k) : (k: number) => mappings[k];
  // Running state of the fold: fields are deltas, the generated column resets on each line.
  let genLine = 1;
  let genCol = 0;
  let src = 0;
  let origLine = 0;
  let origCol = 0;
  let best: { sourceIndex: number; line: number; column: number } | null = null;
  const fields = [0, 0, 0, 0, 0];
  let i = start;
  const n = end;
  const want = column - 1;
  while (i < n && genLine <= line) {
    const c = code(i);
    if (c === 59 /* ; */) {
      if (genLine === line) return best;
      genLine++;
      genCol = 0;
      i++;
      continue;
    }
    if (c === 44 /* , */) {
      i++;
      continue;
    }
    // One segment: 1, 4 or 5 VLQ fields.
    let count = 0;
    while (i < n) {
      const sep = code(i);
      if (sep === 44 || sep === 59) break;
      let value = 0;
      let shift = 0;
      let digit: number;
      do {
        const d = code(i++);
        digit = d < 128 ? DIGIT[d] : -1;
        if (digit < 0) return null; // not a source map we understand: leave the frame alone
        value += (digit & 31) * 2 ** shift;
        shift += 5;
      } while (digit & 32 && i < n);
      if (count < 5) fields[count] = value & 1 ? -Math.floor(value / 2) : Math.floor(value / 2);
      count++;
    }
    genCol += fields[0];
    if (count >= 4) {
      src += fields[1];
      origLine += fields[2];
      origCol += fields[3];
    }
    if (genLine === line) {
      if (genCol > want) return best;
      // A 1-field segment maps its columns to nothing (generated code with no source).
      best = count >= 4 ? { sourceIndex: src, line: origLine + 1, column: origCol + 1 } : null;
    }
  }
  return genLine === line ? best : null;
}

const FRAME = /(\(|at )((?:file:\/\/)?\/[^():\s]+\.m?js):(\d+):(\d+)(\)?)$/;
const CACHE_LIMIT = 256;
const cache = new Map<string, string | null>();

// Why not JSON.parse of the map: the whole document as JS strings and arrays is what made
// --enable-source-maps costly; the fields are read in place from the file's bytes.

/** [start, end) of a top-level JSON string field's raw content (no escapes expected), or null. */
function stringField(map: Buffer, name: string): [number, number] | null {
  const key = map.indexOf(`"${name}"`);
  if (key < 0) return null;
  const open = map.indexOf(0x22 /* " */, map.indexOf(0x3a /* : */, key + name.length + 2));
  if (open < 0) return null;
  const close = map.indexOf(0x22, open + 1);
  return close < 0 ? null : [open + 1, close];
}

/** The `index`-th entry of the map's `sources` array, parsing only that array. */
function sourceAt(map: Buffer, index: number): string | undefined {
  const key = map.indexOf('"sources"');
  if (key < 0) return undefined;
  const open = map.indexOf(0x5b /* [ */, key);
  let inString = false;
  for (let i = open + 1; i < map.length; i++) {
    const c = map[i];
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5d /* ] */) {
      const sources = JSON.parse(map.toString('utf8', open, i + 1)) as unknown[];
      const s = sources[index];
      return typeof s === 'string' ? s : undefined;
    }
  }
  return undefined;
}

/** Map one `path.js:line:col` to `source.ts:line:col`, or null. */
function mapFrame(file: string, line: number, column: number): string | null {
  const key = `${file}:${line}:${column}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let out: string | null = null;
  try {
    const path = file.startsWith('file://') ? fileURLToPath(file) : file;
    const map = readFileSync(`${path}.map`);
    const mappings = stringField(map, 'mappings');
    if (mappings) {
      const pos = originalPosition(map, line, column, mappings[0], mappings[1]);
      const source = pos ? sourceAt(map, pos.sourceIndex) : undefined;
      const rootField = stringField(map, 'sourceRoot');
      const sourceRoot = rootField ? map.toString('utf8', rootField[0], rootField[1]) : '';
      if (pos && source !== undefined) out = `${resolve(dirname(path), sourceRoot, source)}:${pos.line}:${pos.column}`;
    }
  } catch {
    out = null; // no map beside the file (tsx, node internals) or unreadable: the frame stays
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, out);
  return out;
}

/** `stack` with each bundled frame replaced by its TypeScript position (unmappable frames kept). */
export function mapStack(stack: string): string {
  if (!stack.includes('.js:')) return stack;
  return stack
    .split('\n')
    .map((l) => {
      const m = FRAME.exec(l);
      if (!m) return l;
      const mapped = mapFrame(m[2], Number(m[3]), Number(m[4]));
      return mapped ? `${l.slice(0, m.index)}${m[1]}${mapped}${m[5]}` : l;
    })
    .join('\n');
}
