import { randomUUID } from 'node:crypto';
import { waitFor } from '@rdm/platform/testing';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, as, requestData, startHarness } from '../support/harness.js';
import { type Receiver, startReceiver } from '../support/receiver.js';

const COMMUNITY = '5d1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b';

describe('webhook deliveries (real PostgreSQL and NATS)', () => {
  let h: Harness;
  const receivers: Receiver[] = [];
  const owner = as('21');

  beforeAll(async () => {
    h = await startHarness({ WEBHOOKS_DISABLE_AFTER_FAILURES: '4' });
    h.roles.set(COMMUNITY, new Map([['21', 'owner']]));
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await h?.stop();
  });

  async function subscribe(rx: Receiver, events: string[], scope?: object) {
    const res = await request(h.front)
      .post('/api/webhooks')
      .set(owner)
      .send({ url: rx.url, events, ...(scope ? { scope } : {}) });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  }
  async function receiver(respond?: Receiver['respond']) {
    const r = await startReceiver(respond);
    receivers.push(r);
    return r;
  }

  it('should deliver a request event of the user’s own, verifiable with standardwebhooks', async () => {
    const rx = await receiver();
    const sub = await subscribe(rx, ['request.submitted']);
    await h.publish('rdm.requests.request.submitted', requestData({ createdByUser: '21' }));
    await h.publish('rdm.requests.request.submitted', requestData({ createdByUser: '22' }));
    await waitFor(() => rx.received.length > 0 || undefined, { timeoutMs: 10_000 });
    const payload = new Webhook(sub.secret).verify(rx.received[0].body, rx.received[0].headers as Record<string, string>) as Record<
      string,
      any
    >;
    expect(payload.type).toBe('request.submitted');
    expect(payload.data.created_by).toEqual({ user: '21' });
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.received).toHaveLength(1);
  });

  it('should send the same webhook-id on each of 3 failures and the success after them', async () => {
    const rx = await receiver((n) => (n < 3 ? 503 : 200));
    const sub = await subscribe(rx, ['request.accepted']);
    await h.publish('rdm.requests.request.accepted', requestData({ createdByUser: '21' }));
    await waitFor(() => rx.received.length >= 4 || undefined, { timeoutMs: 15_000 });
    const ids = rx.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(1);
    for (const r of rx.received) expect(new Webhook(sub.secret).verify(r.body, r.headers as Record<string, string>)).toBeTruthy();
    const log = await waitFor(
      async () => {
        const res = await request(h.front).get(`/api/webhooks/${sub.id}/deliveries`).set(owner);
        return res.body.hits.hits[0]?.status === 'succeeded' ? res.body : undefined;
      },
      { timeoutMs: 5000 },
    );
    expect(log.hits.hits[0]).toMatchObject({ attempts: 4, response_status: 200, webhook_id: ids[0] });
    const row = await h.t.db('subscriptions').where({ id: sub.id }).first();
    expect(row.consecutive_failures).toBe(0);
  });

  it('should deliver an event once however often the stream redelivers it', async () => {
    const rx = await receiver();
    await subscribe(rx, ['request.declined']);
    const id = randomUUID();
    const data = requestData({ createdByUser: '21' });
    await h.publish('rdm.requests.request.declined', data, id);
    // A second copy with another message id (past JetStream's duplicate window): the inbox refuses it.
    const envelope = {
      id,
      type: 'rdm.requests.request.declined',
      version: 1,
      occurred_at: new Date().toISOString(),
      aggregate: { type: 'x', id: 'x', revision: 1 },
      data,
    };
    await h.nats.js.publish('rdm.requests.request.declined', JSON.stringify(envelope), { msgID: randomUUID() });
    await waitFor(() => rx.received.length > 0 || undefined, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.received).toHaveLength(1);
    expect(await h.t.db('deliveries').where({ event_id: id }).count({ n: '*' })).toEqual([{ n: '1' }]);
  });

  it('should disable a subscription after the configured run of failures and write the e-mail event', async () => {
    const rx = await receiver(() => 500);
    const sub = await subscribe(rx, ['request.cancelled']);
    for (let i = 0; i < 2; i++) await h.publish('rdm.requests.request.cancelled', requestData({ createdByUser: '21' }));
    const row = await waitFor(
      async () => {
        const r = await h.t.db('subscriptions').where({ id: sub.id }).first();
        return r.active ? undefined : r;
      },
      { timeoutMs: 15_000 },
    );
    expect(row.disabled_reason).toMatch(/^Disabled after 4 failed deliveries in a row \(last: HTTP 500\)/);
    const events = await h.t.db('outbox').where({ subject: 'rdm.webhooks.subscription.disabled' }).select('payload');
    expect(events.map((e) => e.payload.data)).toContainEqual(
      expect.objectContaining({ subscription_id: sub.id, owner_id: '21', url: rx.url, consecutive_failures: 4, last_error: 'HTTP 500' }),
    );
    const read = await request(h.front).get(`/api/webhooks/${sub.id}`).set(owner);
    // Attempts in flight when it was disabled may add to the run.
    expect(read.body.active).toBe(false);
    expect(read.body.consecutive_failures).toBeGreaterThanOrEqual(4);
    // Re-activating clears the run; the pending retries go out again.
    rx.respond = () => 200;
    const on = await request(h.front).put(`/api/webhooks/${sub.id}`).set(owner).send({ active: true });
    expect(on.body).toMatchObject({ active: true, consecutive_failures: 0, disabled_reason: null });
  });

  it('should not let a hanging receiver delay another subscription', async () => {
    const hanging = await receiver(() => 'hang');
    const quick = await receiver();
    await subscribe(hanging, ['request.expired']);
    await subscribe(quick, ['request.expired']);
    const before = Date.now();
    for (let i = 0; i < 6; i++) await h.publish('rdm.requests.request.expired', requestData({ createdByUser: '21' }));
    await waitFor(() => quick.received.length >= 6 || undefined, { timeoutMs: 10_000 });
    // The hanging one holds its own slots (4) until the 1 s timeout; the quick one never waits for them.
    expect(Date.now() - before).toBeLessThan(900);
    expect(hanging.received.length).toBeLessThanOrEqual(4);
  });

  it('should deliver community events only while the owner still manages the community', async () => {
    const rx = await receiver();
    const sub = await subscribe(rx, ['community.member.added'], { type: 'community', community_id: COMMUNITY });
    const member = { community_id: COMMUNITY, member_type: 'user', member_id: '77', role: 'reader' };
    await h.publish('rdm.communities.member.added', member);
    await waitFor(() => rx.received.length > 0 || undefined, { timeoutMs: 10_000 });
    expect(JSON.parse(rx.received[0].body)).toMatchObject({
      type: 'community.member.added',
      data: { community_id: COMMUNITY, member: { type: 'user', id: '77' }, role: 'reader' },
    });
    // Demoted to curator: the next event is not sent (skipped in the log).
    h.roles.get(COMMUNITY)?.set('21', 'curator');
    await h.publish('rdm.communities.member.added', { ...member, member_id: '78' });
    const log = await waitFor(
      async () => {
        const res = await request(h.front).get(`/api/webhooks/${sub.id}/deliveries`).set(owner);
        return res.body.hits.hits.find((d: { status: string }) => d.status === 'skipped');
      },
      { timeoutMs: 10_000 },
    );
    expect(log.error).toBe('The owner of the webhook no longer manages the community.');
    expect(rx.received).toHaveLength(1);
  });

  it('should re-check the owner at delivery: an administrator no longer one loses `all`, a deactivated owner gets nothing', async () => {
    const skippedWith = (subId: string, who: Record<string, string>) =>
      waitFor(
        async () => {
          const res = await request(h.front).get(`/api/webhooks/${subId}/deliveries`).set(who);
          return res.body.hits.hits.find((d: { status: string }) => d.status === 'skipped')?.error as string | undefined;
        },
        { timeoutMs: 10_000 },
      );
    const admin = as('31', ['admin']);
    h.users.set('31', { active: true, roles: ['admin'] });
    const rx = await receiver();
    const all = await request(h.front)
      .post('/api/webhooks')
      .set(admin)
      .send({ url: rx.url, events: ['request.declined'], scope: { type: 'all' } });
    expect(all.status).toBe(201);
    await h.publish('rdm.requests.request.declined', requestData({ createdByUser: '99' }));
    await waitFor(() => rx.received.length > 0 || undefined, { timeoutMs: 10_000 });
    // No longer an administrator (the subscription was made as one): nothing more.
    h.users.set('31', { active: true, roles: [] });
    await h.publish('rdm.requests.request.declined', requestData({ createdByUser: '98' }));
    expect(await skippedWith(all.body.id, admin)).toBe('The owner of the webhook is no longer an administrator.');
    expect(rx.received).toHaveLength(1);

    // A deactivated owner of their own records' subscription: nothing either.
    const mine = await receiver();
    const sub = await subscribe(mine, ['request.expired']);
    h.users.set('21', { active: false, roles: [] });
    try {
      await h.publish('rdm.requests.request.expired', requestData({ createdByUser: '21' }));
      expect(await skippedWith(sub.id, owner)).toBe('The owner of the webhook is no longer an active user.');
      expect(mine.received).toHaveLength(0);
    } finally {
      h.users.delete('21');
    }
  });

  it('should redeliver a finished delivery with the same webhook-id', async () => {
    const rx = await receiver();
    const sub = await subscribe(rx, ['request.submitted']);
    await h.publish('rdm.requests.request.submitted', requestData({ receiverUser: '21' }));
    await waitFor(() => rx.received.length > 0 || undefined, { timeoutMs: 10_000 });
    const log = await waitFor(
      async () => {
        const res = await request(h.front).get(`/api/webhooks/${sub.id}/deliveries`).set(owner);
        return res.body.hits.hits[0]?.status === 'succeeded' ? res.body.hits.hits[0] : undefined;
      },
      { timeoutMs: 5000 },
    );
    const again = await request(h.front).post(`/api/webhooks/${sub.id}/deliveries/${log.id}/actions/redeliver`).set(owner);
    expect(again.status).toBe(202);
    await waitFor(() => rx.received.length > 1 || undefined, { timeoutMs: 10_000 });
    expect(rx.received[1].headers['webhook-id']).toBe(rx.received[0].headers['webhook-id']);
    expect(rx.received[1].body).toBe(rx.received[0].body);
    expect((await request(h.front).post(`/api/webhooks/${sub.id}/deliveries/${randomUUID()}/actions/redeliver`).set(owner)).status).toBe(
      404,
    );
  });
});
