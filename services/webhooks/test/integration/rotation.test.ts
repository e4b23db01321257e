/**
 * Deliveries after a secret rotation once its overlap is over (WEBHOOKS_ROTATION_OVERLAP_S=0 here;
 * the overlap's double signature is in http.test.ts): events and a redelivery of an event from
 * before the rotation verify with the new secret through the `standardwebhooks` library, and no
 * longer with the old one.
 */
import { waitFor } from '@rdm/platform/testing';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Harness, requestData, startHarness } from '../support/harness.js';
import { type Receiver, startReceiver } from '../support/receiver.js';

describe('deliveries after a secret rotation (real PostgreSQL and NATS)', () => {
  let h: Harness;
  let rx: Receiver;
  const owner = as('31');

  beforeAll(async () => {
    h = await startHarness({ WEBHOOKS_ROTATION_OVERLAP_S: '0' });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.close();
    await h?.stop();
  });

  it('should sign events and redeliveries with the new secret only, verifiable with standardwebhooks', async () => {
    const c = await request(h.front)
      .post('/api/webhooks')
      .set(owner)
      .send({ url: rx.url, events: ['request.submitted'] });
    expect(c.status).toBe(201);
    const first = c.body.secret as string;
    await h.publish('rdm.requests.request.submitted', requestData({ createdByUser: '31' }));
    await waitFor(() => rx.received.length > 0 || undefined, { timeoutMs: 10_000 });
    const before = rx.received[0];
    expect(new Webhook(first).verify(before.body, before.headers as Record<string, string>)).toMatchObject({ type: 'request.submitted' });

    const rot = await request(h.front).post(`/api/webhooks/${c.body.id}/actions/rotate-secret`).set(owner);
    expect(rot.status).toBe(200);
    const second = rot.body.secret as string;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);

    // A new event after the rotation.
    await h.publish('rdm.requests.request.submitted', requestData({ createdByUser: '31' }));
    await waitFor(() => rx.received.length > 1 || undefined, { timeoutMs: 10_000 });
    const after = rx.received[1];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new Webhook(second).verify(after.body, after.headers as Record<string, string>)).toMatchObject({ type: 'request.submitted' });
    expect(() => new Webhook(first).verify(after.body, after.headers as Record<string, string>)).toThrow(WebhookVerificationError);

    // The event from before the rotation, redelivered: same id and body, the new signature.
    const log = await request(h.front).get(`/api/webhooks/${c.body.id}/deliveries`).set(owner);
    const old = log.body.hits.hits.find((d: { webhook_id: string }) => d.webhook_id === before.headers['webhook-id']);
    expect(old).toBeDefined();
    expect((await request(h.front).post(`/api/webhooks/${c.body.id}/deliveries/${old.id}/actions/redeliver`).set(owner)).status).toBe(202);
    await waitFor(() => rx.received.length > 2 || undefined, { timeoutMs: 10_000 });
    const again = rx.received[2];
    expect(again.headers['webhook-id']).toBe(before.headers['webhook-id']);
    expect(again.body).toBe(before.body);
    expect(new Webhook(second).verify(again.body, again.headers as Record<string, string>)).toBeTruthy();
    expect(() => new Webhook(first).verify(again.body, again.headers as Record<string, string>)).toThrow(WebhookVerificationError);
  });
});
