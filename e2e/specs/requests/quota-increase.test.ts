/**
 * Quota-increase requests through the gateway (issue 24, item 5): a draft's upload that would pass
 * the default bucket quota (32 MiB in the e2e stack) is refused at once with a 400; the owner asks
 * for more (`POST /api/records/<id>/quota-increase`), an administrator accepts, the files service
 * raises that bucket's quota (its `rdm.files.bucket.quota-changed` confirms the request) and the
 * same upload now fits. Another ask is declined, a third cancelled by its owner. Each step's
 * e-mails land in the records service's mail sink and its events on NATS. A stranger can neither
 * ask for someone else's draft nor accept; the owner cannot accept their own request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { type EventWatch, watchEvents } from '../../support/events.js';
import { mailWith as mail } from '../../support/mail-sink.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, walkthroughMetadata } from '../records/support.js';

const MiB = 1024 * 1024;

describe('quota-increase requests', () => {
  let owner: TestUser;
  let admin: TestUser;
  let stranger: TestUser;
  let events: EventWatch;
  /** Wait (up to 20 s) for an event on `subject` whose data matches. */
  const event = (subject: string, match: (d: Record<string, any>) => boolean) => events.event(subject, match);

  const newDraft = async () => {
    const d = await createDraft(owner.token, {
      access: { record: 'public', files: 'public' },
      files: { enabled: true },
      metadata: walkthroughMetadata(),
    });
    expect(d.status).toBe(201);
    return d.body as Record<string, any>;
  };
  const ask = (id: string, token: string | undefined, body: unknown) =>
    api(`/api/records/${id}/quota-increase`, { method: 'POST', token, body });

  beforeAll(async () => {
    [owner, admin, stranger] = await Promise.all([
      createUser({ email: uniqueEmail('quota-owner') }),
      createUser({ email: uniqueEmail('quota-admin'), admin: true }),
      createUser({ email: uniqueEmail('quota-stranger') }),
    ]);
    events = await watchEvents(['rdm.requests.request.>', 'rdm.files.bucket.>']);
  });
  afterAll(async () => {
    await events?.close();
  });

  it('should refuse an upload past the default quota, then let it through once an administrator accepted a larger one', async () => {
    const draft = await newDraft();
    const id = draft.id;
    expect(draft.links.quota_increase).toMatch(new RegExp(`/api/records/${id}/quota-increase$`));
    const init = await api(`/api/records/${id}/draft/files`, { method: 'POST', token: owner.token, body: [{ key: 'big.bin' }] });
    expect(init.status).toBe(201);
    const content = Buffer.alloc(40 * MiB, 7);
    const put = () => api(`/api/records/${id}/draft/files/big.bin/content`, { method: 'PUT', token: owner.token, raw: content });
    const refused = await put();
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ status: 400, message: 'File size limit exceeded.' });

    // Nobody but the owner may ask; bad fields are a 400.
    for (const who of [stranger.token, admin.token, undefined]) {
      const r = await ask(id, who, { quota_size: 64 * MiB, reason: 'Mine now.' });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ status: 403, message: 'Permission denied.' });
    }
    const bad = await ask(id, owner.token, { quota_size: 'a lot' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['quota_size', 'reason']);

    const res = await ask(id, owner.token, { quota_size: 64 * MiB, reason: 'Raw sonar scans of 40 MiB.' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: 'quota-increase',
      status: 'submitted',
      is_open: true,
      created_by: { user: owner.id },
      receiver: { group: 'admin' },
      topic: { record: id },
    });
    await event('rdm.requests.request.created', (d) => d.id === res.body.id);
    await mail('To: abuse@', 'asks for a bucket quota', res.body.id);
    for (const who of [stranger, owner]) {
      const acc = await api(`/api/requests/${res.body.id}/actions/accept`, { method: 'POST', token: who.token, body: {} });
      expect(acc.status).toBe(403);
    }
    const accept = await api(`/api/requests/${res.body.id}/actions/accept`, { method: 'POST', token: admin.token, body: {} });
    expect(accept.status).toBe(200);
    expect(accept.body.status).toBe('accepted');
    await event('rdm.files.bucket.quota-changed', (d) => d.request_id === res.body.id && d.quota_bytes === 64 * MiB);
    await mail(`To: ${owner.email}`, 'may now take up to', id);

    const fits = await put();
    expect(fits.status).toBe(200);
    const commit = await api(`/api/records/${id}/draft/files/big.bin/commit`, { method: 'POST', token: owner.token });
    expect(commit.status).toBe(200);
    expect(commit.body.size).toBe(40 * MiB);
  });

  it('should be declined by an administrator (mailed) or cancelled by its owner, the quota unchanged', async () => {
    const draft = await newDraft();
    const declined = await ask(draft.id, owner.token, { quota_size: 128 * MiB, reason: 'Please.' });
    expect(declined.status).toBe(201);
    // One open request per draft (InvenioRDM refuses duplicate open requests).
    const dup = await ask(draft.id, owner.token, { quota_size: 256 * MiB, reason: 'Twice.' });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toBe('A quota increase request for this draft is already open.');
    expect((await api(`/api/requests/${declined.body.id}/actions/decline`, { method: 'POST', token: owner.token, body: {} })).status).toBe(
      403,
    );
    const dec = await api(`/api/requests/${declined.body.id}/actions/decline`, { method: 'POST', token: admin.token, body: {} });
    expect(dec.body.status).toBe('declined');
    await event('rdm.requests.request.declined', (d) => d.id === declined.body.id);
    await mail(`To: ${owner.email}`, 'declined', draft.id);

    // Records closes the draft's slot on the declined event: the owner may ask again.
    let cancelled = await ask(draft.id, owner.token, { quota_size: 128 * MiB, reason: 'Again.' });
    for (let i = 0; cancelled.status === 400 && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 250));
      cancelled = await ask(draft.id, owner.token, { quota_size: 128 * MiB, reason: 'Again.' });
    }
    expect(cancelled.status).toBe(201);
    expect(
      (await api(`/api/requests/${cancelled.body.id}/actions/cancel`, { method: 'POST', token: stranger.token, body: {} })).status,
    ).toBe(403);
    const can = await api(`/api/requests/${cancelled.body.id}/actions/cancel`, { method: 'POST', token: owner.token, body: {} });
    expect(can.body.status).toBe('cancelled');
    await event('rdm.requests.request.cancelled', (d) => d.id === cancelled.body.id);
    expect(
      events.seen.some(
        (s) => s.subject === 'rdm.files.bucket.quota-changed' && [declined.body.id, cancelled.body.id].includes(s.data.request_id),
      ),
    ).toBe(false);

    const init = await api(`/api/records/${draft.id}/draft/files`, { method: 'POST', token: owner.token, body: [{ key: 'big.bin' }] });
    expect(init.status).toBe(201);
    const still = await api(`/api/records/${draft.id}/draft/files/big.bin/content`, {
      method: 'PUT',
      token: owner.token,
      raw: Buffer.alloc(40 * MiB, 1),
    });
    expect(still.status).toBe(400);
  });
});
