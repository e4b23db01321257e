/**
 * Benchmark of the interoperability surface of the records service:
 *
 * (a) OAI-PMH full harvest: `ListRecords` with `oai_dc` over every page (following the resumption
 *     tokens, as a harvester does) of BENCH_OAI_RECORDS (100,000) published records, through the
 *     records service's own koa app (createApp, an ephemeral loopback port, one client) — records/s
 *     and per-page p50/p99. Aim: ≥ 2,000 records/s.
 * (b) Export rendering: every export format (`EXPORT_FORMATS`: JSON, UI JSON, JSON-LD, DataCite
 *     JSON/XML, CSL, BibTeX, Dublin Core, MARCXML, DCAT-AP, GeoJSON, linkset) rendering the full
 *     fixture record for BENCH_EXPORT_MS (2000 ms) each in this one process — renders/s per core.
 *     Aim: every format ≥ 1,000 renders/s per core.
 *
 *   pnpm exec tsx scripts/bench/oai-export.bench.ts        (or `make bench`)
 *
 * Data: a dedicated schema `bench_oai` (role `rdm_bench_oai`) migrated with the records
 * migrations; one record document built by the records service's own `buildDoc` + `searchDocRow`,
 * copied in bulk (`services/records/test/support/bulk-records.ts`, 7 copies per datestamp, 1 in
 * 500 deleted). Dropped at the end unless BENCH_KEEP=1. Env: BENCH_OAI_RECORDS, BENCH_EXPORT_MS.
 * Prints numbers only; nothing asserts speed.
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
} from '../../services/_platform/src/index.js';
import { testLogger } from '../../services/_platform/src/testing/index.js';
import { createApp } from '../../services/records/src/app.js';
import type { ParentRow } from '../../services/records/src/domain/model.js';
import { searchDocRow } from '../../services/records/src/search/search-doc.js';
import { buildDoc } from '../../services/records/src/domain/serializers.js';
import { EXPORT_FORMATS } from '../../services/records/src/export/formats.js';
import { fixtureContext, fixtureRecord } from '../../services/records/src/export/test-fixture.js';
import { copyPublishedRecord } from '../../services/records/test/support/bulk-records.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
const SCHEMA = 'bench_oai';
const N = Math.max(1, Number(process.env.BENCH_OAI_RECORDS ?? 100_000) || 100_000);
const EXPORT_MS = Math.max(100, Number(process.env.BENCH_EXPORT_MS ?? 2000) || 2000);
const KEEP = process.env.BENCH_KEEP === '1';
const HARVEST_AIM = 2000;
const RENDER_AIM = 1000;
const load = () => loadavg()[0].toFixed(2);
const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];

/** Insert the template record's search document (the write path's builders). */
async function insertTemplate(db: Knex): Promise<string> {
  const f = fixtureRecord();
  const id = 'tmpl0-00000';
  const created = new Date('2024-01-01T00:00:00Z');
  const parent: ParentRow = {
    id: 'tmplp-00000',
    owner_id: '1',
    created,
    updated: created,
    revision_id: 1,
    access: {
      owned_by: { user: '1' },
      settings: { allow_user_requests: false, allow_guest_requests: false, accept_conditions_text: null, secret_link_expiration: 0 },
      grants: [],
      links: [],
    },
    communities: {},
    pids: {},
    latest_id: id,
    latest_index: 1,
    next_draft_id: null,
  } as ParentRow;
  const row = {
    id,
    parent_id: parent.id,
    index: 1,
    created,
    updated: created,
    revision_id: 1,
    metadata: f.metadata,
    custom_fields: {},
    access: { record: 'public', files: 'public', embargo: { active: false, reason: null } },
    files: { enabled: false, order: [], count: 0, total_bytes: 0, entries: {} },
    media_files: { enabled: false, order: [] },
    pids: { oai: { identifier: `oai:bench:${id}`, provider: 'oai' } },
    bucket_id: id,
    resource_type_type: 'dataset',
    resource_type_subtype: null,
    deletion_status: 'P',
  };
  const doc = buildDoc({ kind: 'record', row: row as any, parent, isPublished: true, files: { count: 0, total_bytes: 0, entries: {} } });
  const r = searchDocRow({ kind: 'record', row: row as any, doc });
  const { texts, ...cols } = r;
  const v = searchVectorSql(texts);
  await db('search_docs').insert({ ...cols, doc: JSON.stringify(cols.doc), search_vector: db.raw(v.sql, v.bindings) });
  return id;
}

/** Harvest every page; returns records, pages, seconds and per-page times. */
async function harvest(base: string): Promise<{ records: number; deleted: number; pages: number; seconds: number; pageMs: number[] }> {
  let url = `${base}/oai2d?verb=ListRecords&metadataPrefix=oai_dc`;
  let records = 0;
  let deleted = 0;
  const pageMs: number[] = [];
  const t0 = performance.now();
  for (;;) {
    const tp = performance.now();
    const res = await fetch(url);
    const xml = await res.text();
    pageMs.push(performance.now() - tp);
    if (res.status !== 200) throw new Error(`ListRecords answered ${res.status}`);
    records += (xml.match(/<record>/g) ?? []).length;
    deleted += (xml.match(/<header status="deleted">/g) ?? []).length;
    const token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(xml)?.[1];
    if (!token) break;
    url = `${base}/oai2d?verb=ListRecords&resumptionToken=${encodeURIComponent(token.replace(/&amp;/g, '&'))}`;
  }
  return { records, deleted, pages: pageMs.length, seconds: (performance.now() - t0) / 1000, pageMs };
}

