import { describe, expect, it } from 'vitest';
import type { ArrayElement } from './json-array.js';
import { jsonLines } from './json-lines.js';

async function lines(text: string, size = 5, max?: number): Promise<ArrayElement[]> {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  const out: ArrayElement[] = [];
  for await (const el of jsonLines(
    (async function* () {
      yield* chunks;
    })(),
    { maxLineBytes: max },
  ))
    out.push(el);
  return out;
}

describe(jsonLines.name, () => {
  it('should yield one element per non-blank line whatever the chunking, CRLF and a missing final newline included', async () => {
    const text = '{"id": "a", "x": "é\\n"}\r\n\n  \n{"id": "b"}\n[1, 2]';
    for (const size of [1, 4, 1000]) {
      expect(await lines(text, size)).toEqual([
        { position: 0, value: { id: 'a', x: 'é\n' } },
        { position: 1, value: { id: 'b' } },
        { position: 2, value: [1, 2] },
      ]);
    }
  });

  it('should reject a malformed line and a line over the bound (skipped unbuffered), and read on', async () => {
    const out = await lines(`{"id": "a"}\n{"id": \n{"id": "${'x'.repeat(500)}"}\n{"id": "c"}\n`, 16, 100);
    expect(out[0]).toEqual({ position: 0, value: { id: 'a' } });
    expect(out[1]).toMatchObject({ position: 1, error: expect.stringMatching(/^Malformed JSON/) });
    expect(out[2]).toMatchObject({ position: 2, error: expect.stringMatching(/^Entry larger than 100 bytes \(510 bytes\)/) });
    expect(out[3]).toEqual({ position: 3, value: { id: 'c' } });
  });
});
