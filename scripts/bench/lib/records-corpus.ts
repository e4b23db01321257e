/**
 * The synthetic record corpus of the record search benches (records-search.bench.ts,
 * search-engines.bench.ts): `search_docs` rows built by the records service's own `buildDoc` +
 * `searchDocRow` + `searchVectorSql` (the code path of every write), seeded in bulk into a bench
 * schema; the query shapes of `GET /api/records` and a sequential round-robin measurement with
 * CPU time per request. Titles and descriptions from a Zipf-distributed synthetic word list,
 * 1–4 creators from 1,000 surnames, 30 resource types, publication years 1990–2025, access open /
 * metadata-only / restricted, 0–3 files of 10 types, 10 % of parents with two versions.
 * Deterministic per document number: every run and both engines see the same documents.
 */
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Identity, type Knex, searchVectorSql } from '../../../services/_platform/src/index.js';
import { signedHeaders } from './identity.js';
import { testLogger } from '../../../services/_platform/src/testing/index.js';
import { createApp } from '../../../services/records/src/app.js';
import { encodeId } from '../../../services/records/src/domain/ids.js';
import type { ParentRow } from '../../../services/records/src/domain/model.js';
import type { VocabulariesPort } from '../../../services/records/src/domain/ports.js';
import { buildDoc } from '../../../services/records/src/domain/serializers.js';
import type { EngineIndexer } from '../../../services/records/src/search/engine-index.js';
import { searchDocRow } from '../../../services/records/src/search/search-doc.js';
import { type CpuTargets, cpuDelta, cpuSnapshot } from './cpu.js';

/** Identity secret of the bench apps (signs the authenticated shape's header). */
export const SECRET = 'bench-identity-secret-0123456789';
/** Bumped when the corpus changes: a kept schema seeded by another version is reseeded. */
const SEED_VERSION = 'v1';
/** The records migrations (the bench schema is migrated with them). */
export const RECORDS_MIGRATIONS = fileURLToPath(new URL('../../../services/records/src/db/migrations', import.meta.url));

// ---------------------------------------------------------------------------------------------
// deterministic synthetic data

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

/** Pronounceable pseudo-words, unique, in a fixed order (rank 0 = most frequent). */
function wordList(n: number, seed: number): string[] {
  const rnd = mulberry32(seed);
  const c = 'bcdfghklmnprstvz';
  const v = 'aeiou';
  const out = new Set<string>();
  while (out.size < n) {
    const syl = 2 + Math.floor(rnd() * 3);
    let w = '';
    for (let i = 0; i < syl; i++) w += c[Math.floor(rnd() * c.length)] + v[Math.floor(rnd() * v.length)];
    if (rnd() < 0.3) w += c[Math.floor(rnd() * c.length)];
    out.add(w);
  }
  return [...out];
}

