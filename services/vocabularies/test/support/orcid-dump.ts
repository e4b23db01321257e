/**
 * ORCID public data files for tests, in the published layout: a tar.gz
 * (`ORCID_<year>_10_summaries/<last 3 digits>/<iD>.xml`) of record summaries in ORCID message
 * schema 3.0 (`record:record` with its namespaces, `common:orcid-identifier`, `person:name`,
 * `other-name:other-names`, `activities:employments` with `common:disambiguated-organization`),
 * the elements in the XSD's order; iDs with valid ISO 7064 11,2 checksums.
 *
 * When to use: importer unit tests and jobs-runner integration tests (`writeOrcidTarGz`).
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';

/** An employment of a generated person: its organisation, disambiguated by ROR or GRID, current unless `ended`. */
export interface TestEmployment {
  name: string;
  ror?: string;
  grid?: string;
  ringgold?: string;
  ended?: boolean;
}

/** A generated ORCID record. */
export interface TestPerson {
  orcid: string;
  given?: string;
  family?: string;
  otherNames?: string[];
  employments?: TestEmployment[];
  /** Leave `person:name` out. */
  noName?: boolean;
}

/** A valid ORCID iD for `n` (ISO 7064 11,2 check character). */
export function orcidId(n: number): string {
  const base = String(n).padStart(15, '0');
  let total = 0;
  for (const c of base) total = (total + Number(c)) * 2;
  const r = (12 - (total % 11)) % 11;
  const digits = base + (r === 10 ? 'X' : String(r));
  return digits.match(/.{4}/g)!.join('-');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const NS = [
  'internal',
  'education',
  'distinction',
  'deprecated',
  'other-name',
  'membership',
  'error',
  'common',
  'record',
  'personal-details',
  'keyword',
  'email',
  'external-identifier',
  'funding',
  'preferences',
  'address',
  'invited-position',
  'work',
  'history',
  'employment',
  'qualification',
  'service',
  'person',
  'activities',
  'researcher-url',
  'peer-review',
  'bulk',
  'research-resource',
]
  .map((p) => `xmlns:${p}="http://www.orcid.org/ns/${p}"`)
  .join(' ');
const DATE =
  '<common:created-date>2016-04-15T20:45:16.141Z</common:created-date><common:last-modified-date>2024-01-10T08:12:00.000Z</common:last-modified-date>';

function employment(e: TestEmployment, i: number, orcid: string): string {
  const dis = e.ror ? [`https://ror.org/${e.ror}`, 'ROR'] : e.grid ? [e.grid, 'GRID'] : e.ringgold ? [e.ringgold, 'RINGGOLD'] : undefined;
  return `<activities:affiliation-group>${DATE}<common:external-ids/>
<employment:employment-summary put-code="${1000 + i}" display-index="${i}" path="/${orcid}/employment/${1000 + i}" visibility="public">${DATE}
<common:source><common:source-orcid><common:uri>https://orcid.org/${orcid}</common:uri><common:path>${orcid}</common:path><common:host>orcid.org</common:host></common:source-orcid><common:source-name>Test</common:source-name></common:source>
<common:role-title>Researcher</common:role-title>
<common:start-date><common:year>2010</common:year><common:month>09</common:month></common:start-date>${
    e.ended ? '<common:end-date><common:year>2015</common:year></common:end-date>' : ''
  }
<common:organization><common:name>${esc(e.name)}</common:name><common:address><common:city>Geneva</common:city><common:country>CH</common:country></common:address>${
    dis
      ? `<common:disambiguated-organization><common:disambiguated-organization-identifier>${esc(dis[0])}</common:disambiguated-organization-identifier><common:disambiguation-source>${dis[1]}</common:disambiguation-source></common:disambiguated-organization>`
      : ''
  }</common:organization>
</employment:employment-summary></activities:affiliation-group>`;
}

/** The record-summary XML of `p` (ORCID message schema 3.0). */
export function orcidRecordXml(p: TestPerson): string {
  const o = p.orcid;
  const name = p.noName
    ? ''
    : `<person:name visibility="public" path="${o}">${DATE}${
        p.given !== undefined ? `<personal-details:given-names>${esc(p.given)}</personal-details:given-names>` : ''
      }${p.family !== undefined ? `<personal-details:family-name>${esc(p.family)}</personal-details:family-name>` : ''}</person:name>`;
  const others = (p.otherNames ?? [])
    .map(
      (n, i) =>
        `<other-name:other-name put-code="${i + 1}" visibility="public" path="/${o}/other-names/${i + 1}" display-index="${i + 1}">${DATE}<other-name:content>${esc(n)}</other-name:content></other-name:other-name>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<record:record path="/${o}" ${NS}>
<common:orcid-identifier><common:uri>https://orcid.org/${o}</common:uri><common:path>${o}</common:path><common:host>orcid.org</common:host></common:orcid-identifier>
<preferences:preferences><preferences:locale>en</preferences:locale></preferences:preferences>
<history:history visibility="public"><history:creation-method>Member-referred</history:creation-method><history:submission-date>2016-04-15T20:45:16.141Z</history:submission-date>${DATE.split('</common:created-date>')[1]}<history:claimed>true</history:claimed><history:verified-email>true</history:verified-email><history:verified-primary-email>true</history:verified-primary-email></history:history>
<person:person path="/${o}/person"><common:last-modified-date>2024-01-10T08:12:00.000Z</common:last-modified-date>${name}<other-name:other-names path="/${o}/other-names">${others}</other-name:other-names><person:biography visibility="public" path="/${o}/biography">${DATE}<personal-details:content>Née &amp; raised</personal-details:content></person:biography><researcher-url:researcher-urls path="/${o}/researcher-urls"/><email:emails path="/${o}/email"/><address:addresses path="/${o}/address"/><keyword:keywords path="/${o}/keywords"/><external-identifier:external-identifiers path="/${o}/external-identifiers"/></person:person>
<activities:activities-summary path="/${o}/activities"><common:last-modified-date>2024-01-10T08:12:00.000Z</common:last-modified-date><activities:distinctions path="/${o}/distinctions"/><activities:educations path="/${o}/educations"/><activities:employments path="/${o}/employments">${(
    p.employments ?? []
  )
    .map((e, i) => employment(e, i, o))
    .join(
      '',
    )}</activities:employments><activities:fundings path="/${o}/fundings"/><activities:invited-positions path="/${o}/invited-positions"/><activities:memberships path="/${o}/memberships"/><activities:peer-reviews path="/${o}/peer-reviews"/><activities:qualifications path="/${o}/qualifications"/><activities:research-resources path="/${o}/research-resources"/><activities:services path="/${o}/services"/><activities:works path="/${o}/works"/></activities:activities-summary>
</record:record>
`;
}

/** Persons 0…n-1 (offset `from`), with names, other names and a ROR employment; `tweak(i)` overrides fields. */
export function persons(n: number, from = 0, tweak: (i: number) => Partial<TestPerson> = () => ({})): TestPerson[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      orcid: orcidId(1_000_000 + i),
      given: `Given${i}`,
      family: i % 5 === 0 ? `Müller-Ñúñez${i}` : `Family${i}`,
      otherNames: i % 3 === 0 ? [`G. F. ${i}`] : [],
      employments: [{ name: 'CERN', ror: '01ggx4157' }],
      ...tweak(i),
    };
  });
}

/** A member of the tar: its path and bytes (a record summary, or anything else). */
export interface TarMember {
  name: string;
  body: string | Buffer;
}

/** The tar members of `people` in the dump's layout (`ORCID_2024_10_summaries/<xyz>/<iD>.xml`). */
export function orcidMembers(people: TestPerson[]): TarMember[] {
  return people.map((p) => ({ name: `ORCID_2024_10_summaries/${p.orcid.slice(-3)}/${p.orcid}.xml`, body: orcidRecordXml(p) }));
}

/** Write `members` as a gzipped tar at `path`. */
export async function writeOrcidTarGz(path: string, members: TarMember[]): Promise<void> {
  const pack = tar.pack();
  const done = pipeline(pack, createGzip(), createWriteStream(path));
  for (const m of members) {
    await new Promise<void>((resolve, reject) => pack.entry({ name: m.name }, m.body, (err) => (err ? reject(err) : resolve())));
  }
  pack.finalize();
  await done;
}
