import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EUROSCIVOC_TREE,
  euroscivocRdfXml,
  euroscivocUri,
  gemetTurtle,
  meshDescriptors,
  meshXml,
} from '../../test/support/subject-dumps.js';
import { normalizeEntry } from '../domain/entry.js';
import { type ImportFormat, openSource, SourceError, type SourceElement } from './source.js';
import { isTurtle } from './subjects.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'subjects-source-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const readAll = async (format: ImportFormat, path: string) => {
  const source = await openSource(format, path);
  const out: SourceElement[] = [];
  try {
    for await (const el of source.elements()) out.push(el);
  } finally {
    source.close();
  }
  return { out, source };
};

describe('SKOS', () => {
  it('should tell Turtle from RDF/XML by name, else by the first bytes', () => {
    expect(isTurtle('gemet.ttl.gz', '<?xml')).toBe(true);
    expect(isTurtle('euroscivoc.rdf', '@prefix')).toBe(false);
    expect(isTurtle('x', '\uFEFF<?xml version="1.0"?>')).toBe(false);
    expect(isTurtle('x', '<rdf:RDF')).toBe(false);
    expect(isTurtle('x', '<http://a> a <http://b> .')).toBe(true);
    expect(isTurtle('x', '@prefix skos: <…> .')).toBe(true);
  });

  it("should map EuroSciVoc's RDF/XML as invenio-vocabularies does: notation ids, labels by language, ancestors", async () => {
    const path = join(dir, 'euroscivoc.rdf');
    await writeFile(path, euroscivocRdfXml([...EUROSCIVOC_TREE, { n: 9, labels: { en: 'no notation' }, noNotation: true }]));
    const { out, source } = await readAll('skos', path);
    expect(out.map((e) => e.position)).toEqual([0, 1, 2, 3, 4]);
    expect(out[2].value).toEqual({
      id: 'euroscivoc:3',
      scheme: 'EuroSciVoc',
      subject: 'Astronomy',
      title: { en: 'astronomy', de: 'Astronomie', it: 'astronomia' },
      props: { parents: 'euroscivoc:1,euroscivoc:2' },
      identifiers: [{ scheme: 'url', identifier: euroscivocUri(3) }],
    });
    expect(out[0].value).toMatchObject({ id: 'euroscivoc:1', props: undefined });
    expect(out[4].error).toBe(`id: EuroSciVoc concept ${euroscivocUri(9)} has no numeric skos:notation.`);
    expect(normalizeEntry('subjects', out[2].value)).toMatchObject({ id: 'euroscivoc:3', subject: 'Astronomy', scheme: 'EuroSciVoc' });
    expect(source.bytesRead).toBe(source.bytesTotal);
  });

  it('should map gzipped Turtle (GEMET) with n3: URI ids, synonyms, parents; a concept without label rejected', async () => {
    const path = join(dir, 'gemet.ttl.gz');
    await writeFile(path, gzipSync(gemetTurtle(4, 2)));
    const { out } = await readAll('skos', path);
    expect(out).toHaveLength(4);
    expect(out[2].value).toEqual({
      id: 'http://www.eionet.europa.eu/gemet/concept/3',
      scheme: 'GEMET',
      subject: 'Théme 3',
      title: { en: 'Théme 3', de: 'Thema 3' },
      props: { parents: 'http://www.eionet.europa.eu/gemet/concept/1,http://www.eionet.europa.eu/gemet/concept/2' },
      identifiers: [{ scheme: 'url', identifier: 'http://www.eionet.europa.eu/gemet/concept/3' }],
      synonyms: ['alias 3'],
    });
    expect(out[1].error).toBe('subject: Concept http://www.eionet.europa.eu/gemet/concept/2 has no skos:prefLabel.');
  });

  it('should name at most the 32 nearest ancestors of a concept deep in a chain', async () => {
    const path = join(dir, 'chain.ttl');
    await writeFile(path, gemetTurtle(40));
    const { out } = await readAll('skos', path);
    const parents = ((out[39].value as { props: { parents: string } }).props.parents as string).split(',');
    expect(parents).toHaveLength(32);
    expect(parents[0]).toBe('http://www.eionet.europa.eu/gemet/concept/8');
    expect(parents[31]).toBe('http://www.eionet.europa.eu/gemet/concept/39');
  });

  it('should fail the source on malformed RDF/XML or Turtle', async () => {
    for (const [name, text] of [
      ['bad.rdf', euroscivocRdfXml(EUROSCIVOC_TREE).replace('</rdf:RDF>', '')],
      ['bad.ttl', gemetTurtle(3).replace('a skos:Concept ;', 'a skos:Concept ;;; "')],
    ]) {
      await writeFile(join(dir, name), text);
      await expect(readAll('skos', join(dir, name))).rejects.toThrow(SourceError);
    }
  });
});

describe('MeSH', () => {
  it('should map descriptor records to MeSH subjects; a descriptor without name rejected', async () => {
    const path = join(dir, 'desc2024.xml');
    const d = meshDescriptors(3);
    d[1].name = undefined;
    await writeFile(path, meshXml(d));
    const { out } = await readAll('mesh', path);
    expect(out[0].value).toEqual({
      id: 'https://id.nlm.nih.gov/mesh/D000001',
      scheme: 'MeSH',
      subject: 'Descriptor 1 (Ménière)',
      title: { en: 'Descriptor 1 (Ménière)' },
      identifiers: [{ scheme: 'url', identifier: 'https://id.nlm.nih.gov/mesh/D000001' }],
      synonyms: ['Entry term 1'],
      props: { tree_numbers: 'C09.218.000' },
    });
    expect(out[1].error).toBe('subject: Descriptor D000002 has no DescriptorName.');
    expect(out[2].value).toMatchObject({ id: 'https://id.nlm.nih.gov/mesh/D000003' });
  });
});