/** Zipf sampler over ranks 0..n-1 with exponent s (table built once; draw with any generator). */
function zipf(n: number, s: number) {
  const cum = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) {
    sum += 1 / (r + 1) ** s;
    cum[r] = sum;
  }
  return (rnd: () => number) => {
    const x = rnd() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export const RESOURCE_TYPES: { id: string; type: string; subtype: string | null; title: string }[] = [
  ['publication', 'publication', null, 'Publication'],
  ['publication-article', 'publication', 'publication-article', 'Journal article'],
  ['publication-book', 'publication', 'publication-book', 'Book'],
  ['publication-section', 'publication', 'publication-section', 'Book chapter'],
  ['publication-conferencepaper', 'publication', 'publication-conferencepaper', 'Conference paper'],
  ['publication-conferenceproceeding', 'publication', 'publication-conferenceproceeding', 'Conference proceeding'],
  ['publication-datamanagementplan', 'publication', 'publication-datamanagementplan', 'Output management plan'],
  ['publication-preprint', 'publication', 'publication-preprint', 'Preprint'],
  ['publication-report', 'publication', 'publication-report', 'Report'],
  ['publication-dissertation', 'publication', 'publication-dissertation', 'Thesis'],
  ['publication-technicalnote', 'publication', 'publication-technicalnote', 'Technical note'],
  ['publication-workingpaper', 'publication', 'publication-workingpaper', 'Working paper'],
  ['publication-other', 'publication', 'publication-other', 'Other'],
  ['poster', 'poster', null, 'Poster'],
  ['presentation', 'presentation', null, 'Presentation'],
  ['event', 'event', null, 'Event'],
  ['dataset', 'dataset', null, 'Dataset'],
  ['image', 'image', null, 'Image'],
  ['image-figure', 'image', 'image-figure', 'Figure'],
  ['image-plot', 'image', 'image-plot', 'Plot'],
  ['image-diagram', 'image', 'image-diagram', 'Diagram'],
  ['image-photo', 'image', 'image-photo', 'Photo'],
  ['model', 'model', null, 'Model'],
  ['video', 'video', null, 'Video'],
  ['audio', 'audio', null, 'Audio'],
  ['software', 'software', null, 'Software'],
  ['software-computationalnotebook', 'software', 'software-computationalnotebook', 'Computational notebook'],
  ['lesson', 'lesson', null, 'Lesson'],
  ['physicalobject', 'physicalobject', null, 'Physical object'],
  ['workflow', 'workflow', null, 'Workflow'],
].map(([id, type, subtype, title]) => ({
  id: id as string,
  type: type as string,
  subtype: subtype as string | null,
  title: title as string,
}));

const FILE_TYPES: [string, string][] = [
  ['pdf', 'application/pdf'],
  ['csv', 'text/csv'],
  ['zip', 'application/zip'],
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['txt', 'text/plain'],
  ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['json', 'application/json'],
  ['h5', 'application/x-hdf5'],
  ['nc', 'application/x-netcdf'],
];

export const WORDS = wordList(5000, 42);
export const SURNAMES = wordList(1200, 7)
  .slice(200)
  .map((w) => w[0].toUpperCase() + w.slice(1));
const GIVEN = wordList(200, 9).map((w) => w[0].toUpperCase() + w.slice(1));
const WORD_RANK = zipf(WORDS.length, 1.0);
const SURNAME_RANK = zipf(SURNAMES.length, 0.8);
const ORGS = wordList(60, 11).map((w) => `University of ${w[0].toUpperCase()}${w.slice(1)}`);

/** Build the `search_docs` rows of documents number `from`..`to-1` (deterministic per number). */
export function buildRows(from: number, to: number): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (let n = from; n < to; n++) {
    const rnd = mulberry32(1_000_003 * (n + 1));
    const word = () => WORD_RANK(rnd);
    const surname = () => SURNAME_RANK(rnd);
    const words = (k: number) => Array.from({ length: k }, () => WORDS[word()]);
    // Every 10th document is the first version of the next one's parent.
    const isOld = n % 10 === 0;
    const parentNo = isOld ? n + 1 : n % 10 === 1 ? n : n;
    const id = encodeId(n + 1);
    const parentId = encodeId(10_000_000 + parentNo);
    const rt = RESOURCE_TYPES[Math.floor(rnd() * RESOURCE_TYPES.length)];
    const year = 1990 + Math.floor(rnd() * 36);
    const date =
      rnd() < 0.2
        ? String(year)
        : `${year}-${String(1 + Math.floor(rnd() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rnd() * 28)).padStart(2, '0')}`;
    const a = rnd();
    const restricted = a < 0.1;
    const metadataOnly = !restricted && a < 0.2;
    const nFiles = metadataOnly ? 0 : 1 + Math.floor(rnd() * 3);
    const entries: Record<string, any> = {};
    for (let f = 0; f < nFiles; f++) {
      const [ext, mimetype] = FILE_TYPES[Math.floor(rnd() * FILE_TYPES.length)];
      const key = `${WORDS[word()]}_${f}.${ext}`;
      entries[key] = {
        id: `${id}-${f}`,
        key,
        checksum: 'md5:d41d8cd98f00b204e9800998ecf8427e',
        ext,
        size: 1000 + Math.floor(rnd() * 1e7),
        mimetype,
        storage_class: 'L',
        metadata: {},
        access: { hidden: false },
      };
    }
    const creators = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => {
      const family = SURNAMES[surname()];
      const given = GIVEN[Math.floor(rnd() * GIVEN.length)];
      return {
        person_or_org: { type: 'personal', given_name: given, family_name: family, name: `${family}, ${given}` },
        role: { id: 'researcher', title: { en: 'Researcher' } },
        affiliations: [{ name: ORGS[Math.floor(rnd() * ORGS.length)] }],
      };
    });
    const title = words(4 + Math.floor(rnd() * 7)).join(' ');
    const metadata = {
      resource_types: [{ id: rt.id, title: { en: rt.title } }],
      title: title[0].toUpperCase() + title.slice(1),
      publication_date: date,
      creators,
      description: `<p>${words(20 + Math.floor(rnd() * 40)).join(' ')}.</p>`,
      publisher: 'Zenodo',
      subjects: words(Math.floor(rnd() * 4)).map((s) => ({ subject: s })),
      languages: [{ id: 'eng', title: { en: 'English' } }],
      rights: [{ id: 'cc-by-4.0', title: { en: 'Creative Commons Attribution 4.0 International' }, props: { scheme: 'spdx' } }],
    };
    const created = new Date(Date.UTC(2018, 0, 1) + n * 60_000 + Math.floor(rnd() * 30_000));
    const owner = `u${1 + Math.floor(rnd() * 2000)}`;
    const access = {
      record: restricted ? 'restricted' : 'public',
      files: restricted ? 'restricted' : 'public',
      embargo: { active: false, reason: null },
    } as const;
    const index = isOld ? 1 : n % 10 === 1 ? 2 : 1;
    const latestId = isOld ? encodeId(n + 2) : id;
    const parent: ParentRow = {
      id: parentId,
      owner_id: owner,
      created,
      updated: created,
      revision_id: 1,
      access: {
        owned_by: { user: owner },
        settings: { allow_user_requests: false, allow_guest_requests: false, accept_conditions_text: null, secret_link_expiration: 0 },
        grants: [],
        links: [],
      },
      communities: {},
      pids: {},
      latest_id: latestId,
      latest_index: index,
      next_draft_id: null,
    };
    const pids = {
      doi: { identifier: `10.1234/${id}`, provider: 'datacite', client: 'datacite' },
      oai: { identifier: `oai:bench:${id}`, provider: 'oai' },
    };
    const row = {
      id,
      parent_id: parentId,
      index,
      created,
      updated: created,
      revision_id: 1,
      metadata,
      custom_fields: {},
      access,
      files: { enabled: nFiles > 0, order: [], count: nFiles, total_bytes: 0, entries },
      media_files: { enabled: false, order: [] },
      pids,
      bucket_id: id,
      resource_type_type: rt.type,
      resource_type_subtype: rt.subtype,
      deletion_status: 'P',
    };
    const doc = buildDoc({ kind: 'record', row: row as any, parent, isPublished: true, files: { count: nFiles, total_bytes: 0, entries } });
    const r = searchDocRow({ kind: 'record', row: row as any, doc });
    const v = searchVectorSql(r.texts);
    const { texts: _t, ...cols } = r;
    rows.push({ ...cols, views: Math.floor(rnd() * 5000), downloads: Math.floor(rnd() * 2000), _folded: v.bindings[0] });
  }
  return rows;
}

