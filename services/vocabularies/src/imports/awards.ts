/**
 * Projects → `awards` entries, as invenio-vocabularies' awards datastreams map them.
 *
 * - **OpenAIRE** (`openaire`): the OpenAIRE Graph's project dump — gzipped JSON lines of `Project`
 *   objects (`part-*.json.gz`), or the published `project.tar` holding them (tar-stream, each
 *   `.json.gz` member inflated and split line by line). `OpenAIREProjectTransformer`: the funder is
 *   the ROR id mapped from the 12-character source prefix of `id` (`corda__h2020::…`, with or without
 *   the `40|` entity prefix; `VOCABULARIES_AWARDS_OPENAIRE_FUNDERS`), id = `<funder ROR>::<code>`,
 *   `number` = code, `title: {en}`, `acronym`, `program` = the second part of the first funding
 *   stream id (`EC::H2020::ERC` → `H2020`), `identifiers`: the CORDIS page for the EC's projects,
 *   else `websiteurl`. Unknown funder prefix, no code or no title: rejected.
 * - **CORDIS** (`cordis`): the European Commission's project data as published on the EU open data
 *   portal — the XML package (a zip of one `<project xmlns="http://cordis.europa.eu">` file per
 *   project, or an XML file of many) or the CSV package (`project.csv`, `;`-separated, with a
 *   header), zipped or not (gzip accepted). The project becomes the EC's award
 *   (`00k4n6c32::<id>`, as the OpenAIRE import names it: a CORDIS import completes it), with
 *   `number`, `title: {en}`, `acronym`, `program` (the framework programme; CORDIS' `HORIZON` is
 *   OpenAIRE's `HE`), the CORDIS page and the grant DOI as identifiers, and — XML only, as
 *   invenio-vocabularies' `CORDISProjectTransformer` — the EuroSciVoc categories as `subjects`
 *   (`euroscivoc:<code>`) and the participants as `organizations` (`{scheme: pic, id, organization}`).
 *
 * When to use: `openSource('openaire' | 'cordis', path)` (`source.ts`) yields what
 * `openaireElements` / `cordisElements` yield: entries ready for `normalizeEntry('awards', …)`.
 */
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import type { ArrayElement } from './json-array.js';
import { jsonLines } from './json-lines.js';
import { tarMembers } from './tar.js';
import { at, kids, textAt, type XNode, XmlError, xmlRecords } from './xml.js';

/** The ROR id of the European Commission, funder of every CORDIS project. */
export const EC_ROR_ID = '00k4n6c32';

/** OpenAIRE's funder source prefixes → the funders' ROR ids (invenio-vocabularies' `VOCABULARIES_AWARDS_OPENAIRE_FUNDERS`). */
export const OPENAIRE_FUNDERS: Readonly<Record<string, string>> = {
  aka_________: '05k73zm37',
  anr_________: '00rbzpz17',
  arc_________: '05mmh0f86',
  asap________: '03zj4c476',
  cihr________: '01gavpb45',
  corda_______: EC_ROR_ID,
  corda_____he: EC_ROR_ID,
  corda__h2020: EC_ROR_ID,
  euenvagency_: '02k4b9v70',
  fct_________: '00snfqn58',
  fwf_________: '013tf3c58',
  inca________: '03m8vkq32',
  irb_hr______: '03n51vw80',
  lcs_________: '02ar66p97',
  mestd_______: '01znas443',
  nhmrc_______: '011kf5r70',
  nih_________: '01cwqze88',
  nserc_______: '01h531d29',
  nsf_________: '021nxhr62',
  nwo_________: '04jsz6e67',
  rcuk________: '00dq2kk65',
  sfi_________: '0271asj38',
  snsf________: '00yjd3n13',
  sshrc_______: '006cvnv84',
  tubitakf____: '04w9kkr77',
  twcf________: '00x0z1472',
  ukri________: '001aqnf71',
  wt__________: '029chgv08',
};

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined;
const cordisPage = (code: string) => ({ scheme: 'url', identifier: `https://cordis.europa.eu/projects/${code}` });

/** Map one OpenAIRE Graph `Project` object to an award entry; throws `Error` with the reason. */
export function mapOpenaireProject(raw: unknown): Record<string, unknown> {
  if (!isObj(raw)) throw new Error('_schema: Invalid input type.');
  const oid = str(raw.id);
  if (!oid) throw new Error('id: Missing OpenAIRE id.');
  const prefix = oid.split('::', 1)[0].split('|').at(-1)!;
  const funder = OPENAIRE_FUNDERS[prefix];
  if (!funder) throw new Error(`funder: Unknown OpenAIRE funder prefix ${prefix}.`);
  const code = str(raw.code);
  if (!code) throw new Error('number: Missing project code.');
  const title = str(raw.title);
  if (!title) throw new Error(`title: Missing title attribute for award ${funder}::${code}.`);
  const funding = Array.isArray(raw.funding) ? raw.funding.find(isObj) : undefined;
  const stream = isObj(funding?.funding_stream)
    ? funding.funding_stream
    : isObj(funding?.fundingStream)
      ? funding.fundingStream
      : undefined;
  const program = str(stream?.id)?.split('::')[1];
  const website = str(raw.websiteurl);
  const identifiers = funder === EC_ROR_ID ? [cordisPage(code)] : website ? [{ scheme: 'url', identifier: website }] : undefined;
  return {
    id: `${funder}::${code}`,
    number: code,
    title: { en: title },
    funder: { id: funder },
    acronym: str(raw.acronym),
    program: program || undefined,
    identifiers,
  };
}

