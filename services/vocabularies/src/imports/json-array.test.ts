import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type ArrayElement, JsonArrayError, jsonArrayElements } from './json-array.js';

/** Every element of `text` fed in chunks of `size` bytes. */
async function split(text: string | Buffer, size = 7, max?: number): Promise<ArrayElement[]> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  const out: ArrayElement[] = [];
  for await (const el of jsonArrayElements(Readable.from(chunks), { maxElementBytes: max })) out.push(el);
  return out;
}

describe(jsonArrayElements.name, () => {
  it('should yield every element with its position, whatever the chunking, nesting, strings and escapes', async () => {
    const values = [
      { id: 'a', names: [{ value: 'Zürich ]}, "quoted" \\ back', types: ['x'] }], n: [1, [2, [3]]] },
      'a string, with ] and }',
      42,
      null,
      [],
      { '': { '{': '[' } },
    ];
    const text = `\ufeff [\n  ${values.map((v) => JSON.stringify(v, null, 2)).join(' ,\n ')}\n]\n`;
    for (const size of [1, 3, 7, 64, 100_000]) {
      expect(await split(text, size)).toEqual(values.map((value, position) => ({ position, value })));
    }
    expect(await split('[]')).toEqual([]);
    expect(await split(' [ ] ')).toEqual([]);
  });

  it('should reject an element that is not valid JSON on its own and go on', async () => {
    const out = await split('[{"id": "a"}, {"id": b}, {"id": "c"}]');
    expect(out[0]).toEqual({ position: 0, value: { id: 'a' } });
    expect(out[1]).toMatchObject({ position: 1, error: expect.stringMatching(/^Malformed JSON: /) });
    expect(out[2]).toEqual({ position: 2, value: { id: 'c' } });
  });

  it('should skip an element larger than the bound without buffering it, and go on', async () => {
    const big = JSON.stringify({ id: 'big', blob: 'x'.repeat(10_000) });
    const out = await split(`[{"id":"a"},${big},{"id":"c"}]`, 512, 1000);
    expect(out.map((e) => ('value' in e ? e.value : e.error))).toEqual([
      { id: 'a' },
      expect.stringMatching(/^Entry larger than 1000 bytes \(\d+ bytes\): skipped\.$/),
      { id: 'c' },
    ]);
  });

  it('should throw a structural error for text that is not an array, truncated or followed by data', async () => {
    const cases: [string, RegExp][] = [
      ['{"id": "a"}', /not a JSON array/],
      ['', /empty/],
      ['[{"id": "a"}, {"id": "b"', /truncated/],
      ['[{"id": "a"}, "unterminated]', /truncated/],
      ['[{"id": "a"}] [', /after the end of the array/],
      ['[, {"id": "a"}]', /Unexpected ','/],
      ['[{"id": "a"}}]', /Unexpected '}'/],
    ];
    for (const [text, message] of cases) {
      await expect(split(text), text).rejects.toThrow(JsonArrayError);
      await expect(split(text), text).rejects.toThrow(message);
    }
  });
});

/**
 * Differential and adversarial runs (why: a hand-written scanner in front of `JSON.parse` must agree
 * with it on every text): seeded random arrays of hostile values fed in random chunkings must give
 * exactly `JSON.parse`'s elements, and random corruptions of them must never give a silent
 * difference: either the same elements as `JSON.parse` (the text stayed valid), or a
 * `JsonArrayError`, or a rejected element — never another exception, never a quiet success.
 */
