/**
 * The importers of the published dumps other than ROR, through the import runner against real
 * PostgreSQL (checkpointed batches of 7): ORCID's public data file → names, OpenAIRE and CORDIS
 * projects → awards, SKOS and MeSH → subjects. Each: counts, rejected entries with their reasons,
 * a re-import that moves no revision. (A deposit citing imported ids: e2e/specs/vocabularies/import-formats.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@rdm/platform';
import { type TestDb, testDb } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVocabularies } from '../../src/domain/loader.service.js';
import { executeRun, IMPORT_TASK, type RunnerDeps } from '../../src/jobs/import-runner.js';
import { claimRun, getRun, insertJob, insertRun, listErrors } from '../../src/repo/jobs.repo.js';
import {
  cordisProjects,
  openaireLines,
  openaireProject,
  writeCordisCsvZip,
  writeCordisXmlZip,
  writeGz,
  writeOpenaireTar,
} from '../support/award-dumps.js';
import { EUROSCIVOC_TREE, euroscivocRdfXml, gemetTurtle, meshDescriptors, meshXml } from '../support/subject-dumps.js';
import { orcidMembers, orcidRecordXml, persons, writeOrcidTarGz } from '../support/orcid-dump.js';
import { fixtureSet } from './setup.js';

let t: TestDb;
let dir: string;
let deps: RunnerDeps;
const logger = createLogger('vocabularies-formats-test', process.env.TEST_LOG_LEVEL ?? 'silent');

beforeAll(async () => {
  t = await testDb('vocabularies', { pool: { max: 6 } });
  dir = await mkdtemp(join(tmpdir(), 'vocab-formats-'));
  deps = { db: t.db, logger, importDir: dir, batchSize: 7, leaseMs: 60_000 };
  await loadVocabularies(
    t.db,
    fixtureSet().vocabularies.filter((v) => v.type === 'affiliations' || v.type === 'funders'),
  );
});
afterAll(async () => {
  await t?.destroy();
  await rm(dir, { recursive: true, force: true });
});

/** Queue a run of a new import job (`format`, `type`) for `source` and execute it; returns the finished run. */
async function importFile(source: string, type: string, format: string) {
  const jobId = randomUUID();
  const runId = randomUUID();
  const args = { type, format, source };
  await insertJob(t.db, {
    id: jobId,
    title: format,
    description: null,
    task: IMPORT_TASK,
    active: true,
    default_args: args,
    created_by: '1',
  });
  await insertRun(t.db, { id: runId, job_id: jobId, title: 'Manual run', args, started_by_id: '1' });
  const worker = `w-${randomUUID()}`;
  const run = await claimRun(t.db, worker, deps.leaseMs);
  if (!run || run.id !== runId) throw new Error('the queued run was not claimed');
  expect(await executeRun(deps, run, worker)).toBe('finished');
  return (await getRun(t.db, jobId, runId))!;
}

const revisions = async (type: string) =>
  Object.fromEntries(
    ((await t.db('entries').select('id', 'revision_id').where({ type })) as { id: string; revision_id: number }[]).map((r) => [
      r.id,
      r.revision_id,
    ]),
  );
const reasons = async (runId: string) => (await listErrors(t.db, runId, 100)).map((e) => [e.position, e.entry_id, e.reason]);

