import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createRequest, type Env, startEnv } from './support.js';

let env: Env;
const OWNER = '71';
const REQUESTER = '72';
const OTHER = '73';

const ask = (record: string, by = REQUESTER) =>
  createRequest(
    env,
    {
      type: 'user-access-request',
      created_by: { user: by },
      receiver: { user: OWNER },
      topic: { record },
      title: `Access to ${record}`,
      payload: { permission: 'view' },
    },
    { sub: by, roles: [] },
  );

beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('GET /api/records/<id>/requests', () => {
  it("should list the requests of the record and of its parent the caller may read, with the search's shape", async () => {
    const rec = `r-${randomUUID().slice(0, 8)}`;
    const parent = `p-${rec}`;
    env.records.records.set(rec, { parent, readers: ['*'] });
    env.records.records.set(`${rec}-other`, { parent: 'p-other', readers: ['*'] });
    const onRecord = await ask(rec);
    const onParent = await ask(parent, OTHER);
    const elsewhere = await ask(`${rec}-other`);
    const owner = await env.http.get(`/api/records/${rec}/requests`).set(as(OWNER)).expect(200);
    expect(owner.body.hits.hits.map((h: any) => h.id).sort()).toEqual([onRecord.id, onParent.id].sort());
    expect(owner.body.hits.total).toBe(2);
    expect(owner.body.links.self).toBe(`https://rdm.example.org/api/records/${rec}/requests?page=1&size=25&sort=newest`);
    expect(owner.body.aggregations.type.buckets).toEqual([expect.objectContaining({ key: 'user-access-request', doc_count: 2 })]);
    // The requester sees only their own request; filters and paging as the requests search.
    const mine = await env.http.get(`/api/records/${rec}/requests`).set(as(REQUESTER)).expect(200);
    expect(mine.body.hits.hits.map((h: any) => h.id)).toEqual([onRecord.id]);
    const filtered = await env.http
      .get(`/api/records/${rec}/requests`)
      .query({ created_by: `user:${OTHER}`, size: 1 })
      .set(as(OWNER))
      .expect(200);
    expect(filtered.body.hits.hits.map((h: any) => h.id)).toEqual([onParent.id]);
    // A topic filter narrows within the record's requests, never widens beyond them.
    const widened = await env.http
      .get(`/api/records/${rec}/requests`)
      .query({ topic: `record:${rec}-other` })
      .set(as(OWNER))
      .expect(200);
    expect(widened.body.hits.total).toBe(0);
    const admin = await env.http
      .get(`/api/records/${rec}/requests`)
      .set(as('1', ['admin']))
      .expect(200);
    expect(admin.body.hits.hits.map((h: any) => h.id)).not.toContain(elsewhere.id);
    expect(admin.body.hits.total).toBe(2);
  });

  it('should answer as the record read does: 404 unknown, 410 deleted, 403 refused or anonymous', async () => {
    const rec = `r-${randomUUID().slice(0, 8)}`;
    env.records.records.set(rec, { parent: `p-${rec}`, readers: [OWNER] });
    env.records.records.set(`${rec}-gone`, { parent: `p-${rec}`, readers: ['*'], deleted: true });
    await ask(rec);
    const stranger = await env.http.get(`/api/records/${rec}/requests`).set(as(OTHER)).expect(403);
    expect(stranger.body).toMatchObject({ status: 403 });
    await env.http.get(`/api/records/${rec}/requests`).expect(403);
    const unknown = await env.http.get('/api/records/nope/requests').set(as(OWNER)).expect(404);
    expect(unknown.body).toMatchObject({ status: 404 });
    await env.http.get(`/api/records/${rec}-gone/requests`).set(as(OWNER)).expect(410);
    await env.http.get(`/api/records/${rec}/requests`).query({ is_open: 'maybe' }).set(as(OWNER)).expect(400);
  });
});
