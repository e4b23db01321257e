/**
 * ROR import at real scale (issue 25): BENCH_ROR_ORGS generated ROR schema v2 organisations
 * (default 120,000, a quarter of them funders) written as a ROR release zip, then imported by the
 * real command (`tsx src/main.ts import`, as `make vocabularies-import` runs it) into a private
 * database: prints the time, entries/s and the command's peak RSS; then the same dump again, which
 * must change no revision.
 *
 *   pnpm exec tsx scripts/bench/vocabularies-import.bench.ts        (or `make bench`)
 *
 * Database: BENCH_DATABASE (default rdm_bench_vocimport) on DATABASE_URL's server, dropped and
 * created afresh (pg borrowed from the platform package). NATS_URL as the services use it. Targets of the
 * issue (not asserted): ≤ 60 s, ≤ 300 MB. Exits 1 when an import fails or the re-import changes a revision.
 * @bench-timeout-seconds 1500
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { organizations, writeRorZip } from '../../services/vocabularies/test/support/ror-dump.js';

const ORGS = Math.max(1000, Number(process.env.BENCH_ROR_ORGS ?? 120_000));
const SERVER = process.env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
const DB_NAME = process.env.BENCH_DATABASE ?? 'rdm_bench_vocimport';
const url = new URL(SERVER);
url.pathname = `/${DB_NAME}`;
const serviceDir = fileURLToPath(new URL('../../services/vocabularies/', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const load = () => loadavg()[0].toFixed(2);

/** Run the service's command; resolves with its stdout (its progress goes to our stderr). */
function command(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, ['src/main.ts', ...args], {
      cwd: serviceDir,
      env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args[0]} exited ${code}:\n${out}`))));
  });
}

type PgClient = { connect(): Promise<void>; query(sql: string): Promise<{ rows: unknown[] }>; end(): Promise<void> };
const pg = createRequire(fileURLToPath(new URL('../../services/_platform/package.json', import.meta.url)))('pg') as {
  Client: new (o: object) => PgClient;
};
if (!/^[a-z_][a-z0-9_]*$/.test(DB_NAME)) throw new Error(`BENCH_DATABASE '${DB_NAME}' must be a plain identifier`);
const admin = new pg.Client({ connectionString: SERVER, connectionTimeoutMillis: 3000 });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
await admin.query(`CREATE DATABASE "${DB_NAME}"`);
await admin.end();
const db = new pg.Client({ connectionString: url.toString() });
await db.connect();
const REVISIONS =
  "SELECT count(*)::int AS n, coalesce(sum(revision_id), 0)::int AS s FROM vocabularies.entries WHERE type IN ('affiliations', 'funders')";

const dir = await mkdtemp(join(tmpdir(), 'ror-bench-'));
const zip = join(dir, 'v1.58-2024-12-11-ror-data.zip');
let status = 0;
try {
  const t0 = Date.now();
  await writeRorZip(zip, organizations(ORGS));
  console.error(
    `generated ${ORGS.toLocaleString('en')} organisations (${((await stat(zip)).size / 1e6).toFixed(1)} MB zip) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  await command(['migrate']);
  const runs: { label: string; seconds: number; rss: string; out: string }[] = [];
  for (const label of ['first import', 're-import (unchanged)']) {
    const revBefore = await db.query(REVISIONS);
    const startLoad = load();
    const t = Date.now();
    const out = await command(['import', '--type', 'affiliations', '--source', zip]);
    const seconds = (Date.now() - t) / 1000;
    const rss = /peak memory \(RSS\): (\d+) MB/.exec(out)?.[1] ?? '?';
    runs.push({ label: `${label} (load ${startLoad} → ${load()})`, seconds, rss, out });
    if (!/status: SUCCESS/.test(out)) status = 1;
    if (label.startsWith('re-import')) {
      const revAfter = await db.query(REVISIONS);
      if (JSON.stringify(revAfter.rows) !== JSON.stringify(revBefore.rows) || !/affiliations: 0 added, 0 updated, 0 deprecated/.test(out)) {
        console.error('the re-import changed entries');
        status = 1;
      }
    }
  }
  console.log('\n=== vocabularies-import bench summary ===');
  console.log(
    `${ORGS.toLocaleString('en')} ROR organisations (schema v2 zip) → affiliations + funders, batches of 1,000, private database ${DB_NAME}`,
  );
  for (const r of runs) {
    console.log(
      `${r.label}: ${r.seconds.toFixed(1)} s (${Math.round(ORGS / r.seconds).toLocaleString('en')} entries/s, command incl. start), peak RSS ${r.rss} MB`,
    );
    for (const line of r.out.split('\n').filter((l) => /^\s+(affiliations|funders|rejected):/.test(l))) console.log(`  ${line.trim()}`);
  }
} catch (err) {
  console.error(err);
  status = 1;
} finally {
  await db.end();
  await rm(dir, { recursive: true, force: true });
}
process.exit(status);
