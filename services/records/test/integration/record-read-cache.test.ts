import { waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordReadCache } from '../../src/http/record-read-cache.js';
import { community } from './review-support.js';
import { as, type Env, fullMetadata, startEnv, VOCAB } from './support.js';

const OWNER = '701';
const OTHER = '702';
const ADMIN = '709';

/**
 * `GET /api/records/{id}` reuses renderings while the record's stamp (record and parent revision
 * ids, deletion status) is unchanged: every write must show in the very next read, for every
 * caller, without any invalidation message.
 */
describe(RecordReadCache.name, () => {
  let env: Env;

  beforeAll(async () => {
    VOCAB['removalreasons/spam'] = { id: 'spam', title: { en: 'Spam' } };
    env = await startEnv();
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

  const read = (id: string, who: Record<string, string> = {}) => env.request.get(`/api/records/${id}`).set(who);

  it('should answer a repeated read with the same body and headers, with one narrow statement', async () => {
    const rec = await published();
    const first = await read(rec.id).expect(200);
    let statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    env.db.on('query', onQuery);
    try {
      statements = [];
      const second = await read(rec.id).expect(200);
      expect(second.body).toEqual(first.body);
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(second.headers.link).toBe(first.headers.link);
      expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(statements).toHaveLength(1);
      expect(statements[0]).not.toMatch(/metadata/);
    } finally {
      env.db.removeListener('query', onQuery);
    }
  });

  it('should check the stamps of reads arriving together in one statement, each read answered as alone', async () => {
    const recs = [await published(), await published(), await published()];
    const alone = await Promise.all(recs.map(async (r) => (await read(r.id).expect(200)).body));
    // Hold the stamp statements back (an exclusive lock on records) so the reads pile up behind
    // the first one: they must then be answered by one statement for all of them.
    const trx = await env.db.transaction();
    await trx.raw('LOCK TABLE records IN ACCESS EXCLUSIVE MODE');
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    env.db.on('query', onQuery);
    try {
      const pending = Promise.all(Array.from({ length: 30 }, (_, i) => read(recs[i % 3].id).expect(200)));
      await waitFor(() => statements.length >= 1, { timeoutMs: 5000, message: 'no stamp statement' });
      await new Promise((r) => setTimeout(r, 500));
      await trx.commit();
      const many = await pending;
      for (let i = 0; i < 30; i++) expect(many[i]!.body).toEqual(alone[i % 3]);
      const reads = statements.filter((sql) => sql !== 'COMMIT;');
      for (const sql of reads) expect(sql).toMatch(/^SELECT r\.id, r\.revision_id/);
      expect(reads.length).toBeLessThan(30);
    } finally {
      env.db.removeListener('query', onQuery);
      if (!trx.isCompleted()) await trx.rollback();
    }
  });

  it('should show an edit published in between in the next read', async () => {
    const rec = await published();
    expect((await read(rec.id).expect(200)).body.metadata.title).toBe(rec.metadata.title);
    const draft = (await env.request.post(`/api/records/${rec.id}/draft`).set(as(OWNER)).expect(201)).body;
    await env.request
      .put(`/api/records/${rec.id}/draft`)
      .set(as(OWNER))
      .send({ ...draft, metadata: { ...draft.metadata, title: 'A new title' } })
      .expect(200);
    await env.request.post(`/api/records/${rec.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    const after = await read(rec.id).expect(200);
    expect(after.body.metadata.title).toBe('A new title');
    expect(after.headers.etag).toBe(`"${after.body.revision_id}"`);
    expect(after.body.revision_id).toBeGreaterThan(rec.revision_id);
  });

  it('should show a change of the parent (a newer version) in the next read of the older version', async () => {
    const v1 = await published();
    expect((await read(v1.id).expect(200)).body.versions.is_latest).toBe(true);
    const nv = (await env.request.post(`/api/records/${v1.id}/versions`).set(as(OWNER)).expect(201)).body;
    env.files.addFile(nv.id, 'b.txt');
    await env.request.post(`/api/records/${nv.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    const again = await read(v1.id).expect(200);
    expect(again.body.versions).toEqual({ is_latest: false, index: 1 });
  });

  it('should keep renderings per caller: the owner sees what anonymous readers do not', async () => {
    const rec = await published('restricted');
    expect((await read(rec.id, as(OWNER))).status).toBe(200);
    expect((await read(rec.id)).status).toBe(403);
    expect((await read(rec.id, as(OTHER))).status).toBe(403);
    expect((await read(rec.id, as(OWNER))).status).toBe(200);
    expect((await read(rec.id)).status).toBe(403);
    const pub = await published();
    const owner = (await read(pub.id, as(OWNER)).expect(200)).body;
    const anon = (await read(pub.id).expect(200)).body;
    expect(owner.versions.is_latest_draft).toBe(true);
    expect(anon.versions.is_latest_draft).toBeUndefined();
    expect((await read(pub.id).expect(200)).body).toEqual(anon);
    expect((await read(pub.id, as(OWNER)).expect(200)).body).toEqual(owner);
  });

  /**
   * Every input of the read decision, changed between two reads by the same caller (the first
   * one cached when the cache may keep it): the second read is decided afresh.
   */
  describe('the next read after a change of a permission input', () => {
    /** Two reads, so that the second is a cache hit whenever the cache kept the first. */
    const twice = async (id: string, who: Record<string, string> | (() => Record<string, string>), path = `/api/records/${id}`) => {
      const headers = () => (typeof who === 'function' ? who() : who);
      const a = await env.request.get(path).set(headers());
      const b = await env.request.get(path).set(headers());
      expect(b.status).toBe(a.status);
      return a.status;
    };

    /** A published record of OWNER in community `c` (as an accepted inclusion leaves it). */
    async function inCommunity(communityId: string): Promise<any> {
      const rec = await published('restricted');
      await env
        .db('parents')
        .where({ id: rec.parent.id })
        .update({ communities: { ids: [communityId], default: communityId }, revision_id: env.db.raw('revision_id + 1') });
      return rec;
    }

    it('should refuse a member whose community role was removed', async () => {
      const c = env.fakeCommunities.add(community('cache-members'));
      const rec = await inCommunity(c.id);
      env.fakeCommunities.setRole(OTHER, c.id, 'reader');
      expect(await twice(rec.id, as(OTHER))).toBe(200);
      env.fakeCommunities.roles.delete(OTHER);
      expect((await read(rec.id, as(OTHER))).status).toBe(403);
    });

    it('should admit a user given a community role, and refuse them again when it is taken back', async () => {
      const c = env.fakeCommunities.add(community('cache-roles'));
      const rec = await inCommunity(c.id);
      expect(await twice(rec.id, as(OTHER))).toBe(403);
      env.fakeCommunities.setRole(OTHER, c.id, 'curator');
      expect(await twice(rec.id, as(OTHER))).toBe(200);
      env.fakeCommunities.setRole(OTHER, c.id, 'reader');
      expect(await twice(rec.id, as(OTHER))).toBe(200);
      env.fakeCommunities.roles.delete(OTHER);
      expect((await read(rec.id, as(OTHER))).status).toBe(403);
    });

    it('should refuse a reader whose grant was removed, and admit one given a grant', async () => {
      const rec = await published('restricted');
      expect(await twice(rec.id, as(OTHER))).toBe(403);
      await env.request
        .post(`/api/records/${rec.id}/access/users`)
        .set(as(OWNER))
        .send({ grants: [{ subject: { type: 'user', id: OTHER }, permission: 'view' }] })
        .expect(201);
      expect(await twice(rec.id, as(OTHER))).toBe(200);
      await env.request.delete(`/api/records/${rec.id}/access/users/${OTHER}`).set(as(OWNER)).expect(204);
      expect((await read(rec.id, as(OTHER))).status).toBe(403);
    });

    it('should refuse a secret link once it is revoked, and admit a new one', async () => {
      const rec = await published('restricted');
      const link = (await env.request.post(`/api/records/${rec.id}/access/links`).set(as(OWNER)).send({ permission: 'view' }).expect(201))
        .body;
      const withToken = `/api/records/${rec.id}?token=${link.token}`;
      expect(await twice(rec.id, {}, withToken)).toBe(200);
      expect(await twice(rec.id, as(OTHER), withToken)).toBe(200);
      await env.request.delete(`/api/records/${rec.id}/access/links/${link.id}`).set(as(OWNER)).expect(204);
      expect((await env.request.get(withToken)).status).toBe(403);
      expect((await env.request.get(withToken).set(as(OTHER))).status).toBe(403);
      // The token never opened the plain path for that caller either.
      expect((await read(rec.id, as(OTHER))).status).toBe(403);
    });

    it('should refuse everyone but the owner once the record is made restricted', async () => {
      const rec = await published();
      expect(await twice(rec.id, as(OTHER))).toBe(200);
      expect(await twice(rec.id, {})).toBe(200);
      const draft = (await env.request.post(`/api/records/${rec.id}/draft`).set(as(OWNER)).expect(201)).body;
      await env.request
        .put(`/api/records/${rec.id}/draft`)
        .set(as(OWNER))
        .send({ ...draft, access: { record: 'restricted', files: 'restricted' } })
        .expect(200);
      await env.request.post(`/api/records/${rec.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
      expect((await read(rec.id, as(OTHER))).status).toBe(403);
      expect((await read(rec.id)).status).toBe(403);
      expect((await read(rec.id, as(OWNER))).status).toBe(200);
    });

    it('should answer 410 to every caller once the record is deleted', async () => {
      const rec = await published();
      expect(await twice(rec.id, as(OTHER))).toBe(200);
      expect(await twice(rec.id, as(OWNER))).toBe(200);
      await env.request
        .delete(`/api/records/${rec.id}/delete`)
        .set(as(ADMIN, ['admin']))
        .send({ removal_reason: { id: 'spam' }, is_visible: true })
        .expect(204);
      for (const who of [as(OTHER), as(OWNER), {}]) expect((await read(rec.id, who)).status).toBe(410);
    });
  });
});
