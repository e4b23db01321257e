/**
 * A generated corpus of the large vocabularies (affiliations, funders, awards, names, subjects) with
 * realistic shapes: accented and non-Latin-folded names (José, Müller, Østergaard, Łukasz, Straße),
 * acronyms, ROR/ORCID/ISNI identifiers, aliases, several title languages, props, tags (some
 * `unlisted`), awards pointing at funders, MeSH/FOS subjects with synonyms. Deterministic for a
 * given size. Used by the search-engine integration test and the indexing benchmark.
 */
import type { FixtureVocabulary } from '../src/domain/fixtures.js';
import { normalizeEntry } from '../src/domain/entry.js';

const GIVEN = ['José', 'Anna', 'Łukasz', 'Zoë', 'Jürgen', 'Søren', 'Chloé', 'Ahmed', 'Mei', 'Olga', 'Pål', 'Ines', 'Grzegorz', 'Björk'];
const FAMILY = [
  'Müller',
  'Østergaard',
  'García',
  'Straße',
  'Dvořák',
  'Nguyễn',
  'Smith',
  'Kowalski',
  'Ångström',
  'Łęcki',
  'Haßler',
  'Doe',
  'Ørsted',
  'Çelik',
];
const PLACES = ['Genève', 'Zürich', 'Kraków', 'München', 'São Paulo', 'Århus', 'Reykjavík', 'Córdoba', 'Tromsø', 'Besançon'];
const COUNTRIES: Array<[string, string]> = [
  ['CH', 'Switzerland'],
  ['DE', 'Germany'],
  ['PL', 'Poland'],
  ['BR', 'Brazil'],
  ['DK', 'Denmark'],
  ['IS', 'Iceland'],
  ['ES', 'Spain'],
  ['NO', 'Norway'],
  ['FR', 'France'],
];
const KINDS = ['Université', 'Institut für', 'Hochschule', 'Universidad de', 'Centre de recherche', 'Academy of', 'Laboratoire'];
const TOPICS = ['Physik', 'Océanographie', 'Glaciology', 'Ecology', 'Astronomy', 'Neuroscience', 'Linguistics', 'Römische Geschichte'];
const SCHEMES = ['MeSH', 'FOS', 'LCSH'];
const TAGS = ['legacy', 'verified', 'mapped'];

const pick = <T>(xs: readonly T[], i: number, salt = 0): T => xs[(i * 7 + salt * 13 + Math.floor(i / xs.length)) % xs.length];
const rorOf = (prefix: string, i: number) => `0${prefix}${String(i).padStart(5, '0')}`;
const orcidOf = (i: number) => `0000-0002-${String(1000 + (i % 9000)).padStart(4, '0')}-${String(i).padStart(4, '0').slice(-4)}`;

/** Sizes of each large vocabulary of the corpus. */
export interface CorpusSizes {
  affiliations: number;
  funders: number;
  awards: number;
  names: number;
  subjects: number;
}

