import { ensureStream, eventSubjects, OutboxRelay } from '@rdm/platform';
import { testLogger, waitFor } from '@rdm/platform/testing';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { DataCiteClient, DataCiteError } from '../../src/datacite/client.js';
import { dataciteWorkers } from '../../src/datacite/doi.consumer.js';
import { DoiSync } from '../../src/datacite/doi-sync.js';
import { VocabPropsCache } from '../../src/export/vocab-props.js';
import { validateXml, XSD } from '../../src/export/xsd/xmllint.js';
import { type FakeDataCite, startFakeDataCite } from '../support/fake-datacite.js';
import { as, BASE, type Env, fullMetadata, startEnv, VOCAB } from './support.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const OWNER = '801';
const ADMIN = as('9', ['admin']);
const PREFIX = '10.5072';

describe('DataCite DOI provider (DOI_PROVIDER=datacite, against the fake DataCite)', () => {
  let env: Env;
  let fake: FakeDataCite;
  let relay: OutboxRelay;
  let workers: ReturnType<typeof dataciteWorkers>;
  let request: ReturnType<typeof supertest>;

  const client = (password = 'secret') => new DataCiteClient({ url: fake.url, username: 'TEST.REPO', password, timeoutMs: 2000 });
  const status = async (id: string) => (await request.get(`/api/records/${id}`)).body.pids?.doi?.status;
  const xmlOf = (doi: string) => Buffer.from(fake.dois.get(doi)!.xml!, 'base64').toString('utf8');

  /** A draft with a reserved DataCite DOI. */
  const reserved = async (metadata: Record<string, unknown> = fullMetadata()) => {
    const d = await request
      .post('/api/records')
      .set(as(OWNER))
      .send({ files: { enabled: false }, metadata });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const r = await request.post(`/api/records/${d.body.id}/draft/pids/doi`).set(as(OWNER));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as Record<string, any>;
  };
  const publish = async (id: string) => {
    const r = await request.post(`/api/records/${id}/draft/actions/publish`).set(as(OWNER));
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    return r.body as Record<string, any>;
  };

  beforeAll(async () => {
    VOCAB['removalreasons/spam'] = { id: 'spam', title: { en: 'Spam' } };
    env = await startEnv();
    fake = await startFakeDataCite({ prefixes: [PREFIX] });
    const parts = createApp({
      ...env.deps,
      config: { ...env.deps.config, DOI_PROVIDER: 'datacite', DATACITE_PREFIX: PREFIX },
    });
    request = supertest(gatewayFront(parts.app.callback(), SECRET));
    await ensureStream(env.nats.jsm, { name: 'RECORDS', subjects: eventSubjects('records') });
    relay = new OutboxRelay({ db: env.db, js: env.nats.js, logger: testLogger() as never, pollMs: 50 });
    relay.start();
    const sync = new DoiSync({
      db: env.db,
      index: parts.index,
      client: client(),
      props: new VocabPropsCache(env.deps.vocabularies),
      baseUrl: BASE,
      siteName: 'Invenio',
      doiResolverUrl: 'https://doi.org',
    });
    workers = dataciteWorkers({ db: env.db, nats: env.nats, sync, logger: testLogger() as never, backoffMs: [200] });
    for (const w of workers) w.start();
    for (const w of workers) await w.ready;
  }, 60_000);
  afterAll(async () => {
    for (const w of workers ?? []) await w.stop();
    await relay?.stop();
    await fake?.close();
    await env?.close();
  });

  it('should reserve a draft DOI at DataCite (status new), then register it findable at publish with valid DataCite XML', async () => {
    const draft = await reserved();
    const doi = `${PREFIX}/${draft.id}`;
    expect(draft.pids.doi).toEqual({ identifier: doi, provider: 'datacite', client: 'datacite', status: 'new' });
    await waitFor(async () => fake.dois.get(doi)?.state === 'draft');
    expect(fake.dois.get(doi)!.xml).toBeNull();

    const record = await publish(draft.id);
    // Publication never waits for DataCite: the answer says reserved, the consumer registers.
    expect(record.pids.doi.status).toBe('reserved');
    await waitFor(async () => (await status(draft.id)) === 'registered', { timeoutMs: 15_000 });
    const remote = fake.dois.get(doi)!;
    expect(remote.state).toBe('findable');
    expect(remote.url).toBe(`${BASE}/records/${draft.id}`);
    const xml = xmlOf(doi);
    expect(validateXml(xml, XSD.datacite)).toEqual([]);
    expect(xml).toContain(`<identifier identifierType="DOI">${doi}</identifier>`);
    expect(xml).toContain('A Romans story');
    expect(fake.findableTransitions(doi)).toBe(1);
    const row = await env.db('pids').where({ scheme: 'doi', identifier: doi }).first();
    expect(row).toMatchObject({ status: 'R', datacite_state: 'findable', sync_error: null });

    // The concept DOI of the parent is registered too, with the latest version's metadata.
    const conceptDoi = record.parent.pids.doi.identifier;
    expect(conceptDoi).toBe(`${PREFIX}/${record.parent.id}`);
    await waitFor(async () => fake.dois.get(conceptDoi)?.state === 'findable', { timeoutMs: 15_000 });
    expect(xmlOf(conceptDoi)).toContain(`<identifier identifierType="DOI">${conceptDoi}</identifier>`);
    await waitFor(async () => (await request.get(`/api/records/${draft.id}`)).body.parent.pids.doi.status === 'registered');
  });

  it('should update the metadata at DataCite on edit-publish, and hide a tombstoned record (registered) then show it again on restore', async () => {
    const draft = await reserved();
    const doi = `${PREFIX}/${draft.id}`;
    await publish(draft.id);
    await waitFor(async () => (await status(draft.id)) === 'registered', { timeoutMs: 15_000 });

    const edit = await request.post(`/api/records/${draft.id}/draft`).set(as(OWNER));
    expect(edit.status).toBe(201);
    expect(edit.body.pids.doi.status).toBe('registered');
    const put = await request
      .put(`/api/records/${draft.id}/draft`)
      .set(as(OWNER))
      .send({ ...edit.body, metadata: { ...edit.body.metadata, title: 'A Romans story, revised' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    // A status sent back by the client is the server's, never the client's.
    expect(put.body.pids.doi.status).toBe('registered');
    const again = await publish(draft.id);
    expect(again.pids.doi.status).toBe('registered');
    await waitFor(async () => xmlOf(doi).includes('A Romans story, revised'), { timeoutMs: 15_000 });
    expect(fake.dois.get(doi)!.state).toBe('findable');
    expect(fake.findableTransitions(doi)).toBe(1);

    const del = await request
      .delete(`/api/records/${draft.id}/delete`)
      .set(ADMIN)
      .send({ removal_reason: { id: 'spam' }, note: 'Spam', is_visible: true });
    expect(del.status, JSON.stringify(del.body)).toBe(204);
    await waitFor(async () => fake.dois.get(doi)!.state === 'registered', { timeoutMs: 15_000 });

    expect((await request.post(`/api/records/${draft.id}/restore`).set(ADMIN)).status).toBe(204);
    await waitFor(async () => fake.dois.get(doi)!.state === 'findable', { timeoutMs: 15_000 });
  });

  it('should delete the DataCite draft DOI when the reserved DOI is discarded', async () => {
    const draft = await reserved();
    const doi = `${PREFIX}/${draft.id}`;
    await waitFor(async () => fake.dois.get(doi)?.state === 'draft');
    expect((await request.delete(`/api/records/${draft.id}/draft/pids/doi`).set(as(OWNER))).status).toBe(204);
    await waitFor(async () => !fake.dois.has(doi));
  });

  it('should keep publishing while DataCite is down, retry, and register the DOI exactly once when it is back', async () => {
    const draft = await reserved();
    const doi = `${PREFIX}/${draft.id}`;
    await waitFor(async () => fake.dois.get(doi)?.state === 'draft');
    fake.down = true;
    const record = await publish(draft.id);
    expect(record.pids.doi.status).toBe('reserved');
    // Retried while down: the failure is kept on the pid row, the record stays reserved.
    await waitFor(async () => (await env.db('pids').where({ identifier: doi }).first())?.sync_error?.includes('503'), {
      timeoutMs: 15_000,
    });
    expect(await status(draft.id)).toBe('reserved');
    expect(fake.dois.get(doi)!.state).toBe('draft');
    fake.down = false;
    await waitFor(async () => (await status(draft.id)) === 'registered', { timeoutMs: 20_000 });
    expect(fake.dois.get(doi)!.state).toBe('findable');
    expect(fake.findableTransitions(doi)).toBe(1);
    const puts = fake.calls.filter((c) => c.method !== 'GET' && c.path.includes(draft.id) && c.event === 'publish');
    expect(puts).toHaveLength(1);
  });

  it('should answer DataCite error documents: 401 bad credentials, 404 unknown, 422 invalid metadata, 403 foreign prefix', async () => {
    const fail = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DataCiteError);
      return err as DataCiteError;
    };
    const e401 = await fail(client('wrong').get(`${PREFIX}/x`));
    expect(e401.status).toBe(401);
    expect(e401.retryable).toBe(false);
    expect(e401.errors).toEqual([{ status: '401', title: 'Bad credentials.' }]);
    expect(await client().get(`${PREFIX}/unknown-doi`)).toBeUndefined();
    const xml = Buffer.from('<resource xmlns="http://datacite.org/schema/kernel-4"/>').toString('base64');
    const e422 = await fail(client().create({ doi: `${PREFIX}/bad-xml`, event: 'publish', url: `${BASE}/records/x`, xml }));
    expect(e422.status).toBe(422);
    expect(e422.errors[0].source).toBe('metadata');
    const e403 = await fail(client().create({ doi: '10.9999/other' }));
    expect(e403.status).toBe(403);
    const down = new DataCiteClient({ url: 'http://127.0.0.1:9', username: 'x', password: 'y', timeoutMs: 500 });
    expect((await fail(down.get(`${PREFIX}/x`))).retryable).toBe(true);
  });
});