describe(executeRun.name, () => {
  describe('an ORCID public data file (format orcid)', () => {
    it('should import the record summaries as names, GRID employers resolved to ROR ids, and reject bad members with reasons', async () => {
      const people = persons(20, 0, (i) =>
        i === 3
          ? {
              employments: [
                { name: 'CERN (GRID)', grid: 'grid.9132.9' },
                { name: 'Nowhere', grid: 'grid.0000.0' },
                { name: 'Past', ror: '05h7xva58', ended: true },
              ],
            }
          : {},
      );
      await writeOrcidTarGz(join(dir, 'orcid.tar.gz'), [
        ...orcidMembers(people.slice(0, 10)),
        { name: 'ORCID_2024_10_summaries/999/broken.xml', body: '<record:record xmlns:record="http://www.orcid.org/ns/record">' },
        { name: 'ORCID_2024_10_summaries/998/nofamily.xml', body: orcidRecordXml({ orcid: people[19].orcid, given: 'Only' }) },
        ...orcidMembers(people.slice(10, 19)),
      ]);
      const run = await importFile('orcid.tar.gz', 'names', 'orcid');
      expect(run).toMatchObject({ status: 'PARTIAL_SUCCESS', total_entries: 21, errored_entries: 2 });
      expect(run.counts).toEqual({ names: { added: 19, updated: 0, unchanged: 0, deprecated: 0 } });
      expect(await reasons(run.id)).toEqual([
        [10, null, expect.stringMatching(/^ORCID_2024_10_summaries\/999\/broken\.xml: Malformed XML/)],
        [11, null, 'ORCID_2024_10_summaries/998/nofamily.xml: family_name: Family name not found in ORCiD entry.'],
      ]);
      const row = await t
        .db('entries')
        .select('name', 'identifiers', 'extra', 'revision_id')
        .where({ type: 'names', id: people[3].orcid })
        .first();
      expect(row).toMatchObject({
        name: 'Family3, Given3',
        identifiers: [{ scheme: 'orcid', identifier: people[3].orcid }],
        revision_id: 1,
      });
      expect(row.extra).toMatchObject({
        affiliations: [{ id: '01ggx4157' }, { name: 'Nowhere' }],
        given_name: 'Given3',
        family_name: 'Family3',
      });
      const zero = await t.db('entries').select('extra', 'props').where({ type: 'names', id: people[0].orcid }).first();
      expect(zero.props).toEqual({ other_names: 'G. F. 0' });
      expect(zero.extra).toMatchObject({ family_name: 'Müller-Ñúñez0' });

      const before = await revisions('names');
      const again = await importFile('orcid.tar.gz', 'names', 'orcid');
      expect(again.counts).toEqual({ names: { added: 0, updated: 0, unchanged: 19, deprecated: 0 } });
      expect(await revisions('names')).toEqual(before);
    });
  });

  describe('OpenAIRE and CORDIS projects (formats openaire, cordis)', () => {
    it("should import OpenAIRE projects as awards, then EC projects from CORDIS' XML and CSV packages, and move no revision on a re-import", async () => {
      const projects = [...Array(12).keys()].map((i) => openaireProject(i, i % 3 === 2 ? 'nsf_________' : 'corda__h2020'));
      await writeOpenaireTar(join(dir, 'project.tar'), [
        openaireLines(projects.slice(0, 6)),
        `${openaireLines(projects.slice(6))}${JSON.stringify(openaireProject(99, 'nope________'))}\n`,
      ]);
      const run = await importFile('project.tar', 'awards', 'openaire');
      expect(run).toMatchObject({ status: 'PARTIAL_SUCCESS', total_entries: 13, errored_entries: 1 });
      expect(run.counts).toEqual({ awards: { added: 12, updated: 0, unchanged: 0, deprecated: 0 } });
      expect(await reasons(run.id)).toEqual([
        [12, null, 'project/part-00001.json.gz: funder: Unknown OpenAIRE funder prefix nope________.'],
      ]);
      const nsf = await t.db('entries').select('number', 'extra').where({ type: 'awards', id: '021nxhr62::100002' }).first();
      expect(nsf).toMatchObject({ number: '100002', extra: { funder: { id: '021nxhr62' }, program: 'H2020' } });

      const before = await revisions('awards');
      await writeGz(join(dir, 'part-00000.json.gz'), openaireLines(projects));
      const again = await importFile('part-00000.json.gz', 'awards', 'openaire');
      expect(again.counts).toEqual({ awards: { added: 0, updated: 0, unchanged: 12, deprecated: 0 } });
      expect(await revisions('awards')).toEqual(before);

      // CORDIS: new EC projects added; the XML package also carries subjects and organizations.
      const cordis = cordisProjects(9);
      await writeCordisXmlZip(join(dir, 'cordis-xml.zip'), cordis);
      const x = await importFile('cordis-xml.zip', 'awards', 'cordis');
      expect(x).toMatchObject({ status: 'SUCCESS', total_entries: 9, errored_entries: 0 });
      expect(x.counts).toEqual({ awards: { added: 9, updated: 0, unchanged: 0, deprecated: 0 } });
      const ec = await t.db('entries').select('extra', 'revision_id').where({ type: 'awards', id: '00k4n6c32::101000003' }).first();
      expect(ec).toMatchObject({
        revision_id: 1,
        extra: {
          program: 'HE',
          subjects: [{ id: 'euroscivoc:2193' }, { id: 'euroscivoc:3' }],
          organizations: [{ scheme: 'pic', id: '999000003', organization: 'Org 3 GmbH' }],
        },
      });
      // The CSV package has no subjects nor organizations: the same projects change (revision 2).
      await writeCordisCsvZip(join(dir, 'cordis-csv.zip'), cordis.slice(0, 4));
      const c = await importFile('cordis-csv.zip', 'awards', 'cordis');
      expect(c.counts).toEqual({ awards: { added: 0, updated: 4, unchanged: 0, deprecated: 0 } });
      expect((await t.db('entries').select('revision_id').where({ type: 'awards', id: '00k4n6c32::101000003' }).first()).revision_id).toBe(
        2,
      );
    });
  });

  describe('SKOS and MeSH subjects (formats skos, mesh)', () => {
    it('should import EuroSciVoc (RDF/XML), GEMET (Turtle) and MeSH descriptors as subjects, and move no revision on a re-import', async () => {
      await writeFile(join(dir, 'euroscivoc.rdf'), euroscivocRdfXml(EUROSCIVOC_TREE));
      const esv = await importFile('euroscivoc.rdf', 'subjects', 'skos');
      expect(esv).toMatchObject({ status: 'SUCCESS', total_entries: 4, errored_entries: 0 });
      expect(esv.counts).toEqual({ subjects: { added: 4, updated: 0, unchanged: 0, deprecated: 0 } });
      const astro = await t
        .db('entries')
        .select('scheme', 'subject', 'title', 'props')
        .where({ type: 'subjects', id: 'euroscivoc:3' })
        .first();
      expect(astro).toEqual({
        scheme: 'EuroSciVoc',
        subject: 'Astronomy',
        title: { en: 'astronomy', de: 'Astronomie', it: 'astronomia' },
        props: { parents: 'euroscivoc:1,euroscivoc:2' },
      });

      await writeFile(join(dir, 'gemet.ttl'), gemetTurtle(10, 4));
      const gemet = await importFile('gemet.ttl', 'subjects', 'skos');
      expect(gemet).toMatchObject({ status: 'PARTIAL_SUCCESS', total_entries: 10, errored_entries: 1 });
      expect(await reasons(gemet.id)).toEqual([
        [3, null, 'subject: Concept http://www.eionet.europa.eu/gemet/concept/4 has no skos:prefLabel.'],
      ]);

      await writeFile(join(dir, 'desc2024.xml'), meshXml(meshDescriptors(15)));
      const mesh = await importFile('desc2024.xml', 'subjects', 'mesh');
      expect(mesh).toMatchObject({ status: 'SUCCESS', total_entries: 15 });
      expect(mesh.counts.subjects).toMatchObject({ added: 15 });
      expect(
        await t.db('entries').select('scheme', 'subject').where({ type: 'subjects', id: 'https://id.nlm.nih.gov/mesh/D000015' }).first(),
      ).toEqual({
        scheme: 'MeSH',
        subject: 'Descriptor 15 (Ménière)',
      });

      const before = await revisions('subjects');
      expect((await importFile('euroscivoc.rdf', 'subjects', 'skos')).counts.subjects).toMatchObject({
        added: 0,
        updated: 0,
        unchanged: 4,
      });
      expect((await importFile('gemet.ttl', 'subjects', 'skos')).counts.subjects).toMatchObject({ added: 0, updated: 0, unchanged: 9 });
      expect((await importFile('desc2024.xml', 'subjects', 'mesh')).counts.subjects).toMatchObject({ added: 0, updated: 0, unchanged: 15 });
      expect(await revisions('subjects')).toEqual(before);
    });
  });
});
