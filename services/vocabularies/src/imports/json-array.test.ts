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
