/**
 * Issue 18, finding 7 (regression): an administrator's deletion cannot be undone by the owner.
 *
 * Through the gateway: after `DELETE /api/records/<id>/delete`, the owner's
 * `POST /api/records/<id>/versions` and `POST /api/records/<id>/draft` answer 410 with the
 * tombstone; a new-version draft made BEFORE the deletion can be neither published (410, nothing
 * goes back online) nor given files; only an administrator's restore lifts the hold. The old code
 * let the owner make a new version of the deleted record and publish it: the removed content was
 * online again under a new id.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { publish, publishedRecord, uploadFiles, walkthroughMetadata } from '../records/support.js';

const REMOVAL = { removal_reason: { id: 'spam' }, note: 'Taken down', citation_text: 'Removed content', is_visible: true };

describe('deletion holds against the owner', () => {
  let owner: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    [owner, admin] = await Promise.all([
      createUser({ email: uniqueEmail('hold-owner') }),
      createUser({ email: uniqueEmail('hold-admin'), admin: true }),
    ]);
  });

  const remove = async (id: string) => {
    const del = await api(`/api/records/${id}/delete`, { method: 'DELETE', token: admin.token, body: REMOVAL });
    expect([200, 204], del.text).toContain(del.status);
  };
  const expectTombstone = (res: { status: number; body: any; text: string }) => {
    expect(res.status, res.text).toBe(410);
    expect(res.body).toMatchObject({
      status: 410,
      message: 'Record deleted',
      tombstone: { removal_reason: { id: 'spam' }, note: 'Taken down', citation_text: 'Removed content', is_visible: true },
    });
  };

  it('the owner cannot make a new version or an edit of a deleted record (410 with the tombstone)', async () => {
    const rec = await publishedRecord(owner.token, { ...walkthroughMetadata(), title: 'Removed by an administrator' });
    await remove(rec.id);
    expectTombstone(await api(`/api/records/${rec.id}/versions`, { method: 'POST', token: owner.token }));
    expectTombstone(await api(`/api/records/${rec.id}/draft`, { method: 'POST', token: owner.token }));
    expectTombstone(await api(`/api/records/${rec.id}`, { token: owner.token }));
  });

  it('a new version made before the deletion is not published afterwards, and takes no files (resurrection refused)', async () => {
    const rec = await publishedRecord(owner.token, { ...walkthroughMetadata(), title: 'Resurrection attempt' });
    const nv = await api(`/api/records/${rec.id}/versions`, { method: 'POST', token: owner.token });
    expect(nv.status, nv.text).toBe(201);
    const draftId = nv.body.id as string;
    await remove(rec.id);

    const files = await api(`/api/records/${draftId}/draft/files`, { method: 'POST', token: owner.token, body: [{ key: 'again.csv' }] });
    expect(files.status, files.text).toBe(410);
    const imported = await api(`/api/records/${draftId}/draft/actions/files-import`, { method: 'POST', token: owner.token });
    expect(imported.status, imported.text).toBe(410);
    const pub = await publish(owner.token, draftId);
    expect(pub.status, pub.text).toBe(410);
    expect(pub.body).toMatchObject({ status: 410, message: 'Record deleted' });

    expect((await api(`/api/records/${draftId}`)).status).toBe(404);
    expectTombstone(await api(`/api/records/${rec.id}`));
    const found = await api(`/api/records?q=${encodeURIComponent('metadata.title:"Resurrection attempt"')}&allversions=true`);
    expect(found.body.hits.total).toBe(0);
    // Cleaning up the held draft stays allowed.
    expect((await api(`/api/records/${draftId}/draft`, { method: 'DELETE', token: owner.token })).status).toBe(204);
  });

  it('only an administrator restores; then the owner may work on the record again', async () => {
    const rec = await publishedRecord(owner.token);
    await remove(rec.id);
    expect((await api(`/api/records/${rec.id}/restore`, { method: 'POST', token: owner.token })).status).toBe(403);
    expect((await api(`/api/records/${rec.id}/restore`, { method: 'POST' })).status).toBe(403);
    expect((await api(`/api/records/${rec.id}/restore`, { method: 'POST', token: admin.token })).status).toBe(204);
    const nv = await api(`/api/records/${rec.id}/versions`, { method: 'POST', token: owner.token });
    expect(nv.status, nv.text).toBe(201);
    await uploadFiles(owner.token, nv.body.id, { 'v2.csv': 'a\n2\n' });
    expect((await publish(owner.token, nv.body.id)).status).toBe(202);
  });
});
