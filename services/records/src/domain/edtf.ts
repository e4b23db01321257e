/**
 * A small EDTF level-0 parser: dates (`2020`, `2020-12`, `2020-12-31`), date-times
 * (`2020-12-31T10:00:00`, with `Z` or `±hh:mm`), and intervals of dates (`2020-01/2020-12`) with
 * open or unknown ends (`/2020-12`, `2020-12/`, `../2020`, `2020/..`), as marshmallow-utils'
 * EDTFValidator accepts them for `metadata.publication_date` (dates and intervals) and
 * `metadata.dates[].date` (also date-times). Intervals must be chronological.
 *
 * `edtfRange` gives the strict calendar range (first and last day) a value covers, for
 * date-range search and facets; an open end is `null`.
 */

/** Kinds of values accepted. */
export type EdtfKind = 'date' | 'datetime';

/** A parsed EDTF value with its strict day range (ISO `YYYY-MM-DD`; null = open/unknown). */
export interface EdtfValue {
  type: 'date' | 'datetime' | 'interval';
  start: string | null;
  end: string | null;
}

const DATE_RE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Parse one level-0 date into its first and last day, or undefined. */
function parseDate(s: string): { start: string; end: string } | undefined {
  const m = DATE_RE.exec(s);
  if (!m) return undefined;
  const year = Number(m[1]);
  if (m[2] === undefined) return { start: `${m[1]}-01-01`, end: `${m[1]}-12-31` };
  const month = Number(m[2]);
  if (month < 1 || month > 12) return undefined;
  const last = daysIn(year, month);
  if (m[3] === undefined) return { start: `${m[1]}-${m[2]}-01`, end: `${m[1]}-${m[2]}-${pad(last)}` };
  const day = Number(m[3]);
  if (day < 1 || day > last) return undefined;
  return { start: s, end: s };
}

/** Parse one level-0 date-time into its day, or undefined. */
function parseDateTime(s: string): { start: string; end: string } | undefined {
  const m = DATETIME_RE.exec(s);
  if (!m) return undefined;
  const day = parseDate(`${m[1]}-${m[2]}-${m[3]}`);
  if (!day) return undefined;
  const [h, mi, se] = [Number(m[4]), Number(m[5]), Number(m[6])];
  if (h > 23 || mi > 59 || se > 59) return undefined;
  if (m[7] && m[7] !== 'Z') {
    const [oh, om] = m[7].slice(1).split(':').map(Number);
    if (oh > 14 || om > 59) return undefined;
  }
  return day;
}

/**
 * Parse `value` as EDTF level 0. `kind` `date` accepts dates and date intervals; `datetime`
 * also accepts date-times. Returns undefined when invalid (including non-chronological
 * intervals and intervals open at both ends).
 */
export function parseEdtf(value: unknown, kind: EdtfKind = 'date'): EdtfValue | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const s = value;
  if (s.includes('/')) {
    const parts = s.split('/');
    if (parts.length !== 2) return undefined;
    const [a, b] = parts;
    const openA = a === '' || a === '..';
    const openB = b === '' || b === '..';
    if (openA && openB) return undefined;
    const left = openA ? null : parseDate(a);
    const right = openB ? null : parseDate(b);
    if (left === undefined || right === undefined) return undefined;
    if (left && right && right.end < left.start) return undefined;
    return { type: 'interval', start: left ? left.start : null, end: right ? right.end : null };
  }
  const d = parseDate(s);
  if (d) return { type: 'date', ...d };
  if (kind === 'datetime') {
    const dt = parseDateTime(s);
    if (dt) return { type: 'datetime', ...dt };
  }
  return undefined;
}

/** True when `value` is a valid EDTF level-0 value of `kind`. */
export function isEdtf(value: unknown, kind: EdtfKind = 'date'): boolean {
  return parseEdtf(value, kind) !== undefined;
}

/** The strict day range of a valid value (`{start:null, end:null}` when invalid). */
export function edtfRange(value: unknown, kind: EdtfKind = 'datetime'): { start: string | null; end: string | null } {
  const v = parseEdtf(value, kind);
  return v ? { start: v.start, end: v.end } : { start: null, end: null };
}

/** True for a strict ISO calendar date `YYYY-MM-DD`. */
export function isIsoDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  return parseDate(value) !== undefined;
}
