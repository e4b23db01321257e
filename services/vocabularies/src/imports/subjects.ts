/**
 * Subject schemes → `subjects` entries.
 *
 * - **SKOS** (`skos`): concept schemes published as RDF/XML (EuroSciVoc, GEMET…; sax, one
 *   `rdf:Description`/`skos:Concept` child of `rdf:RDF` at a time) or Turtle (n3's streaming
 *   parser; a concept's triples are those of one consecutive run of its subject, as serializers
 *   write them). Every `skos:Concept` becomes a subject; other resources are skipped. Read twice:
 *   a first pass keeps, per concept, only its notation and broader concepts (so that each entry
 *   can name its ancestors, as invenio-vocabularies' RDF transformer does: memory grows with the
 *   number of concepts, never with the labels), the second maps. EuroSciVoc concepts
 *   (`http://data.europa.eu/8mn/euroscivoc/…`) are mapped as `EuroSciVocSubjectsTransformer`: id
 *   `euroscivoc:<numeric notation>`, scheme `EuroSciVoc`, `subject` = the English label
 *   capitalised, `title` = the labels by language, `props.parents` = the ancestors' ids from the
 *   root down (at most the 32 nearest), `identifiers: [{scheme: url, identifier: <concept URI>}]`. Other schemes: id = the
 *   concept URI, scheme `GEMET` for GEMET URIs, else the last segment of `skos:inScheme` (else
 *   `SKOS`); `synonyms` = the English (else first) alternative labels. A concept without a
 *   preferred label is rejected.
 * - **MeSH** (`mesh`): the NLM's descriptor XML (`desc<year>.xml`, `DescriptorRecordSet`), one
 *   `DescriptorRecord` at a time: id `https://id.nlm.nih.gov/mesh/<DescriptorUI>`, scheme `MeSH`,
 *   `subject` = `DescriptorName`, `title: {en}`, `identifiers: [{scheme: url}]`, `synonyms` = the
 *   other entry terms, `props.tree_numbers` (comma-joined).
 *
 * When to use: `openSource('skos' | 'mesh', path)` (`source.ts`).
 */
import { Readable } from 'node:stream';
import { StreamParser } from 'n3';
import type { ArrayElement } from './json-array.js';
import { at, kids, textAt, type XNode, xmlRecords } from './xml.js';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const SKOS = 'http://www.w3.org/2004/02/skos/core#';
const EUROSCIVOC = 'http://data.europa.eu/8mn/euroscivoc/';

/** One SKOS resource as read (either syntax). */
export interface SkosConcept {
  uri: string;
  isConcept: boolean;
  prefLabels: [lang: string, text: string][];
  altLabels: [lang: string, text: string][];
  notations: string[];
  broader: string[];
  inScheme: string[];
}

const emptyConcept = (uri: string): SkosConcept => ({
  uri,
  isConcept: false,
  prefLabels: [],
  altLabels: [],
  notations: [],
  broader: [],
  inScheme: [],
});

/** An RDF/XML resource element (a child of `rdf:RDF`) as a concept. */
function fromRdfXml(n: XNode): SkosConcept | undefined {
  const uri = n.attrs['rdf:about'] ?? n.attrs.about;
  if (!uri) return undefined;
  const c = emptyConcept(uri);
  if (n.uri === SKOS && n.name === 'Concept') c.isConcept = true;
  for (const p of n.children) {
    const lang = p.attrs['xml:lang'] ?? p.attrs.lang ?? '';
    const resource = p.attrs['rdf:resource'] ?? p.attrs.resource;
    if (p.uri === RDF && p.name === 'type' && resource === `${SKOS}Concept`) c.isConcept = true;
    if (p.uri !== SKOS) continue;
    const text = p.text.trim();
    if (p.name === 'prefLabel' && text) c.prefLabels.push([lang.toLowerCase(), text]);
    else if (p.name === 'altLabel' && text) c.altLabels.push([lang.toLowerCase(), text]);
    else if (p.name === 'notation' && text) c.notations.push(text);
    else if (p.name === 'broader' && resource) c.broader.push(resource);
    else if (p.name === 'inScheme' && resource) c.inScheme.push(resource);
  }
  return c;
}

/** The resources of RDF/XML (`input`), one at a time. */
async function* rdfXmlConcepts(input: AsyncIterable<Buffer>): AsyncGenerator<SkosConcept | { error: string }> {
  for await (const r of xmlRecords(input, (_u, _n, depth) => depth === 1)) {
    if (r.error !== undefined) yield { error: r.error };
    else {
      const c = fromRdfXml(r.node);
      if (c) yield c;
    }
  }
}

