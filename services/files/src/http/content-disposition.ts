/**
 * `Content-Disposition` of downloads, as invenio-files-rest sends it: `inline` for types a
 * browser may show safely; `attachment; filename=…` when asked to download (`?download`) or
 * when the served type is `application/octet-stream`. Non-ASCII names get an ASCII fallback plus
 * RFC 5987 `filename*=UTF-8''…` (RFC 6266).
 */

// RFC 5987 attr-char: ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
const ATTR_CHAR_RE = /[A-Za-z0-9!#$&+\-.^_`|~]/;

/** Percent-encode a string for `filename*` (RFC 5987 ext-value). */
export function encodeRfc5987(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && ATTR_CHAR_RE.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Quote a value as an HTTP token or quoted-string. */
function quote(value: string): string {
  if (TOKEN_RE.test(value)) return value;
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/** ASCII fallback of a file name: accents stripped, other non-ASCII dropped. */
export function asciiFallback(name: string): string {
  const simple = name.normalize('NFKD').replace(/[^\x20-\x7e]/g, '');
  return simple.trim() === '' ? 'download' : simple;
}

/** `attachment; filename=…[; filename*=UTF-8''…]` for a file name. */
export function attachmentDisposition(filename: string): string {
  if (/^[\x20-\x7e]*$/.test(filename)) return `attachment; filename=${quote(filename)}`;
  return `attachment; filename=${quote(asciiFallback(filename))}; filename*=UTF-8''${encodeRfc5987(filename)}`;
}

/** The disposition of a download of `filename` served as `servedType`. */
export function contentDisposition(filename: string, servedType: string, asAttachment: boolean): string {
  if (asAttachment || servedType === 'application/octet-stream') return attachmentDisposition(filename);
  return 'inline';
}
