/**
 * A record's requests and owners' deletion requests through the gateway (issue 24): the owner of
 * a fresh record asks for its deletion and it is deleted at once (grace period, no external
 * DOI); the owner of a record with an external DOI asks, cancels, asks again, an administrator
 * declines, the owner asks a third time and an administrator accepts. Each step's e-mails land in
 * the records service's development mail sink and its events on NATS (a core subscription to
 * `rdm.requests.request.>` and `rdm.records.record.>`). `GET /api/records/<id>/requests` lists
 * them for the owner and administrators, nothing for a stranger; a stranger can neither ask nor
 * accept. `record-deletion` requests never expire (no expire step).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { type EventWatch, watchEvents } from '../../support/events.js';
import { mailWith as mail } from '../../support/mail-sink.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, publish, publishedRecord, uploadFiles, walkthroughMetadata } from '../records/support.js';

describe('record requests and deletion requests', () => {
  let owner: TestUser;
  let admin: TestUser;
  let stranger: TestUser;
  let events: EventWatch;
  /** Wait (up to 20 s) for an event on `subject` whose data matches. */
  const event = (subject: string, match: (d: Record<string, any>) => boolean) => events.event(subject, match);

  beforeAll(async () => {
    [owner, admin, stranger] = await Promise.all([
      createUser({ email: uniqueEmail('rdel-owner') }),
      createUser({ email: uniqueEmail('rdel-admin'), admin: true }),
      createUser({ email: uniqueEmail('rdel-stranger') }),
    ]);
    events = await watchEvents(['rdm.requests.request.>', 'rdm.records.record.>']);
  });
  afterAll(async () => {
    await events?.close();
  });

  it("should delete a fresh record at once on its owner's request, with the tombstone, events and e-mail", async () => {
    const rec = await publishedRecord(owner.token);
    const asOwner = await api(`/api/records/${rec.id}`, { token: owner.token });
    expect(asOwner.body.links.request_deletion).toMatch(new RegExp(`/api/records/${rec.id}/request-deletion$`));
    for (const who of [stranger.token, admin.token, undefined]) {
      expect((await api(`/api/records/${rec.id}`, { token: who })).body.links.request_deletion).toBeUndefined();
    }
    for (const who of [stranger.token, undefined]) {
      const refused = await api(`/api/records/${rec.id}/request-deletion`, { method: 'POST', token: who, body: { reason: 'spam' } });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ status: 403, message: 'Permission denied.' });
    }
    const bad = await api(`/api/records/${rec.id}/request-deletion`, { method: 'POST', token: owner.token, body: { reason: 'no-such' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'reason', messages: ['Invalid value no-such.'] }]);

    const res = await api(`/api/records/${rec.id}/request-deletion`, {
      method: 'POST',
      token: owner.token,
      body: { reason: { id: 'spam' }, comment: 'Uploaded twice by mistake.' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: 'record-deletion',
      status: 'accepted',
      is_closed: true,
      created_by: { user: owner.id },
      receiver: { group: 'admin' },
      topic: { record: rec.id },
    });
    const gone = await api(`/api/records/${rec.id}`);
    expect(gone.status).toBe(410);
    expect(gone.body.tombstone).toMatchObject({ removed_by: { user: owner.id }, removal_reason: { id: 'spam' } });
    const tl = await api(`/api/requests/${res.body.id}/timeline`, { token: owner.token });
    expect(tl.body.hits.hits.map((e: any) => e.payload.event ?? e.payload.content)).toEqual([
      'Uploaded twice by mistake.',
      'accepted',
      expect.stringContaining('automatically accepted'),
    ]);
    await event('rdm.requests.request.created', (d) => d.id === res.body.id);
    await event('rdm.requests.request.accepted', (d) => d.id === res.body.id);
    await event('rdm.records.record.deleted', (d) => d.id === rec.id && d.request_id === res.body.id);
    await mail(`To: ${owner.email}`, 'was deleted', rec.id);
  });

  it("should wait for an administrator with an external DOI: cancel, decline, accept; listed as the record's requests", async () => {
    const doi = `10.5555/e2e-${Date.now().toString(36)}`;
    const draft = await createDraft(owner.token, {
      access: { record: 'public', files: 'public' },
      files: { enabled: true },
      metadata: walkthroughMetadata(),
      pids: { doi: { identifier: doi, provider: 'external' } },
    });
    expect(draft.status).toBe(201);
    const id = draft.body.id;
    await uploadFiles(owner.token, id, { 'data.txt': 'bytes' });
    expect((await publish(owner.token, id)).status).toBe(202);
    const ask = (comment: string) =>
      api(`/api/records/${id}/request-deletion`, { method: 'POST', token: owner.token, body: { reason: 'spam', comment } });

    const first = await ask('First thoughts.');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'submitted', is_open: true });
    const dup = await ask('Again.');
    expect(dup.status).toBe(400);
    expect(dup.body.message).toBe(`A deletion request for this record is already open: ${first.body.id}`);
    await mail('To: abuse@', 'asks for its deletion', first.body.id);
    // A stranger can neither accept nor read it; the owner may not accept their own.
    for (const who of [stranger, owner]) {
      const acc = await api(`/api/requests/${first.body.id}/actions/accept`, { method: 'POST', token: who.token, body: {} });
      expect(acc.status).toBe(403);
    }
    const cancel = await api(`/api/requests/${first.body.id}/actions/cancel`, { method: 'POST', token: owner.token, body: {} });
    expect(cancel.body.status).toBe('cancelled');
    await event('rdm.requests.request.cancelled', (d) => d.id === first.body.id);

    // Records closes its slot on the cancel event: the owner may ask again.
    let second = await ask('Second thoughts.');
    for (let i = 0; second.status === 400 && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 250));
      second = await ask('Second thoughts.');
    }
    expect(second.status).toBe(201);
    const decline = await api(`/api/requests/${second.body.id}/actions/decline`, { method: 'POST', token: admin.token, body: {} });
    expect(decline.body.status).toBe('declined');
    await event('rdm.requests.request.declined', (d) => d.id === second.body.id);
    await mail(`To: ${owner.email}`, 'declined', second.body.id);
    expect((await api(`/api/records/${id}`)).status).toBe(200);

    let third = await ask('Please.');
    for (let i = 0; third.status === 400 && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 250));
      third = await ask('Please.');
    }
    expect(third.status).toBe(201);
    // The record's requests: the owner's three, the administrator's three, a stranger's none.
    // Why a wait: the third was created through records' RPC; on a search engine (OpenSearch) its
    // document is searchable after the index refresh, as in InvenioRDM, not at the 201.
    const all = [first.body.id, second.body.id, third.body.id].sort();
    let mine = await api(`/api/records/${id}/requests`, { token: owner.token });
    for (let i = 0; mine.status === 200 && mine.body.hits.hits.length < 3 && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 250));
      mine = await api(`/api/records/${id}/requests`, { token: owner.token });
    }
    expect(mine.status).toBe(200);
    expect(mine.body.hits.hits.map((h: { id: string }) => h.id).sort()).toEqual(all);
    const open = await api(`/api/records/${id}/requests?is_open=true`, { token: admin.token });
    expect(open.body.hits.hits.map((h: { id: string }) => h.id)).toEqual([third.body.id]);
    const theirs = await api(`/api/records/${id}/requests`, { token: stranger.token });
    expect(theirs.status).toBe(200);
    expect(theirs.body.hits.total).toBe(0);
    expect((await api(`/api/records/${id}/requests`)).status).toBe(403);
    expect((await api('/api/records/zzzzz-zzz99/requests', { token: owner.token })).status).toBe(404);

    const accept = await api(`/api/requests/${third.body.id}/actions/accept`, { method: 'POST', token: admin.token, body: {} });
    expect(accept.status).toBe(200);
    expect(accept.body.status).toBe('accepted');
    expect((await api(`/api/records/${id}`)).status).toBe(410);
    await event('rdm.records.record.deleted', (d) => d.id === id && d.request_id === third.body.id);
    await mail(`To: ${owner.email}`, 'was deleted', id);
    // A deleted record's requests answer as its read: 410.
    expect((await api(`/api/records/${id}/requests`, { token: owner.token })).status).toBe(410);
  });
});
