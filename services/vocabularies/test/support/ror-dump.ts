/**
 * Builders of ROR data dumps in the published format (schema v2 records, in a zip named and laid
 * out like ROR's Zenodo releases: `v1.58-2024-12-11-ror-data.json` (schema v1), `…_schema_v2.json`,
 * and their CSVs), deterministic, streamed (a dump of any size is written in flat memory).
 *
 * When to use: tests and benches of the ROR import (`rorOrganization(i)`, `writeRorZip(path, …)`);
 * `test/fixtures/ror/generate.ts` writes the small dump kept in the repository.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import yazl from 'yazl';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** The ROR id (`0` + 6 base-32 characters + ISO 7064 mod 97-10 checksum) of the number `n` (modulo 32⁶). */
export function rorId(big: number): string {
  const n = big % 32 ** 6;
  let s = '';
  let x = n;
  for (let i = 0; i < 6; i++) {
    s = CROCKFORD[x % 32] + s;
    x = Math.floor(x / 32);
  }
  const check = 98 - ((n * 100) % 97);
  return `0${s}${String(check).padStart(2, '0')}`;
}

const COUNTRIES = [
  { code: 'CH', name: 'Switzerland', city: 'Genève', lang: 'fr', continent: ['EU', 'Europe'] },
  { code: 'DE', name: 'Germany', city: 'München', lang: 'de', continent: ['EU', 'Europe'] },
  { code: 'FR', name: 'France', city: 'Orléans', lang: 'fr', continent: ['EU', 'Europe'] },
  { code: 'US', name: 'United States', city: 'Boston', lang: 'en', continent: ['NA', 'North America'] },
  { code: 'JP', name: 'Japan', city: 'Kyoto', lang: 'ja', continent: ['AS', 'Asia'] },
  { code: 'BR', name: 'Brazil', city: 'São Paulo', lang: 'pt', continent: ['SA', 'South America'] },
] as const;
const KINDS = ['education', 'facility', 'government', 'healthcare', 'nonprofit', 'company', 'archive', 'other'] as const;
const WORDS = ['Institute', 'University', 'Laboratory', 'Centre', 'Foundation', 'Observatory', 'Hospital', 'Agency'];
const TOPICS = ['Physics', 'Marine Biology', 'Économie', 'Informatik', 'Agronomy', 'Astronomy', 'Medicine', 'Linguistics'];

/** Options of one generated organisation. */
export interface OrgOptions {
  /** Status (`active` by default; every 97th is `inactive`, every 211th `withdrawn`). */
  status?: 'active' | 'inactive' | 'withdrawn';
  /** Name suffix, to make a "changed" organisation. */
  suffix?: string;
}

