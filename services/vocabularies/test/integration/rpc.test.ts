import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc, createLogger, ensureStream, eventSubjects, OutboxRelay, type RpcServer } from '@rdm/platform';
import { spawnNatsServer, testNats, type TestDb, waitFor } from '@rdm/platform/testing';
import { loadVocabularies } from '../../src/domain/loader.service.js';
import { reloadListener } from '../../src/events/reload-listener.js';
import { RESOLVE_SUBJECT, serveResolveRpc } from '../../src/rpc/resolve.rpc.js';
import { appOver, fixtureSet, loadedDb } from './setup.js';

// Why: a private nats-server, so requests are not answered by a dev stack on the shared server
// (same subject and queue group).
const nats = spawnNatsServer({ port: 4400 + Math.floor(Math.random() * 500) });
const logger = createLogger('vocabularies-test', process.env.TEST_LOG_LEVEL ?? 'silent');
let t: TestDb;
let app: ReturnType<typeof appOver>;
let conn: Awaited<ReturnType<typeof testNats>>;
let rpc: RpcServer;
let queries = 0;

beforeAll(async () => {
  await nats.start();
  t = await loadedDb();
  app = appOver(t, 5000);
  conn = await testNats(nats.url);
  rpc = serveResolveRpc(conn.nc, app.service, logger);
  t.db.on('query', () => {
    queries++;
  });
});
afterAll(async () => {
  await rpc?.stop();
  await conn?.close();
  await t?.destroy();
  await nats.dispose();
});

type Reply = { items: { type: string; id: string; found: boolean; entry?: Record<string, unknown> }[] };
const resolve = (items: { type: string; id: string }[]) => callRpc<Reply>(conn.nc, RESOLVE_SUBJECT, { items }, { timeoutMs: 5000 });

describe('rdm.vocabularies.rpc.resolve', () => {
  it('should resolve known and unknown pairs in request order', async () => {
    const reply = await resolve([
      { type: 'resourcetypes', id: 'image-photo' },
      { type: 'languages', id: 'zzz-none' },
      { type: 'licenses', id: 'cc-by-4.0' },
      { type: 'nope', id: 'x' },
      { type: 'resourcetypes', id: 'image-photo' },
    ]);
    expect(reply.items.map((i) => [i.type, i.id, i.found])).toEqual([
      ['resourcetypes', 'image-photo', true],
      ['languages', 'zzz-none', false],
      ['licenses', 'cc-by-4.0', true],
      ['nope', 'x', false],
      ['resourcetypes', 'image-photo', true],
    ]);
    expect(reply.items[0].entry).toEqual({
      id: 'image-photo',
      title: expect.objectContaining({ en: 'Photo' }),
      props: expect.objectContaining({ type: 'image', subtype: 'image-photo' }),
      tags: ['depositable', 'linkable'],
      type: 'resourcetypes',
    });
    expect(reply.items[1].entry).toBeUndefined();
  });

  it('should answer not found for ids with NUL characters (no failing query)', async () => {
    const reply = await resolve([
      { type: 'languages', id: 'en\u0000g' },
      { type: 'licenses', id: 'cc-by-4.0' },
      { type: 're\u0000sourcetypes', id: 'image' },
    ]);
    expect(reply.items.map((i) => i.found)).toEqual([false, true, false]);
  });

  it('should fetch any number of uncached pairs with ONE query, and none once cached', async () => {
    app.service.invalidate();
    const langs = (await t.db('entries').select('id').where({ type: 'languages' }).limit(300)).map((r: { id: string }) => ({
      type: 'languages',
      id: r.id,
    }));
    queries = 0;
    const reply = await resolve(langs);
    expect(reply.items.every((i) => i.found)).toBe(true);
    expect(queries).toBe(1);
    queries = 0;
    await resolve(langs.slice(0, 50));
    expect(queries).toBe(0);
  });

  it('should answer a malformed request with a 400 validation error', async () => {
    await expect(callRpc(conn.nc, RESOLVE_SUBJECT, { items: [{ type: 'x' }] }, { timeoutMs: 5000 })).rejects.toMatchObject({ status: 400 });
    await expect(callRpc(conn.nc, RESOLVE_SUBJECT, { items: 'x' }, { timeoutMs: 5000 })).rejects.toMatchObject({ status: 400 });
  });

  it('should drop cached entries when a vocabulary is reloaded (outbox → JetStream → listener)', async () => {
    await ensureStream(conn.jsm, { name: 'VOCABULARIES', subjects: eventSubjects('vocabularies') });
    const relay = new OutboxRelay({ db: t.db, js: conn.js, logger, pollMs: 50 });
    const listener = reloadListener(conn.nc, () => app.service.invalidate(), logger);
    listener.start();
    relay.start();
    try {
      await resolve([{ type: 'resourcetypes', id: 'image-photo' }]);
      const rt = fixtureSet().vocabularies.find((v) => v.type === 'resourcetypes')!;
      const changed = { ...rt, entries: rt.entries.map((e) => (e.id === 'image-photo' ? { ...e, title: { en: 'Photograph' } } : e)) };
      await loadVocabularies(t.db, [changed]);
      const title = await waitFor(
        async () => {
          const r = await resolve([{ type: 'resourcetypes', id: 'image-photo' }]);
          const en = (r.items[0].entry?.title as { en?: string } | undefined)?.en;
          return en === 'Photograph' ? en : undefined;
        },
        { timeoutMs: 10_000, message: 'cache was not invalidated by the loaded event' },
      );
      expect(title).toBe('Photograph');
    } finally {
      await relay.stop();
      await listener.stop();
    }
  });
});
