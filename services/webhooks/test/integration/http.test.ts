import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@rdm/platform/testing';
import { type Harness, as, startHarness } from '../support/harness.js';
import { type Receiver, startReceiver } from '../support/receiver.js';

const COMMUNITY = '0b7a1c9e-4c2f-4d1b-9a3e-1f2e3d4c5b6a';

describe('webhooks HTTP API', () => {
  let h: Harness;
  let rx: Receiver;
  const alice = as('11');
  const bob = as('12');
  const admin = as('1', ['admin']);

  beforeAll(async () => {
    h = await startHarness();
    rx = await startReceiver();
    h.roles.set(
      COMMUNITY,
      new Map([
        ['11', 'manager'],
        ['12', 'curator'],
      ]),
    );
  });
  afterAll(async () => {
    await rx?.close();
    await h?.stop();
  });

  const create = (headers: Record<string, string>, body: unknown) =>
    request(h.front)
      .post('/api/webhooks')
      .set(headers)
      .send(body as object);

  it('should create a subscription to own records, showing the secret once', async () => {
    const res = await create(alice, { url: rx.url, events: ['record.published', 'record.deleted'], description: 'CRIS' });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body).toMatchObject({
      url: rx.url,
      events: ['record.published', 'record.deleted'],
      scope: { type: 'user' },
      active: true,
      description: 'CRIS',
    });
    const read = await request(h.front).get(`/api/webhooks/${res.body.id}`).set(alice);
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(res.body.secret.slice(6));
    const row = await h.t.db('subscriptions').where({ id: res.body.id }).first();
    expect(row.secret_enc).not.toContain(res.body.secret.slice(6));
  });

  it('should hide another user’s subscription (404) and list only the caller’s', async () => {
    const mine = await create(alice, { url: rx.url, events: ['draft.created'] });
    expect((await request(h.front).get(`/api/webhooks/${mine.body.id}`).set(bob)).status).toBe(404);
    expect((await request(h.front).delete(`/api/webhooks/${mine.body.id}`).set(bob)).status).toBe(404);
    expect((await request(h.front).get(`/api/webhooks/${mine.body.id}`).set(admin)).status).toBe(200);
    const list = await request(h.front).get('/api/webhooks').set(bob);
    expect(list.status).toBe(200);
    expect(list.body.hits.total).toBe(0);
    expect((await request(h.front).get('/api/webhooks?all=true').set(bob)).status).toBe(403);
  });

  it('should refuse bad input with field errors, never a 500', async () => {
    const cases: [unknown, string][] = [
      [{ events: ['record.published'] }, 'url'],
      [{ url: rx.url }, 'events'],
      [{ url: rx.url, events: ['record.nope'] }, 'events'],
      [{ url: 'ftp://example.org/x', events: ['record.published'] }, 'url'],
      [{ url: 'http://169.254.169.254/latest/meta-data', events: ['record.published'] }, 'url'],
      [{ url: 'http://10.0.0.1/x', events: ['record.published'] }, 'url'],
      [{ url: 'http://[::ffff:169.254.169.254]/x', events: ['record.published'] }, 'url'],
      [{ url: 'http://user:pw@127.0.0.1/x', events: ['record.published'] }, 'url'],
      [{ url: rx.url, events: ['record.published'], scope: { type: 'community', community_id: 'nope' } }, 'scope.community_id'],
      [{ url: rx.url, events: ['record.published'], extra: 1 }, 'extra'],
      // Another user's records: a user scope names nobody (it is the caller's own records).
      [{ url: rx.url, events: ['record.published'], scope: { type: 'user', user_id: '22' } }, 'scope.user_id'],
      [{ url: rx.url, events: ['record.published'], scope: { type: 'all', community_id: COMMUNITY } }, 'scope.community_id'],
      [{ url: rx.url, events: ['file.committed'] }, 'events'],
    ];
    for (const [body, field] of cases) {
      const res = await create(alice, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect((await request(h.front).post('/api/webhooks').set(alice).set('content-type', 'application/json').send('{')).status).toBe(400);
    expect((await request(h.front).get('/api/webhooks/not-a-uuid').set(alice)).status).toBe(404);
  });

  it('should refuse plain http unless configured', async () => {
    const strict = await startHarness({ WEBHOOKS_ALLOW_HTTP: 'false' }, { run: false });
    try {
      const res = await request(strict.front)
        .post('/api/webhooks')
        .set(alice)
        .send({ url: rx.url, events: ['record.published'] });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toEqual({ field: 'url', messages: ['Must be an https URL.'] });
    } finally {
      await strict.stop();
    }
  });

  it('should let only administrators subscribe to everything, and only managers to a community', async () => {
    expect((await create(alice, { url: rx.url, events: ['record.published'], scope: { type: 'all' } })).status).toBe(403);
    expect((await create(admin, { url: rx.url, events: ['file.committed'], scope: { type: 'all' } })).status).toBe(201);
    const community = { url: rx.url, events: ['request.submitted'], scope: { type: 'community', community_id: COMMUNITY } };
    expect((await create(bob, community)).status).toBe(403);
    expect((await create(as('13'), community)).status).toBe(403);
    const ok = await create(alice, community);
    expect(ok.status).toBe(201);
    expect(ok.body.scope).toEqual({ type: 'community', community_id: COMMUNITY });
  });

  it('should update, re-activate and delete', async () => {
    const c = await create(alice, { url: rx.url, events: ['record.published'] });
    const u = await request(h.front)
      .put(`/api/webhooks/${c.body.id}`)
      .set(alice)
      .send({ events: ['record.deleted'], active: false });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ events: ['record.deleted'], active: false, revision_id: 2 });
    expect(
      (
        await request(h.front)
          .put(`/api/webhooks/${c.body.id}`)
          .set(alice)
          .send({ scope: { type: 'all' } })
      ).status,
    ).toBe(400);
    expect((await request(h.front).post(`/api/webhooks/${c.body.id}/actions/ping`).set(alice)).status).toBe(400);
    expect((await request(h.front).delete(`/api/webhooks/${c.body.id}`).set(alice)).status).toBe(204);
    expect((await request(h.front).get(`/api/webhooks/${c.body.id}`).set(alice)).status).toBe(404);
  });

  it('should sign a ping verifiably, and with both secrets during a rotation’s overlap', async () => {
    const c = await create(alice, { url: rx.url, events: ['record.published'] });
    const first = c.body.secret as string;
    const before = rx.received.length;
    const ping = await request(h.front).post(`/api/webhooks/${c.body.id}/actions/ping`).set(alice);
    expect(ping.status).toBe(202);
    await waitFor(() => rx.received.length > before || undefined, { timeoutMs: 5000 });
    const got = rx.received[before];
    expect(new Webhook(first).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      type: 'webhook.ping',
      data: { webhook_id: c.body.id },
    });
    expect(got.headers['webhook-id']).toBe(ping.body.webhook_id);

    const rot = await request(h.front).post(`/api/webhooks/${c.body.id}/actions/rotate-secret`).set(alice);
    expect(rot.status).toBe(200);
    const second = rot.body.secret as string;
    expect(second).not.toBe(first);
    const n = rx.received.length;
    await request(h.front).post(`/api/webhooks/${c.body.id}/actions/ping`).set(alice).expect(202);
    await waitFor(() => rx.received.length > n || undefined, { timeoutMs: 5000 });
    const after = rx.received[n];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(second).verify(after.body, after.headers as Record<string, string>)).toBeTruthy();
    expect(new Webhook(first).verify(after.body, after.headers as Record<string, string>)).toBeTruthy();

    const log = await request(h.front).get(`/api/webhooks/${c.body.id}/deliveries`).set(alice);
    expect(log.status).toBe(200);
    expect(log.body.hits.total).toBe(2);
    expect(log.body.hits.hits[0]).toMatchObject({ event_type: 'webhook.ping', status: 'succeeded', attempts: 1, response_status: 200 });
    expect(log.body.hits.hits[0].response_body_prefix.length).toBeLessThanOrEqual(1024);
    expect(typeof log.body.hits.hits[0].latency_ms).toBe('number');
  });
});
