import { randomUUID } from 'node:crypto';
import type { Identity } from '@rdm/platform';
import { waitFor } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Harness, startHarness } from '../support/harness.js';
import { type Receiver, startReceiver } from '../support/receiver.js';

const TITLE = 'A restricted title nobody else may read';

describe('a record in a payload only for subscribers who may read it (real PostgreSQL and NATS)', () => {
  let h: Harness;
  let mine: Receiver;
  let theirs: Receiver;
  const readers: (string | null)[] = [];

  beforeAll(async () => {
    // Records' read policy stand-in: the record is restricted to its owner (71).
    h = await startHarness(
      {},
      {
        records: {
          read: async (identity: Identity, id: string) => {
            readers.push(identity.sub);
            return identity.sub === '71' ? { id, metadata: { title: TITLE } } : null;
          },
        },
      },
    );
    mine = await startReceiver();
    theirs = await startReceiver();
  });
  afterAll(async () => {
    await mine?.close();
    await theirs?.close();
    await h?.stop();
  });

  it('should read the record as each subscriber and leave it out for one who may not read it', async () => {
    h.users.set('72', { active: true, roles: ['admin'] });
    const a = await request(h.front)
      .post('/api/webhooks')
      .set(as('71'))
      .send({ url: mine.url, events: ['record.published'] });
    const b = await request(h.front)
      .post('/api/webhooks')
      .set(as('72', ['admin']))
      .send({ url: theirs.url, events: ['record.published'], scope: { type: 'all' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    const parent = randomUUID();
    const id = `r-${randomUUID().slice(0, 8)}`;
    await h.publish('rdm.records.draft.created', { id, parent_id: parent, owner: '71' });
    await h.publish('rdm.records.record.published', { id, parent_id: parent, index: 1, is_latest: true, access_status: 'restricted' });
    await waitFor(() => (mine.received.length >= 1 && theirs.received.length >= 1) || undefined, { timeoutMs: 10_000 });
    expect(JSON.parse(mine.received[0].body).data.record.metadata.title).toBe(TITLE);
    const other = JSON.parse(theirs.received[0].body);
    expect(other.data).toMatchObject({ id, parent_id: parent });
    expect(other.data.record).toBeUndefined();
    expect(theirs.received[0].body).not.toContain(TITLE);
    expect([...readers].sort()).toEqual(['71', '72']);
  });
});
