/**
 * MIME types: guessed from the key (stored and shown as `mimetype`), and sanitized for serving,
 * as invenio-files-rest does, so that an uploaded HTML or SVG file can never run script in the
 * site's origin.
 */
import mime from 'mime-types';

/** Guess the MIME type of a key from its extension (`application/octet-stream` when unknown). */
export function guessMimetype(key: string): string {
  const base = key.slice(key.lastIndexOf('/') + 1);
  const t = mime.lookup(base);
  return t || 'application/octet-stream';
}

/** Types served as themselves. */
const WHITELIST = new Set([
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'audio/webm',
  'image/gif',
  'image/jpeg',
  'image/png',
  'image/tiff',
  'text/plain',
]);
/** Types a browser would render or execute: served as text/plain. */
const PLAINTEXT = new Set([
  'application/javascript',
  'text/javascript',
  'application/json',
  'application/xhtml+xml',
  'application/xml',
  'text/xml',
  'text/css',
  'text/csv',
  'text/html',
  'image/svg+xml',
]);
/** Base names that are text whatever their type. */
const TEXTFILES = new Set(['readme']);

/** The Content-Type a download is served with (invenio-files-rest `sanitize_mimetype`). */
export function servedMimetype(mimetype: string, filename?: string): string {
  if (WHITELIST.has(mimetype)) return mimetype;
  if (PLAINTEXT.has(mimetype) || (filename && TEXTFILES.has(filename.toLowerCase()))) return 'text/plain';
  return 'application/octet-stream';
}
