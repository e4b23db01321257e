import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { LeanRecordReads } from '../../src/http/record-read-lean.js';
import { as, type Env, fullMetadata, startEnv, VOCAB } from './support.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const OWNER = '801';
const OTHER = '802';
const ADMIN = as('9', ['admin']);

/**
 * Read-cache hits of `GET /api/records/<id>` are answered without koa: every answer must be the
 * one the full koa path gives (same status, every header but Date, same body), and everything the
 * lean path does not take must reach koa untouched.
 */
describe(LeanRecordReads.name, () => {
  let env: Env;
  let full: ReturnType<typeof supertest>;
  let lean: LeanRecordReads;

  beforeAll(async () => {
    VOCAB['removalreasons/spam'] = { id: 'spam', title: { en: 'Spam' } };
    env = await startEnv();
    lean = env.parts.leanReads as LeanRecordReads;
    // The same service on the same database with the lean path off: koa answers everything.
    full = supertest(gatewayFront(createApp({ ...env.deps, leanReads: false }).app.callback(), SECRET));
  });
  afterAll(async () => {
    await env?.close();
  });

  async function published(access: 'public' | 'restricted' = 'public'): Promise<any> {
    const d = (
      await env.request
        .post('/api/records')
        .set(as(OWNER))
        .send({ access: { record: access, files: access }, metadata: fullMetadata() })
        .expect(201)
    ).body;
    env.files.addFile(d.id, 'a.txt');
    return (await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202)).body;
  }

  const headersOf = (res: supertest.Response) => {
    const { date, ...rest } = res.headers as Record<string, string>;
    return rest;
  };

  /**
   * Ask both apps (each twice: the first read may fill a read cache, the second may be a hit) and
   * compare; true when the lean path answered the second read.
   */
  async function same(path: string, headers: Record<string, string> = {}): Promise<boolean> {
    const h = { 'X-Request-Id': 'req-lean-1', ...headers };
    await env.request.get(path).set(h);
    await full.get(path).set(h);
    const before = lean.answered;
    const a = await env.request.get(path).set(h);
    const answeredLean = lean.answered > before;
    const b = await full.get(path).set(h);
    expect({ status: a.status, headers: headersOf(a), body: a.body, text: a.text }).toEqual({
      status: b.status,
      headers: headersOf(b),
      body: b.body,
      text: b.text,
    });
    return answeredLean;
  }

  it('should answer a public record read as koa does, anonymous and signed in, from the lean path', async () => {
    const rec = await published();
    // Live counters, so that the lean answer must carry the spliced stats block.
    await env.db('stats_counts').insert({ record_id: rec.id, parent_id: rec.parent.id, views: 7, unique_views: 5 });
    expect(await same(`/api/records/${rec.id}`)).toBe(true);
    expect((await env.request.get(`/api/records/${rec.id}`).expect(200)).body.stats.this_version.views).toBe(7);
    expect(await same(`/api/records/${rec.id}`, as(OWNER))).toBe(true);
    expect(await same(`/api/records/${rec.id}`, as(OTHER))).toBe(true);
    expect(await same(`/api/records/${rec.id}`, { Accept: 'application/json' })).toBe(true);
    // A conditional read naming the current ETag: 304 without a body on both paths (the web
    // service's page cache checks a revision so); another ETag: the record in full.
    const etag = (await full.get(`/api/records/${rec.id}`).expect(200)).headers.etag as string;
    expect(await same(`/api/records/${rec.id}`, { 'If-None-Match': etag })).toBe(true);
    const unchanged = await env.request.get(`/api/records/${rec.id}`).set({ 'If-None-Match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBeFalsy();
    expect(unchanged.headers.etag).toBe(etag);
    expect(await same(`/api/records/${rec.id}`, { 'If-None-Match': `W/${etag}, "other"` })).toBe(true);
    expect((await env.request.get(`/api/records/${rec.id}`).set({ 'If-None-Match': '"0"' })).status).toBe(200);
  });

  it('should give a restricted record to its owner from the lean path and the 403 of koa to others', async () => {
    const rec = await published('restricted');
    expect(await same(`/api/records/${rec.id}`, as(OWNER))).toBe(true);
    expect(await same(`/api/records/${rec.id}`, as(OTHER))).toBe(false);
    expect(await same(`/api/records/${rec.id}`)).toBe(false);
    expect((await env.request.get(`/api/records/${rec.id}`).set(as(OTHER))).status).toBe(403);
  });

  it('should leave other Accept values, query strings and secret links to koa, with its answers', async () => {
    const rec = await published();
    const path = `/api/records/${rec.id}`;
    for (const accept of [
      '*/*',
      'application/vnd.inveniordm.v1+json',
      'application/x-datacite+xml',
      'application/vnd.datacite.datacite+json',
      'text/html',
      'application/json, text/plain',
      'image/png',
    ]) {
      expect(await same(path, { Accept: accept })).toBe(false);
    }
    expect(await same(`${path}?token=not-a-token`)).toBe(false);
    expect(await same(`${path}?format=json`)).toBe(false);
    const link = (await env.request.post(`${path}/access/links`).set(as(OWNER)).send({ permission: 'view' }).expect(201)).body;
    expect(await same(`${path}?token=${link.token}`)).toBe(false);
  });

  it('should answer drafts, unknown ids, bad signatures and deleted records as koa does', async () => {
    const draft = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() }).expect(201)).body;
    expect(await same(`/api/records/${draft.id}`, as(OWNER))).toBe(false);
    expect(await same(`/api/records/${draft.id}`)).toBe(false);
    expect(await same('/api/records/zzzzz-zzz00')).toBe(false);
    expect(await same('/api/records/%00')).toBe(false);
    const rec = await published();
    expect(await same(`/api/records/${rec.id}`)).toBe(true);
    expect(await same(`/api/records/${rec.id}`, { 'x-rdm-identity': 'forged.signature' })).toBe(false);
    await env.request
      .delete(`/api/records/${rec.id}/delete`)
      .set(ADMIN)
      .send({ removal_reason: { id: 'spam' }, note: 'Spam', citation_text: 'x', is_visible: true })
      .expect(204);
    expect(await same(`/api/records/${rec.id}`)).toBe(false);
    expect((await env.request.get(`/api/records/${rec.id}`)).status).toBe(410);
  });

  it('should generate a request id when none is given, as koa does', async () => {
    const rec = await published();
    await env.request.get(`/api/records/${rec.id}`).expect(200);
    const before = lean.answered;
    const res = await env.request.get(`/api/records/${rec.id}`).expect(200);
    expect(lean.answered).toBe(before + 1);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
