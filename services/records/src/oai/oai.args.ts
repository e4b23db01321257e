/**
 * OAI-PMH 2.0 request validation (protocol §3.1, §3.6): verbs and their required, optional and
 * exclusive arguments, repeated or unknown arguments, UTC datestamps at day or second granularity.
 * Produces either the checked arguments or the protocol error to answer (HTTP 200, `<error>`).
 */

/** An OAI-PMH error code (the eight of the protocol). */
export type OaiErrorCode =
  | 'badArgument'
  | 'badResumptionToken'
  | 'badVerb'
  | 'cannotDisseminateFormat'
  | 'idDoesNotExist'
  | 'noRecordsMatch'
  | 'noMetadataFormats'
  | 'noSetHierarchy';

/** A protocol error (rendered as `<error code>` in a 200 response). */
export class OaiError extends Error {
  constructor(
    readonly code: OaiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The six verbs. */
export type Verb = 'Identify' | 'ListMetadataFormats' | 'ListSets' | 'GetRecord' | 'ListIdentifiers' | 'ListRecords';

const SPECS: Record<Verb, { required: string[]; optional: string[]; exclusive?: string }> = {
  Identify: { required: [], optional: [] },
  ListMetadataFormats: { required: [], optional: ['identifier'] },
  ListSets: { required: [], optional: [], exclusive: 'resumptionToken' },
  GetRecord: { required: ['identifier', 'metadataPrefix'], optional: [] },
  ListIdentifiers: { required: ['metadataPrefix'], optional: ['from', 'until', 'set'], exclusive: 'resumptionToken' },
  ListRecords: { required: ['metadataPrefix'], optional: ['from', 'until', 'set'], exclusive: 'resumptionToken' },
};

/** Checked arguments of a request. */
export interface OaiArgs {
  verb: Verb;
  identifier?: string;
  metadataPrefix?: string;
  from?: string;
  until?: string;
  set?: string;
  resumptionToken?: string;
}

/** Raw request arguments: name → every value given. */
export type RawArgs = Record<string, string[]>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const SECOND = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** A datestamp's granularity, or undefined when it is not a valid UTC datestamp. */
export function granularityOf(value: string): 'day' | 'second' | undefined {
  const g = DAY.test(value) ? 'day' : SECOND.test(value) ? 'second' : undefined;
  if (!g) return undefined;
  const iso = g === 'day' ? `${value}T00:00:00Z` : value;
  const d = new Date(iso);
  // Why: Date accepts 2024-02-31 (rolls over); the round trip refuses impossible dates.
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 19) !== iso.slice(0, 19)) return undefined;
  return g;
}

/**
 * The datestamps a harvest may name: years 0001 to 9999, and for `until` an exclusive bound (the
 * next day or second) still inside them. Why: PostgreSQL has no year 0000 and JavaScript writes
 * year 10000 as `+010000-…`, which PostgreSQL refuses — either would be a 500 instead of OAI-PMH's
 * `badArgument` (issue 18, item 10).
 */
const EARLIEST = '0001-01-01T00:00:00.000Z';
const LATEST_EXCLUSIVE = '9999-12-31T23:59:59.999Z';

/** True when `from` (or `until`, with its exclusive bound) lies in the supported range. */
function inRange(value: string, kind: 'from' | 'until'): boolean {
  const low = new Date(granularityOf(value) === 'day' ? `${value}T00:00:00Z` : value).toISOString();
  if (low < EARLIEST) return false;
  const high = kind === 'until' ? untilExclusiveBound(value) : low;
  return !high.startsWith('+') && high <= LATEST_EXCLUSIVE;
}

/** The inclusive lower bound of `from` as an ISO instant. */
export function fromBound(from: string): string {
  return granularityOf(from) === 'day' ? `${from}T00:00:00Z` : from;
}

/** The exclusive upper bound of an inclusive `until` (next day / next second). */
export function untilExclusiveBound(until: string): string {
  const day = granularityOf(until) === 'day';
  const d = new Date(day ? `${until}T00:00:00Z` : until);
  d.setTime(d.getTime() + (day ? 86_400_000 : 1000));
  return d.toISOString();
}

/** Validate raw arguments (throws OaiError badVerb/badArgument). */
export function checkArgs(raw: RawArgs): OaiArgs {
  const verbs = raw.verb ?? [];
  if (verbs.length !== 1 || !(verbs[0] in SPECS)) {
    throw new OaiError('badVerb', verbs.length > 1 ? 'The verb argument is repeated.' : 'Illegal OAI verb.');
  }
  const verb = verbs[0] as Verb;
  const spec = SPECS[verb];
  const allowed = new Set(['verb', ...spec.required, ...spec.optional, ...(spec.exclusive ? [spec.exclusive] : [])]);
  for (const [name, values] of Object.entries(raw)) {
    if (!allowed.has(name)) throw new OaiError('badArgument', `Illegal argument "${name}" for verb ${verb}.`);
    if (values.length > 1) throw new OaiError('badArgument', `The argument "${name}" is repeated.`);
  }
  const one = (name: string) => raw[name]?.[0];
  if (spec.exclusive && one(spec.exclusive) !== undefined) {
    if (Object.keys(raw).some((k) => k !== 'verb' && k !== spec.exclusive)) {
      throw new OaiError('badArgument', `The argument "${spec.exclusive}" is exclusive.`);
    }
    return { verb, resumptionToken: one(spec.exclusive) };
  }
  for (const name of spec.required) {
    if (!one(name)) throw new OaiError('badArgument', `Missing required argument "${name}".`);
  }
  const args: OaiArgs = { verb };
  for (const name of [...spec.required, ...spec.optional] as (keyof OaiArgs)[]) {
    const v = one(name);
    if (v !== undefined) (args as unknown as Record<string, string>)[name] = v;
  }
  const gFrom = args.from !== undefined ? granularityOf(args.from) : undefined;
  const gUntil = args.until !== undefined ? granularityOf(args.until) : undefined;
  if (args.from !== undefined && !gFrom) throw new OaiError('badArgument', 'The "from" argument is not a valid UTC datestamp.');
  if (args.until !== undefined && !gUntil) throw new OaiError('badArgument', 'The "until" argument is not a valid UTC datestamp.');
  if (gFrom && !inRange(args.from!, 'from')) throw new OaiError('badArgument', 'The "from" argument is outside the supported range.');
  if (gUntil && !inRange(args.until!, 'until')) throw new OaiError('badArgument', 'The "until" argument is outside the supported range.');
  if (gFrom && gUntil) {
    if (gFrom !== gUntil) throw new OaiError('badArgument', 'The "from" and "until" arguments have different granularities.');
    if (fromBound(args.from!) > fromBound(args.until!)) throw new OaiError('badArgument', 'The "from" argument is later than "until".');
  }
  if (args.set !== undefined && args.set === '') throw new OaiError('badArgument', 'The "set" argument is empty.');
  return args;
}
