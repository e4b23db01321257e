import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cordisProjects,
  cordisProjectXml,
  openaireLines,
  openaireProject,
  writeCordisCsvZip,
  writeCordisXmlZip,
  writeGz,
  writeOpenaireTar,
} from '../../test/support/award-dumps.js';
import { normalizeEntry } from '../domain/entry.js';
import { type ImportFormat, openSource, type SourceElement } from './source.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'awards-source-'));
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
  return out;
};

describe('OpenAIRE project dump', () => {
  it('should map gzipped JSON lines of projects to awards as invenio-vocabularies does, rejecting bad ones with reasons', async () => {
    const path = join(dir, 'part-00000.json.gz');
    const lines = openaireLines([
      openaireProject(1),
      openaireProject(2, '40|nih_________', {
        websiteurl: 'https://project-2.example.org',
        funding: [{ shortName: 'NIH', funding_stream: { id: 'NIH::NIGMS' } }],
      }),
      openaireProject(3, 'unknown_____'),
      openaireProject(4, 'nsf_________', { title: undefined }),
    ]);
    await writeGz(path, `${lines}{"id": broken\n`);
    const out = await readAll('openaire', path);
    expect(out.map((e) => e.position)).toEqual([0, 1, 2, 3, 4]);
    expect(out[0].value).toEqual({
      id: '00k4n6c32::100001',
      number: '100001',
      title: { en: 'Project 1: études & “quotes”' },
      funder: { id: '00k4n6c32' },
      acronym: 'PRJ1',
      program: 'H2020',
      identifiers: [{ scheme: 'url', identifier: 'https://cordis.europa.eu/projects/100001' }],
    });
    expect(out[1].value).toMatchObject({
      id: '01cwqze88::100002',
      funder: { id: '01cwqze88' },
      program: 'NIGMS',
      identifiers: [{ scheme: 'url', identifier: 'https://project-2.example.org' }],
    });
    expect(out[2].error).toBe('funder: Unknown OpenAIRE funder prefix unknown_____.');
    expect(out[3].error).toBe('title: Missing title attribute for award 021nxhr62::100004.');
    expect(out[4].error).toMatch(/^Malformed JSON/);
    expect(normalizeEntry('awards', out[0].value)).toMatchObject({ number: '100001', program: 'H2020' });
  });

  it('should read the published project.tar of gzipped parts in order, one sequence of positions', async () => {
    const path = join(dir, 'project.tar');
    await writeOpenaireTar(path, [
      openaireLines([1, 2, 3].map((i) => openaireProject(i))),
      openaireLines([4, 5].map((i) => openaireProject(i))),
    ]);
    const out = await readAll('openaire', path);
    expect(out.map((e) => [e.position, (e.value as { number: string }).number])).toEqual([
      [0, '100001'],
      [1, '100002'],
      [2, '100003'],
      [3, '100004'],
      [4, '100005'],
    ]);
  });
});

describe('CORDIS projects', () => {
  it("should map CORDIS' XML package (a zip of project files) to the EC's awards with subjects and organizations", async () => {
    const path = join(dir, 'cordis-HORIZONprojects-xml.zip');
    const [a, b] = cordisProjects(2);
    await writeCordisXmlZip(
      path,
      [a, b],
      [
        { name: 'xml/project-rcn-1_en.xml', body: '<project xmlns="http://cordis.europa.eu"><id>1</id>' },
        { name: 'xml/project-rcn-2_en.xml', body: cordisProjectXml({ id: '2' }) },
        { name: 'README.txt', body: 'not a project' },
      ],
    );
    const out = await readAll('cordis', path);
    expect(out.map((e) => e.position)).toEqual([0, 1, 2, 3]);
    expect(out[0].value).toEqual({
      id: '00k4n6c32::101000000',
      number: '101000000',
      title: { en: 'Cordis project 0 <&> Übersicht' },
      funder: { id: '00k4n6c32' },
      acronym: 'CRD0',
      program: 'H2020',
      identifiers: [
        { scheme: 'url', identifier: 'https://cordis.europa.eu/projects/101000000' },
        { scheme: 'doi', identifier: '10.3030/101000000' },
      ],
      subjects: [{ id: 'euroscivoc:2193' }, { id: 'euroscivoc:0' }],
      organizations: [{ scheme: 'pic', id: '999000000', organization: 'Org 0 GmbH' }],
    });
    expect(out[1].value).toMatchObject({ id: '00k4n6c32::101000001', program: 'HE' });
    expect(out[2].error).toMatch(/^xml\/project-rcn-1_en\.xml: Malformed XML/);
    expect(out[3].error).toBe('xml/project-rcn-2_en.xml: title: Missing title of project 2.');
    expect(normalizeEntry('awards', out[0].value)).toMatchObject({ subjects: [{ id: 'euroscivoc:2193' }, { id: 'euroscivoc:0' }] });
  });

  it("should map CORDIS' CSV package (project.csv, ';'-separated, quoted line breaks) and a bare XML file of projects", async () => {
    const zip = join(dir, 'cordis-h2020projects-csv.zip');
    await writeCordisCsvZip(zip, cordisProjects(3));
    const rows = await readAll('cordis', zip);
    expect(rows.map((e) => e.value)).toEqual(
      [0, 1, 2].map((i) =>
        expect.objectContaining({
          id: `00k4n6c32::${101_000_000 + i}`,
          title: { en: `Cordis project ${i} <&> Übersicht` },
          acronym: `CRD${i}`,
          program: i % 2 ? 'HE' : 'H2020',
          identifiers: [
            { scheme: 'url', identifier: `https://cordis.europa.eu/projects/${101_000_000 + i}` },
            { scheme: 'doi', identifier: `10.3030/${101_000_000 + i}` },
          ],
        }),
      ),
    );
    const xml = join(dir, 'projects.xml');
    const [p, q] = cordisProjects(2, 10);
    await writeFile(
      xml,
      `<?xml version="1.0"?>\n<projects>${[p, q].map((x) => cordisProjectXml(x).replace(/^<\?xml[^>]*>\n/, '')).join('')}</projects>`,
    );
    expect((await readAll('cordis', xml)).map((e) => (e.value as { number: string }).number)).toEqual(['101000010', '101000011']);
  });
});
