/**
 * Access requests through the gateway (issue 9): a user asks the owner of a record with
 * restricted files, the owner accepts, the user reads the files; a guest asks, confirms from the
 * verification e-mail (the records service's development mail sink, `.data/mail/*.eml`, since
 * the e2e stack sets no `SMTP_URL`), the owner accepts, and the secret link of the second e-mail
 * opens the files; with `allow_user_requests` / `allow_guest_requests` off both are refused (403).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { waitForMail } from '../../support/mail-sink.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, publish, uploadFiles, walkthroughMetadata } from '../records/support.js';

/** Wait (up to 30 s) for a mail to `to` containing `part`. */
const mail = (to: string, part: string): Promise<string> =>
  waitForMail((text) => text.toLowerCase().includes(`to: ${to.toLowerCase()}`) && text.includes(part), `to ${to} containing "${part}"`);

describe('access requests (user and guest)', () => {
  let owner: TestUser;
  let asker: TestUser;
  let id: string;

  beforeAll(async () => {
    owner = await createUser({ email: uniqueEmail('areq-owner') });
    asker = await createUser({ email: uniqueEmail('areq-asker') });
    const d = await createDraft(owner.token, {
      access: { record: 'public', files: 'restricted' },
      files: { enabled: true },
      metadata: walkthroughMetadata(),
    });
    expect(d.status).toBe(201);
    id = d.body.id;
    await uploadFiles(owner.token, id, { 'data.txt': 'restricted bytes' });
    expect((await publish(owner.token, id)).status).toBe(202);
  });

  it('should refuse both kinds of ask while the record does not allow them (403)', async () => {
    const user = await api(`/api/records/${id}/access/request`, { method: 'POST', token: asker.token, body: { message: 'please' } });
    expect(user.status).toBe(403);
    expect(user.body).toEqual({ status: 403, message: 'Permission denied.' });
    const guest = await api(`/api/records/${id}/access/request`, {
      method: 'POST',
      body: { email: 'nobody@example.org', full_name: 'No Body', message: 'please' },
    });
    expect(guest.status).toBe(403);
    const settings = await api(`/api/records/${id}/access`, {
      method: 'PATCH',
      token: owner.token,
      body: { settings: { allow_user_requests: true, allow_guest_requests: true, secret_link_expiration: 5 } },
    });
    expect(settings.status).toBe(200);
    expect(settings.body.access.settings).toMatchObject({
      allow_user_requests: true,
      allow_guest_requests: true,
      secret_link_expiration: 5,
    });
  });

  it('should let a user ask, the owner accept, and the user read the restricted files', async () => {
    expect((await api(`/api/records/${id}/files/data.txt/content`, { token: asker.token })).status).toBe(403);
    const ask = await api(`/api/records/${id}/access/request`, {
      method: 'POST',
      token: asker.token,
      body: { message: 'I study oceans.', consent_to_share_personal_data: 'true' },
    });
    expect(ask.status).toBe(200);
    expect(ask.body).toMatchObject({
      type: 'user-access-request',
      status: 'submitted',
      created_by: { user: asker.id },
      receiver: { user: owner.id },
      topic: { record: id },
      payload: { permission: 'view', message: 'I study oceans.' },
    });
    const dup = await api(`/api/records/${id}/access/request`, { method: 'POST', token: asker.token, body: {} });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toBe(`Identical access requests already exist: ${ask.body.id}`);
    const own = await api(`/api/records/${id}/access/request`, { method: 'POST', token: owner.token, body: {} });
    expect(own.body).toEqual({ status: 403, message: 'You already have access to files of this record.' });

    for (const who of [owner, asker]) {
      const listed = await api('/api/user/requests', { token: who.token });
      expect(listed.status).toBe(200);
      expect(listed.body.hits.hits.map((h: { id: string }) => h.id)).toContain(ask.body.id);
    }
    const asOwner = await api(`/api/requests/${ask.body.id}`, { token: owner.token });
    expect(Object.keys(asOwner.body.links.actions).sort()).toEqual(['accept', 'decline']);
    const acc = await api(`/api/requests/${ask.body.id}/actions/accept`, { method: 'POST', token: owner.token, body: {} });
    expect(acc.status).toBe(200);
    expect(acc.body).toMatchObject({ status: 'accepted', is_closed: true });

    const content = await api(`/api/records/${id}/files/data.txt/content`, { token: asker.token });
    expect(content.status).toBe(200);
    expect(content.text).toBe('restricted bytes');
    const users = await api(`/api/records/${id}/access/users`, { token: owner.token });
    expect(users.body.hits.hits).toEqual([
      { id: asker.id, subject: { type: 'user', id: asker.id }, permission: 'view', origin: `request:${ask.body.id}` },
    ]);
  });

  it('should let a guest ask, confirm from the e-mail, and open the files with the mailed link once accepted', async () => {
    const email = uniqueEmail('areq-guest');
    const bad = await api(`/api/records/${id}/access/request`, { method: 'POST', body: { email: 'not-an-address' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['email', 'full_name']);
    const ask = await api(`/api/records/${id}/access/request`, {
      method: 'POST',
      body: { email, full_name: 'Grace Guest', message: 'For my thesis.', consent_to_share_personal_data: 'true' },
    });
    expect(ask.status).toBe(200);
    expect(ask.body).toEqual({ message: 'Verification link sent out, please check your e-mail inbox' });

    const verification = await mail(email, 'access_request_token=');
    const confirm = /https?:\/\/[^/\s]+(\/api\/records\/\S+\/access\/request\/confirm\?access_request_token=\S+)/.exec(verification)?.[1];
    expect(confirm).toBeDefined();
    expect((await api(confirm!, { token: asker.token })).status).toBe(403);
    const created = await api(confirm!);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      type: 'guest-access-request',
      status: 'submitted',
      created_by: { email },
      receiver: { user: owner.id },
    });
    expect((await api(confirm!)).status).toBe(404);

    const acc = await api(`/api/requests/${created.body.id}/actions/accept`, { method: 'POST', token: owner.token, body: {} });
    expect(acc.status).toBe(200);
    expect(acc.body.status).toBe('accepted');
    const granted = await mail(email, 'was accepted');
    const token = /\/api\/records\/\S+\?token=(\S+)/.exec(granted)?.[1];
    expect(token).toBeDefined();
    expect((await api(`/api/records/${id}/files/data.txt/content`)).status).toBe(403);
    const content = await api(`/api/records/${id}/files/data.txt/content?token=${token}`);
    expect(content.status).toBe(200);
    expect(content.text).toBe('restricted bytes');
    const links = await api(`/api/records/${id}/access/links`, { token: owner.token });
    expect(links.body.hits.hits).toMatchObject([{ permission: 'view', description: `Requested by guest: Grace Guest (${email})` }]);
  });
});
