/**
 * Project dumps for tests, in the published formats: the OpenAIRE Graph's `Project` objects
 * (gzipped JSON lines `part-*.json.gz`, and the `project.tar` holding them), CORDIS' XML package
 * (a zip of one `<project xmlns="http://cordis.europa.eu">` file per project) and its CSV package
 * (`project.csv`, `;`-separated, the published header).
 *
 * When to use: importer unit tests and jobs-runner integration tests of the `openaire` and `cordis` formats.
 */
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import yazl from 'yazl';

/** An OpenAIRE Graph project (`prefix`: the funder's 12-character source prefix). */
export function openaireProject(i: number, prefix = 'corda__h2020', over: Record<string, unknown> = {}): Record<string, unknown> {
  const code = String(100_000 + i);
  return {
    id: `${prefix}::${(i * 2654435761).toString(16).padStart(32, '0').slice(-32)}`,
    websiteurl: i % 2 ? `https://project-${i}.example.org` : null,
    code,
    acronym: `PRJ${i}`,
    title: `Project ${i}: études & “quotes”`,
    startDate: '2021-01-01',
    endDate: '2024-12-31',
    callIdentifier: 'H2020-MSCA-IF-2020',
    keywords: null,
    openAccessMandateForPublications: false,
    openAccessMandateForDataset: false,
    subject: [],
    funding: [
      {
        shortName: 'EC',
        name: 'European Commission',
        jurisdiction: 'EU',
        funding_stream: { description: 'Horizon 2020 Framework Programme - Research and Innovation action', id: 'EC::H2020::RIA' },
      },
    ],
    summary: 'A summary.',
    granted: { currency: 'EUR', totalcost: 1000000.5, fundedamount: 999999 },
    h2020Programme: [{ code: 'H2020-EU.1.3.2.', description: 'Nurturing excellence' }],
    ...over,
  };
}

/** The JSON lines of `projects` (one object per line, as the dump's parts). */
export const openaireLines = (projects: unknown[]) => `${projects.map((p) => JSON.stringify(p)).join('\n')}\n`;

/** Write `parts` (lines of each part) as the dump's `project.tar` of `part-0000n.json.gz` members. */
export async function writeOpenaireTar(path: string, parts: string[]): Promise<void> {
  const pack = tar.pack();
  const done = pipeline(pack, createWriteStream(path));
  const add = (name: string, body: Buffer | string) =>
    new Promise<void>((resolve, reject) => pack.entry({ name }, body, (err) => (err ? reject(err) : resolve())));
  await add('project/', '');
  for (const [i, lines] of parts.entries()) await add(`project/part-${String(i).padStart(5, '0')}.json.gz`, gzipSync(lines));
  pack.finalize();
  await done;
}

/** A CORDIS project (as its XML and CSV describe it). */
export interface CordisProject {
  id: string;
  acronym?: string;
  title?: string;
  programme?: string;
  doi?: string;
  euroscivoc?: string[];
  organizations?: { pic: string; name: string; type: string }[];
}

