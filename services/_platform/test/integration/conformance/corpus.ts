/**
 * The conformance corpus: generated documents (several languages with accents, mixed-case keywords,
 * dates and date intervals, numbers, multi-valued fields, missing values) and the query set every
 * search engine must answer identically. The same document is stored for postgres (folded columns +
 * tsvector) and for OpenSearch (source + `search_text`).
 */
import type { DslFieldMap, FieldMap } from '../../../src/search/index.js';

/** One generated document. */
export interface CDoc {
  id: string;
  seq: number;
  title: string;
  description: string | null;
  creators: string[];
  type: string;
  languages: string[];
  tags: string[];
  visibility: 'public' | 'restricted';
  created: string;
  pub: [string, string] | null;
  views: number | null;
}

const WORDS = [
  'ocean',
  'temperature',
  'climate',
  'river',
  'glacier',
  'forest',
  'genome',
  'protein',
  'quantum',
  'neural',
  'network',
  'survey',
  'archive',
  'dataset',
  'software',
  'model',
  'roman',
  'history',
  'Römäns',
  'Straße',
  'café',
  'naïve',
  'Ørsted',
  'Łódź',
  'Ærøskøbing',
  'señal',
  'über',
  'français',
  'Zürich',
  'Málaga',
  'São',
  'Paulo',
  'Crème',
  'brûlée',
  'test',
  'tests',
  'testing',
  'tested',
  'data',
  'analysis',
  'measurement',
  'Antarctic',
  'Arctic',
  'sediment',
  'isotope',
  '2020',
  '2021',
];
const NAMES = ['Doe, Jane', 'Müller, Jürgen', 'García, José', 'Øvergård, Åse', 'Smith, John', 'Nowak, Łukasz', 'Dupont, Zoé', 'Lee, Min'];
const TYPES = ['Dataset', 'software', 'Publication', 'image', 'Other'];
const LANGS = ['eng', 'deu', 'fra', 'spa', 'por', 'pol'];
const TAGS = ['Alpha', 'beta', 'Gamma', 'delta', 'EPSILON'];

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` documents, deterministic for a seed. */
export function generateCorpus(n: number, seed = 42): CDoc[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const some = <T>(xs: readonly T[], max: number) => [...new Set(Array.from({ length: Math.floor(r() * (max + 1)) }, () => pick(xs)))];
  const words = (k: number) => Array.from({ length: k }, () => pick(WORDS)).join(' ');
  const docs: CDoc[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = Date.UTC(2015, 0, 1) + Math.floor(r() * 10 * 365 * 86_400_000);
    const created = new Date(t0 - (t0 % 1000)).toISOString();
    const y = 2000 + Math.floor(r() * 25);
    const pubKind = r();
    const pub: [string, string] | null =
      pubKind < 0.15
        ? null
        : pubKind < 0.6
          ? [`${y}-01-01`, `${y}-12-31`]
          : pubKind < 0.9
            ? [`${y}-06-15`, `${y}-06-15`]
            : [`${y}-01-01`, `${y + 2}-12-31`];
    docs.push({
      id: `d${String(i).padStart(5, '0')}`,
      seq: i + 1,
      title: `${words(2 + Math.floor(r() * 4))}${r() < 0.1 ? ', a study.' : ''}`,
      description: r() < 0.2 ? null : words(5 + Math.floor(r() * 10)),
      creators: some(NAMES, 3),
      type: pick(TYPES),
      languages: some(LANGS, 2),
      tags: some(TAGS, 3),
      visibility: r() < 0.8 ? 'public' : 'restricted',
      created,
      pub,
      views: r() < 0.1 ? null : Math.floor(r() * 1000),
    });
  }
  return docs;
}

/** Texts of the default full-text target (same list on both engines). */
export function fullTexts(d: CDoc): string[] {
  return [d.title, d.description ?? '', ...d.creators].filter((t) => t);
}

/** Query fields for postgres (table `docs`). */
export const SQL_FIELDS: FieldMap = {
  id: { kind: 'keyword', expr: 'id', caseSensitive: true },
  title: { kind: 'text', expr: 'title_f' },
  'metadata.title': 'title',
  description: { kind: 'text', expr: 'description_f' },
  creator: { kind: 'text', expr: 'creators_f' },
  type: { kind: 'keyword', expr: 'type' },
  language: { kind: 'keyword_array', expr: 'languages' },
  tag: { kind: 'keyword_array', expr: 'tags', caseSensitive: true },
  visibility: { kind: 'keyword', expr: 'visibility' },
  created: { kind: 'date', expr: 'created' },
  publication_date: { kind: 'date', expr: 'pub_start', endExpr: 'pub_end', type: 'date' },
  views: { kind: 'number', expr: 'views' },
};

/** The same query fields for the DSL engines. */
export const DSL_FIELDS: DslFieldMap = {
  id: { kind: 'keyword', path: 'id', caseSensitive: true },
  title: { kind: 'text', path: 'title' },
  'metadata.title': 'title',
  description: { kind: 'text', path: 'description' },
  creator: { kind: 'text', path: 'creators' },
  type: { kind: 'keyword', path: 'type' },
  language: { kind: 'keyword_array', path: 'languages' },
  tag: { kind: 'keyword_array', path: 'tags', caseSensitive: true },
  visibility: { kind: 'keyword', path: 'visibility' },
  created: { kind: 'date', path: 'created' },
  publication_date: { kind: 'date', path: 'pub_start', endPath: 'pub_end', type: 'date' },
  views: { kind: 'number', path: 'views' },
};

/** Queries every engine must answer with the same ids (parsed with InvenioRDM's OR default). */
export const QUERIES: string[] = [
  // match all / empty
  '',
  '*',
  '*:*',
  // terms, folding, case
  'ocean',
  'OCEAN',
  'romans',
  'Römäns',
  'ROMÄNS',
  'strasse',
  'Straße',
  'cafe',
  'café',
  'naive',
  'orsted',
  'Ørsted',
  'lodz',
  'aeroskobing',
  'senal',
  'uber',
  'francais',
  'zurich',
  'malaga',
  'sao',
  'creme brulee',
  'muller',
  'jurgen',
  'Müller',
  'garcia jose',
  'overgard',
  'lukasz',
  'zoe',
  '2020',
  'test',
  'tests',
  'nothingmatches',
  'ocean river',
  'ocean OR river',
  // default operator and explicit boolean logic
  'ocean AND river',
  'ocean && river',
  'ocean || glacier',
  'ocean AND NOT river',
  'ocean -river',
  '+ocean +river',
  '+ocean -glacier',
  'NOT ocean',
  '!ocean',
  'NOT (ocean OR river)',
  '(ocean OR river) AND glacier',
  '(ocean river) AND (forest OR genome)',
  'ocean AND (river OR (glacier AND NOT forest))',
  'a study',
  'study',
  // phrases
  '"ocean temperature"',
  '"temperature ocean"',
  '"Crème brûlée"',
  '"creme brulee"',
  '"doe jane"',
  '"ocean temperature"~2',
  '"ocean"',
  'title:"quantum neural"',
  'description:"data analysis"',
  '"ocean" AND "river"',
  // fielded text
  'title:ocean',
  'metadata.title:ocean',
  'title:romans',
  'title:(ocean OR river)',
  'title:(ocean AND river)',
  'description:glacier',
  'creator:doe',
  'creator:"garcia jose"',
  'creator:Müller',
  'title:ocean AND description:river',
  'title:ocean -description:river',
  'nofield:ocean',
  'title.*:ocean',
  'tit*:ocean',
  '*:ocean',
  // keywords (case-insensitive) and arrays
  'type:dataset',
  'type:Dataset',
  'type:DATASET',
  'type:software',
  'type:(dataset OR image)',
  'type:dataset AND ocean',
  'NOT type:dataset',
  'language:eng',
  'language:ENG',
  'language:(eng OR fra)',
  'language:eng AND language:fra',
  'NOT language:eng',
  'tag:Alpha',
  'tag:alpha',
  'tag:EPSILON',
  'tag:(Alpha OR beta)',
  'visibility:public',
  'visibility:restricted AND ocean',
  'id:d00007',
  'id:D00007',
  'id:(d00001 OR d00002 OR d00003)',
  // wildcards
  'ocea*',
  'Oce*',
  'tem*rature',
  'te?t',
  'te?ts',
  '*cean',
  'gla*er',
  'röm*',
  'rom*',
  'title:ocea*',
  'title:*ean',
  'creator:mül*',
  'type:data*',
  'type:DATA*',
  'type:*ware',
  'type:?mage',
  'language:e*',
  'tag:Al*',
  'tag:al*',
  'id:d0000?',
  'id:d0001*',
  'ocea* AND riv*',
  // regex
  '/oce.n/',
  '/te(st|sts)/',
  '/[a-c]afe/',
  'title:/glac.*/',
  'type:/data.*/',
  'type:/DATA.*/',
  'tag:/Al.*/',
  'id:/d0000[1-3]/',
  // exists
  '_exists_:description',
  'NOT _exists_:description',
  'description:*',
  'views:*',
  '_exists_:views',
  'publication_date:*',
  'NOT _exists_:publication_date',
  '_exists_:nofield',
  // dates
  'created:2020',
  'created:2020-05',
  'created:2020-05-03',
  'created:[2018 TO 2019]',
  'created:{2018 TO 2020}',
  'created:[2018-06 TO 2018-07]',
  'created:[* TO 2016]',
  'created:[2023 TO *]',
  'created:>=2023',
  'created:<2016',
  'created:>2023-06-01',
  'created:<=2015-03',
  'created:[2020-01-01T00:00:00Z TO 2020-01-31T12:00:00Z]',
  'created:[now-5y TO now]',
  'created:[2019 TO 2018]',
  'publication_date:2010',
  'publication_date:2010-06',
  'publication_date:2010-06-15',
  'publication_date:[2005 TO 2007]',
  'publication_date:{2005 TO 2010}',
  'publication_date:[2020 TO *]',
  'publication_date:<2003',
  'publication_date:[2011-06-16 TO 2011-12-31]',
  'publication_date:2010 AND type:dataset',
  'NOT publication_date:[2000 TO 2012]',
  // numbers
  'views:500',
  'views:[100 TO 200]',
  'views:{100 TO 200}',
  'views:>=990',
  'views:<5',
  'views:[* TO 10]',
  'views:[990 TO *]',
  'views:>100 AND views:<110',
  'NOT views:[0 TO 500]',
  'views:1e2',
  'views:100.0',
  // punctuation-only and mixed
  '&',
  'ocean &',
  '& river',
  'ocean AND &',
  '"&"',
  'ocean, river',
  'ocean.',
  '(ocean)',
  '((ocean))',
  // combinations
  'ocean AND type:dataset AND created:[2018 TO 2022] AND NOT language:deu',
  '(title:ocean OR description:ocean) AND views:[100 TO *]',
  'type:(dataset OR software) AND (ocean OR glacier) AND NOT tag:Alpha',
  '"ocean temperature" OR title:glac* OR creator:"doe jane"',
  'romans OR strasse OR cafe OR naive OR orsted OR lodz',
  'language:eng AND (tag:Alpha OR tag:beta) AND visibility:public AND views:[* TO 500]',
  // boosts and fuzziness are accepted and ignored
  'ocean^2',
  'ocean~1',
  'title:ocean^3 OR river',
];

/** Queries that must be a 400 on every engine (syntax, or a value the field's type rejects). */
export const BAD_QUERIES: string[] = [
  '"unclosed',
  '(ocean',
  'ocean)',
  'title:',
  'AND',
  'ocean AND',
  'OR ocean',
  '[2020 TO 2021',
  'created:[2020 TO',
  'created:[a TO b',
  '/unclosed',
  '/a**/',
  '/a&b/',
  'created:abc',
  'created:2020*',
  'created:/20.*/',
  'views:abc',
  'views:1*',
  'views:/1.*/',
  'publication_date:2020-13',
  'created:2021-02-30',
  'views:[a TO 5]',
];
