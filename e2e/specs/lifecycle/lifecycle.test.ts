/**
 * Record lifecycle through the gateway: deletion by an administrator (tombstone 410, hidden
 * tombstone 404, gone from search, files no longer served), restore; abuse reports (201, field
 * errors, unknown record); usage statistics (a view and a download show up in `stats`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, publish, uploadFiles } from '../records/support.js';

async function published(owner: TestUser): Promise<string> {
  const d = await createDraft(owner.token);
  await uploadFiles(owner.token, d.body.id, { 'data.csv': 'a,b\n1,2\n' });
  const p = await publish(owner.token, d.body.id);
  if (p.status !== 202) throw new Error(`publish ${p.status}: ${p.text}`);
  return d.body.id;
}

async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('record deletion, abuse reports and statistics', () => {
  let owner: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    [owner, admin] = await Promise.all([
      createUser({ email: uniqueEmail('life-owner') }),
      createUser({ email: uniqueEmail('life-admin'), admin: true }),
    ]);
  });

  it('DELETE …/delete: admins only; then 410 with the tombstone, out of search, files 410; restore brings it back', async () => {
    const id = await published(owner);
    const body = { removal_reason: { id: 'spam' }, note: 'e2e', citation_text: 'Cite me', is_visible: true };
    expect((await api(`/api/records/${id}/delete`, { method: 'DELETE', token: owner.token, body })).status).toBe(403);
    expect((await api(`/api/records/${id}/delete`, { method: 'DELETE', body })).status).toBe(403);
    const bad = await api(`/api/records/${id}/delete`, {
      method: 'DELETE',
      token: admin.token,
      body: { removal_reason: { id: 'no-such' } },
    });
    expect(bad.status, bad.text).toBe(400);
    expect((await api('/api/records/zzzzz-zzz99/delete', { method: 'DELETE', token: admin.token, body })).status).toBe(404);

    const del = await api(`/api/records/${id}/delete`, { method: 'DELETE', token: admin.token, body });
    expect([200, 204]).toContain(del.status);
    const gone = await api(`/api/records/${id}`);
    expect(gone.status).toBe(410);
    expect(gone.body.tombstone).toMatchObject({ removal_reason: { id: 'spam' }, citation_text: 'Cite me', is_visible: true });
    expect((await api(`/api/records/${id}/files/data.csv/content`)).status).toBe(410);
    expect((await api(`/api/records?q=${encodeURIComponent(`id:${id}`)}`)).body.hits.total).toBe(0);

    expect((await api(`/api/records/${id}/restore`, { method: 'POST', token: owner.token })).status).toBe(403);
    const back = await api(`/api/records/${id}/restore`, { method: 'POST', token: admin.token });
    expect(back.status, back.text).toBe(204);
    expect((await api(`/api/records/${id}`)).status).toBe(200);
    expect((await api(`/api/records?q=${encodeURIComponent(`id:${id}`)}`)).body.hits.total).toBe(1);
  });

  // Issue 19, item 2: InvenioRDM 14 answers 204 to `{}` and keeps a tombstone without a reason.
  it('DELETE …/delete with {}: 204, a tombstone without a reason (reads, exports, OAI-PMH); a bad reason is still 400', async () => {
    const id = await published(owner);
    const oai = (await api(`/api/records/${id}`)).body.pids.oai.identifier as string;
    const bad = await api(`/api/records/${id}/delete`, { method: 'DELETE', token: admin.token, body: { removal_reason: {} } });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'removal_reason.id', messages: ['Missing data for required field.'] }]);
    const del = await api(`/api/records/${id}/delete`, { method: 'DELETE', token: admin.token, body: {} });
    expect(del.status, del.text).toBe(204);
    for (const path of [`/api/records/${id}`, `/api/records/${id}/export/datacite-json`]) {
      const gone = await api(path);
      expect(gone.status, path).toBe(410);
      expect(gone.body).toMatchObject({
        status: 410,
        message: 'Record deleted',
        tombstone: { is_visible: true, removed_by: { user: admin.id } },
      });
      expect(gone.body.tombstone).not.toHaveProperty('removal_reason');
    }
    const rec = await (await fetch(`${baseUrl()}/oai2d?verb=GetRecord&metadataPrefix=oai_dc&identifier=${encodeURIComponent(oai)}`)).text();
    expect(rec).toContain('<header status="deleted">');
  });

  it('a hidden tombstone answers 404', async () => {
    const id = await published(owner);
    const body = { removal_reason: { id: 'spam' }, is_visible: false };
    expect([200, 204]).toContain((await api(`/api/records/${id}/delete`, { method: 'DELETE', token: admin.token, body })).status);
    expect((await api(`/api/records/${id}`)).status).toBe(404);
  });

  it('POST …/report-abuse: 201 without login; field errors 400; unknown record 404', async () => {
    const id = await published(owner);
    const report = { abuseType: 'copyright', name: 'Reporter', email: 'reporter@example.org', message: 'This is my article.' };
    const ok = await api(`/api/records/${id}/report-abuse`, { method: 'POST', body: report });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toEqual({ status: expect.any(String) });
    const bad = await api(`/api/records/${id}/report-abuse`, { method: 'POST', body: { abuseType: 'nonsense', email: 'not-an-email' } });
    expect(bad.status).toBe(400);
    const fields = bad.body.errors.map((e: any) => e.field).sort();
    expect(fields).toEqual(expect.arrayContaining(['abuseType', 'email', 'message', 'name']));
    expect((await api('/api/records/zzzzz-zzz98/report-abuse', { method: 'POST', body: report })).status).toBe(404);
  });

  it('a view and a download are counted in stats (eventually, once per visitor)', async () => {
    const id = await published(owner);
    const ua = { 'user-agent': 'Mozilla/5.0 (e2e stats check)' };
    expect((await api(`/api/records/${id}`, { headers: ua })).status).toBe(200);
    expect((await api(`/api/records/${id}/files/data.csv/content`, { headers: ua })).status).toBe(200);
    const rec = await waitFor(
      () => api(`/api/records/${id}`, { headers: { 'user-agent': 'curl/8 (robot? no, a second visitor)' } }),
      (r) => r.body?.stats?.this_version?.views >= 1 && r.body?.stats?.this_version?.downloads >= 1,
    );
    expect(rec.body.stats.this_version).toMatchObject({ views: expect.any(Number), downloads: 1, data_volume: 8 });
    expect(rec.body.stats.this_version.views).toBeGreaterThanOrEqual(1);
    expect(rec.body.stats.all_versions.downloads).toBe(1);
  });
});
