/**
 * A conservative HTML sanitizer for user-written rich text (record descriptions, community
 * pages, request comments), in the spirit of InvenioRDM's `SanitizedHTML` field (bleach with an
 * allow-list). Allowed tags keep their allowed attributes (no `on*` event attributes, no
 * `style`); other tags are dropped but their text kept; `script`/`style`/`iframe`… are removed
 * with their content; `href`s must be http(s)/mailto/relative. Not a general HTML parser: use it
 * only on rich-text strings. `htmlToText` gives the text of such a string for search indexing.
 */

/** Tags kept (with the attributes listed). */
const ALLOWED: Record<string, string[]> = {
  a: ['href', 'title', 'name', 'target', 'rel'],
  abbr: ['title'],
  acronym: ['title'],
  b: [],
  blockquote: [],
  br: [],
  code: [],
  caption: [],
  div: [],
  em: [],
  h1: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  hr: [],
  i: [],
  img: ['src', 'alt', 'title', 'width', 'height'],
  li: [],
  ol: [],
  p: [],
  pre: [],
  s: [],
  span: [],
  strike: [],
  strong: [],
  sub: [],
  sup: [],
  table: [],
  thead: [],
  tbody: [],
  tfoot: [],
  tr: [],
  td: ['colspan', 'rowspan'],
  th: ['colspan', 'rowspan'],
  u: [],
  ul: [],
};

/** Tags removed together with their content. */
const DROP_WITH_CONTENT = ['script', 'style', 'iframe', 'object', 'embed', 'template', 'noscript', 'svg', 'math'];

const SAFE_URL = /^(?:https?:|mailto:|\/|#|[^:]*$)/i;

function cleanAttrs(tag: string, raw: string): string {
  const allowed = ALLOWED[tag] ?? [];
  if (allowed.length === 0) return '';
  const out: string[] = [];
  const re = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  for (const m of raw.matchAll(re)) {
    const name = m[1].toLowerCase();
    if (!allowed.includes(name)) continue;
    const value = m[2] ?? m[3] ?? m[4] ?? '';
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters hide `javascript:` schemes
    if ((name === 'href' || name === 'src') && !SAFE_URL.test(value.replace(/[\s\u0000-\u001f]/g, ''))) continue;
    out.push(` ${name}="${value.replace(/"/g, '&quot;')}"`);
  }
  return out.join('');
}

/** Remove `<!-- … -->` comments (an unclosed one runs to the end), in linear time. */
function dropComments(s: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const start = s.indexOf('<!--', i);
    if (start < 0) return out + s.slice(i);
    out += s.slice(i, start);
    const end = s.indexOf('-->', start + 4);
    if (end < 0) return out;
    i = end + 3;
  }
}

/** Remove `<tag …>…</tag>` blocks (an unclosed one runs to the end), in linear time. */
function dropWithContent(s: string, tag: string): string {
  const lower = s.toLowerCase();
  const open = `<${tag}`;
  const close = `</${tag}`;
  let out = '';
  let i = 0;
  for (;;) {
    let start = lower.indexOf(open, i);
    // Only whole tag names (`<scripts>` is not `<script`).
    while (start >= 0 && /[a-z0-9]/.test(lower[start + open.length] ?? '')) start = lower.indexOf(open, start + 1);
    if (start < 0) return out + s.slice(i);
    out += s.slice(i, start);
    const end = lower.indexOf(close, start + open.length);
    if (end < 0) return out;
    const gt = lower.indexOf('>', end);
    i = gt < 0 ? s.length : gt + 1;
  }
}

/** Sanitize `html` keeping only allowed tags and attributes. */
export function sanitizeHtml(html: string): string {
  let s = dropComments(html);
  for (const tag of DROP_WITH_CONTENT) s = dropWithContent(s, tag);
  return s.replace(/<\s*(\/?)\s*([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g, (_all, slash: string, name: string, attrs: string) => {
    const tag = name.toLowerCase();
    if (!(tag in ALLOWED)) return '';
    if (slash) return `</${tag}>`;
    const selfClose = /\/\s*$/.test(attrs);
    return `<${tag}${cleanAttrs(tag, attrs.replace(/\/\s*$/, ''))}${selfClose ? ' /' : ''}>`;
  });
}

/** Plain text of an HTML string (tags removed, common entities decoded), for search. */
export function htmlToText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}
