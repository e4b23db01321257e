import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR, parseDataFile } from '../domain/fixtures.js';
import { csvLicenses, LICENSES_HEADER, yamlSubjects } from '../../test/support/vocabulary-files.js';
import { csvElements, VocabularyFileError, yamlElements } from './vocabulary-files.js';

/** `text` as a stream of `size`-byte chunks (fields and line ends cut anywhere). */
async function* chunks(text: string | Buffer, size = 7): AsyncGenerator<Buffer> {
  const b = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}
const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describe(yamlElements.name, () => {
  it("should read InvenioRDM's YAML vocabulary files as the fixture loader does", () => {
    const path = join(FIXTURES_DIR, 'vocabularies', 'resource_types.yaml');
    const els = yamlElements(readFileSync(path, 'utf8'));
    expect(els.map((e) => ('value' in e ? e.value : e))).toEqual(parseDataFile(path));
    expect(els.map((e) => e.position)).toEqual([...els.keys()]);
  });

  it('should read a generated subjects file and treat an empty file as no entries', () => {
    const els = yamlElements(yamlSubjects(5));
    expect(els).toHaveLength(5);
    expect(els[3]).toMatchObject({ position: 3, value: { subject: 'Écologie «3»', title: { de: 'Naturwissenschaften 3' } } });
    expect(yamlElements('')).toEqual([]);
    expect(yamlElements('# nothing\n')).toEqual([]);
  });

  it('should refuse a file that is not a YAML list, or broken YAML, naming the line', () => {
    expect(() => yamlElements('id: x\nsubject: y\n')).toThrow(VocabularyFileError);
    expect(() => yamlElements('- id: a\n- id: [b\n  x: "\n')).toThrow(/Not readable as YAML at line \d+/);
  });
});

describe(csvElements.name, () => {
  it("should read InvenioRDM's licenses.csv in small chunks as the fixture loader does", async () => {
    const path = join(FIXTURES_DIR, 'vocabularies', 'licenses.csv');
    const els = await all(csvElements(chunks(readFileSync(path), 13)));
    expect(els.map((e) => ('value' in e ? e.value : e))).toEqual(parseDataFile(path));
  });

  it('should map nested columns and tags, keep quoted commas, quotes and line breaks, and read CRLF files', async () => {
    const els = await all(csvElements(chunks(`\uFEFF${csvLicenses(12, { crlf: true })}`)));
    expect(els).toHaveLength(12);
    expect(els[10]).toEqual({
      position: 10,
      value: {
        id: 'lic-10',
        title: { en: 'License 10' },
        description: { en: 'Line one\nline two of 10' },
        icon: '',
        tags: ['all', 'software'],
        props: { url: 'https://opensource.org/license/lic-10', scheme: 'spdx', osi_approved: 'y' },
      },
    });
    expect(els[8]).toMatchObject({ value: { title: { en: 'Licence «8», version "2"' } } });
  });

  it('should reject a row with the wrong number of fields with its reason and read on', async () => {
    const text = `${LICENSES_HEADER}\nok-1,One,,,all,u,spdx,y\nbad,Two,,,all\nok-2,Three,,,all,u,spdx,\n`;
    const els = await all(csvElements(chunks(text)));
    expect(els.map((e) => e.position)).toEqual([0, 1, 2]);
    expect(els[0]).toMatchObject({ value: { id: 'ok-1' } });
    expect(els[1]).toMatchObject({ error: expect.stringMatching(/^Malformed CSV row: .*(record|column)/i) });
    expect(els[2]).toMatchObject({ value: { id: 'ok-2' } });
  });

  it('should stop at a row larger than the bound without buffering it', async () => {
    const huge = `${LICENSES_HEADER}\nok,One,,,all,u,spdx,y\n"${'x'.repeat(5000)}`;
    await expect(all(csvElements(chunks(huge, 100), { maxRecordBytes: 1000 }))).rejects.toThrow(/larger than 1000 bytes/);
  });
});
