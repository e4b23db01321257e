/**
 * `Range` request header parsing for downloads (RFC 9110 §14): one byte range is served as 206;
 * several ranges are answered with the whole body (allowed by the RFC, and what werkzeug does);
 * a syntactically valid but unsatisfiable range is a 416. Positions past the end are clamped
 * (`bytes=0-<huge>` is the whole body as 206), however many digits they have.
 */

/** Outcome of parsing a Range header against a body size. */
export type RangeResult = { kind: 'none' } | { kind: 'unsatisfiable' } | { kind: 'range'; start: number; end: number };

const SPEC_RE = /^(\d*)-(\d*)$/;

/** A digit string as a number; beyond the safe integers it is "past any end" (RFC 9110 §14.1.2 clamps). */
const position = (digits: string): number => {
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : Number.POSITIVE_INFINITY;
};

/** Parse `header` for a body of `size` bytes. Unknown units and garbage are ignored (`none`). */
export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return { kind: 'none' };
  const m = /^\s*bytes\s*=\s*(.+)$/i.exec(header);
  if (!m) return { kind: 'none' };
  const specs = m[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (specs.length !== 1) return { kind: 'none' };
  const sm = SPEC_RE.exec(specs[0]);
  if (!sm || (sm[1] === '' && sm[2] === '')) return { kind: 'none' };
  if (sm[1] === '') {
    // Suffix range: the last N bytes.
    const n = position(sm[2]);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = position(sm[1]);
  const end = sm[2] === '' ? size - 1 : position(sm[2]);
  if (sm[2] !== '' && end < start) return { kind: 'none' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end: Math.min(end, size - 1) };
}