/** CORDIS' framework programme names as OpenAIRE's funding streams name them. */
const PROGRAMMES: Readonly<Record<string, string>> = { HORIZON: 'HE' };

/** The EC award of a CORDIS project's fields (XML or CSV). */
function cordisAward(p: {
  id?: string;
  title?: string;
  acronym?: string;
  programme?: string;
  doi?: string;
  subjects?: { id: string }[];
  organizations?: Record<string, string>[];
}): Record<string, unknown> {
  if (!p.id) throw new Error('number: Missing project id.');
  if (!p.title) throw new Error(`title: Missing title of project ${p.id}.`);
  const programme = p.programme?.toUpperCase();
  return {
    id: `${EC_ROR_ID}::${p.id}`,
    number: p.id,
    title: { en: p.title },
    funder: { id: EC_ROR_ID },
    acronym: p.acronym,
    program: programme ? (PROGRAMMES[programme] ?? programme) : undefined,
    identifiers: [cordisPage(p.id), ...(p.doi ? [{ scheme: 'doi', identifier: p.doi }] : [])],
    subjects: p.subjects?.length ? p.subjects : undefined,
    organizations: p.organizations?.length ? p.organizations : undefined,
  };
}

/** Map one CORDIS `<project>` tree to an award entry; throws `Error` with the reason. */
export function mapCordisProjectXml(project: XNode): Record<string, unknown> {
  const rel = at(project, 'relations');
  const programme =
    textAt(project, 'frameworkProgramme') ??
    kids(at(rel, 'associations'), 'programme')
      .map((p) => textAt(p, 'frameworkProgramme'))
      .find((x) => x);
  const subjects: { id: string }[] = [];
  for (const c of kids(at(rel, 'categories'), 'category')) {
    if (c.attrs.classification !== 'euroSciVoc') continue;
    const code = textAt(c, 'code')?.split('/').filter(Boolean).at(-1);
    if (code && !subjects.some((s) => s.id === `euroscivoc:${code}`)) subjects.push({ id: `euroscivoc:${code}` });
  }
  const organizations: Record<string, string>[] = [];
  for (const o of kids(at(rel, 'associations'), 'organization')) {
    const name = textAt(o, 'legalName');
    if (!name) continue;
    const pic = textAt(o, 'id');
    organizations.push(pic ? { scheme: 'pic', id: pic, organization: name } : { organization: name });
  }
  return cordisAward({
    id: textAt(project, 'id'),
    title: textAt(project, 'title'),
    acronym: textAt(project, 'acronym'),
    programme,
    doi: textAt(project, 'identifiers', 'grantDoi'),
    subjects,
    organizations,
  });
}

/** Map one row of CORDIS' `project.csv` (header names as published) to an award entry. */
export function mapCordisProjectCsv(row: Record<string, string>): Record<string, unknown> {
  const v = (k: string) => str(row[k]);
  return cordisAward({ id: v('id'), title: v('title'), acronym: v('acronym'), programme: v('frameworkProgramme'), doi: v('grantDoi') });
}

/** Elements of `input` mapped by `map` (a mapping error becomes the element's `error`). */
async function* mapped(
  input: AsyncIterable<ArrayElement>,
  map: (v: unknown) => Record<string, unknown>,
  label = '',
): AsyncGenerator<ArrayElement> {
  for await (const el of input) {
    if ('error' in el) yield { position: el.position, error: `${label}${el.error}` };
    else {
      try {
        yield { position: el.position, value: map(el.value) };
      } catch (err) {
        yield { position: el.position, error: `${label}${(err as Error).message}` };
      }
    }
  }
}

/** Renumber elements from `from` (members of an archive share one sequence of positions). */
async function* renumbered(input: AsyncIterable<ArrayElement>, next: () => number): AsyncGenerator<ArrayElement> {
  for await (const el of input) yield 'error' in el ? { position: next(), error: el.error } : { position: next(), value: el.value };
}

/** True when `head` (the first 512+ bytes) is a POSIX tar header ("ustar" magic). */
export const isTar = (head: Buffer) => head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar';

