import { randomUUID } from 'node:crypto';
import type { Identity } from '@rdm/platform';
import { waitFor } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordReaderPort } from '../../src/domain/ports.js';
import { as, type Harness, startHarness } from '../support/harness.js';
import { type Receiver, startReceiver } from '../support/receiver.js';

/** Counts record reads per (record, identity) and answers a small record. */
class CountingRecords implements RecordReaderPort {
  readonly reads: string[] = [];
  async read(identity: Identity, recordId: string) {
    this.reads.push(`${recordId}/${identity.sub}`);
    return { id: recordId, metadata: { title: `Record ${recordId}` } };
  }
}

describe('delivery batching (real PostgreSQL and NATS)', () => {
  let h: Harness;
  let rx: Receiver;
  const records = new CountingRecords();

  beforeAll(async () => {
    h = await startHarness({}, { records });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.close();
    await h?.stop();
  });

  it('should read the owners once and each record once per identity for the deliveries of one event', async () => {
    const subs = 6;
    for (let i = 0; i < subs; i++) {
      const res = await request(h.front)
        .post('/api/webhooks')
        .set(as('41'))
        .send({ url: rx.url, events: ['record.published'] });
      expect(res.status).toBe(201);
    }
    h.users.set('42', { active: true, roles: ['admin'] });
    for (let i = 0; i < 2; i++) {
      const res = await request(h.front)
        .post('/api/webhooks')
        .set(as('42', ['admin']))
        .send({ url: rx.url, events: ['record.published'], scope: { type: 'all' } });
      expect(res.status).toBe(201);
    }
    const parent = randomUUID();
    const id = `rec-${randomUUID().slice(0, 8)}`;
    h.usersCalls.length = 0;
    await h.publish('rdm.records.draft.created', { id, parent_id: parent, owner: '41' });
    await h.publish('rdm.records.record.published', { id, parent_id: parent, index: 1, is_latest: true, access_status: 'open' });
    await waitFor(() => rx.received.length >= subs + 2 || undefined, { timeoutMs: 15_000 });
    for (const r of rx.received) expect(JSON.parse(r.body).data.record).toEqual({ id, metadata: { title: `Record ${id}` } });
    // One get-users for both owners of the batch, one record read per identity (41 and 42).
    expect(h.usersCalls).toHaveLength(1);
    expect([...h.usersCalls[0]].sort()).toEqual(['41', '42']);
    expect([...records.reads].sort()).toEqual([`${id}/41`, `${id}/42`]);
  });
});
