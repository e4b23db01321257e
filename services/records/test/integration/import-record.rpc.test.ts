import { callRpc, isAppError, type RpcServer } from '@rdm/platform';
import { testLogger } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveImportRecordRpc } from '../../src/rpc/import-record.rpc.js';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const SUBJECT = 'rdm.records.rpc.import-record';
const EMPTY_MD5 = 'md5:d41d8cd98f00b204e9800998ecf8427e';

/** One version in the import form; files `a.txt` (the fake files service's checksum, 1024 bytes). */
const version = (id: string, index: number, created: string, over: Record<string, unknown> = {}) => ({
  id,
  index,
  created,
  updated: created.replace('T10', 'T11'),
  record: {
    metadata: { ...fullMetadata(), title: `Ωmega “v${index}” – Zürich`, publication_date: `201${index}-02-03` },
    access: { record: 'public', files: 'public' },
    pids: { doi: { identifier: `10.5281/zenodo.${index}00`, provider: 'datacite', client: 'datacite' } },
    files: { enabled: true },
    ...over,
  },
  files: [{ key: 'a.txt', checksum: EMPTY_MD5, size: 1024 }],
});

describe(`RPC ${SUBJECT}`, () => {
  let env: Env;
  let rpc: RpcServer;
  // Why a longer timeout than env.rpc's: an import resolves vocabularies and locks a bucket per version.
  const importRecord = (payload: Record<string, unknown>) =>
    callRpc<Record<string, any>>(env.nats.nc, SUBJECT, payload, { timeoutMs: 30_000 });
  const failure = async (payload: Record<string, unknown>) => {
    try {
      await importRecord(payload);
    } catch (err) {
      if (isAppError(err)) return { status: err.status, message: err.message, errors: err.fieldErrors };
      throw err;
    }
    throw new Error('expected a failure');
  };

  beforeAll(async () => {
    env = await startEnv();
    rpc = serveImportRecordRpc(env.nats.nc, env.parts.imports, testLogger());
    await rpc.ready;
  });
  afterAll(async () => {
    await rpc?.stop();
    await env?.close();
  });

  it('should keep ids, version order, dates, access and PIDs, and be idempotent', async () => {
    for (const id of ['impa1-00001', 'impa1-00002', 'impa1-00003']) env.files.addFile(id, 'a.txt');
    const versions = [
      version('impa1-00002', 2, '2021-05-06T10:00:00.123456+00:00'),
      version('impa1-00001', 1, '2020-01-02T10:00:00+00:00'),
      version('impa1-00003', 3, '2022-07-08T10:00:00+00:00', {
        access: { record: 'restricted', files: 'restricted', embargo: { active: true, until: '2031-01-01', reason: 'Patent' } },
      }),
    ];
    const payload = { parent: { id: 'impa1-0000p', created: '2020-01-02T09:00:00+00:00', owner_id: '7' }, versions };
    expect(await importRecord(payload)).toEqual({
      parent_id: 'impa1-0000p',
      status: 'created',
      created: ['impa1-00001', 'impa1-00002', 'impa1-00003'],
      existing: [],
    });
    const v1 = (await env.request.get('/api/records/impa1-00001').expect(200)).body;
    expect(v1.parent.id).toBe('impa1-0000p');
    expect(v1.created).toBe('2020-01-02T10:00:00.000000+00:00');
    expect(v1.metadata.title).toBe('Ωmega “v1” – Zürich');
    expect(v1.metadata.publication_date).toBe('2011-02-03');
    expect(v1.versions).toMatchObject({ index: 1, is_latest: false });
    expect(v1.pids.doi).toMatchObject({ identifier: '10.5281/zenodo.100', provider: 'external' });
    expect(v1.files).toMatchObject({ enabled: true, count: 1 });
    expect(env.files.buckets.get('impa1-00001')?.locked).toBe(true);
    const v2 = (await env.request.get('/api/records/impa1-00002').expect(200)).body;
    // Kept to the millisecond: the records service stores and renders JavaScript dates.
    expect(v2.created).toBe('2021-05-06T10:00:00.123000+00:00');
    expect(v2.updated).toBe('2021-05-06T11:00:00.123000+00:00');
    // The restricted, embargoed latest version: hidden from anonymous, kept as it was for the owner.
    await env.request.get('/api/records/impa1-00003').expect(403);
    const v3 = (await env.request.get('/api/records/impa1-00003').set(as('7')).expect(200)).body;
    expect(v3.access).toMatchObject({
      record: 'restricted',
      files: 'restricted',
      embargo: { active: true, until: '2031-01-01', reason: 'Patent' },
    });
    expect(v3.versions).toMatchObject({ index: 3, is_latest: true });
    const listed = (await env.request.get('/api/records/impa1-00001/versions').set(as('7')).expect(200)).body;
    expect(listed.hits.hits.map((h: { id: string }) => h.id)).toEqual(['impa1-00003', 'impa1-00002', 'impa1-00001']);

    // A second run: nothing changes.
    expect(await importRecord(payload)).toMatchObject({
      status: 'unchanged',
      created: [],
      existing: ['impa1-00001', 'impa1-00002', 'impa1-00003'],
    });
    const again = (await env.request.get('/api/records/impa1-00001').expect(200)).body;
    expect(again.revision_id).toBe(v1.revision_id);

    // A version published at the source later: appended.
    env.files.addFile('impa1-00004', 'a.txt');
    const next = { ...payload, versions: [...versions, version('impa1-00004', 4, '2023-01-01T10:00:00+00:00')] };
    expect(await importRecord(next)).toMatchObject({ status: 'updated', created: ['impa1-00004'] });
    const v4 = (await env.request.get('/api/records/impa1-00004').expect(200)).body;
    expect(v4.versions).toMatchObject({ index: 4, is_latest: true });
  });

  it('should refuse a version the schema rejects, naming it, and write nothing of the record', async () => {
    env.files.addFile('impb1-00001', 'a.txt');
    env.files.addFile('impb1-00002', 'a.txt');
    const bad = version('impb1-00002', 2, '2021-01-01T10:00:00+00:00');
    (bad.record.metadata as Record<string, unknown>).publication_date = 'not a date';
    const r = await failure({
      parent: { id: 'impb1-0000p', created: '2020-01-01T10:00:00+00:00' },
      versions: [version('impb1-00001', 1, '2020-01-01T10:00:00+00:00'), bad],
    });
    expect(r.status).toBe(400);
    expect(r.errors?.map((e) => e.field)).toContain('versions.1.metadata.publication_date');
    await env.request.get('/api/records/impb1-00001').expect(404);
    expect(env.files.buckets.get('impb1-00001')?.locked).toBe(false);
  });

  it('should refuse files that differ from the announced ones and write nothing', async () => {
    env.files.addFile('impc1-00001', 'a.txt', { size: 7 });
    const r = await failure({
      parent: { id: 'impc1-0000p', created: '2020-01-01T10:00:00+00:00' },
      versions: [version('impc1-00001', 1, '2020-01-01T10:00:00+00:00')],
    });
    expect(r).toMatchObject({ status: 400 });
    expect(r.errors?.[0]).toMatchObject({ field: 'versions.0.files' });
    await env.request.get('/api/records/impc1-00001').expect(404);
    const missing = await failure({
      parent: { id: 'impd1-0000p', created: '2020-01-01T10:00:00+00:00' },
      versions: [version('impd1-00001', 1, '2020-01-01T10:00:00+00:00')],
    });
    expect(missing.errors?.[0]?.messages).toEqual(['a.txt: not imported']);
  });

  it('should refuse malformed requests with a 400 and a version that rewrites history with a 409', async () => {
    expect(await failure({ parent: { id: 'x' }, versions: [] })).toMatchObject({ status: 400 });
    env.files.addFile('impe1-00001', 'a.txt');
    env.files.addFile('impe1-00002', 'a.txt');
    await importRecord({
      parent: { id: 'impe1-0000p', created: '2020-01-01T10:00:00+00:00' },
      versions: [version('impe1-00002', 2, '2020-01-01T10:00:00+00:00')],
    });
    expect(
      await failure({
        parent: { id: 'impe1-0000p', created: '2020-01-01T10:00:00+00:00' },
        versions: [version('impe1-00001', 1, '2020-01-01T10:00:00+00:00')],
      }),
    ).toMatchObject({ status: 409 });
  });
});
