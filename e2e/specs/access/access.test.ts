/**
 * Record access through the gateway (issue 9, "done when"): restrict a record, share it by a view
 * link and read it and its files with the token; grant a second user preview, who then sees it
 * (and its draft) under shared_with_me; a deleted link stops working at once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, publish, uploadFiles, walkthroughMetadata } from '../records/support.js';

describe('record access links and grants', () => {
  let owner: TestUser;
  let second: TestUser;
  let id: string;
  const future = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    owner = await createUser({ email: uniqueEmail('acc-owner') });
    second = await createUser({ email: uniqueEmail('acc-second') });
    const d = await createDraft(owner.token, {
      access: { record: 'restricted', files: 'restricted' },
      files: { enabled: true },
      metadata: walkthroughMetadata(),
    });
    expect(d.status).toBe(201);
    id = d.body.id;
    await uploadFiles(owner.token, id, { 'data.txt': 'restricted bytes' });
    expect((await publish(owner.token, id)).status).toBe(202);
  });

  it('should share a restricted record and its files by a view link, and stop at once when the link is deleted', async () => {
    expect((await api(`/api/records/${id}`)).status).toBe(403);
    expect((await api(`/api/records/${id}/files/data.txt/content`)).status).toBe(403);

    const link = await api(`/api/records/${id}/access/links`, {
      method: 'POST',
      token: owner.token,
      body: { permission: 'view', expires_at: future },
    });
    expect(link.status).toBe(201);
    expect(link.body).toMatchObject({ permission: 'view', expires_at: future, description: '' });
    const t = encodeURIComponent(link.body.token);
    expect((await api(`/api/records/${id}/access/links`)).status).toBe(403);
    expect((await api(`/api/records/${id}/access/links`, { token: second.token })).status).toBe(403);
    const listed = await api(`/api/records/${id}/access/links`, { token: owner.token });
    expect(listed.body).toEqual({ hits: { hits: [link.body], total: 1 } });

    const rec = await api(`/api/records/${id}?token=${t}`);
    expect(rec.status).toBe(200);
    expect(rec.body.access.record).toBe('restricted');
    expect((await api(`/api/records/${id}/files?token=${t}`)).status).toBe(200);
    const content = await api(`/api/records/${id}/files/data.txt/content?token=${t}`);
    expect(content.status).toBe(200);
    expect(content.text).toBe('restricted bytes');
    // A view link does not open the draft.
    await api(`/api/records/${id}/draft`, { method: 'POST', token: owner.token });
    expect((await api(`/api/records/${id}/draft?token=${t}`)).status).toBe(403);

    const bad = await api(`/api/records/${id}/access/links`, {
      method: 'POST',
      token: owner.token,
      body: { permission: 'own', expires_at: '2000-01-01' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { field: 'permission', messages: ['Must be one of: view, preview, edit.'] },
      { field: 'expires_at', messages: ['Expiration date must be set to the future'] },
    ]);

    expect((await api(`/api/records/${id}/access/links/${link.body.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(`/api/records/${id}?token=${t}`)).status).toBe(403);
    expect((await api(`/api/records/${id}/files/data.txt/content?token=${t}`)).status).toBe(403);
  });

  it('should grant a second user preview: record, draft and shared_with_me', async () => {
    expect((await api(`/api/records/${id}`, { token: second.token })).status).toBe(403);
    const g = await api(`/api/records/${id}/access/users`, {
      method: 'POST',
      token: owner.token,
      body: { grants: [{ subject: { type: 'user', id: second.id }, permission: 'preview' }] },
    });
    expect(g.status).toBe(201);
    expect((await api(`/api/records/${id}`, { token: second.token })).status).toBe(200);
    expect((await api(`/api/records/${id}/files/data.txt/content`, { token: second.token })).text).toBe('restricted bytes');
    expect((await api(`/api/records/${id}/draft`, { token: second.token })).status).toBe(200);
    const shared = await api('/api/user/records?shared_with_me=true', { token: second.token });
    expect(shared.status).toBe(200);
    expect(shared.body.hits.hits.map((h: { id: string }) => h.id)).toEqual([id]);
    const mine = await api('/api/user/records?shared_with_me=false', { token: second.token });
    expect(mine.body.hits.total).toBe(0);
    // A preview grantee does not manage access.
    expect((await api(`/api/records/${id}/access/grants`, { token: second.token })).status).toBe(403);
  });
});
