/**
 * ORCID's public data file → `names` entries (invenio-vocabularies' ORCID transformer): a tar.gz of
 * record-summary XML files (ORCID message schema 3.0, one `record:record` per member), read with
 * tar-stream behind zlib and each member parsed by sax (`xml.ts`), one member in memory at a time.
 *
 * Mapping: id = the ORCID iD (`common:orcid-identifier/common:path`), `given_name`/`family_name`
 * from `person:name`, `identifiers: [{scheme: orcid}]`, `props.other_names` from `other-name`
 * (comma-joined, as props are strings), and the **current** employments (no end date) as
 * affiliations: `{id: <ROR id>}` when the organisation is disambiguated by ROR, `{grid: <GRID id>,
 * name}` when by GRID (the runner resolves it to the ROR id of an affiliation carrying that GRID id,
 * else keeps the name: `resolveGridAffiliations`), `{name}` otherwise; duplicates dropped. A member
 * that is not well-formed XML, has no ORCID iD, no name or no family name is rejected with its
 * reason; the run goes on.
 *
 * When to use: `openSource('orcid', path)` (`source.ts`) yields what `orcidElements` yields.
 */
import { textAt, kids, type XNode, XmlError, xmlRecords, at } from './xml.js';
import type { ArrayElement } from './json-array.js';
import { tarMembers } from './tar.js';

/** ORCID iDs: four groups of four digits, the last character a digit or X (ISO 7064 11,2 checksum). */
const ORCID = /^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$/;

/** True when the ORCID iD's last character is its ISO 7064 11,2 checksum. */
export function orcidChecksumOk(id: string): boolean {
  const digits = id.replace(/-/g, '');
  let total = 0;
  for (const c of digits.slice(0, -1)) total = (total + Number(c)) * 2;
  const r = (12 - (total % 11)) % 11;
  return digits.at(-1) === (r === 10 ? 'X' : String(r));
}

/** An affiliation of a name as the mapping leaves it: a ROR id, a GRID id still to resolve, or a name. */
export type OrcidAffiliation = { id: string } | { grid: string; name?: string } | { name: string };

/** Map one ORCID record summary tree (`record:record`) to a names entry (not yet normalised); throws `Error` with the reason. */
export function mapOrcidRecord(record: XNode): Record<string, unknown> {
  if (record.name !== 'record') throw new Error(`Not an ORCID record summary (root element ${record.name}).`);
  const orcid = textAt(record, 'orcid-identifier', 'path') ?? record.attrs.path?.replace(/^\//, '');
  if (!orcid) throw new Error('id: No ORCID iD (common:orcid-identifier/common:path).');
  if (!ORCID.test(orcid) || !orcidChecksumOk(orcid)) throw new Error(`id: Not an ORCID iD: ${JSON.stringify(orcid.slice(0, 100))}.`);
  const person = at(record, 'person');
  const name = at(person, 'name');
  if (!name) throw new Error('name: Name not found in ORCiD entry.');
  const family = textAt(name, 'family-name');
  if (!family) throw new Error('family_name: Family name not found in ORCiD entry.');
  const given = textAt(name, 'given-names');
  const others = kids(at(person, 'other-names'), 'other-name')
    .map((o) => textAt(o, 'content'))
    .filter((s): s is string => !!s);
  const affiliations: OrcidAffiliation[] = [];
  const seen = new Set<string>();
  for (const group of kids(at(record, 'activities-summary', 'employments'), 'affiliation-group')) {
    for (const summary of kids(group, 'employment-summary')) {
      if (at(summary, 'end-date')) continue; // a past employment
      const org = at(summary, 'organization');
      const orgName = textAt(org, 'name');
      const dis = at(org, 'disambiguated-organization');
      const source = textAt(dis, 'disambiguation-source')?.toUpperCase();
      const ident = textAt(dis, 'disambiguated-organization-identifier');
      let aff: OrcidAffiliation | undefined;
      if (source === 'ROR' && ident) aff = { id: ident.replace(/^https?:\/\/ror\.org\//i, '') };
      else if (source === 'GRID' && ident) aff = orgName ? { grid: ident, name: orgName } : { grid: ident };
      else if (orgName) aff = { name: orgName };
      if (!aff) continue;
      const key = JSON.stringify(aff);
      if (seen.has(key)) continue;
      seen.add(key);
      affiliations.push(aff);
    }
  }
  return {
    id: orcid,
    given_name: given,
    family_name: family,
    identifiers: [{ scheme: 'orcid', identifier: orcid }],
    affiliations: affiliations.length ? affiliations : undefined,
    props: others.length ? { other_names: others.join('; ') } : undefined,
  };
}

/** Options of `orcidElements`. */
export interface OrcidOptions {
  /** A member holding more characters is rejected (default 4 Mi). */
  maxRecordChars?: number;
}

/**
 * The names entries of an ORCID summaries tar (`input`: the inflated tar bytes), one per `.xml`
 * member in archive order; other members are skipped. A bad member is an element with its `error`.
 */
export async function* orcidElements(input: AsyncIterable<Buffer>, o: OrcidOptions = {}): AsyncGenerator<ArrayElement> {
  let position = 0;
  yield* tarMembers(input, (name, body) => (name.toLowerCase().endsWith('.xml') ? orcidMember(name, body, position++, o) : undefined));
}

/** One `.xml` member of the archive: its names entry, or an element with the reason it was rejected. */
async function* orcidMember(name: string, body: AsyncIterable<Buffer>, pos: number, o: OrcidOptions): AsyncGenerator<ArrayElement> {
  let record: XNode | undefined;
  let error: string | undefined;
  try {
    for await (const r of xmlRecords(body, (_u, _n, depth) => depth === 0, o)) {
      if (r.error !== undefined) error = r.error;
      else record ??= r.node;
    }
  } catch (err) {
    if (!(err instanceof XmlError)) throw err;
    error = err.message;
  }
  if (error !== undefined || !record) {
    yield { position: pos, error: `${name}: ${error ?? 'empty member'}` };
    return;
  }
  try {
    yield { position: pos, value: mapOrcidRecord(record) };
  } catch (err) {
    yield { position: pos, error: `${name}: ${(err as Error).message}` };
  }
}
