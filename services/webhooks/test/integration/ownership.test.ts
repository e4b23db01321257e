import { randomUUID } from 'node:crypto';
import { waitFor } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Harness, startHarness } from '../support/harness.js';
import { type Receiver, startReceiver } from '../support/receiver.js';

describe('ownership of a record followed by user subscriptions (real PostgreSQL and NATS)', () => {
  let h: Harness;
  let before: Receiver;
  let after: Receiver;

  beforeAll(async () => {
    h = await startHarness({}, { records: { read: async (_identity, id) => ({ id }) } });
    before = await startReceiver();
    after = await startReceiver();
  });
  afterAll(async () => {
    await before?.close();
    await after?.close();
    await h?.stop();
  });

  it('should move a record’s events from the previous owner to the owner its latest draft names', async () => {
    const events = ['record.published', 'record.new_version', 'record.deleted'];
    for (const [user, rx] of [
      ['51', before],
      ['52', after],
    ] as const) {
      const res = await request(h.front).post('/api/webhooks').set(as(user)).send({ url: rx.url, events });
      expect(res.status).toBe(201);
    }
    const parent = randomUUID();
    const v1 = `v1-${randomUUID().slice(0, 8)}`;
    await h.publish('rdm.records.draft.created', { id: v1, parent_id: parent, owner: '51' });
    await h.publish('rdm.records.record.published', { id: v1, parent_id: parent, index: 1, is_latest: true, access_status: 'open' });
    await waitFor(() => before.received.length >= 1 || undefined, { timeoutMs: 10_000 });
    // The parent changed hands (records names the owner of the parent in every draft.created):
    // the next version's events go to the new owner only, and so does the old version's deletion.
    const v2 = `v2-${randomUUID().slice(0, 8)}`;
    await h.publish('rdm.records.draft.created', { id: v2, parent_id: parent, owner: '52' });
    await h.publish('rdm.records.record.published', { id: v2, parent_id: parent, index: 2, is_latest: true, access_status: 'open' });
    await h.publish('rdm.records.record.deleted', { id: v1, parent_id: parent, bucket_id: randomUUID(), is_visible: true });
    await waitFor(() => after.received.length >= 2 || undefined, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 500));
    const types = (rx: Receiver) => rx.received.map((r) => `${JSON.parse(r.body).type} ${JSON.parse(r.body).data.id}`).sort();
    expect(types(before)).toEqual([`record.published ${v1}`]);
    expect(types(after)).toEqual([`record.deleted ${v1}`, `record.new_version ${v2}`].sort());
  });

  it('should keep the known owner when a draft names none (a system-created draft)', async () => {
    const parent = randomUUID();
    const v1 = `s1-${randomUUID().slice(0, 8)}`;
    await h.publish('rdm.records.draft.created', { id: v1, parent_id: parent, owner: '51' });
    await h.publish('rdm.records.draft.created', { id: `s2-${v1}`, parent_id: parent, owner: null });
    const n = before.received.length;
    await h.publish('rdm.records.record.published', { id: v1, parent_id: parent, index: 1, is_latest: true, access_status: 'open' });
    await waitFor(() => before.received.length > n || undefined, { timeoutMs: 10_000 });
    expect(JSON.parse(before.received.at(-1)?.body ?? '{}').data.id).toBe(v1);
  });
});
