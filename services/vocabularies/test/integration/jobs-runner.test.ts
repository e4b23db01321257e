/**
 * The import runner against real PostgreSQL: a ROR dump applied in checkpointed batches, idempotent
 * re-imports, deprecation, rejected entries, unreadable files, a worker dying mid-run and another
 * one resuming from the checkpoint without duplicates, and concurrent claims.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createLogger } from '@rdm/platform';
import { type TestDb, testDb } from '@rdm/platform/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadVocabularies } from '../../src/domain/loader.service.js';
import { executeRun, IMPORT_TASK, type RunnerDeps } from '../../src/jobs/import-runner.js';
import { claimRun, getRun, insertJob, insertRun, listErrors } from '../../src/repo/jobs.repo.js';
import { organizations, rorId, rorOrganization, writeRorZip } from '../support/ror-dump.js';
import { csvLicenses, yamlSubjects } from '../support/vocabulary-files.js';
import { fixtureSet } from './setup.js';

let t: TestDb;
let dir: string;
let deps: RunnerDeps;
const logger = createLogger('vocabularies-jobs-test', process.env.TEST_LOG_LEVEL ?? 'silent');

beforeAll(async () => {
  t = await testDb('vocabularies', { pool: { max: 6 } });
  dir = await mkdtemp(join(tmpdir(), 'ror-import-'));
  deps = { db: t.db, logger, importDir: dir, batchSize: 7, leaseMs: 60_000 };
});
afterAll(async () => {
  await t?.destroy();
  await rm(dir, { recursive: true, force: true });
});

/** Queue a run of a new import job for `source`; returns its ids. */
async function queue(source: string, type = 'affiliations', extra: Record<string, unknown> = {}) {
  const jobId = randomUUID();
  const runId = randomUUID();
  const args = { type, format: 'ror-v2', source, ...extra };
  await insertJob(t.db, {
    id: jobId,
    title: 'ROR',
    description: null,
    task: IMPORT_TASK,
    active: true,
    default_args: args,
    created_by: '1',
  });
  await insertRun(t.db, { id: runId, job_id: jobId, title: 'Manual run', args, started_by_id: '1' });
  return { jobId, runId };
}

/** Claim the queued run as `worker` and execute it. */
async function runQueued(worker = `w-${randomUUID()}`, d: RunnerDeps = deps) {
  const run = await claimRun(t.db, worker, d.leaseMs);
  if (!run) throw new Error('nothing queued');
  const outcome = await executeRun(d, run, worker);
  return { outcome, run: (await getRun(t.db, run.job_id, run.id))! };
}

const revisions = async (type: string) =>
  Object.fromEntries(
    ((await t.db('entries').select('id', 'revision_id').where({ type })) as { id: string; revision_id: number }[]).map((r) => [
      r.id,
      r.revision_id,
    ]),
  );
const entry = (type: string, id: string) => t.db('entries').select('revision_id', 'tags', 'name', 'extra').where({ type, id }).first();
const outboxCount = async () => Number(((await t.db('outbox').count('* as n').first()) as { n: string }).n);

