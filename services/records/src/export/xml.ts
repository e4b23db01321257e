/**
 * A tiny XML writer for the export formats and OAI-PMH: elements are plain `{name, attrs,
 * children}` trees rendered to a string with every text and attribute escaped and characters
 * XML 1.0 forbids (C0 controls, lone surrogates, U+FFFE/FFFF) dropped, so any stored metadata
 * yields well-formed XML. Use it instead of string templates whenever a value comes from a record.
 */

/** An XML element: `children` are elements, strings (text) or falsy (skipped). */
export interface XmlNode {
  name: string;
  attrs?: Record<string, string | number | undefined | null>;
  children?: XmlChild[];
}

/** A child of an element. */
export type XmlChild = XmlNode | string | number | null | undefined | false;

// Why: XML 1.0 allows only #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to remove the characters XML 1.0 forbids.
const INVALID = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text with the XML special characters escaped and forbidden characters removed. */
export function escapeXml(value: string): string {
  return value.replace(INVALID, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Build an element (children that are null/undefined/false/'' are skipped). */
export function el(name: string, attrs?: XmlNode['attrs'] | null, ...children: XmlChild[]): XmlNode {
  return { name, attrs: attrs ?? undefined, children };
}

/** An element with text content, or undefined when the text is empty (so it is skipped). */
export function textEl(name: string, text: unknown, attrs?: XmlNode['attrs']): XmlNode | undefined {
  if (text === undefined || text === null) return undefined;
  const s = String(text).replace(INVALID, '');
  if (s.trim() === '') return undefined;
  return { name, attrs, children: [s] };
}

/** Render a node (no XML declaration). */
export function renderXml(node: XmlChild): string {
  const out: string[] = [];
  write(node, out);
  return out.join('');
}

/** Render a whole document with the XML declaration. */
export function xmlDocument(root: XmlNode): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${renderXml(root)}\n`;
}

function write(node: XmlChild, out: string[]): void {
  if (node === null || node === undefined || node === false || node === '') return;
  if (typeof node === 'string' || typeof node === 'number') {
    out.push(escapeXml(String(node)));
    return;
  }
  out.push('<', node.name);
  for (const [k, v] of Object.entries(node.attrs ?? {})) {
    if (v === undefined || v === null) continue;
    out.push(' ', k, '="', escapeXml(String(v)), '"');
  }
  const kids = (node.children ?? []).filter((c) => c !== null && c !== undefined && c !== false && c !== '');
  if (kids.length === 0) {
    out.push('/>');
    return;
  }
  out.push('>');
  for (const c of kids) write(c, out);
  out.push('</', node.name, '>');
}
