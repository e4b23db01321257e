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

  it('should validate the body: unknown removal reason, wrong types → 400', async () => {
    const r = await publish();
    let res = await env.request
      .delete(`/api/records/${r.id}/delete`)
      .set(ADMIN)
      .send(body({ removal_reason: { id: 'nope' } }));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'removal_reason', messages: ['Invalid value nope.'] }]);
    res = await env.request.delete(`/api/records/${r.id}/delete`).set(ADMIN).send({ note: 1, is_visible: 'yes' });
    expect(res.status).toBe(400);
    // No reason is not an error (InvenioRDM 14: a tombstone without one); the wrong types are.
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['is_visible', 'note']);
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

  // Issue 18, finding 7: an administrator's deletion holds against the owner.
  describe('deletion holds', () => {
    const remove = async (id: string) =>
      expect((await env.request.delete(`/api/records/${id}/delete`).set(ADMIN).send(body())).status).toBe(204);
    const expectTombstone = (res: { status: number; body: any }) => {
      expect(res.status).toBe(410);
      expect(res.body).toMatchObject({
        status: 410,
        message: 'Record deleted',
        tombstone: { removal_reason: { id: 'spam' }, is_visible: true },
      });
    };
    const authorizeUpdate = async (id: string) => {
      try {
        await env.rpc('rdm.records.rpc.authorize-files', {
          record_id: id,
          scope: 'draft',
          action: 'update',
          identity: { sub: OWNER, roles: [] },
        });
        return 200;
      } catch (e) {
        return isAppError(e) ? e.status : 500;
      }
    };

    it('should refuse a new version and an edit of a deleted record with 410 and its tombstone', async () => {
      const r = await publish();
      await remove(r.id);
      expectTombstone(await env.request.post(`/api/records/${r.id}/versions`).set(as(OWNER)));
      expectTombstone(await env.request.post(`/api/records/${r.id}/draft`).set(as(OWNER)));
      expect(await env.db('drafts').where({ parent_id: r.parent.id })).toHaveLength(0);
      // Restore is the administrators' alone; afterwards the owner works again.
      expect((await env.request.post(`/api/records/${r.id}/restore`).set(as(OWNER))).status).toBe(403);
      expect((await env.request.post(`/api/records/${r.id}/restore`).set(ADMIN)).status).toBe(204);
      expect((await env.request.post(`/api/records/${r.id}/versions`).set(as(OWNER))).status).toBe(201);
    });

    it('should not publish a new-version draft made before the deletion, nor let it change or take files; it may be deleted', async () => {
      const r = await publish();
      const nv = (await env.request.post(`/api/records/${r.id}/versions`).set(as(OWNER)).expect(201)).body;
      env.files.addFile(nv.id, 'b.txt');
      await remove(r.id);
      const pub = await env.request.post(`/api/records/${nv.id}/draft/actions/publish`).set(as(OWNER));
      expect(pub.status).toBe(410);
      expect(pub.body).toMatchObject({ status: 410, message: 'Record deleted' });
      expect(await env.db('records').where({ id: nv.id })).toHaveLength(0);
      expect((await env.request.put(`/api/records/${nv.id}/draft`).set(as(OWNER)).send({ metadata: fullMetadata() })).status).toBe(410);
      expect((await env.request.post(`/api/records/${nv.id}/draft/actions/files-import`).set(as(OWNER))).status).toBe(410);
      expect(await authorizeUpdate(nv.id)).toBe(410);
      expect((await env.request.get(`/api/records/${nv.id}/draft`).set(as(OWNER))).status).toBe(200);
      expect((await env.request.delete(`/api/records/${nv.id}/draft`).set(as(OWNER))).status).toBe(204);
    });

    it('should refuse a new version from an older live version while the latest one is deleted', async () => {
      const v1 = await publish();
      const nv = (await env.request.post(`/api/records/${v1.id}/versions`).set(as(OWNER)).expect(201)).body;
      env.files.addFile(nv.id, 'c.txt');
      await env.request.put(`/api/records/${nv.id}/draft`).set(as(OWNER)).send({ metadata: fullMetadata() }).expect(200);
      await env.request.post(`/api/records/${nv.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
      await remove(nv.id);
      const res = await env.request.post(`/api/records/${v1.id}/versions`).set(as(OWNER));
      expect(res.status).toBe(410);
      expect(await env.db('drafts').where({ parent_id: v1.parent.id })).toHaveLength(0);
    });

    it('should not publish an edit draft made before the deletion, nor save or re-open it', async () => {
      const r = await publish();
      await env.request.post(`/api/records/${r.id}/draft`).set(as(OWNER)).expect(201);
      await remove(r.id);
      expectTombstone(await env.request.post(`/api/records/${r.id}/draft/actions/publish`).set(as(OWNER)));
      expectTombstone(await env.request.put(`/api/records/${r.id}/draft`).set(as(OWNER)).send({ metadata: fullMetadata() }));
      expectTombstone(await env.request.post(`/api/records/${r.id}/draft`).set(as(OWNER)));
      expect(await authorizeUpdate(r.id)).toBe(410);
      expectTombstone(await env.request.get(`/api/records/${r.id}`));
      const rec = await env.db('records').where({ id: r.id }).first();
      expect(rec.deletion_status).toBe('D');
    });
  });

  // Issue 19, item 2: InvenioRDM 14 deletes with `{}` (204) and keeps a tombstone without a reason.
  it('should delete with an empty body (or none): 204, a tombstone without a reason, an event without one', async () => {
    const r = await publish();
    const res = await env.request.delete(`/api/records/${r.id}/delete`).set(ADMIN).send({});
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const gone = await env.request.get(`/api/records/${r.id}`);
    expect(gone.status).toBe(410);
    expect(gone.body.tombstone).toEqual({
      note: '',
      removed_by: { user: '9' },
      removal_date: expect.stringMatching(/\+00:00$/),
      citation_text: '',
      is_visible: true,
      deletion_policy: { id: 'record-deletion-v1' },
    });
    const ev = await env.db('outbox').where({ aggregate_id: r.id, subject: 'rdm.records.record.deleted' });
    expect((ev[0].payload as { data: unknown }).data).toEqual({ id: r.id, parent_id: r.parent.id, bucket_id: r.id, is_visible: true });
    const oai = await env.request.get('/oai2d').query({ verb: 'GetRecord', identifier: r.pids.oai.identifier, metadataPrefix: 'oai_dc' });
    expect(oai.text).toContain('<header status="deleted">');
    expect((await env.request.get(`/api/records?q=id:${r.id}`)).body.hits.total).toBe(0);
    // Restore, then delete again with no body at all.
    expect((await env.request.post(`/api/records/${r.id}/restore`).set(ADMIN)).status).toBe(204);
    expect((await env.request.delete(`/api/records/${r.id}/delete`).set(ADMIN)).status).toBe(204);
    expect((await env.request.get(`/api/records/${r.id}`)).body.tombstone).not.toHaveProperty('removal_reason');
  });

  it('should still validate a reason that is given, and the body type', async () => {
    const r = await publish();
    const del = (b: unknown) =>
      env.request
        .delete(`/api/records/${r.id}/delete`)
        .set(ADMIN)
        .send(b as object);
    expect((await del({ removal_reason: { id: 'nope' } })).body.errors).toEqual([
      { field: 'removal_reason', messages: ['Invalid value nope.'] },
    ]);
    expect((await del({ removal_reason: {} })).body.errors).toEqual([
      { field: 'removal_reason.id', messages: ['Missing data for required field.'] },
    ]);
    expect((await del({ removal_reason: null })).body.errors).toEqual([{ field: 'removal_reason', messages: ['Field may not be null.'] }]);
    expect((await del({ removal_reason: 5 })).body.errors).toEqual([{ field: 'removal_reason', messages: ['Invalid input type.'] }]);
    expect((await del([])).body).toEqual({
      status: 400,
      message: 'A validation error occurred.',
      errors: [{ field: '_schema', messages: ['Invalid input type.'] }],
    });
    expect((await env.request.get(`/api/records/${r.id}`)).status).toBe(200);
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
