/**
 * The jobs API (`/api/jobs…`, invenio-jobs' shape) over real PostgreSQL: administrators only,
 * validation as 400s, a run queued through the API and executed by the jobs worker.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@rdm/platform';
import { gatewayFront, type TestDb, testDb } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { jobsWorker } from '../../src/jobs/jobs-worker.js';
import { organizations, writeRorZip } from '../support/ror-dump.js';
import { csvLicenses, yamlSubjects } from '../support/vocabulary-files.js';
import { as, BASE, SECRET } from './setup.js';

const ADMIN = { sub: '1', roles: ['admin'] };
const USER = { sub: '2', roles: [] };
let t: TestDb;
let dir: string;
let http: ReturnType<typeof request>;
let worker: ReturnType<typeof jobsWorker>;

beforeAll(async () => {
  t = await testDb('vocabularies', { pool: { max: 5 } });
  dir = await mkdtemp(join(tmpdir(), 'jobs-http-'));
  const logger = createLogger('vocabularies-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  worker = jobsWorker({ db: t.db, logger, importDir: dir, batchSize: 10, leaseMs: 60_000, pollMs: 1000 });
  const { app } = createApp({
    config: {
      PUBLIC_BASE_URL: BASE,
      IDENTITY_SECRET: SECRET,
      ENTRY_CACHE_SIZE: 10,
      ENTRY_CACHE_TTL_MS: 60_000,
      VOCABULARIES_IMPORT_DIR: dir,
    },
    logger,
    db: t.db,
  });
  http = request(gatewayFront(app.callback(), SECRET));
  await writeRorZip(join(dir, 'ror.zip'), organizations(25));
});
afterAll(async () => {
  await t?.destroy();
  await rm(dir, { recursive: true, force: true });
});

const job = {
  title: 'ROR affiliations',
  task: 'vocabularies.import',
  run_args: { type: 'affiliations', format: 'ror-v2', source: 'ror.zip' },
};

describe('/api/jobs', () => {
  it('should refuse anonymous callers and non-administrators with 403', async () => {
    for (const who of [undefined, USER]) {
      const headers = who ? as(who) : {};
      const list = await http.get('/api/jobs').set(headers).expect(403);
      expect(list.body).toEqual({ status: 403, message: 'Permission denied.' });
      await http.post('/api/jobs').set(headers).send(job).expect(403);
    }
    await http.get('/api/jobs').set(as(ADMIN)).expect(200);
  });

  it('should answer 400 naming the fields of a bad job, a source outside the import directory included', async () => {
    const res = await http
      .post('/api/jobs')
      .set(as(ADMIN))
      .send({ title: '', task: 'other', run_args: { type: 'languages', source: 'x' } })
      .expect(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['run_args.type', 'task', 'title']);
    const outside = await http
      .post('/api/jobs')
      .set(as(ADMIN))
      .send({ ...job, run_args: { type: 'affiliations', source: '../../etc/passwd' } })
      .expect(400);
    expect(outside.body.errors).toEqual([{ field: 'run_args.source', messages: ['Must name a file inside the import directory.'] }]);
    const jsonl = await http
      .post('/api/jobs')
      .set(as(ADMIN))
      .send({ ...job, run_args: { type: 'subjects', format: 'jsonl', source: 'subjects.jsonl', deprecate_missing: true } })
      .expect(400);
    expect(jsonl.body.errors).toEqual([
      { field: 'run_args.deprecate_missing', messages: ['Only ror-v2 imports can deprecate missing entries.'] },
    ]);
    const rorSubjects = await http
      .post('/api/jobs')
      .set(as(ADMIN))
      .send({ ...job, run_args: { type: 'subjects', format: 'ror-v2', source: 'ror.zip' } })
      .expect(400);
    expect(rorSubjects.body.errors).toEqual([{ field: 'run_args.type', messages: ['Must be one of: affiliations, funders.'] }]);
    await http.post('/api/jobs').set(as(ADMIN)).set('content-type', 'application/json').send('{"title":').expect(400);
    await http.get('/api/jobs/not-a-uuid').set(as(ADMIN)).expect(404);
    await http.get('/api/jobs/00000000-0000-4000-8000-000000000000/runs').set(as(ADMIN)).expect(404);
  });

  it('should create a job, queue a run, execute it in the worker and show status, progress and counts', async () => {
    const created = await http.post('/api/jobs').set(as(ADMIN)).send(job).expect(201);
    expect(created.body).toMatchObject({
      title: 'ROR affiliations',
      task: 'vocabularies.import',
      active: true,
      default_args: { type: 'affiliations', format: 'ror-v2', source: 'ror.zip', deprecate_missing: true },
      last_run: null,
      links: { self: `${BASE}/api/jobs/${created.body.id}`, runs: `${BASE}/api/jobs/${created.body.id}/runs` },
    });
    const id = created.body.id as string;
    await http.post(`/api/jobs/${id}/runs`).set(as(USER)).expect(403);
    const queued = await http.post(`/api/jobs/${id}/runs`).set(as(ADMIN)).expect(201);
    expect(queued.body).toMatchObject({ job_id: id, status: 'QUEUED', title: 'Manual run', started_by_id: '1', errors: [] });
    expect(await worker.runOnce()).toBe(true);
    expect(await worker.runOnce()).toBe(false);
    const run = await http.get(`/api/jobs/${id}/runs/${queued.body.id}`).set(as(ADMIN)).expect(200);
    expect(run.body).toMatchObject({
      status: 'SUCCESS',
      total_entries: 25,
      errored_entries: 0,
      progress: { phase: 'done', percent: 100, position: 25 },
      counts: { affiliations: { added: 25 }, funders: { added: 7 } },
      errors: [],
    });
    expect(run.body.finished_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    const runs = await http.get(`/api/jobs/${id}/runs`).set(as(ADMIN)).expect(200);
    expect(runs.body.hits.total).toBe(1);
    const jobs = await http.get('/api/jobs').set(as(ADMIN)).expect(200);
    expect(jobs.body.hits.hits.find((j: { id: string }) => j.id === id).last_run.status).toBe('SUCCESS');
  });

  it("should import InvenioRDM's CSV and YAML vocabulary files into any vocabulary type and refuse unknown types with 400", async () => {
    const bad = await http
      .post('/api/jobs')
      .set(as(ADMIN))
      .send({ ...job, run_args: { type: 'nope', format: 'csv', source: 'x.csv' } })
      .expect(400);
    expect(bad.body.errors).toEqual([
      { field: 'run_args.type', messages: [expect.stringMatching(/^Must be one of: .*licenses.*resourcetypes/)] },
    ]);
    await writeFile(join(dir, 'licenses.csv'), csvLicenses(12));
    await writeFile(join(dir, 'subjects.yaml'), `${yamlSubjects(3)}- not an entry\n`);
    for (const [run_args, status, counts] of [
      [{ type: 'licenses', format: 'csv', source: 'licenses.csv' }, 'SUCCESS', { licenses: { added: 12 } }],
      [{ type: 'subjects', format: 'yaml', source: 'subjects.yaml' }, 'PARTIAL_SUCCESS', { subjects: { added: 3 } }],
    ] as const) {
      const created = await http
        .post('/api/jobs')
        .set(as(ADMIN))
        .send({ ...job, run_args })
        .expect(201);
      expect(created.body.default_args).toEqual({ ...run_args, deprecate_missing: false });
      const queued = await http.post(`/api/jobs/${created.body.id}/runs`).set(as(ADMIN)).expect(201);
      expect(await worker.runOnce()).toBe(true);
      const run = await http.get(`/api/jobs/${created.body.id}/runs/${queued.body.id}`).set(as(ADMIN)).expect(200);
      expect(run.body).toMatchObject({ status, counts });
    }
    const lic = await http.get('/api/vocabularies/licenses/lic-4').set(as(ADMIN)).expect(200);
    expect(lic.body).toMatchObject({ id: 'lic-4', title: { en: 'Licence «4», version "2"' }, tags: ['all', 'software'] });
  });

  it('should fail a run over an unreadable file with its reason, not a 500', async () => {
    await writeFile(join(dir, 'broken.zip'), 'PK\u0003\u0004 not really a zip');
    const created = await http
      .post('/api/jobs')
      .set(as(ADMIN))
      .send({ ...job, run_args: { type: 'funders', source: 'broken.zip' } })
      .expect(201);
    const queued = await http.post(`/api/jobs/${created.body.id}/runs`).set(as(ADMIN)).send({ title: 'Nightly' }).expect(201);
    expect(queued.body.title).toBe('Nightly');
    await worker.runOnce();
    const run = await http.get(`/api/jobs/${created.body.id}/runs/${queued.body.id}`).set(as(ADMIN)).expect(200);
    expect(run.body).toMatchObject({ status: 'FAILED', message: expect.stringMatching(/not a readable zip file/) });
    await http.get(`/api/jobs/${created.body.id}/runs/nope`).set(as(ADMIN)).expect(404);
  });
});
