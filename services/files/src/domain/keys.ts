/**
 * File keys (user file names, possibly with `/`): validation and URL forms.
 *
 * Keys never reach storage (objects are addressed by ids), but they do reach zip archives,
 * Content-Disposition headers and other people's file systems, so anything that could climb
 * directories or smuggle control bytes is refused with a clear 400.
 */

/** Maximum key length in UTF-8 bytes. */
export const MAX_KEY_BYTES = 255;

// Why: C0 controls, DEL and C1 controls; NUL is one of them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;

/** Why a key is invalid, or null when it is fine. */
export function keyProblem(key: unknown): string | null {
  if (typeof key !== 'string') return 'Not a valid string.';
  if (key.length === 0) return 'File key must not be empty.';
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) return `File key must be at most ${MAX_KEY_BYTES} bytes long.`;
  if (CONTROL_RE.test(key)) return 'File key must not contain control characters.';
  if (key.includes('\\')) return 'File key must not contain backslashes.';
  if (key.startsWith('/')) return 'File key must not start with "/".';
  const segments = key.split('/');
  if (segments.some((s) => s === '..' || s === '.')) return 'File key must not contain "." or ".." path segments.';
  if (segments.some((s) => s === '')) return 'File key must not contain empty path segments.';
  if (key.trim() !== key) return 'File key must not start or end with white space.';
  return null;
}

/** Encode a key for a URL path: every segment percent-encoded, `/` kept. */
export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

/** Decode a key taken from a URL path; null when the percent-encoding is broken. */
export function decodeKeyPath(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** Extension of a key as InvenioRDM reports it (`ext`): lower-case, without the dot; null when none. */
export function keyExtension(key: string): string | null {
  const base = key.slice(key.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || dot === base.length - 1) return null;
  return base.slice(dot + 1).toLowerCase();
}

/** Last path segment of a key (the file name offered on download). */
export function keyBasename(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}
