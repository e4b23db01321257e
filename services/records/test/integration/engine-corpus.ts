/**
 * A deterministic corpus of `search_docs` rows for the engine differential suite
 * (search-engines-differential.test.ts): published records and their versions, drafts (new, edit,
 * new version), deleted records, restricted and embargoed records, owners, grants to users and
 * roles, communities, several languages and resource types, EDTF dates and intervals, files of
 * several types, usage counters. Written straight into `search_docs` (the columns and the stored
 * document agree by construction; the vector is built from `searchTexts` as on every write).
 */
import { type Knex, searchVectorSql } from '@rdm/platform';
import { edtfRange } from '../../src/domain/edtf.js';
import { encodeId } from '../../src/domain/ids.js';
import { fileTypes, searchTexts } from '../../src/search/search-doc.js';

export function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words with accents and several scripts' Latin forms (folding must agree on both engines). */
export const WORDS = [
  'climate',
  'ocean',
  'glacier',
  'protein',
  'genome',
  'neuron',
  'quantum',
  'lattice',
  'soil',
  'forest',
  'river',
  'delta',
  'plasma',
  'galaxy',
  'comet',
  'basalt',
  'enzyme',
  'virus',
  'vaccine',
  'model',
  'dataset',
  'survey',
  'census',
  'language',
  'corpus',
  'syntax',
  'archive',
  'museum',
  'pottery',
  'bronze',
  'Zürich',
  'Genève',
  'München',
  'São',
  'Paulo',
  'Kraków',
  'Ångström',
  'naïve',
  'café',
  'résumé',
  'données',
  'océan',
  'glaciología',
  'Universität',
  'über',
  'straße',
  'fjord',
  'tundra',
  'monsoon',
  'savanna',
  'python',
  'fortran',
  'workflow',
  'pipeline',
  'notebook',
  'sensor',
  'satellite',
  'radar',
  'lidar',
  'drone',
];
const SURNAMES = [
  'Müller',
  'García',
  'Smith',
  'Nguyen',
  'Kowalski',
  'Dubois',
  'Rossi',
  'Tanaka',
  'Okafor',
  'Silva',
  'Jensen',
  'Novák',
  'Öztürk',
  'Håkansson',
  'Lefèvre',
];
const GIVEN = ['Anna', 'José', 'Li', 'Søren', 'Zoë', 'Chidi', 'Élodie', 'Marek', 'Yuki', 'Ana'];
const ORGS = ['CERN', 'University of Zürich', 'Université de Genève', 'ETH Zürich', 'MIT', 'Universidade de São Paulo'];
export const LANGS = ['eng', 'fra', 'deu', 'spa', 'por', 'jpn'];
export const RTYPES: [string, string, string | null][] = [
  ['publication-article', 'publication', 'publication-article'],
  ['publication-preprint', 'publication', 'publication-preprint'],
  ['publication', 'publication', null],
  ['dataset', 'dataset', null],
  ['software', 'software', null],
  ['image-photo', 'image', 'image-photo'],
  ['image-figure', 'image', 'image-figure'],
  ['poster', 'poster', null],
  ['video', 'video', null],
];
const EXTS = ['pdf', 'csv', 'zip', 'png', 'txt', 'json', 'h5'];
export const COMMUNITIES = ['c-alpha', 'c-beta', 'c-gamma', 'c-delta'];
export const USERS = Array.from({ length: 40 }, (_, i) => String(i + 1));

const COLUMNS = [
  'id',
  'kind',
  'parent_id',
  'owner_id',
  'is_published',
  'is_latest',
  'is_latest_draft',
  'has_draft',
  'deletion_status',
  'access_record',
  'access_files',
  'access_status',
  'resource_type_id',
  'resource_type_type',
  'resource_type_subtype',
  'file_types',
  'community_ids',
  'publication_date_start',
  'publication_date_end',
  'created',
  'updated',
  'version_index',
  'views',
  'downloads',
  'revision_id',
  'doc',
];