/** Read the first `n` bytes of `input`, then all of it again (one pass). */
async function peek(input: AsyncIterable<Buffer>, n: number): Promise<{ head: Buffer; all: AsyncIterable<Buffer> }> {
  const it = input[Symbol.asyncIterator]();
  const first: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < n) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    first.push(r.value);
    size += r.value.length;
  }
  const head = Buffer.concat(first);
  return {
    head,
    all: (async function* () {
      if (head.length) yield head;
      if (done) return;
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        yield r.value;
      }
    })(),
  };
}

/**
 * The awards of an OpenAIRE project dump (`input`: the file's inflated bytes): JSON lines, or the
 * `project.tar` of `.json.gz` parts (other members skipped).
 */
export async function* openaireElements(input: AsyncIterable<Buffer>): AsyncGenerator<ArrayElement> {
  const { head, all } = await peek(input, 512);
  if (!isTar(head)) {
    yield* mapped(jsonLines(all), mapOpenaireProject);
    return;
  }
  let position = 0;
  const next = () => position++;
  yield* tarMembers(all, (name, body) => {
    const lower = name.toLowerCase();
    if (lower.endsWith('.json.gz') || lower.endsWith('.jsonl.gz')) {
      const src = Readable.from(body);
      const gunzip = src.pipe(createGunzip());
      src.on('error', (err) => gunzip.destroy(err));
      return renumbered(mapped(jsonLines(gunzip), mapOpenaireProject, `${name}: `), next);
    }
    if (lower.endsWith('.json') || lower.endsWith('.jsonl'))
      return renumbered(mapped(jsonLines(body), mapOpenaireProject, `${name}: `), next);
    return undefined;
  });
}

/** The `<project>` elements of CORDIS XML (`input`), mapped; positions from `next`. */
async function* cordisXml(input: AsyncIterable<Buffer>, next: () => number, label = ''): AsyncGenerator<ArrayElement> {
  for await (const r of xmlRecords(input, (_uri, name) => name === 'project')) {
    if (r.error !== undefined) {
      yield { position: next(), error: `${label}${r.error}` };
      continue;
    }
    let value: Record<string, unknown>;
    try {
      value = mapCordisProjectXml(r.node);
    } catch (err) {
      yield { position: next(), error: `${label}${(err as Error).message}` };
      continue;
    }
    yield { position: next(), value };
  }
}

/** The rows of CORDIS' `project.csv` (`;`-separated, quoted, header row), mapped; positions from `next`. */
async function* cordisCsv(input: AsyncIterable<Buffer>, next: () => number): AsyncGenerator<ArrayElement> {
  const src = Readable.from(input);
  const parser = src.pipe(
    parseCsv({
      delimiter: ';',
      columns: true,
      bom: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: 16 * 1024 * 1024,
    }),
  );
  // Why: pipe() leaves the source's errors unhandled; the parser (iterated below) fails with them.
  src.on('error', (err) => parser.destroy(err));
  for await (const row of parser as AsyncIterable<Record<string, string>>) {
    let value: Record<string, unknown>;
    try {
      value = mapCordisProjectCsv(row);
    } catch (err) {
      yield { position: next(), error: (err as Error).message };
      continue;
    }
    yield { position: next(), value };
  }
}

/**
 * The awards of a CORDIS file that is not a zip (`input`: its inflated bytes): XML (one or many
 * `<project>`s) when it starts with `<`, else `project.csv`.
 */
export async function* cordisElements(input: AsyncIterable<Buffer>): AsyncGenerator<ArrayElement> {
  const { head, all } = await peek(input, 64);
  let position = 0;
  const next = () => position++;
  const xml = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('<');
  try {
    yield* xml ? cordisXml(all, next) : cordisCsv(all, next);
  } catch (err) {
    if (err instanceof XmlError) throw err;
    const code = (err as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('CSV_')) throw new Error(`Not readable as CORDIS CSV: ${(err as Error).message}`);
    throw err;
  }
}

/** One member of a CORDIS zip package: its name and bytes. */
export interface ZipMember {
  name: string;
  body: AsyncIterable<Buffer>;
}

/**
 * The awards of CORDIS' zip packages (`members`, in order): each `.xml` member's projects (a
 * malformed member rejected whole, the run goes on), or `project.csv`'s rows; other members skipped.
 */
export async function* cordisZipElements(members: AsyncIterable<ZipMember>): AsyncGenerator<ArrayElement> {
  let position = 0;
  const next = () => position++;
  for await (const m of members) {
    const base = m.name.split('/').at(-1)!.toLowerCase();
    if (base.endsWith('.xml')) {
      try {
        yield* cordisXml(m.body, next, `${m.name}: `);
      } catch (err) {
        if (!(err instanceof XmlError)) throw err;
        yield { position: next(), error: `${m.name}: ${err.message}` };
      }
    } else if (base === 'project.csv') yield* cordisCsv(m.body, next);
  }
}