/** A ROR schema v2 organisation, deterministic in `i` (every 4th is a funder with a FundRef id). */
export function rorOrganization(i: number, o: OrgOptions = {}): Record<string, unknown> {
  const id = rorId(1_000_000 + i * 7919);
  const c = COUNTRIES[i % COUNTRIES.length];
  const kind = KINDS[i % KINDS.length];
  const display = `${WORDS[i % WORDS.length]} of ${TOPICS[(i >> 3) % TOPICS.length]} ${c.city} ${i}${o.suffix ?? ''}`;
  const acronym = `${WORDS[i % WORDS.length][0]}${TOPICS[(i >> 3) % TOPICS.length][0]}${i}`.toUpperCase();
  const status = o.status ?? (i % 211 === 210 ? 'withdrawn' : i % 97 === 96 ? 'inactive' : 'active');
  const names: Record<string, unknown>[] = [{ value: display, types: ['ror_display', 'label'], lang: 'en' }];
  if (i % 2 === 0) names.push({ value: acronym, types: ['acronym'], lang: null });
  if (i % 3 === 0) names.push({ value: `${c.city} ${TOPICS[(i >> 3) % TOPICS.length]} ${i}`, types: ['alias'], lang: null });
  if (c.lang !== 'en') names.push({ value: `${display} (${c.lang})`, types: ['label'], lang: c.lang });
  const external: Record<string, unknown>[] = [
    { type: 'grid', all: [`grid.${1000 + i}.${i % 10}`], preferred: `grid.${1000 + i}.${i % 10}` },
    {
      type: 'isni',
      all: [`0000 0004 ${String(1000 + (i % 9000)).padStart(4, '0')} ${String(i % 10000).padStart(4, '0')}`],
      preferred: null,
    },
  ];
  if (i % 5 !== 4) external.push({ type: 'wikidata', all: [`Q${100000 + i}`], preferred: null });
  if (i % 4 === 0) external.push({ type: 'fundref', all: [String(501100000000 + i)], preferred: String(501100000000 + i) });
  return {
    admin: {
      created: { date: '2019-03-01', schema_version: '1.0' },
      last_modified: { date: '2024-12-11', schema_version: '2.1' },
    },
    domains: i % 2 === 0 ? [`org${i}.example.org`] : [],
    established: 1900 + (i % 120),
    external_ids: external,
    id: `https://ror.org/${id}`,
    links: [
      { type: 'website', value: `https://org${i}.example.org` },
      { type: 'wikipedia', value: `https://en.wikipedia.org/wiki/Org_${i}` },
    ],
    locations: [
      {
        geonames_details: {
          continent_code: c.continent[0],
          continent_name: c.continent[1],
          country_code: c.code,
          country_name: c.name,
          country_subdivision_code: null,
          country_subdivision_name: null,
          lat: 46 + (i % 10) / 10,
          lng: 6 + (i % 10) / 10,
          name: c.city,
        },
        geonames_id: 2_000_000 + i,
      },
    ],
    names,
    relationships: i > 0 ? [{ label: `Parent ${i - 1}`, type: 'related', id: `https://ror.org/${rorId(1_000_000 + (i - 1) * 7919)}` }] : [],
    status,
    types: kind === 'facility' || i % 4 === 0 ? [kind, 'funder'] : [kind],
  };
}

/** Options of a dump file. */
export interface ZipOptions {
  /** Name of the v2 member (default ROR's `v1.58-2024-12-11-ror-data_schema_v2.json`). */
  member?: string;
  /** Leave out ROR's other members (the v1 JSON and the CSVs). */
  only?: boolean;
  /** Raw text of the v2 member instead of the JSON array of `records`. */
  rawJson?: string;
}

/** JSON array text of `records`, produced lazily in chunks. */
async function* arrayText(records: Iterable<unknown>): AsyncGenerator<string> {
  yield '[';
  let first = true;
  let chunk = '';
  for (const r of records) {
    chunk += `${first ? '' : ','}\n  ${JSON.stringify(r)}`;
    first = false;
    if (chunk.length > 64 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}\n]\n`;
}

/** Write a ROR dump zip of `records` (any iterable: a generator keeps memory flat) to `path`. */
export async function writeRorZip(path: string, records: Iterable<unknown>, o: ZipOptions = {}): Promise<void> {
  const zip = new yazl.ZipFile();
  const mtime = new Date('2024-12-11T00:00:00Z');
  const prefix = 'v1.58-2024-12-11-ror-data';
  if (!o.only) {
    zip.addBuffer(Buffer.from('[]\n'), `${prefix}.json`, { mtime });
    zip.addBuffer(Buffer.from('id,name,status\n'), `${prefix}.csv`, { mtime });
    zip.addBuffer(Buffer.from('id,names.types.ror_display,status\n'), `${prefix}_schema_v2.csv`, { mtime });
  }
  const body = o.rawJson !== undefined ? Readable.from([o.rawJson]) : Readable.from(arrayText(records));
  const through = new PassThrough();
  body.pipe(through);
  zip.addReadStream(through, o.member ?? `${prefix}_schema_v2.json`, { mtime });
  zip.end();
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  await once(out, 'close');
}

/** `n` organisations from index `from`. */
export function* organizations(n: number, from = 0, o: (i: number) => OrgOptions = () => ({})): Generator<Record<string, unknown>> {
  for (let i = from; i < from + n; i++) yield rorOrganization(i, o(i));
}