/** The subjects of Turtle (`input`), grouped by consecutive subject. */
async function* turtleConcepts(input: AsyncIterable<Buffer>): AsyncGenerator<SkosConcept> {
  const parser = new StreamParser({ format: 'text/turtle' });
  const src = Readable.from(input);
  // Why: pipe() leaves the source's errors unhandled; the parser (iterated below) fails with them.
  src.on('error', (err) => parser.destroy(err));
  const quads = src.pipe(parser);
  let cur: SkosConcept | undefined;
  for await (const q of quads as AsyncIterable<import('n3').Quad>) {
    if (q.subject.termType !== 'NamedNode') continue;
    if (!cur || cur.uri !== q.subject.value) {
      if (cur) yield cur;
      cur = emptyConcept(q.subject.value);
    }
    const p = q.predicate.value;
    const o = q.object;
    if (p === `${RDF}type` && o.value === `${SKOS}Concept`) cur.isConcept = true;
    else if (o.termType === 'Literal') {
      const lang = o.language.toLowerCase();
      if (p === `${SKOS}prefLabel`) cur.prefLabels.push([lang, o.value.trim()]);
      else if (p === `${SKOS}altLabel`) cur.altLabels.push([lang, o.value.trim()]);
      else if (p === `${SKOS}notation`) cur.notations.push(o.value.trim());
    } else if (o.termType === 'NamedNode') {
      if (p === `${SKOS}broader`) cur.broader.push(o.value);
      else if (p === `${SKOS}inScheme`) cur.inScheme.push(o.value);
    }
  }
  if (cur) yield cur;
}

/** True when a SKOS file is Turtle rather than RDF/XML: by its name (`.ttl`), else by its first bytes (XML starts with `<?`, `<!` or `<rdf`). */
export function isTurtle(name: string, head: string): boolean {
  const n = name.toLowerCase().replace(/\.gz$/, '');
  if (n.endsWith('.ttl')) return true;
  if (/\.(rdf|xml|owl)$/.test(n)) return false;
  return !/^\s*<(\?|!|rdf)/i.test(head.replace(/^\uFEFF/, ''));
}

/** The concepts of a SKOS file in either syntax; `turtle` decides which. */
export function skosConcepts(input: AsyncIterable<Buffer>, turtle: boolean): AsyncIterable<SkosConcept | { error: string }> {
  return turtle ? turtleConcepts(input) : rdfXmlConcepts(input);
}

/** What the first pass keeps of each concept. */
export interface ConceptIndex {
  get(uri: string): { notation?: string; broader: string[] } | undefined;
}

const isEuroSciVoc = (uri: string) => uri.startsWith(EUROSCIVOC);
const numericNotation = (c: { notations: string[] }) => c.notations.find((n) => /^\d+$/.test(n));
/** The entry id of a concept: `euroscivoc:<notation>` for EuroSciVoc, else its URI. */
const idOf = (uri: string, notation: string | undefined) => (isEuroSciVoc(uri) && notation ? `euroscivoc:${notation}` : uri);

/** The index of a first pass over `concepts`. */
export async function indexConcepts(concepts: AsyncIterable<SkosConcept | { error: string }>): Promise<ConceptIndex> {
  const map = new Map<string, { notation?: string; broader: string[] }>();
  for await (const c of concepts) {
    if ('error' in c || !c.isConcept) continue;
    map.set(c.uri, { notation: numericNotation(c), broader: c.broader });
  }
  return map;
}

/** Most ancestors an entry names (real schemes are a few levels deep; a broken chain must not make every entry huge). */
export const MAX_PARENTS = 32;

/** The ancestors' entry ids of `c`, root first (cycles cut, at most `MAX_PARENTS`: the nearest ones). */
function parentsOf(c: SkosConcept, index: ConceptIndex): string[] {
  const out: string[] = [];
  const seen = new Set<string>([c.uri]);
  let next = c.broader[0];
  while (next && !seen.has(next) && out.length < MAX_PARENTS) {
    seen.add(next);
    const p = index.get(next);
    out.push(idOf(next, p?.notation));
    next = p?.broader[0] as string;
  }
  return out.reverse();
}

