/**
 * Record, draft and parent identifiers in InvenioRDM's `RecordIdProviderV2` form.
 *
 * `xxxxx-xxxNN`: 8 random symbols (40 random bits) of the lowercase Crockford base32 alphabet
 * (no i, l, o, u), left zero-padded, then a 2-digit decimal checksum `98 - ((100*n) mod 97)`,
 * split after 5 characters. Drafts, records and parents share this id space. Use `newId()` for
 * every new entity; `isValidId` only checks the form (lookups are exact string matches).
 */
import { randomBytes } from 'node:crypto';

/** Crockford base32 alphabet, lowercase, as InvenioRDM uses it. */
export const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** Regex of a well-formed id. */
export const ID_RE = /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{3}[0-9]{2}$/;

/** Checksum of a number: `98 - ((100 * n) mod 97)`, two decimal digits (02–98). */
export function checksum(n: number): string {
  const c = 98 - ((100 * n) % 97);
  return String(c).padStart(2, '0');
}

/** Encode `n` (0 ≤ n < 32^8) as an id: 8 base32 symbols + checksum, split after 5 chars. */
export function encodeId(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0 || n >= 32 ** 8) throw new RangeError(`id number out of range: ${n}`);
  let s = '';
  let v = n;
  do {
    s = ALPHABET[v % 32] + s;
    v = Math.floor(v / 32);
  } while (v > 0);
  const full = (s + checksum(n)).padStart(10, '0');
  return `${full.slice(0, 5)}-${full.slice(5)}`;
}

/** Decode the numeric value of an id (undefined when malformed). */
export function decodeId(id: string): number | undefined {
  if (!ID_RE.test(id)) return undefined;
  const symbols = id.replace('-', '').slice(0, 8);
  let n = 0;
  for (const ch of symbols) n = n * 32 + ALPHABET.indexOf(ch);
  return n;
}

/** True when `id` has the form and a correct checksum. */
export function isValidId(id: string): boolean {
  const n = decodeId(id);
  return n !== undefined && id.slice(-2) === checksum(n);
}

/** A new random id (40 random bits). */
export function newId(): string {
  const b = randomBytes(5);
  const n = b.readUIntBE(0, 5);
  return encodeId(n);
}