describe(`${jsonArrayElements.name} against JSON.parse`, () => {
  /** A small seeded PRNG (mulberry32), so that a failure is reproducible from its seed. */
  const rng = (seed: number) => {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  };
  const PIECES = ['"', '\\', '[', ']', '{', '}', ',', ':', ' ', '\n', 'a', 'é', '€', '😀', '\u0000', '\u001f', '\u2028', '\ud800'];
  const value = (r: () => number, depth: number): unknown => {
    const k = Math.floor(r() * (depth > 3 ? 4 : 7));
    if (k === 0) return Math.floor(r() * 1e6) / (r() < 0.5 ? 1 : 1000);
    if (k === 1) return r() < 0.5 ? null : r() < 0.5;
    if (k <= 3) return Array.from({ length: Math.floor(r() * 12) }, () => PIECES[Math.floor(r() * PIECES.length)]).join('');
    if (k === 4) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(r() * 4); i > 0; i--) o[String(value(r, 9))] = value(r, depth + 1);
    return o;
  };
  const arrayText = (r: () => number): string => {
    const ws = () => [' ', '\n', '\t', '\r\n', ''][Math.floor(r() * 5)];
    const items = Array.from({ length: Math.floor(r() * 8) }, () => ws() + JSON.stringify(value(r, 0), null, r() < 0.5 ? 2 : 0) + ws());
    return `${ws()}[${items.join(',')}${items.length ? '' : ws()}]${ws()}`;
  };
  const chunked = async (bytes: Buffer, r: () => number) => {
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; ) {
      const n = 1 + Math.floor(r() * 9);
      chunks.push(bytes.subarray(i, i + n));
      i += n;
    }
    const out: ArrayElement[] = [];
    for await (const el of jsonArrayElements(Readable.from(chunks))) out.push(el);
    return out;
  };

  it('should give exactly the elements JSON.parse gives, for 500 random arrays in random chunkings', async () => {
    for (let seed = 1; seed <= 500; seed++) {
      const r = rng(seed);
      const text = arrayText(r);
      const expected = (JSON.parse(text) as unknown[]).map((v, position) => ({ position, value: v }));
      expect(await chunked(Buffer.from(text), r), `seed ${seed}`).toEqual(expected);
    }
  });

  it('should never differ silently from JSON.parse on 2,000 corrupted arrays', async () => {
    const BYTES = [0x22, 0x5c, 0x5b, 0x5d, 0x7b, 0x7d, 0x2c, 0x3a, 0x20, 0x61, 0xc3, 0xff, 0x00];
    for (let seed = 1; seed <= 2000; seed++) {
      const r = rng(seed * 7919);
      const bytes = Buffer.from(arrayText(r));
      if (bytes.length === 0) continue;
      // Replace, insert or delete one to three bytes (a structural byte most of the time).
      let b: Buffer = bytes;
      for (let n = 1 + Math.floor(r() * 3); n > 0; n--) {
        const at = Math.floor(r() * b.length);
        const byte = BYTES[Math.floor(r() * BYTES.length)] as number;
        const op = Math.floor(r() * 3);
        if (op === 0) b = Buffer.concat([b.subarray(0, at), Buffer.from([byte]), b.subarray(at + 1)]);
        else if (op === 1) b = Buffer.concat([b.subarray(0, at), Buffer.from([byte]), b.subarray(at)]);
        else b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
      }
      let parsed: unknown[] | undefined;
      try {
        const v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(b));
        if (Array.isArray(v)) parsed = v;
      } catch {
        parsed = undefined;
      }
      let got: ArrayElement[] | undefined;
      try {
        got = await chunked(b, r);
      } catch (err) {
        expect(err, `seed ${seed}: ${JSON.stringify(b.toString('latin1'))}`).toBeInstanceOf(JsonArrayError);
        expect(parsed, `seed ${seed}: refused a valid array ${JSON.stringify(b.toString('latin1'))}`).toBeUndefined();
        continue;
      }
      const what = `seed ${seed}: ${JSON.stringify(b.toString('latin1'))}`;
      if (parsed !== undefined) expect(got, what).toEqual(parsed.map((v, position) => ({ position, value: v })));
      else
        expect(
          got.some((e) => 'error' in e),
          `${what}: invalid text accepted without a rejected element`,
        ).toBe(true);
    }
  });
});