/** Renders per second of each export format on the fixture record (one core). */
function renderRates(): { name: string; perSecond: number; bytes: number }[] {
  const r = fixtureRecord();
  const ctx = fixtureContext();
  return EXPORT_FORMATS.map((f) => {
    for (let i = 0; i < 200; i++) f.render(r, ctx); // warm-up (JIT)
    let n = 0;
    let bytes = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < EXPORT_MS) {
      for (let i = 0; i < 50; i++) {
        const out = f.render(r, ctx);
        // Without `ctx.citations` every format renders synchronously (only citations go to a worker).
        if (typeof out !== 'string') throw new Error(`${f.name}: rendered asynchronously`);
        bytes = out.length;
      }
      n += 50;
    }
    return { name: f.name, perSecond: n / ((performance.now() - t0) / 1000), bytes };
  });
}

let exitCode = 0;
let db: Knex | undefined;
let server: ReturnType<ReturnType<typeof createApp>['app']['listen']> | undefined;
try {
  console.log(`bench: export rendering, ${EXPORT_MS} ms per format (load ${load()})`);
  const rates = renderRates();
  for (const x of rates)
    console.log(`  ${x.name.padEnd(14)} ${Math.round(x.perSecond).toLocaleString('en').padStart(9)} renders/s  (${x.bytes} bytes)`);

  await ensureServiceSchema(DATABASE_URL, SCHEMA);
  db = createDb({ url: DATABASE_URL, service: SCHEMA, pool: { max: 4 } });
  await migrate(db, { service: SCHEMA, dir: fileURLToPath(new URL('../../services/records/src/db/migrations', import.meta.url)) });
  await db.raw('TRUNCATE search_docs');
  const ts = performance.now();
  const template = await insertTemplate(db);
  const copies =
    N > 1
      ? await copyPublishedRecord(db, template, N - 1, {
          prefix: 'bh',
          oaiNamespace: 'bench',
          from: new Date('2024-02-01T00:00:00Z'),
          deletedEvery: 500,
        })
      : { deleted: 0 };
  await db.raw('VACUUM ANALYZE search_docs');
  console.log(
    `bench: seeded ${N.toLocaleString('en')} records (${copies.deleted} deleted) in ${((performance.now() - ts) / 1000).toFixed(1)} s`,
  );

  const { app } = createApp({
    config: {
      PUBLIC_BASE_URL: 'http://127.0.0.1:5000',
      IDENTITY_SECRET: 'bench-identity-secret-0123456789',
      DOI_PREFIX: '10.1234',
      DOI_RESOLVER_URL: 'https://doi.org',
      OAI_ID_PREFIX: 'bench',
      SITE_NAME: 'Bench',
    },
    logger: testLogger('records-bench'),
    db,
    files: {} as never,
    vocabularies: { resolve: async (items) => items.map((i) => ({ ...i, found: false })) },
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server!.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  console.log(`bench: full ListRecords harvest (oai_dc) of ${N.toLocaleString('en')} records (load ${load()})`);
  const h = await harvest(base);
  const sorted = [...h.pageMs].sort((a, b) => a - b);
  const rate = h.records / h.seconds;
  console.log(`  ${h.records} records (${h.deleted} deleted headers) in ${h.pages} pages, ${h.seconds.toFixed(1)} s`);
  if (h.records !== N) {
    console.error(`bench: harvested ${h.records} records, expected ${N}`);
    exitCode = 1;
  }

  console.log('\n=== oai-export bench summary ===');
  console.log(
    `  OAI-PMH ListRecords oai_dc, ${N.toLocaleString('en')} records: ${Math.round(rate).toLocaleString('en')} records/s, page p50 ${pct(sorted, 50).toFixed(0)} ms p99 ${pct(sorted, 99).toFixed(0)} ms (aim ≥ ${HARVEST_AIM}: ${rate >= HARVEST_AIM ? 'met' : 'NOT met'}; load ${load()})`,
  );
  const slowest = rates.reduce((a, b) => (a.perSecond < b.perSecond ? a : b));
  console.log(
    `  export renders/s per core: ${rates.map((x) => `${x.name} ${Math.round(x.perSecond)}`).join(', ')} (slowest ${slowest.name}; aim ≥ ${RENDER_AIM} each: ${slowest.perSecond >= RENDER_AIM ? 'met' : 'NOT met'})`,
  );
  console.log(
    JSON.stringify({
      bench: 'oai-export',
      records: N,
      harvestPerSecond: Math.round(rate),
      renders: Object.fromEntries(rates.map((x) => [x.name, Math.round(x.perSecond)])),
    }),
  );
} catch (err) {
  console.error(`bench failed: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  server?.close();
  await db?.destroy();
  if (!KEEP) await dropServiceSchema(DATABASE_URL, SCHEMA).catch((e) => console.error(`bench: could not drop ${SCHEMA}: ${e.message}`));
}
process.exit(exitCode);