/** CORDIS projects 0…n-1. */
export function cordisProjects(n: number, from = 0): CordisProject[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const id = String(101_000_000 + i);
    return {
      id,
      acronym: `CRD${i}`,
      title: `Cordis project ${i} <&> Übersicht`,
      programme: i % 2 ? 'HORIZON' : 'H2020',
      doi: `10.3030/${id}`,
      euroscivoc: ['/29/91/2193', `/23/${i}`],
      organizations: [{ pic: String(999_000_000 + i), name: `Org ${i} GmbH`, type: 'coordinator' }],
    };
  });
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The XML of one CORDIS project, as in CORDIS' XML package. */
export function cordisProjectXml(p: CordisProject): string {
  const cats = (p.euroscivoc ?? [])
    .map(
      (c) =>
        `<category classification="euroSciVoc" type="isInFieldOf"><code>${c}</code><title>Field ${esc(c)}</title><displayCode>${c}</displayCode></category>`,
    )
    .join('');
  const orgs = (p.organizations ?? [])
    .map(
      (o, i) =>
        `<organization type="${o.type}" order="${i + 1}" ecContribution="1000" terminated="false"><id>${o.pic}</id><legalName>${esc(o.name)}</legalName><shortName>O${i}</shortName><address><street>Rue 1</street><postalCode>1000</postalCode><city>Brussels</city><country>BE</country></address></organization>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://cordis.europa.eu" xml:lang="en">
<language>en</language><availableLanguages readOnly="true">en</availableLanguages>
<id>${p.id}</id>${p.acronym ? `<acronym>${esc(p.acronym)}</acronym>` : ''}<teaser>Teaser</teaser><objective>Objective</objective>${
    p.title ? `<title>${esc(p.title)}</title>` : ''
  }<totalCost>1500000</totalCost><ecMaxContribution>1500000</ecMaxContribution><startDate>2023-01-01</startDate><endDate>2027-12-31</endDate><status>SIGNED</status>${
    p.doi ? `<identifiers><grantDoi>${p.doi}</grantDoi></identifiers>` : ''
  }
<relations><associations>${orgs}${
    p.programme
      ? `<programme type="relatedLegalBasis"><code>${p.programme}-EU.1.1.</code><frameworkProgramme>${p.programme}</frameworkProgramme><title>Programme</title></programme>`
      : ''
  }</associations><categories>${cats}<category classification="projectFundingSchemeCategory" type="isFundedBy"><code>ERC-STG</code><title>Starting Grant</title></category></categories></relations>
</project>
`;
}

/** Write CORDIS' XML package: a zip of one `xml/project-rcn-<n>_en.xml` per project, plus `extra` members. */
export async function writeCordisXmlZip(
  path: string,
  projects: CordisProject[],
  extra: { name: string; body: string }[] = [],
): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [i, p] of projects.entries()) zip.addBuffer(Buffer.from(cordisProjectXml(p)), `xml/project-rcn-${240_000 + i}_en.xml`);
  for (const m of extra) zip.addBuffer(Buffer.from(m.body), m.name);
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

/** The published header of CORDIS' `project.csv`. */
export const CORDIS_CSV_HEADER =
  'id;acronym;status;title;startDate;endDate;totalCost;ecMaxContribution;legalBasis;topics;ecSignatureDate;frameworkProgramme;masterCall;subCall;fundingScheme;nature;objective;contentUpdateDate;rcn;grantDoi';

const q = (s: string | undefined) => `"${(s ?? '').replace(/"/g, '""')}"`;

/** CORDIS' `project.csv` of `projects`. */
export function cordisCsv(projects: CordisProject[]): string {
  const rows = projects.map((p, i) =>
    [
      p.id,
      q(p.acronym),
      'SIGNED',
      q(p.title),
      '2023-01-01',
      '2027-12-31',
      '1500000',
      '1500000',
      `${p.programme}-EU.1.1.`,
      'ERC-2022-STG',
      '2022-11-30',
      p.programme ?? '',
      'ERC-2022-STG',
      'ERC-2022-STG',
      'ERC',
      '',
      q('Objective; with a "quote"\nand a line break'),
      '2024-01-10 10:00:00',
      String(240_000 + i),
      p.doi ?? '',
    ].join(';'),
  );
  return `${CORDIS_CSV_HEADER}\n${rows.join('\n')}\n`;
}

/** Write CORDIS' CSV package (a zip with `project.csv` and the other tables). */
export async function writeCordisCsvZip(path: string, projects: CordisProject[]): Promise<void> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(cordisCsv(projects)), 'project.csv');
  zip.addBuffer(Buffer.from('projectID;organisationID;name\n'), 'organization.csv');
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

/** Write `text` gzipped at `path`. */
export const writeGz = (path: string, text: string) => writeFile(path, gzipSync(text));