describe(executeRun.name, () => {
  describe('a ROR dump', () => {
    const v1 = () => join(dir, 'v1.zip');
    beforeAll(async () => {
      const ror = fixtureSet().vocabularies.filter((v) => v.type === 'affiliations' || v.type === 'funders');
      await loadVocabularies(t.db, ror);
      await writeRorZip(
        v1(),
        organizations(40, 0, (i) => (i === 7 ? { status: 'withdrawn' } : {})),
      );
    });

    it('should import affiliations and funders in checkpointed batches, deprecate what the dump lacks and announce the changes', async () => {
      const before = await outboxCount();
      await queue('v1.zip');
      const { outcome, run } = await runQueued();
      expect(outcome).toBe('finished');
      expect(run).toMatchObject({ status: 'SUCCESS', phase: 'done', position: 40, total_entries: 40, errored_entries: 0 });
      // Every fixture affiliation/funder (ROR ids the generated dump does not hold) is deprecated; 1 withdrawn org added as such.
      expect(run.counts).toEqual({
        affiliations: { added: 40, updated: 0, unchanged: 0, deprecated: 17 },
        funders: { added: 10, updated: 0, unchanged: 0, deprecated: 21 },
      });
      expect(run.bytes_total).toBeGreaterThan(0);
      expect(run.bytes_read).toBe(run.bytes_total);
      const first = rorId(1_000_000);
      expect(await entry('affiliations', first)).toMatchObject({ revision_id: 1, tags: [], name: 'Institute of Physics Genève 0' });
      expect(await entry('funders', first)).toMatchObject({ revision_id: 1 });
      expect((await entry('affiliations', rorId(1_000_000 + 7 * 7919)))?.tags).toEqual(['deprecated']);
      expect(await entry('affiliations', '01ggx4157')).toMatchObject({ revision_id: 2, tags: ['deprecated'] });
      expect(Number(((await t.db('entries').count('* as n').where({ type: 'affiliations' }).first()) as { n: string }).n)).toBe(57);
      // Batches of 7 → 6 batches writing affiliations, deprecation batches: each announced in the outbox.
      const events = await t.db('outbox').select('subject', 'payload').where('seq', '>', 0).orderBy('seq');
      const loaded = events.filter((e) => e.subject === 'rdm.vocabularies.vocabulary.loaded').map((e) => e.payload.data.type);
      expect(loaded.filter((x) => x === 'affiliations').length).toBeGreaterThanOrEqual(7);
      const changedIds = events
        .filter((e) => e.subject === 'rdm.vocabularies.entries.changed' && e.payload.data.type === 'affiliations')
        .flatMap((e) => e.payload.data.ids);
      expect(changedIds).toContain(first);
      expect(changedIds).toContain('01ggx4157');
      expect(await outboxCount()).toBeGreaterThan(before);
      // The run's memory of written ids is dropped once it finished.
      expect(await t.db('job_run_entries').where({ run_id: run.id }).count('* as n').first()).toEqual({ n: '0' });
    });

    it('should change no revision and announce nothing when the same dump is imported again', async () => {
      const aff = await revisions('affiliations');
      const fun = await revisions('funders');
      const before = await outboxCount();
      await queue('v1.zip');
      const { run } = await runQueued();
      expect(run.status).toBe('SUCCESS');
      expect(run.counts).toEqual({
        affiliations: { added: 0, updated: 0, unchanged: 40, deprecated: 0 },
        funders: { added: 0, updated: 0, unchanged: 10, deprecated: 0 },
      });
      expect(await revisions('affiliations')).toEqual(aff);
      expect(await revisions('funders')).toEqual(fun);
      expect(await outboxCount()).toBe(before);
    });

    it('should update changed entries, deprecate newly withdrawn and missing ones, and keep the rest', async () => {
      // Org 1 renamed, org 2 withdrawn, org 39 gone, org 40 new.
      const next = join(dir, 'v2.zip');
      await writeRorZip(
        next,
        organizations(40, 1, (i) =>
          i === 1 ? { suffix: ' (renamed)' } : i === 2 ? { status: 'withdrawn' } : i === 7 ? { status: 'withdrawn' } : {},
        ),
      );
      const aff = await revisions('affiliations');
      await queue('v2.zip');
      const { run } = await runQueued();
      expect(run.counts.affiliations).toEqual({ added: 1, updated: 1, unchanged: 37, deprecated: 2 });
      const id = (i: number) => rorId(1_000_000 + i * 7919);
      expect(await entry('affiliations', id(1))).toMatchObject({ revision_id: 2, name: 'University of Physics München 1 (renamed)' });
      expect(await entry('affiliations', id(2))).toMatchObject({ revision_id: 2, tags: ['deprecated'] });
      expect(await entry('affiliations', id(0))).toMatchObject({ revision_id: 2, tags: ['deprecated'] });
      expect(await entry('affiliations', id(40))).toMatchObject({ revision_id: 1 });
      expect((await entry('affiliations', id(3)))?.revision_id).toBe(aff[id(3)]);
    });
  });

  describe('a partial file', () => {
    it('should leave the entries it does not hold alone with deprecate_missing false', async () => {
      await t.db('job_runs').where({ status: 'QUEUED' }).delete();
      await writeRorZip(join(dir, 'part.zip'), organizations(2, 3000));
      const before = await revisions('affiliations');
      await queue('part.zip', 'affiliations', { deprecate_missing: false });
      const { run } = await runQueued();
      expect(run.counts.affiliations).toEqual({ added: 2, updated: 0, unchanged: 0, deprecated: 0 });
      const after = await revisions('affiliations');
      for (const [id, rev] of Object.entries(before)) expect(after[id], id).toBe(rev);
    });
  });

  describe('bad input', () => {
    beforeEach(async () => {
      await t.db('job_runs').where({ status: 'QUEUED' }).delete();
    });

    it('should reject malformed entries, entries without id and duplicates with different data, with reasons, and apply the rest', async () => {
      const good = [...organizations(5, 100)];
      const records = [
        good[0],
        { ...rorOrganization(105), id: undefined },
        good[1],
        { ...rorOrganization(106), names: 'not a list' },
        good[2],
        good[0], // the same entry again: skipped
        { ...good[1], status: 'inactive' }, // same id, different data: rejected, the first one stays
        good[3],
        'not an object',
        good[4],
      ];
      await writeRorZip(join(dir, 'bad.zip'), records);
      await queue('bad.zip', 'funders');
      const { run } = await runQueued();
      expect(run).toMatchObject({ status: 'PARTIAL_SUCCESS', total_entries: 10, errored_entries: 4 });
      expect(run.counts.funders.added).toBe(2); // organisations 100 and 104 have a FundRef id
      const errors = await listErrors(t.db, run.id, 100);
      expect(errors).toEqual([
        { position: 1, entry_id: null, reason: 'id: Missing PID.' },
        { position: 3, entry_id: rorOrganization(106).id, reason: 'names: Not a valid list.' },
        {
          position: 6,
          entry_id: rorId(1_000_000 + 101 * 7919),
          reason: `Duplicate id ${rorId(1_000_000 + 101 * 7919)} with different data (first at entry 2).`,
        },
        { position: 8, entry_id: null, reason: '_schema: Invalid input type.' },
      ]);
      expect(run.message).toMatch(/10 entries read, 4 rejected/);
    });

    it('should fail the run with a clear message for a truncated zip and write nothing', async () => {
      const path = join(dir, 'cut.zip');
      await writeRorZip(path, organizations(30, 500));
      await truncate(path, Math.floor((await readFile(path)).length * 0.6));
      await queue('cut.zip');
      const { run } = await runQueued();
      expect(run.status).toBe('FAILED');
      expect(run.message).toMatch(/not a readable zip file \(truncated or corrupt\?\)/);
      expect(await entry('affiliations', rorId(1_000_000 + 500 * 7919))).toBeUndefined();
    });

    it('should fail the run when the JSON breaks mid-way, keeping the batches applied before', async () => {
      const text = `[${[...organizations(10, 600)].map((o) => JSON.stringify(o)).join(',')}, {"id": "https://ror.org/`;
      await writeRorZip(join(dir, 'broken.zip'), [], { rawJson: text });
      await queue('broken.zip');
      const { run } = await runQueued();
      expect(run.status).toBe('FAILED');
      expect(run.message).toMatch(/is not a readable JSON array/);
      expect(run.position).toBe(7);
      expect(await entry('affiliations', rorId(1_000_000 + 600 * 7919))).toBeDefined();
    });
  });

  describe('JSON lines', () => {
    it('should import subjects from a gzipped JSON-lines file, reject bad lines with reasons, and change nothing the second time', async () => {
      await t.db('job_runs').where({ status: 'QUEUED' }).delete();
      const subjects = [...Array(12).keys()].map((i) => ({
        id: `https://id.example.org/sub/${i}`,
        scheme: 'EXAMPLE',
        subject: `Sujet écologique ${i}`,
        title: { en: `Ecological subject ${i}` },
      }));
      const text = [
        ...subjects.slice(0, 5).map((x) => JSON.stringify(x)),
        '{"id": "broken", ',
        JSON.stringify({ id: 'no-scheme', subject: 'Orphan' }),
        '',
        ...subjects.slice(5).map((x) => JSON.stringify(x)),
      ].join('\n');
      await writeFile(join(dir, 'subjects.jsonl.gz'), gzipSync(text));
      await queue('subjects.jsonl.gz', 'subjects', { format: 'jsonl' });
      const { run } = await runQueued();
      expect(run).toMatchObject({ status: 'PARTIAL_SUCCESS', total_entries: 14, errored_entries: 2 });
      expect(run.counts).toEqual({ subjects: { added: 12, updated: 0, unchanged: 0, deprecated: 0 } });
      expect((await listErrors(t.db, run.id, 10)).map((e) => [e.position, e.reason])).toEqual([
        [5, expect.stringMatching(/^Malformed JSON/)],
        [6, 'scheme: Missing data for required field.'],
      ]);
      expect(await entry('subjects', 'https://id.example.org/sub/3')).toMatchObject({ revision_id: 1 });
      const before = await revisions('subjects');
      await queue('subjects.jsonl.gz', 'subjects', { format: 'jsonl' });
      const again = (await runQueued()).run;
      expect(again.counts).toEqual({ subjects: { added: 0, updated: 0, unchanged: 12, deprecated: 0 } });
      expect(await revisions('subjects')).toEqual(before);
    });

    it('should fail a run over a truncated gzip with a clear message', async () => {
      await t.db('job_runs').where({ status: 'QUEUED' }).delete();
      const gz = gzipSync(JSON.stringify({ id: 'x', scheme: 'S', subject: 'X' }).repeat(1).concat('\n').repeat(200));
      await writeFile(join(dir, 'cut.jsonl.gz'), gz.subarray(0, Math.floor(gz.length / 2)));
      await queue('cut.jsonl.gz', 'subjects', { format: 'jsonl' });
      const { run } = await runQueued();
      expect(run.status).toBe('FAILED');
      expect(run.message).toMatch(/cannot be read \(corrupt or truncated gzip\?\)/);
    });
  });

  describe("InvenioRDM's YAML and CSV vocabulary files", () => {
    it('should import a YAML list of subjects, reject bad entries with their reasons and change nothing the second time', async () => {
      await t.db('job_runs').where({ status: 'QUEUED' }).delete();
      const text = `${yamlSubjects(6)}- id: no-scheme\n  subject: Orphan\n- just a string\n`;
      await writeFile(join(dir, 'euroscivoc.yaml'), text);
      await queue('euroscivoc.yaml', 'subjects', { format: 'yaml' });
      const { run } = await runQueued();
      expect(run).toMatchObject({ status: 'PARTIAL_SUCCESS', total_entries: 8, errored_entries: 2 });
      expect(run.counts).toEqual({ subjects: { added: 6, updated: 0, unchanged: 0, deprecated: 0 } });
      expect((await listErrors(t.db, run.id, 10)).map((e) => [e.position, e.entry_id, e.reason])).toEqual([
        [6, 'no-scheme', 'scheme: Missing data for required field.'],
        [7, null, '_schema: Invalid input type.'],
      ]);
      expect(await entry('subjects', 'http://data.europa.eu/8mn/euroscivoc/00000003')).toMatchObject({ revision_id: 1 });
      const before = await revisions('subjects');
      await queue('euroscivoc.yaml', 'subjects', { format: 'yaml' });
      expect((await runQueued()).run.counts).toEqual({ subjects: { added: 0, updated: 0, unchanged: 6, deprecated: 0 } });
      expect(await revisions('subjects')).toEqual(before);
    });

    it('should import a gzipped CSV of a generic vocabulary (licenses) and update only the changed rows', async () => {
      await t.db('job_runs').where({ status: 'QUEUED' }).delete();
      await writeFile(join(dir, 'licenses.csv.gz'), gzipSync(csvLicenses(30)));
      await queue('licenses.csv.gz', 'licenses', { format: 'csv' });
      const { run } = await runQueued();
      expect(run).toMatchObject({ status: 'SUCCESS', total_entries: 30, errored_entries: 0 });
      expect(run.counts).toEqual({ licenses: { added: 30, updated: 0, unchanged: 0, deprecated: 0 } });
      const lic = await t.db('entries').select('title', 'tags', 'props', 'revision_id').where({ type: 'licenses', id: 'lic-10' }).first();
      expect(lic).toEqual({
        title: { en: 'License 10' },
        tags: ['all', 'software'],
        props: { url: 'https://opensource.org/license/lic-10', scheme: 'spdx', osi_approved: 'y' },
        revision_id: 1,
      });
      const changed = csvLicenses(30).replace('License 11,', 'License eleven,');
      await writeFile(join(dir, 'licenses-2.csv'), changed);
      await queue('licenses-2.csv', 'licenses', { format: 'csv' });
      const again = (await runQueued()).run;
      expect(again.counts).toEqual({ licenses: { added: 0, updated: 1, unchanged: 29, deprecated: 0 } });
      expect((await t.db('entries').select('revision_id').where({ type: 'licenses', id: 'lic-11' }).first())?.revision_id).toBe(2);
    });

    it('should fail a run over a YAML file above the size limit, or one that is not a list, with a clear message', async () => {
      await t.db('job_runs').where({ status: 'QUEUED' }).delete();
      await writeFile(join(dir, 'big.yaml'), yamlSubjects(50));
      await queue('big.yaml', 'subjects', { format: 'yaml' });
      const big = (await runQueued(undefined, { ...deps, yamlMaxBytes: 2048 })).run;
      expect(big.status).toBe('FAILED');
      expect(big.message).toMatch(
        /big\.yaml is \d+ bytes; YAML sources are read whole and limited to VOCABULARIES_IMPORT_YAML_MAX_BYTES \(2048\)/,
      );
      await writeFile(join(dir, 'map.yaml'), 'id: x\nscheme: y\n');
      await queue('map.yaml', 'subjects', { format: 'yaml' });
      const map = (await runQueued()).run;
      expect(map).toMatchObject({ status: 'FAILED', message: expect.stringMatching(/not a list of entries/) });
    });
  });

  describe('crash and restart', () => {
    it('should resume a run whose worker died from its checkpoint, without duplicates, and fence the dead worker out', async () => {
      await t.db('job_runs').where({ status: 'QUEUED' }).delete();
      await writeRorZip(join(dir, 'resume.zip'), organizations(40, 1000));
      const { jobId, runId } = await queue('resume.zip');
      const short = { ...deps, leaseMs: 400 };
      const dead = `dead-${randomUUID()}`;
      const claimed = (await claimRun(t.db, dead, short.leaseMs))!;
      expect(claimed.id).toBe(runId);
      // The worker's connection is cut before its 3rd batch (as if the process died): the run stays RUNNING at its checkpoint.
      const cut = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      await expect(
        executeRun(short, claimed, dead, {
          beforeBatch: async (n) => {
            if (n === 2) throw cut;
          },
        }),
      ).rejects.toThrow('Connection terminated');
      const stalled = (await getRun(t.db, jobId, runId))!;
      expect(stalled).toMatchObject({ status: 'RUNNING', position: 14, total_entries: 14, worker: dead });
      // No one else may claim it while the lease runs.
      expect(await claimRun(t.db, 'eager', short.leaseMs)).toBeUndefined();
      await new Promise((r) => setTimeout(r, 500));
      const { run, outcome } = await runQueued('rescuer', short);
      expect(outcome).toBe('finished');
      expect(run).toMatchObject({ id: runId, status: 'SUCCESS', attempts: 2, position: 40, total_entries: 40 });
      expect(run.counts.affiliations).toMatchObject({ added: 40, updated: 0, unchanged: 0 });
      const rows = await t
        .db('entries')
        .select('revision_id')
        .where({ type: 'affiliations' })
        .whereIn(
          'id',
          [...Array(40).keys()].map((i) => rorId(1_000_000 + (1000 + i) * 7919)),
        );
      expect(rows).toHaveLength(40);
      expect(rows.every((r) => r.revision_id === 1)).toBe(true);
      // The dead worker, were it to wake up, cannot apply anything.
      expect(await executeRun(short, { ...claimed, status: 'RUNNING' }, dead)).toBe('lost');
    });

    it('should let exactly one of two concurrent workers claim a queued run', async () => {
      await writeRorZip(join(dir, 'one.zip'), organizations(1, 2000));
      await queue('one.zip');
      const [a, b] = await Promise.all([claimRun(t.db, 'a', 60_000), claimRun(t.db, 'b', 60_000)]);
      expect([a, b].filter(Boolean)).toHaveLength(1);
    });
  });
});
