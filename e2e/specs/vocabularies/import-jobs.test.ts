/**
 * Vocabulary import jobs through the gateway (issue 25): the jobs API is for administrators only,
 * a ROR dump imported by a job run becomes usable at once: a deposit with one of its organisations
 * as affiliation (and funder) validates, where it was refused before the import.
 *
 * The dump is written where the vocabularies service reads API-named sources
 * (E2E_VOCABULARY_IMPORT_DIR: its default VOCABULARIES_IMPORT_DIR on processes, bind-mounted into
 * its container on containers).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { rorId, rorOrganization, writeRorZip } from '../../../services/vocabularies/test/support/ror-dump.js';
import { api } from '../../support/client.js';
import { E2E_VOCABULARY_IMPORT_DIR } from '../../support/import-dir.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, walkthroughMetadata } from '../records/support.js';

let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  admin = await createUser({ email: uniqueEmail('jobs-admin'), admin: true });
  user = await createUser({ email: uniqueEmail('jobs-user') });
});

/** Wait for a run to end; returns it. */
async function finished(jobId: string, runId: string): Promise<any> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const res = await api(`/api/jobs/${jobId}/runs/${runId}`, { token: admin.token });
    expect(res.status).toBe(200);
    if (!['QUEUED', 'RUNNING'].includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`run still ${res.body.status}: ${JSON.stringify(res.body.progress)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('/api/jobs', () => {
  it('should refuse anonymous callers and non-administrators with 403', async () => {
    for (const token of [undefined, user.token]) {
      const list = await api('/api/jobs', { token });
      expect(list.status).toBe(403);
      expect(list.body).toEqual({ status: 403, message: 'Permission denied.' });
      const create = await api('/api/jobs', { method: 'POST', token, body: { title: 'x', task: 'vocabularies.import', run_args: {} } });
      expect(create.status).toBe(403);
    }
    const mine = await api('/api/jobs', { token: admin.token });
    expect(mine.status).toBe(200);
    expect(mine.body.hits).toHaveProperty('total');
  });

  it('should answer 400 with the fields of a bad job', async () => {
    const res = await api('/api/jobs', {
      method: 'POST',
      token: admin.token,
      body: { title: 'ROR', task: 'vocabularies.import', run_args: { type: 'affiliations', source: '../secrets.zip' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'run_args.source', messages: ['Must name a file inside the import directory.'] }]);
  });

  it('should import a ROR dump through a job run, after which a deposit with an imported affiliation and funder validates', async () => {
    // Organisations with fresh ids (a multiple of 4 is a funder too), so reruns against a kept database stay meaningful.
    const base = 10_000 + Math.floor(Math.random() * 20_000) * 4;
    const orgs = [0, 1, 2, 3, 4].map((k) => rorOrganization(base + k));
    const funderId = rorId(1_000_000 + base * 7919);
    const affiliationId = rorId(1_000_000 + (base + 1) * 7919);
    const metadata = (aff: string, funder: string) => {
      const m = walkthroughMetadata() as any;
      m.creators[0].affiliations = [{ id: aff }];
      m.funding = [{ funder: { id: funder } }];
      return m;
    };
    const refused = await createDraft(user.token, {
      access: { record: 'public', files: 'public' },
      files: { enabled: false },
      metadata: metadata(affiliationId, funderId),
    });
    expect(refused.status).toBe(400);

    const dir = E2E_VOCABULARY_IMPORT_DIR;
    await mkdir(dir, { recursive: true });
    const file = `e2e-ror-${base}.zip`;
    await writeRorZip(join(dir, file), orgs);
    const job = await api('/api/jobs', {
      method: 'POST',
      token: admin.token,
      body: { title: 'ROR (e2e)', task: 'vocabularies.import', run_args: { type: 'affiliations', source: file, deprecate_missing: false } },
    });
    expect(job.status).toBe(201);
    const started = await api(`/api/jobs/${job.body.id}/runs`, { method: 'POST', token: admin.token });
    expect(started.status).toBe(201);
    expect(started.body.status).toBe('QUEUED');
    const run = await finished(job.body.id, started.body.id);
    expect(run).toMatchObject({
      status: 'SUCCESS',
      total_entries: 5,
      errored_entries: 0,
      counts: { affiliations: { added: 5 }, funders: { added: 2 } },
      progress: { phase: 'done', percent: 100 },
    });

    const aff = await api(`/api/affiliations/${affiliationId}`);
    expect(aff.status).toBe(200);
    expect(aff.body).toMatchObject({
      id: affiliationId,
      identifiers: expect.arrayContaining([{ scheme: 'ror', identifier: affiliationId }]),
    });
    const draft = await createDraft(user.token, {
      access: { record: 'public', files: 'public' },
      files: { enabled: false },
      metadata: metadata(affiliationId, funderId),
    });
    expect(draft.status).toBe(201);
    expect(draft.body.metadata.creators[0].affiliations[0]).toEqual({ id: affiliationId, name: aff.body.name });
    expect(draft.body.metadata.funding[0].funder).toMatchObject({ id: funderId });
  });
});
