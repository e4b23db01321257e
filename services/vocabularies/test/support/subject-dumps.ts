/**
 * Subject scheme files for tests, in the published shapes: EuroSciVoc's RDF/XML (`rdf:Description`
 * resources typed `skos:Concept`, UUID URIs, numeric `skos:notation`, labels by language,
 * `skos:broader`), GEMET-like Turtle (`skos:Concept`s with `prefLabel`/`altLabel`/`broader`), and
 * MeSH's descriptor XML (`DescriptorRecordSet` with its DOCTYPE, `DescriptorRecord`s with UI, name,
 * tree numbers and concepts' terms).
 *
 * When to use: importer unit tests and jobs-runner integration tests of the `skos` and `mesh` formats.
 */

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A EuroSciVoc concept: UUID-like URI, notation, labels, parent (by index). */
export interface TestConcept {
  n: number;
  labels: Record<string, string>;
  parent?: number;
  noNotation?: boolean;
}

/** The URI of EuroSciVoc concept `n`. */
export const euroscivocUri = (n: number) =>
  `http://data.europa.eu/8mn/euroscivoc/${n.toString(16).padStart(8, '0')}-527a-4a40-9c76-2f9d3075e2ba`;

/** A small EuroSciVoc tree: 1 → 2 → 3, 1 → 4 (labels in en/de/fr with accents). */
export const EUROSCIVOC_TREE: TestConcept[] = [
  { n: 1, labels: { en: 'natural sciences', de: 'Naturwissenschaften', fr: 'sciences naturelles' } },
  { n: 2, labels: { en: 'physical sciences', fr: 'sciences physiques' }, parent: 1 },
  { n: 3, labels: { en: 'astronomy', de: 'Astronomie', it: 'astronomia' }, parent: 2 },
  { n: 4, labels: { en: 'chemical sciences', fr: 'sciences chimiques' }, parent: 1 },
];

/** EuroSciVoc-shaped RDF/XML of `concepts`, with the scheme resource first (not a concept). */
export function euroscivocRdfXml(concepts: TestConcept[]): string {
  const body = concepts
    .map(
      (c) => `  <rdf:Description rdf:about="${euroscivocUri(c.n)}">
    <rdf:type rdf:resource="http://www.w3.org/2004/02/skos/core#Concept"/>
    <skos:inScheme rdf:resource="http://data.europa.eu/8mn/euroscivoc/40c0f173-baa3-48a3-9fe6-d6e8fb366a00"/>
${Object.entries(c.labels)
  .map(([lang, l]) => `    <skos:prefLabel xml:lang="${lang}">${esc(l)}</skos:prefLabel>`)
  .join('\n')}
${c.noNotation ? '' : `    <skos:notation>${c.n}</skos:notation>\n`}${c.parent ? `    <skos:broader rdf:resource="${euroscivocUri(c.parent)}"/>\n` : ''}    <dcterms:modified rdf:datatype="http://www.w3.org/2001/XMLSchema#dateTime">2024-02-01T10:00:00</dcterms:modified>
  </rdf:Description>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:skos="http://www.w3.org/2004/02/skos/core#" xmlns:dcterms="http://purl.org/dc/terms/">
  <rdf:Description rdf:about="http://data.europa.eu/8mn/euroscivoc/40c0f173-baa3-48a3-9fe6-d6e8fb366a00">
    <rdf:type rdf:resource="http://www.w3.org/2004/02/skos/core#ConceptScheme"/>
    <skos:prefLabel xml:lang="en">European Science Vocabulary (EuroSciVoc)</skos:prefLabel>
  </rdf:Description>
${body}
</rdf:RDF>
`;
}

/** GEMET-shaped Turtle: concepts 1…n, concept k's broader is k-1 (k > 1); concept `noLabel` lacks a prefLabel. */
export function gemetTurtle(n: number, noLabel?: number): string {
  const concepts = Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    const labels = i === noLabel ? '' : `\n  skos:prefLabel "Théme ${i}"@en, "Thema ${i}"@de ;`;
    return `gemet:${i} a skos:Concept ;${labels}
  skos:altLabel "alias ${i}"@en, "Alias ${i}"@de ;
  skos:inScheme <http://www.eionet.europa.eu/gemet/gemetThesaurus> ${i > 1 ? `;\n  skos:broader gemet:${i - 1} ` : ''}.`;
  });
  return `@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix gemet: <http://www.eionet.europa.eu/gemet/concept/> .

<http://www.eionet.europa.eu/gemet/gemetThesaurus> a skos:ConceptScheme ;
  skos:prefLabel "GEMET"@en .

${concepts.join('\n\n')}
`;
}

/** A MeSH descriptor. */
export interface TestDescriptor {
  ui: string;
  name?: string;
  trees: string[];
  terms: string[];
}

/** MeSH descriptors D000001…: names with accents, tree numbers, entry terms. */
export function meshDescriptors(n: number): TestDescriptor[] {
  return Array.from({ length: n }, (_, k) => ({
    ui: `D${String(k + 1).padStart(6, '0')}`,
    name: `Descriptor ${k + 1} (Ménière)`,
    trees: [`C09.218.${String(k).padStart(3, '0')}`],
    terms: [`Descriptor ${k + 1} (Ménière)`, `Entry term ${k + 1}`],
  }));
}

/** MeSH's descriptor XML (`desc<year>.xml`) of `descriptors`. */
export function meshXml(descriptors: TestDescriptor[]): string {
  const records = descriptors
    .map(
      (d) => `<DescriptorRecord DescriptorClass="1">
  <DescriptorUI>${d.ui}</DescriptorUI>
  ${d.name ? `<DescriptorName><String>${esc(d.name)}</String></DescriptorName>` : ''}
  <DateCreated><Year>1999</Year><Month>01</Month><Day>01</Day></DateCreated>
  <TreeNumberList>${d.trees.map((t) => `<TreeNumber>${t}</TreeNumber>`).join('')}</TreeNumberList>
  <ConceptList>
    <Concept PreferredConceptYN="Y">
      <ConceptUI>M${d.ui.slice(1)}</ConceptUI>
      <ConceptName><String>${esc(d.name ?? '')}</String></ConceptName>
      <TermList>${d.terms
        .map(
          (t, i) =>
            `<Term ConceptPreferredTermYN="${i === 0 ? 'Y' : 'N'}" IsPermutedTermYN="N" LexicalTag="NON" RecordPreferredTermYN="${i === 0 ? 'Y' : 'N'}"><TermUI>T${d.ui.slice(1)}${i}</TermUI><String>${esc(t)}</String></Term>`,
        )
        .join('')}</TermList>
    </Concept>
  </ConceptList>
</DescriptorRecord>`,
    )
    .join('\n');
  return `<?xml version="1.0"?>
<!DOCTYPE DescriptorRecordSet SYSTEM "https://www.nlm.nih.gov/databases/dtd/nlmdescriptorrecordset_20240101.dtd">
<DescriptorRecordSet LanguageCode="eng">
${records}
</DescriptorRecordSet>
`;
}