/** Map one concept to a subjects entry; throws `Error` with the reason. */
export function mapSkosConcept(c: SkosConcept, index: ConceptIndex): Record<string, unknown> {
  const title: Record<string, string> = {};
  for (const [lang, text] of c.prefLabels) if (lang && /^[a-z]{2,3}$/.test(lang)) title[lang] ??= text;
  const en = title.en ?? c.prefLabels.find(([lang]) => lang === '')?.[1] ?? Object.values(title)[0];
  if (!en) throw new Error(`subject: Concept ${c.uri} has no skos:prefLabel.`);
  if (!title.en) title.en = en;
  const parents = parentsOf(c, index);
  const identifiers = [{ scheme: 'url', identifier: c.uri }];
  if (isEuroSciVoc(c.uri)) {
    const notation = numericNotation(c);
    if (!notation) throw new Error(`id: EuroSciVoc concept ${c.uri} has no numeric skos:notation.`);
    return {
      id: idOf(c.uri, notation),
      scheme: 'EuroSciVoc',
      subject: en.charAt(0).toUpperCase() + en.slice(1),
      title,
      props: parents.length ? { parents: parents.join(',') } : undefined,
      identifiers,
    };
  }
  const scheme = c.uri.includes('/gemet/') ? 'GEMET' : (c.inScheme[0]?.split(/[/#]/).filter(Boolean).at(-1) ?? 'SKOS');
  const alt = c.altLabels.filter(([lang]) => lang === 'en' || lang === '').map(([, t]) => t);
  return {
    id: c.uri,
    scheme,
    subject: en,
    title,
    props: parents.length ? { parents: parents.join(',') } : undefined,
    identifiers,
    synonyms: alt.length ? alt : undefined,
  };
}

/**
 * The subjects of a SKOS file: `open()` gives its (inflated) bytes anew for each of the two passes;
 * positions count the concepts (other resources are skipped).
 */
export async function* skosElements(open: () => AsyncIterable<Buffer>, turtle: boolean): AsyncGenerator<ArrayElement> {
  const index = await indexConcepts(skosConcepts(open(), turtle));
  let position = 0;
  for await (const c of skosConcepts(open(), turtle)) {
    if ('error' in c) {
      yield { position: position++, error: c.error };
      continue;
    }
    if (!c.isConcept) continue;
    let value: Record<string, unknown>;
    try {
      value = mapSkosConcept(c, index);
    } catch (err) {
      yield { position: position++, error: (err as Error).message };
      continue;
    }
    yield { position: position++, value };
  }
}

/** Map one MeSH `DescriptorRecord`; throws `Error` with the reason. */
export function mapMeshDescriptor(d: XNode): Record<string, unknown> {
  const ui = textAt(d, 'DescriptorUI');
  if (!ui) throw new Error('id: No DescriptorUI.');
  const name = textAt(d, 'DescriptorName', 'String');
  if (!name) throw new Error(`subject: Descriptor ${ui} has no DescriptorName.`);
  const trees = kids(at(d, 'TreeNumberList'), 'TreeNumber')
    .map((t) => t.text.trim())
    .filter(Boolean);
  const terms: string[] = [];
  for (const concept of kids(at(d, 'ConceptList'), 'Concept')) {
    for (const term of kids(at(concept, 'TermList'), 'Term')) {
      const s = textAt(term, 'String');
      if (s && s !== name && !terms.includes(s)) terms.push(s);
    }
  }
  const id = `https://id.nlm.nih.gov/mesh/${ui}`;
  return {
    id,
    scheme: 'MeSH',
    subject: name,
    title: { en: name },
    identifiers: [{ scheme: 'url', identifier: id }],
    synonyms: terms.length ? terms : undefined,
    props: trees.length ? { tree_numbers: trees.join(',') } : undefined,
  };
}

/** The subjects of a MeSH descriptor file (`input`: its inflated bytes). */
export async function* meshElements(input: AsyncIterable<Buffer>): AsyncGenerator<ArrayElement> {
  let position = 0;
  for await (const r of xmlRecords(input, (_u, name, depth) => depth === 1 && name === 'DescriptorRecord')) {
    if (r.error !== undefined) {
      yield { position: position++, error: r.error };
      continue;
    }
    let value: Record<string, unknown>;
    try {
      value = mapMeshDescriptor(r.node);
    } catch (err) {
      yield { position: position++, error: (err as Error).message };
      continue;
    }
    yield { position: position++, value };
  }
}
