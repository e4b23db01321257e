/** Request numbers: one global sequence rendered as lowercase Crockford base32 without checksum. */

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** Encode a positive integer (1 → "1", 10 → "a", 18 → "j", 32 → "10"). */
export function encodeNumber(n: number | bigint): string {
  let v = BigInt(n);
  if (v < 0n) throw new RangeError('request numbers are positive');
  if (v === 0n) return '0';
  let out = '';
  while (v > 0n) {
    out = ALPHABET[Number(v % 32n)] + out;
    v /= 32n;
  }
  return out;
}

/** Decode a number string (case-insensitive; i/l → 1, o → 0 as Crockford allows); undefined when invalid. */
export function decodeNumber(s: string): number | undefined {
  const t = s.trim().toLowerCase().replace(/[il]/g, '1').replace(/o/g, '0');
  if (!/^[0-9a-hjkmnp-tv-z]{1,12}$/.test(t)) return undefined;
  let v = 0;
  for (const c of t) v = v * 32 + ALPHABET.indexOf(c);
  return v;
}
