import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDue, insertDeliveries } from '../../src/repo/deliveries.repo.js';
import { as, type Harness, startHarness } from '../support/harness.js';

describe(claimDue.name, () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({}, { run: false });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('should claim no more deliveries than its limit, leaving the others due', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await request(h.front)
        .post('/api/webhooks')
        .set(as('61'))
        .send({ url: 'http://127.0.0.1:9/hook', events: ['request.submitted'] });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    for (let e = 0; e < 3; e++) {
      await insertDeliveries(h.t.db, ids, {
        event_id: randomUUID(),
        event_type: 'request.submitted',
        occurred_at: new Date().toISOString(),
        data: {},
      });
    }
    const claimed = await claimDue(h.t.db, { limit: 2, perSubscription: 4, busy: [], leaseMs: 60_000 });
    expect(claimed).toHaveLength(2);
    const delivering = await h.t.db('deliveries').where({ status: 'delivering' }).pluck('id');
    expect(delivering.sort()).toEqual(claimed.map((r) => r.id).sort());
    expect(await h.t.db('deliveries').where({ status: 'pending' }).count({ n: '*' })).toEqual([{ n: '13' }]);
  });
});
