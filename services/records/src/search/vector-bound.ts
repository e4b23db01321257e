/**
 * Bound on the text of a search document's full-text vector.
 *
 * Why: PostgreSQL refuses a tsvector whose distinct lexemes exceed 1 MiB ("string is too long for
 * tsvector", SQLSTATE 54000), and a record of about 1 MB of distinct words is valid under the
 * 2 MB body limit. The texts of `searchTexts` are indexed in order (title, creators, description,
 * …) up to `VECTOR_TEXT_MAX_BYTES` of *folded* UTF-8 (folding can expand a character up to 18
 * times, so the raw length says little); the rest of the record is stored but not full-text
 * searchable. Use it wherever `search_docs.search_vector` is built from texts.
 */
import { foldText } from '@rdm/platform';

/**
 * Folded bytes indexed per document: half of PostgreSQL's 1 MiB lexeme limit, leaving room for
 * the database's own lowercasing changing a character's byte length.
 */
export const VECTOR_TEXT_MAX_BYTES = 512 * 1024;

/** Largest UTF-8 bytes per UTF-16 code unit after NFKD folding (U+FDFD expands to 18 characters). */
const WORST_EXPANSION = 3 * 18;

/**
 * The texts to index, cut so that their folded, newline-joined UTF-8 form stays within
 * `maxBytes`. Small documents come back unchanged; a cut text ends at a character boundary.
 */
export function boundVectorTexts(texts: string[], maxBytes = VECTOR_TEXT_MAX_BYTES): string[] {
  let units = 0;
  for (const t of texts) units += t.length + 1;
  if (units * WORST_EXPANSION <= maxBytes) return texts;
  const out: string[] = [];
  let used = 0;
  for (const t of texts) {
    const folded = foldText(t);
    const bytes = Buffer.byteLength(folded, 'utf8') + 1;
    if (used + bytes <= maxBytes) {
      out.push(folded);
      used += bytes;
      continue;
    }
    const room = maxBytes - used - 1;
    if (room > 0) out.push(cutUtf8(folded, room));
    break;
  }
  return out;
}

/** `s` cut to at most `maxBytes` UTF-8 bytes, never inside a character or a surrogate pair. */
export function cutUtf8(s: string, maxBytes: number): string {
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= maxBytes) return s;
  let end = maxBytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}
