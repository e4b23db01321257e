/**
 * The importers of ORCID, OpenAIRE and SKOS dumps through the gateway (issue 25): each file is
 * imported by a job run, after which a deposit citing an imported award and subject validates
 * (refused before the imports), and an imported ORCID name is found by its iD as the deposit form
 * looks creators up.
 *
 * The dumps are written where the vocabularies service reads API-named sources
 * (E2E_VOCABULARY_IMPORT_DIR).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { openaireLines, openaireProject } from '../../../services/vocabularies/test/support/award-dumps.js';
import { orcidId, orcidMembers, persons, writeOrcidTarGz } from '../../../services/vocabularies/test/support/orcid-dump.js';
import { euroscivocRdfXml } from '../../../services/vocabularies/test/support/subject-dumps.js';
import { api } from '../../support/client.js';
import { E2E_VOCABULARY_IMPORT_DIR } from '../../support/import-dir.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, walkthroughMetadata } from '../records/support.js';

let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  admin = await createUser({ email: uniqueEmail('formats-admin'), admin: true });
  user = await createUser({ email: uniqueEmail('formats-user') });
  await mkdir(E2E_VOCABULARY_IMPORT_DIR, { recursive: true });
});

/** Create a job importing `source` (`format` → `type`), run it, wait for the run's end; returns the run. */
async function importFile(type: string, format: string, source: string): Promise<any> {
  const job = await api('/api/jobs', {
    method: 'POST',
    token: admin.token,
    body: { title: `${format} (e2e)`, task: 'vocabularies.import', run_args: { type, format, source } },
  });
  expect(job.status).toBe(201);
  const started = await api(`/api/jobs/${job.body.id}/runs`, { method: 'POST', token: admin.token });
  expect(started.status).toBe(201);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const res = await api(`/api/jobs/${job.body.id}/runs/${started.body.id}`, { token: admin.token });
    expect(res.status).toBe(200);
    if (!['QUEUED', 'RUNNING'].includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`run still ${res.body.status}: ${JSON.stringify(res.body.progress)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('vocabulary import formats', () => {
  it('should import OpenAIRE projects and a EuroSciVoc file, after which a deposit with an imported award and subject validates', async () => {
    // Fresh codes and notations, so reruns against a kept database stay meaningful.
    const n = 500_000 + Math.floor(Math.random() * 400_000);
    const award = `00k4n6c32::${100_000 + n}`;
    const subject = `euroscivoc:${n}`;
    const metadata = () => {
      const m = walkthroughMetadata() as any;
      m.funding = [{ funder: { id: '00k4n6c32' }, award: { id: award } }];
      m.subjects = [{ id: subject }];
      return m;
    };
    const draft = () =>
      createDraft(user.token, { access: { record: 'public', files: 'public' }, files: { enabled: false }, metadata: metadata() });
    expect((await draft()).status).toBe(400);

    await writeFile(join(E2E_VOCABULARY_IMPORT_DIR, `e2e-openaire-${n}.json.gz`), gzipSync(openaireLines([openaireProject(n)])));
    const awards = await importFile('awards', 'openaire', `e2e-openaire-${n}.json.gz`);
    expect(awards).toMatchObject({ status: 'SUCCESS', total_entries: 1, counts: { awards: { added: 1 } } });
    await writeFile(
      join(E2E_VOCABULARY_IMPORT_DIR, `e2e-euroscivoc-${n}.rdf`),
      euroscivocRdfXml([
        { n: n + 1, labels: { en: 'imported parent field' } },
        { n, labels: { en: 'imported field', de: 'importiertes Feld' }, parent: n + 1 },
      ]),
    );
    const subjects = await importFile('subjects', 'skos', `e2e-euroscivoc-${n}.rdf`);
    expect(subjects).toMatchObject({ status: 'SUCCESS', total_entries: 2, counts: { subjects: { added: 2 } } });

    const res = await draft();
    expect(res.status).toBe(201);
    expect(res.body.metadata.funding[0].award).toMatchObject({ id: award, number: String(100_000 + n), acronym: `PRJ${n}` });
    expect(res.body.metadata.subjects[0]).toEqual({ id: subject, subject: 'Imported field', scheme: 'EuroSciVoc' });
  });

  it('should import an ORCID public data file, after which the name is found by its ORCID iD', async () => {
    const k = 2_000_000 + Math.floor(Math.random() * 1_000_000);
    const [person] = persons(1, k, () => ({ orcid: orcidId(k), given: 'Ada', family: `Lovelace${k}` }));
    const file = `e2e-orcid-${k}.tar.gz`;
    await writeOrcidTarGz(join(E2E_VOCABULARY_IMPORT_DIR, file), orcidMembers([person]));
    const run = await importFile('names', 'orcid', file);
    expect(run).toMatchObject({ status: 'SUCCESS', total_entries: 1, counts: { names: { added: 1 } } });
    const byId = await api(`/api/names/orcid/${person.orcid}`, { token: user.token });
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({
      id: person.orcid,
      name: `Lovelace${k}, Ada`,
      identifiers: [{ scheme: 'orcid', identifier: person.orcid }],
      affiliations: [expect.objectContaining({ id: '01ggx4157' })],
    });
  });
});
