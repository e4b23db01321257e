/**
 * Benchmark: record search (`GET /api/records` with facets) at 10,000 and 100,000 published
 * records, through the records service's own koa app (createApp + the search routes, on an
 * ephemeral loopback port) and, when a stack answers at BENCH_BASE_URL, through its gateway.
 *
 *   pnpm exec tsx scripts/bench/records-search.bench.ts        (or `make bench`)
 *
 * - Data: a dedicated schema `bench_records` (role `rdm_bench_records`) in DATABASE_URL, migrated
 *   with the records migrations, seeded in bulk with documents built by the records service's
 *   own `buildDoc` + `searchDocRow` + `searchVectorSql` (the code path of every write): titles and
 *   descriptions from a Zipf-distributed synthetic word list, 1–4 creators from 1,000 surnames,
 *   30 resource types, publication years 1990–2025, access open / metadata-only / restricted,
 *   0–3 files of 10 types, 10 % of parents with two versions. Then `ANALYZE` + `VACUUM`.
 * - Shapes (anonymous unless noted): no q; one mid-frequency term; two terms; a fielded term
 *   (`metadata.title:` / `metadata.creators.person_or_org.name:`); a resource type filter; a
 *   very common term ranked by bestmatch; page 40; a date filter; authenticated no q.
 *   BENCH_WARMUP (10) then BENCH_ITERATIONS (100) rounds of one sequential request per shape
 *   (round-robin, so load from other processes spreads over all shapes); p50/p99/mean in ms.
 * - Gateway: BENCH_BASE_URL (default http://127.0.0.1:5000, loopback only) is measured with the
 *   same shapes when `GET /api/records` answers 200 there; it serves that stack's own data.
 * - Env: BENCH_SIZES (10000,100000), BENCH_KEEP=1 keeps the schema (and reuses a seeded one on
 *   the next run; BENCH_RESEED=1 rebuilds), BENCH_EXPLAIN=1 prints EXPLAIN ANALYZE of each shape.
 * Prints numbers only; the p99 ≤ 100 ms target at 100,000 records is reported, not enforced.
 */
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  createDb,
  dropServiceSchema,
  ensureServiceSchema,
  type Knex,
  migrate,
  searchVectorSql,
  signIdentity,
} from '../../services/_platform/src/index.js';
import { testLogger } from '../../services/_platform/src/testing/index.js';
import { createApp } from '../../services/records/src/app.js';
import { encodeId } from '../../services/records/src/domain/ids.js';
import type { ParentRow } from '../../services/records/src/domain/model.js';
import { searchDocRow } from '../../services/records/src/search/search-doc.js';
import { buildDoc } from '../../services/records/src/domain/serializers.js';
import { registerSearchRoutes } from '../../services/records/src/http/search.routes.js';
import type { VocabulariesPort } from '../../services/records/src/rpc/vocabularies.client.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
const SCHEMA = 'bench_records';
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0)
  .sort((a, b) => a - b);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const KEEP = process.env.BENCH_KEEP === '1';
const RESEED = process.env.BENCH_RESEED === '1';
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const SECRET = 'bench-identity-secret-0123456789';
const P99_TARGET_MS = 100;
const SEED_VERSION = 'v1';

// ---------------------------------------------------------------------------------------------
// deterministic synthetic data