/** Columns of search_docs written by the seed (everything but the vector). */
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

/** Insert a batch as ONE jsonb parameter; the vector is `searchVectorSql`'s, computed from the folded text. */
export async function insertRows(db: Knex, rows: Record<string, unknown>[]): Promise<void> {
  await db.raw(
    `INSERT INTO search_docs (${COLUMNS.join(', ')}, search_vector)
     SELECT ${COLUMNS.map((c) => `r.${c}`).join(', ')}, to_tsvector('simple'::regconfig, e.v->>'_folded')
       FROM jsonb_array_elements(?::jsonb) AS e(v) CROSS JOIN LATERAL jsonb_populate_record(NULL::search_docs, e.v) AS r`,
    [JSON.stringify(rows)],
  );
}

export async function seededCount(db: Knex): Promise<number> {
  await db.raw('CREATE TABLE IF NOT EXISTS bench_meta (version text NOT NULL, n integer NOT NULL)');
  const r = await db('bench_meta').first();
  return r && r.version === SEED_VERSION ? Number(r.n) : r ? -1 : 0;
}

/**
 * Make `search_docs` of `db` hold exactly documents 0..target-1: reuses a seeded prefix (adds the
 * rest), truncates a larger or other-version one (or any with `reseed`). Indexes are dropped during
 * the load and rebuilt from their catalog definitions; then VACUUM ANALYZE.
 */
