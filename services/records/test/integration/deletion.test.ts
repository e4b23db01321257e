import { isAppError } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Env, fullMetadata, startEnv, VOCAB } from './support.js';

const OWNER = '501';
const ADMIN = as('9', ['admin']);

describe('record deletion, tombstones and restore', () => {
  let env: Env;

  const publish = async () => {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    env.files.addFile(d.id, 'a.txt');
    const r = await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER));
    expect(r.status).toBe(202);
    return r.body as Record<string, any>;
  };
  const body = (extra: Record<string, unknown> = {}) => ({
    removal_reason: { id: 'spam' },
    note: 'Spam upload',
    citation_text: 'Someone (2024). Spam. Zenodo.',
    is_visible: true,
    ...extra,
  });

  beforeAll(async () => {
    VOCAB['removalreasons/spam'] = { id: 'spam', title: { en: 'Spam' } };
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should refuse anonymous users and non-administrators with 403', async () => {
    const r = await publish();
    for (const who of [as(null), as(OWNER), as('77')]) {
      const res = await env.request.delete(`/api/records/${r.id}/delete`).set(who).send(body());
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 403, message: 'Permission denied.' });
    }
    expect((await env.request.post(`/api/records/${r.id}/restore`).set(as(OWNER))).status).toBe(403);
    expect((await env.request.get(`/api/records/${r.id}`)).status).toBe(200);
  });

  it('should validate the body: unknown removal reason, missing reason, wrong types → 400', async () => {
    const r = await publish();
    let res = await env.request
      .delete(`/api/records/${r.id}/delete`)
      .set(ADMIN)
      .send(body({ removal_reason: { id: 'nope' } }));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'removal_reason', messages: ['Invalid value nope.'] }]);
    res = await env.request.delete(`/api/records/${r.id}/delete`).set(ADMIN).send({ note: 1, is_visible: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['is_visible', 'note', 'removal_reason']);
    expect((await env.request.delete('/api/records/zzzzz-zzz00/delete').set(ADMIN).send(body())).status).toBe(404);
    expect((await env.request.delete(`/api/records/${r.id}/delete`).set(ADMIN).set('If-Match', '999').send(body())).status).toBe(412);
  });

  it('should answer 410 with the tombstone, leave search, refuse files, show deleted in OAI-PMH, then restore', async () => {
    const r = await publish();
    expect((await env.request.get(`/api/records?q=id:${r.id}`)).body.hits.total).toBe(1);
    const res = await env.request.delete(`/api/records/${r.id}/delete`).set(ADMIN).send(body());
    expect(res.status).toBe(204);

    const gone = await env.request.get(`/api/records/${r.id}`);
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({
      status: 410,
      message: 'Record deleted',
      tombstone: {
        removal_reason: { id: 'spam', title: { en: 'Spam' } },
        note: 'Spam upload',
        citation_text: 'Someone (2024). Spam. Zenodo.',
        is_visible: true,
        removed_by: { user: '9' },
      },
    });
    expect(gone.body.tombstone.removal_date).toMatch(/^\d{4}-\d\d-\d\dT.*\+00:00$/);
    expect((await env.request.get(`/api/records/${r.id}`).set(as(OWNER))).status).toBe(410);
    expect((await env.request.get(`/api/records?q=id:${r.id}`)).body.hits.total).toBe(0);
    expect((await env.request.get(`/api/user/records?q=id:${r.id}`).set(as(OWNER))).body.hits.total).toBe(0);
    try {
      await env.rpc('rdm.records.rpc.authorize-files', {
        record_id: r.id,
        scope: 'record',
        action: 'read',
        identity: { sub: null, roles: [] },
      });
      throw new Error('expected 410');
    } catch (e) {
      expect(isAppError(e) && e.status).toBe(410);
    }
    const oai = await env.request.get('/oai2d').query({ verb: 'GetRecord', identifier: r.pids.oai.identifier, metadataPrefix: 'oai_dc' });
    expect(oai.text).toContain('<header status="deleted">');
    const ev = await env.db('outbox').where({ aggregate_id: r.id, subject: 'rdm.records.record.deleted' });
    expect(ev).toHaveLength(1);
    expect((ev[0].payload as { data: unknown }).data).toEqual({
      id: r.id,
      parent_id: r.parent.id,
      bucket_id: r.id,
      removal_reason: 'spam',
      is_visible: true,
    });
    // a second deletion is refused
    expect((await env.request.delete(`/api/records/${r.id}/delete`).set(ADMIN).send(body())).status).toBe(400);

    expect((await env.request.post(`/api/records/${r.id}/restore`).set(ADMIN)).status).toBe(204);
    const back = await env.request.get(`/api/records/${r.id}`);
    expect(back.status).toBe(200);
    expect(back.body.deletion_status).toEqual({ is_deleted: false, status: 'P' });
    expect((await env.request.get(`/api/records?q=id:${r.id}`)).body.hits.total).toBe(1);
    expect(await env.db('outbox').where({ aggregate_id: r.id, subject: 'rdm.records.record.restored' })).toHaveLength(1);
    expect((await env.request.post(`/api/records/${r.id}/restore`).set(ADMIN)).status).toBe(400);
  });

  it('should answer 404 Record not found when the tombstone is hidden', async () => {
    const r = await publish();
    expect(
      (
        await env.request
          .delete(`/api/records/${r.id}/delete`)
          .set(ADMIN)
          .send(body({ is_visible: false }))
      ).status,
    ).toBe(204);
    const res = await env.request.get(`/api/records/${r.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, message: 'Record not found' });
  });
});