/** Rows of parent number `p` (1–3 versions, maybe a draft), deterministic. */
function parentRows(p: number): Record<string, unknown>[] {
  const rnd = mulberry32(7919 * (p + 1));
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const words = (k: number) => Array.from({ length: k }, () => pick(WORDS));
  const parentId = encodeId(5_000_000 + p);
  const owner = pick(USERS);
  const grants =
    rnd() < 0.25
      ? [
          {
            subject: rnd() < 0.8 ? { type: 'user', id: pick(USERS) } : { type: 'role', id: 'curators' },
            permission: pick(['view', 'preview', 'edit', 'manage']),
            origin: 'api',
          },
        ]
      : [];
  const communityIds = rnd() < 0.4 ? [...new Set([pick(COMMUNITIES), ...(rnd() < 0.3 ? [pick(COMMUNITIES)] : [])])] : [];
  const parent = {
    id: parentId,
    access: { owned_by: { user: owner }, grants, links: [] },
    communities: communityIds.length ? { ids: communityIds, default: communityIds[0] } : {},
  };
  const versions = 1 + Math.floor(rnd() * 3);
  const draftKind = rnd() < 0.15 ? 'edit' : rnd() < 0.1 ? 'new_version' : rnd() < 0.1 ? 'new' : null;
  const deleted = rnd() < 0.03;
  const rows: Record<string, unknown>[] = [];
  const base = Date.UTC(2015, 0, 1) + p * 3_600_000;
  const published = draftKind === 'new' ? 0 : versions;
  const total = published + (draftKind === 'new_version' || draftKind === 'new' ? 1 : 0);
  for (let v = 1; v <= total; v++) {
    const isDraftVersion = v > published;
    const id = encodeId(p * 10 + v);
    const rt = pick(RTYPES);
    const year = 1950 + Math.floor(rnd() * 75);
    const dateKind = rnd();
    const pubDate =
      dateKind < 0.15
        ? String(year)
        : dateKind < 0.25
          ? `${year}/${year + 1 + Math.floor(rnd() * 5)}`
          : dateKind < 0.3
            ? `${year}-0${1 + Math.floor(rnd() * 9)}`
            : `${year}-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}`;
    const restricted = rnd() < 0.15;
    const embargoed = !restricted && rnd() < 0.07;
    const metadataOnly = !restricted && !embargoed && rnd() < 0.1;
    const filesRestricted = restricted || embargoed || rnd() < 0.08;
    const nFiles = metadataOnly ? 0 : Math.floor(rnd() * 4);
    const entries: Record<string, unknown> = {};
    for (let f = 0; f < nFiles; f++) {
      const ext = pick(EXTS);
      const key = `${pick(WORDS).toLowerCase()}_${f}.${ext}`;
      entries[key] = { key, ext, size: 100 + f, mimetype: 'application/octet-stream', checksum: 'md5:0' };
    }
    const creators = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
      const family = pick(SURNAMES);
      const given = pick(GIVEN);
      return {
        person_or_org: {
          type: 'personal',
          name: `${family}, ${given}`,
          given_name: given,
          family_name: family,
          ...(rnd() < 0.3 ? { identifiers: [{ scheme: 'orcid', identifier: `0000-0002-${1000 + Math.floor(rnd() * 50)}-0001` }] } : {}),
        },
        affiliations: [{ name: pick(ORGS), ...(rnd() < 0.5 ? { id: `0${Math.floor(rnd() * 5)}abcd` } : {}) }],
        role: { id: pick(['researcher', 'datacollector', 'editor']) },
      };
    });
    const languages = Array.from(new Set([pick(LANGS), ...(rnd() < 0.3 ? [pick(LANGS)] : [])])).map((id) => ({ id }));
    const metadata: Record<string, unknown> = {
      resource_type: { id: rt[0], title: { en: rt[0] } },
      resource_types: [{ id: rt[0], title: { en: rt[0] } }],
      title: `${words(3 + Math.floor(rnd() * 5)).join(' ')} ${p}`,
      publication_date: pubDate,
      creators,
      description: words(8 + Math.floor(rnd() * 20)).join(' '),
      publisher: rnd() < 0.5 ? 'Zenodo' : pick(ORGS),
      languages,
      subjects: words(Math.floor(rnd() * 3)).map((s) => ({ subject: s })),
      rights: rnd() < 0.7 ? [{ id: pick(['cc-by-4.0', 'cc0-1.0', 'mit']) }] : [],
      version: `v${v}.0`,
      ...(rnd() < 0.2
        ? {
            funding: [
              { funder: { id: '00k4n6c32', name: 'European Commission' }, award: { number: String(100000 + Math.floor(rnd() * 20)) } },
            ],
          }
        : {}),
      ...(rnd() < 0.2
        ? {
            related_identifiers: [
              {
                identifier: `10.5281/zenodo.${1000 + Math.floor(rnd() * 30)}`,
                scheme: 'doi',
                relation_type: { id: pick(['iscitedby', 'issupplementto']) },
              },
            ],
          }
        : {}),
    };
    const access = {
      record: restricted ? 'restricted' : 'public',
      files: filesRestricted ? 'restricted' : 'public',
      embargo: embargoed ? { active: true, until: '2030-01-01', reason: 'peer review' } : { active: false, reason: null },
      status: restricted ? 'restricted' : embargoed ? 'embargoed' : metadataOnly ? 'metadata-only' : 'open',
    };
    const created = new Date(base + v * 60_000 + Math.floor(rnd() * 50_000));
    const updated = new Date(created.getTime() + Math.floor(rnd() * 86_400_000));
    const isLatest = !isDraftVersion && v === published;
    const files = { enabled: nFiles > 0, count: nFiles, entries };
    const make = (kind: 'record' | 'draft', o: { isLatest: boolean; isLatestDraft: boolean; hasDraft: boolean; status: string }) => {
      const doc = {
        id,
        is_published: kind === 'record',
        is_draft: kind === 'draft',
        status: o.status,
        created: created.toISOString(),
        updated: updated.toISOString(),
        revision_id: 1,
        metadata,
        access,
        files,
        pids:
          kind === 'record'
            ? { doi: { identifier: `10.1234/${id}`, provider: 'datacite' }, oai: { identifier: `oai:test:${id}`, provider: 'oai' } }
            : {},
        parent: { ...parent, pids: kind === 'record' ? { doi: { identifier: `10.1234/${parentId}` } } : {} },
        versions: { index: v, is_latest: o.isLatest, is_latest_draft: o.isLatestDraft },
        deletion_status: { status: kind === 'record' && deleted ? 'D' : 'P' },
      };
      const range = edtfRange(pubDate, 'date');
      const texts = searchTexts(id, metadata, doc.pids);
      return {
        id,
        kind,
        parent_id: parentId,
        owner_id: owner,
        is_published: kind === 'record',
        is_latest: o.isLatest,
        is_latest_draft: o.isLatestDraft,
        has_draft: o.hasDraft,
        deletion_status: doc.deletion_status.status,
        access_record: access.record,
        access_files: access.files,
        access_status: access.status,
        resource_type_id: rt[0],
        resource_type_type: rt[1],
        resource_type_subtype: rt[2],
        file_types: fileTypes(entries as never),
        community_ids: communityIds,
        publication_date_start: range.start,
        publication_date_end: range.end,
        created: created.toISOString(),
        updated: updated.toISOString(),
        version_index: v,
        views: Math.floor(rnd() * 50) * 10,
        downloads: Math.floor(rnd() * 30) * 7,
        revision_id: 1,
        doc,
        _folded: searchVectorSql(texts).bindings[0],
      };
    };
    const lastIndex = total;
    if (isDraftVersion) {
      rows.push(make('draft', { isLatest: false, isLatestDraft: true, hasDraft: false, status: 'draft' }));
    } else {
      const hasEdit = draftKind === 'edit' && isLatest;
      rows.push(make('record', { isLatest, isLatestDraft: v === lastIndex && !hasEdit, hasDraft: hasEdit, status: 'published' }));
      if (hasEdit) rows.push(make('draft', { isLatest: false, isLatestDraft: true, hasDraft: false, status: 'draft' }));
    }
  }
  return rows;
}

/** Writes documents of parents 0..parents-1 into `search_docs` (batches of 500 rows). */
export async function seedCorpus(db: Knex, parents: number): Promise<number> {
  let n = 0;
  let batch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (!batch.length) return;
    await db.raw(
      `INSERT INTO search_docs (${COLUMNS.join(', ')}, search_vector)
       SELECT ${COLUMNS.map((c) => `r.${c}`).join(', ')}, to_tsvector('simple'::regconfig, e.v->>'_folded')
         FROM jsonb_array_elements(?::jsonb) AS e(v) CROSS JOIN LATERAL jsonb_populate_record(NULL::search_docs, e.v) AS r`,
      [JSON.stringify(batch)],
    );
    n += batch.length;
    batch = [];
  };
  for (let p = 0; p < parents; p++) {
    batch.push(...parentRows(p));
    if (batch.length >= 500) await flush();
  }
  await flush();
  await db.raw('ANALYZE search_docs');
  return n;
}
