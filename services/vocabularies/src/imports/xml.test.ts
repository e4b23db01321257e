import { describe, expect, it } from 'vitest';
import { XmlError, type XmlRecord, xmlRecords } from './xml.js';

async function* chunks(text: string, size: number) {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}
const all = async (text: string, size = 7, max?: number) => {
  const out: XmlRecord[] = [];
  for await (const r of xmlRecords(chunks(text, size), (_u, name, depth) => depth === 1 && name === 'r', { maxRecordChars: max }))
    out.push(r);
  return out;
};

describe(xmlRecords.name, () => {
  it('should hand out each record as a tree with namespaces, attributes and text, whatever the chunking (multi-byte characters split)', async () => {
    const xml =
      '<?xml version="1.0"?><set xmlns:x="urn:x"><r x:a="1" b="2"><x:t>Ménière &amp; “co”</x:t><u/></r><other/><r><t><![CDATA[<raw>]]></t></r></set>';
    for (const size of [1, 2, 3, 5, 64]) {
      const out = await all(xml, size);
      expect(out).toHaveLength(2);
      const first = out[0].node!;
      expect(first.attrs).toEqual({ a: '1', 'x:a': '1', b: '2' });
      expect(first.children.map((c) => [c.uri, c.name, c.text])).toEqual([
        ['urn:x', 't', 'Ménière & “co”'],
        ['', 'u', ''],
      ]);
      expect(out[1].node!.children[0].text).toBe('<raw>');
    }
  });

  it('should skip a record above the size bound with a reason, and go on', async () => {
    const out = await all(`<set><r><t>${'x'.repeat(500)}</t></r><r><t>ok</t></r></set>`, 64, 100);
    expect(out[0]).toEqual({ error: 'XML record larger than 100 characters: skipped.' });
    expect(out[1].node!.children[0].text).toBe('ok');
  });

  it('should throw XmlError on malformed or truncated XML, after the records before it', async () => {
    const out: XmlRecord[] = [];
    const err = await (async () => {
      try {
        for await (const r of xmlRecords(chunks('<set><r/><r><t></r></set>', 4), (_u, n) => n === 'r')) out.push(r);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(XmlError);
    expect(out).toHaveLength(1);
    await expect(all('<set><r/><r>')).rejects.toThrow(XmlError);
  });
});