export async function seedTo(db: Knex, target: number, o: { schema: string; reseed?: boolean }): Promise<void> {
  let have = o.reseed ? -1 : await seededCount(db);
  if (have < 0 || have > target) {
    await db.raw('TRUNCATE search_docs');
    await db('bench_meta').delete();
    have = 0;
  }
  if (have === target) {
    console.log(`bench: reusing ${target} seeded documents in schema ${o.schema}`);
    return;
  }
  const t0 = Date.now();
  // Why: building GIN indexes once is several times faster than maintaining them row by row;
  // the definitions are read back from the catalog, so they stay those of the migrations.
  const defs = (
    await db.raw(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'search_docs' AND indexname <> 'search_docs_pkey'`,
    )
  ).rows as { indexname: string; indexdef: string }[];
  for (const d of defs) await db.raw(`DROP INDEX IF EXISTS "${d.indexname}"`);
  // A throw-away copy: no WAL (reads are unaffected).
  await db.raw('ALTER TABLE search_docs SET UNLOGGED');
  const BATCH = 500;
  let buildMs = 0;
  let pending: Promise<unknown> = Promise.resolve();
  for (let from = have; from < target; from += BATCH) {
    const to = Math.min(target, from + BATCH);
    const tb = Date.now();
    const rows = buildRows(from, to);
    buildMs += Date.now() - tb;
    await pending; // one batch in flight while the next one is built
    pending = insertRows(db, rows);
    if ((to / BATCH) % 20 === 0) process.stdout.write(`\rbench: seeded ${to}/${target}`);
  }
  await pending;
  const ti = Date.now();
  await db.transaction(async (trx) => {
    await trx.raw("SET LOCAL maintenance_work_mem = '256MB'");
    for (const d of defs) await trx.raw(d.indexdef);
  });
  console.log(`\nbench: building documents took ${(buildMs / 1000).toFixed(1)} s, indexes ${((Date.now() - ti) / 1000).toFixed(1)} s`);
  await db('bench_meta').delete();
  await db('bench_meta').insert({ version: SEED_VERSION, n: target });
  process.stdout.write(`\rbench: seeded ${target - have} documents in ${((Date.now() - t0) / 1000).toFixed(1)} s; VACUUM ANALYZE…\n`);
  await db.raw('VACUUM ANALYZE search_docs');
}

// ---------------------------------------------------------------------------------------------
// measurement

export interface Shape {
  name: string;
  /** Query string for iteration i. */
  path: (i: number) => string;
  /** Who calls (anonymous when absent); each request is signed for itself (`shapeHeaders`). */
  as?: Identity;
}

/** The headers of one request of `shape` to `target`. */
export function shapeHeaders(shape: Shape, target: string): Record<string, string> {
  return signedHeaders(shape.as, SECRET, 'GET', target);
}

export function shapes(): Shape[] {
  const rnd = mulberry32(99);
  const pick = <T>(xs: T[], lo: number, hi: number) => xs[lo + Math.floor(rnd() * (hi - lo))];
  const auth: Identity = { sub: 'u17', roles: [] };
  const types = [...new Set(RESOURCE_TYPES.map((t) => t.type))];
  return [
    { name: 'no q (facets, mostrecent)', path: () => '/api/records' },
    { name: 'one term', path: () => `/api/records?q=${pick(WORDS, 20, 300)}` },
    { name: 'two terms', path: () => `/api/records?q=${pick(WORDS, 5, 100)}+${pick(WORDS, 5, 100)}` },
    {
      name: 'fielded (title / creator)',
      path: (i) =>
        i % 2
          ? `/api/records?q=metadata.title:${pick(WORDS, 10, 200)}`
          : `/api/records?q=metadata.creators.person_or_org.name:${pick(SURNAMES, 0, 100)}`,
    },
    { name: 'filter resource_types', path: () => `/api/records?resource_types=${pick(types, 0, types.length)}` },
    { name: 'common term, bestmatch', path: () => `/api/records?q=${pick(WORDS, 0, 4)}` },
    { name: 'page 40', path: () => '/api/records?page=40&size=25' },
    {
      name: 'publication_date filter',
      path: () => `/api/records?publication_date=${1990 + Math.floor(rnd() * 25)}--${2015 + Math.floor(rnd() * 10)}`,
    },
    { name: 'authenticated, no q', path: () => '/api/records', as: auth },
  ];
}

export interface Stats {
  p50: number;
  p99: number;
  mean: number;
  total: number;
  errors: number;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** Options of `measureAll`. */
export interface MeasureOptions {
  warmup: number;
  iterations: number;
  /** Processes whose CPU time is summed over the measured requests (this process counts as `bench client`). */
  cpu?: CpuTargets;
}

/** Per shape stats, and CPU ms per request by process over all measured requests. */
export interface Measured {
  results: [string, Stats][];
  cpuPerRequest: Record<string, number>;
}

/**
 * Measure every shape, round-robin (one request of each shape in turn), so that load from other
 * processes on the machine spreads evenly over the shapes.
 */
export async function measureAll(base: string, list: Shape[], o: MeasureOptions): Promise<Measured> {
  const { warmup: WARMUP, iterations: ITERATIONS } = o;
  let cpu0 = cpuSnapshot(o.cpu ?? { procs: {}, database: null });
  const times = list.map(() => [] as number[]);
  const totals = list.map(() => 0);
  const errors = list.map(() => 0);
  const codes = new Map<string, number>();
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    if (i === WARMUP) cpu0 = cpuSnapshot(o.cpu ?? { procs: {}, database: null });
    for (let k = 0; k < list.length; k++) {
      const shape = list[k];
      const t0 = performance.now();
      let status = 'ERR';
      let body: any;
      try {
        const target = shape.path(i);
        const res = await fetch(`${base}${target}`, { headers: shapeHeaders(shape, target) });
        status = String(res.status);
        body = await res.json().catch(() => undefined);
      } catch {
        // connection refused or reset: counted as an error
      }
      const ms = performance.now() - t0;
      if (status !== '200') {
        errors[k]++;
        codes.set(status, (codes.get(status) ?? 0) + 1);
      }
      if (i >= WARMUP) {
        times[k].push(ms);
        totals[k] += body?.hits?.total ?? 0;
      }
    }
  }
  const cpu = cpuDelta(cpu0, cpuSnapshot(o.cpu ?? { procs: {}, database: null }));
  const requests = ITERATIONS * list.length;
  if (codes.size) console.log(`bench: non-200 answers from ${base}: ${[...codes].map(([c, n]) => `${c}×${n}`).join(', ')}`);
  const results = list.map((shape, k): [string, Stats] => {
    const t = times[k].sort((a, b) => a - b);
    return [
      shape.name,
      {
        p50: pct(t, 50),
        p99: pct(t, 99),
        mean: t.reduce((s, x) => s + x, 0) / t.length,
        total: Math.round(totals[k] / ITERATIONS),
        errors: errors[k],
      },
    ];
  });
  return { results, cpuPerRequest: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v / requests])) };
}

export function printTable(title: string, results: [string, Stats][]): void {
  console.log(`\n${title}`);
  console.log(
    `  ${'shape'.padEnd(28)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'mean ms'.padStart(8)} ${'avg hits'.padStart(9)} ${'errors'.padStart(7)}`,
  );
  for (const [name, s] of results) {
    console.log(
      `  ${name.padEnd(28)} ${s.p50.toFixed(1).padStart(8)} ${s.p99.toFixed(1).padStart(8)} ${s.mean.toFixed(1).padStart(8)} ${String(s.total).padStart(9)} ${String(s.errors).padStart(7)}`,
    );
  }
}

/** Resolves the corpus's resource types as the vocabularies service would. */
const vocabularies: VocabulariesPort = {
  async resolve(items) {
    return items.map((i) => {
      const rt = RESOURCE_TYPES.find((t) => t.id === i.id);
      return rt ? { ...i, found: true, entry: { id: rt.id, title: { en: rt.title } } } : { ...i, found: false };
    });
  },
};

/**
 * The records koa app (its search routes included) on an ephemeral loopback port, on the postgres
 * indexer or (with `engineIndex`) on OpenSearch/Elasticsearch. Returns its base URL and a closer.
 */
export async function startRecordsApp(db: Knex, engineIndex?: EngineIndexer): Promise<{ base: string; close: () => void }> {
  const { app } = createApp({
    config: {
      PUBLIC_BASE_URL: 'http://127.0.0.1:5000',
      IDENTITY_SECRET: SECRET,
      DOI_PREFIX: '10.1234',
      DOI_RESOLVER_URL: 'https://doi.org',
      OAI_ID_PREFIX: '',
      SITE_NAME: 'Bench',
    },
    logger: testLogger('records-bench'),
    db,
    files: {} as never,
    vocabularies,
    engineIndex,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