function mulberry32(seed: number) {
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

const RESOURCE_TYPES: { id: string; type: string; subtype: string | null; title: string }[] = [
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

const WORDS = wordList(5000, 42);
const SURNAMES = wordList(1200, 7)
  .slice(200)
  .map((w) => w[0].toUpperCase() + w.slice(1));
const GIVEN = wordList(200, 9).map((w) => w[0].toUpperCase() + w.slice(1));
const WORD_RANK = zipf(WORDS.length, 1.0);
const SURNAME_RANK = zipf(SURNAMES.length, 0.8);
const ORGS = wordList(60, 11).map((w) => `University of ${w[0].toUpperCase()}${w.slice(1)}`);

/** Build the `search_docs` rows of documents number `from`..`to-1` (deterministic per number). */
function buildRows(from: number, to: number): Record<string, unknown>[] {
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
    const r = searchDocRow(doc, { kind: 'record', hasDraft: false, rtType: rt.type, rtSubtype: rt.subtype, created, updated: created });
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
async function insertRows(db: Knex, rows: Record<string, unknown>[]): Promise<void> {
  await db.raw(
    `INSERT INTO search_docs (${COLUMNS.join(', ')}, search_vector)
     SELECT ${COLUMNS.map((c) => `r.${c}`).join(', ')}, to_tsvector('simple'::regconfig, e.v->>'_folded')
       FROM jsonb_array_elements(?::jsonb) AS e(v) CROSS JOIN LATERAL jsonb_populate_record(NULL::search_docs, e.v) AS r`,
    [JSON.stringify(rows)],
  );
}

async function seededCount(db: Knex): Promise<number> {
  await db.raw('CREATE TABLE IF NOT EXISTS bench_meta (version text NOT NULL, n integer NOT NULL)');
  const r = await db('bench_meta').first();
  return r && r.version === SEED_VERSION ? Number(r.n) : r ? -1 : 0;
}

async function seedTo(db: Knex, target: number): Promise<void> {
  let have = RESEED ? -1 : await seededCount(db);
  if (have < 0 || have > target) {
    await db.raw('TRUNCATE search_docs');
    await db('bench_meta').delete();
    have = 0;
  }
  if (have === target) {
    console.log(`bench: reusing ${target} seeded documents in schema ${SCHEMA}`);
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

interface Shape {
  name: string;
  /** Query string for iteration i. */
  path: (i: number) => string;
  headers?: Record<string, string>;
}

function shapes(): Shape[] {
  const rnd = mulberry32(99);
  const pick = <T>(xs: T[], lo: number, hi: number) => xs[lo + Math.floor(rnd() * (hi - lo))];
  const auth = { 'x-rdm-identity': signIdentity({ sub: 'u17', roles: [] }, SECRET) };
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
    { name: 'authenticated, no q', path: () => '/api/records', headers: auth },
  ];
}

interface Stats {
  p50: number;
  p99: number;
  mean: number;
  total: number;
  errors: number;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * Measure every shape, round-robin (one request of each shape in turn), so that load from other
 * processes on the machine spreads evenly over the shapes.
 */
async function measureAll(base: string, list: Shape[]): Promise<[string, Stats][]> {
  const times = list.map(() => [] as number[]);
  const totals = list.map(() => 0);
  const errors = list.map(() => 0);
  const codes = new Map<string, number>();
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    for (let k = 0; k < list.length; k++) {
      const shape = list[k];
      const t0 = performance.now();
      let status = 'ERR';
      let body: any;
      try {
        const res = await fetch(`${base}${shape.path(i)}`, { headers: shape.headers });
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
  if (codes.size) console.log(`bench: non-200 answers from ${base}: ${[...codes].map(([c, n]) => `${c}×${n}`).join(', ')}`);
  return list.map((shape, k) => {
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
}

function printTable(title: string, results: [string, Stats][]): void {
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

async function explainShapes(db: Knex, base: string): Promise<void> {
  const seen: { sql: string; bindings: unknown[] }[] = [];
  const listener = (q: { sql: string; bindings?: unknown[] }) => {
    if (/search_docs/.test(q.sql)) seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  };
  db.on('query', listener);
  for (const s of shapes()) {
    seen.length = 0;
    await fetch(`${base}${s.path(1)}`, { headers: s.headers }).then((r) => r.text());
    console.log(`\n===== EXPLAIN ${s.name}: ${s.path(1)}`);
    for (const q of [...seen]) {
      const plan = await db.raw(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql.replace(/\$\d+/g, '?')}`, q.bindings as Knex.RawBinding[]);
      console.log(plan.rows.map((r: any) => r['QUERY PLAN']).join('\n'));
    }
  }
  db.off('query', listener);
}

async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(1500) });
    await r.text();
    return r.status === 200;
  } catch {
    return false;
  }
}

function loopback(url: string): string {
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname))
    throw new Error(`BENCH_BASE_URL must be a loopback address (got ${u.hostname})`);
  return `${u.protocol}//${u.host}`;
}

// ---------------------------------------------------------------------------------------------

const deadline = setTimeout(() => {
  console.error('bench: global time limit (15 min) reached; stopping');
  process.exit(1);
}, 15 * 60_000);
deadline.unref();

let exitCode = 0;
let db: Knex | undefined;
let server: ReturnType<ReturnType<typeof createApp>['app']['listen']> | undefined;
const summary: Record<string, Record<string, { p50: number; p99: number }>> = {};
try {
  await ensureServiceSchema(DATABASE_URL, SCHEMA);
  db = createDb({ url: DATABASE_URL, service: SCHEMA, pool: { max: 10 } });
  await migrate(db, { service: SCHEMA, dir: fileURLToPath(new URL('../../services/records/src/db/migrations', import.meta.url)) });

  const vocab: VocabulariesPort = {
    async resolve(items) {
      return items.map((i) => {
        const rt = RESOURCE_TYPES.find((t) => t.id === i.id);
        return rt ? { ...i, found: true, entry: { id: rt.id, title: { en: rt.title } } } : { ...i, found: false };
      });
    },
  };
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
    vocabularies: vocab,
    extraRoutes: [registerSearchRoutes],
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server!.once('listening', r));
  const appBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  for (const size of SIZES) {
    await seedTo(db, size);
    const results = await measureAll(appBase, shapes());
    printTable(
      `records app directly, ${size.toLocaleString('en')} documents (${ITERATIONS} sequential requests per shape, round-robin)`,
      results,
    );
    summary[`app@${size}`] = Object.fromEntries(results.map(([n, s]) => [n, { p50: +s.p50.toFixed(1), p99: +s.p99.toFixed(1) }]));
    if (EXPLAIN) await explainShapes(db, appBase);
    const worst = Math.max(...results.map(([, s]) => s.p99));
    if (size >= 100_000)
      console.log(
        `\nworst p99 at ${size}: ${worst.toFixed(1)} ms vs target ${P99_TARGET_MS} ms: ${worst <= P99_TARGET_MS ? 'met' : 'NOT met'}`,
      );
    if (results.some(([, s]) => s.errors > 0)) exitCode = 1;
  }

  const gw = loopback(process.env.BENCH_BASE_URL ?? 'http://127.0.0.1:5000');
  if (await answers(`${gw}/api/records?size=1`)) {
    const total = ((await (await fetch(`${gw}/api/records?size=1`)).json()) as any).hits.total;
    const results = await measureAll(
      gw,
      shapes().filter((x) => !x.headers),
    );
    printTable(`gateway ${gw} (that stack's own data: ${total} visible records)`, results);
    summary[`gateway@${total}`] = Object.fromEntries(results.map(([n, s]) => [n, { p50: +s.p50.toFixed(1), p99: +s.p99.toFixed(1) }]));
  } else {
    console.log(`\nbench: no stack answers ${gw}/api/records; gateway run skipped (set BENCH_BASE_URL)`);
  }
  console.log('\n=== records-search bench summary ===');
  for (const [run, shapesOf] of Object.entries(summary)) {
    const v = Object.values(shapesOf);
    const worst = Math.max(...v.map((x) => x.p99));
    const p50s = v.map((x) => x.p50).sort((a, b) => a - b);
    console.log(
      `  ${run.padEnd(16)} worst p99 ${worst.toFixed(1)} ms${run === 'app@100000' ? ` (aim ≤ ${P99_TARGET_MS}: ${worst <= P99_TARGET_MS ? 'met' : 'NOT met'})` : ''}, median p50 ${p50s[Math.floor(p50s.length / 2)].toFixed(1)} ms over ${v.length} shapes (load ${loadavg()[0].toFixed(2)})`,
    );
  }
  console.log(JSON.stringify({ bench: 'records-search', iterations: ITERATIONS, summary }));
} catch (err) {
  console.error(`bench failed: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  server?.close();
  await db?.destroy();
  if (!KEEP) await dropServiceSchema(DATABASE_URL, SCHEMA).catch((e) => console.error(`bench: could not drop ${SCHEMA}: ${e.message}`));
}
process.exit(exitCode);