/** The corpus as loadable vocabularies (already normalised). */
export function largeVocabularyCorpus(sizes: CorpusSizes): FixtureVocabulary[] {
  const vocab = (type: string, pidType: string, raws: unknown[]): FixtureVocabulary => ({
    type,
    pidType,
    missingFile: false,
    entries: raws.map((r) => normalizeEntry(type, r)),
  });
  const orgs = (n: number, prefix: string, funder: boolean) =>
    Array.from({ length: n }, (_, i) => {
      const [country, countryName] = pick(COUNTRIES, i, 1);
      const place = pick(PLACES, i, 2);
      const name = `${pick(KINDS, i)} ${pick(TOPICS, i, 3)} ${place} ${i}`;
      return {
        id: rorOf(prefix, i),
        name,
        acronym: i % 3 === 0 ? `${prefix.toUpperCase()}${pick(['ETH', 'UNIGE', 'CNRS', 'MPI', 'EPFL'], i)}${i}` : undefined,
        identifiers: [
          { scheme: 'ror', identifier: rorOf(prefix, i) },
          ...(i % 4 === 0 ? [{ scheme: 'isni', identifier: `0000 0001 ${String(2000 + i).slice(-4)} 142X` }] : []),
        ],
        title: {
          en: name,
          ...(i % 2 ? { de: `${pick(TOPICS, i, 5)} in ${place}` } : {}),
          ...(i % 5 === 0 ? { fr: `Institut ${place}` } : {}),
        },
        country,
        country_name: countryName,
        location_name: place,
        aliases: i % 6 === 0 ? [`${place} ${funder ? 'Research Council' : 'University'}`] : undefined,
        status: i % 10 === 9 ? 'inactive' : 'active',
        types: funder ? ['funder', i % 2 ? 'government' : 'nonprofit'] : [i % 2 ? 'education' : 'facility'],
        tags: i % 17 === 0 ? ['unlisted'] : i % 5 === 0 ? [pick(TAGS, i)] : undefined,
      };
    });
  const funders = orgs(sizes.funders, 'f', true);
  const awards = Array.from({ length: sizes.awards }, (_, i) => {
    const funder = funders[i % Math.max(1, Math.min(funders.length, 12))];
    return {
      id: `${funder?.id ?? 'x'}::${100000 + i}`,
      number: String(100000 + i),
      title: { en: `${pick(TOPICS, i)} of ${pick(PLACES, i, 1)} ${i % 3 ? 'glaciers' : 'oceans'} ${i}` },
      acronym: i % 2 ? `${pick(['ARCTIC', 'OCEANO', 'NEURO', 'ÉCLAT', 'ZÜRI'], i)}-${i}` : undefined,
      program: pick(['H2020', 'FP7', 'Horizon Europe', 'ERC Starting Grant'], i),
      funder: funder ? { id: funder.id } : undefined,
      identifiers: [{ scheme: 'url', identifier: `https://cordis.europa.eu/project/id/${100000 + i}` }],
      tags: i % 23 === 0 ? ['unlisted'] : undefined,
    };
  });
  const names = Array.from({ length: sizes.names }, (_, i) => ({
    id: `n${String(i).padStart(6, '0')}`,
    given_name: pick(GIVEN, i),
    family_name: pick(FAMILY, i, 1),
    identifiers: [{ scheme: 'orcid', identifier: orcidOf(i) }],
    affiliations:
      i % 3 ? [{ id: rorOf('a', i % Math.max(1, sizes.affiliations)), name: `${pick(KINDS, i)} ${pick(PLACES, i, 4)}` }] : undefined,
    props: i % 4 === 0 ? { department: `${pick(TOPICS, i, 2)} dept` } : undefined,
    tags: i % 29 === 0 ? ['unlisted'] : undefined,
  }));
  const subjects = Array.from({ length: sizes.subjects }, (_, i) => {
    const scheme = pick(SCHEMES, i);
    const subject = `${pick(TOPICS, i)} ${pick(['methods', 'théorie', 'history', 'Überblick', 'data'], i, 1)} ${i}`;
    return {
      id: scheme === 'MeSH' ? `https://id.nlm.nih.gov/mesh/D${String(i).padStart(6, '0')}` : `${scheme.toLowerCase()}-${i}`,
      scheme,
      subject,
      title: { en: subject, ...(i % 3 === 0 ? { de: `${pick(TOPICS, i, 6)} Thema ${i}` } : {}) },
      synonyms: i % 4 === 0 ? [`${pick(TOPICS, i, 7)} studies`] : undefined,
      tags: i % 31 === 0 ? ['unlisted'] : undefined,
    };
  });
  return [
    vocab('affiliations', 'aff', orgs(sizes.affiliations, 'a', false)),
    vocab('funders', 'fun', funders),
    vocab('awards', 'awa', awards),
    vocab('names', 'names', names),
    vocab('subjects', 'sub', subjects),
  ];
}
