/**
 * Webhooks through the gateway (services/webhooks): a loopback receiver subscribed to its owner's
 * records gets a signed `record.published` (verified with the `standardwebhooks` library) carrying
 * the record as its owner reads it; a receiver that never answers does not slow
 * `POST …/actions/publish`; a user cannot subscribe to everything or to a community they do not
 * manage, and another user's restricted record never reaches their webhook.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { addMember, makeCommunity } from '../communities/support.js';
import { createDraft, publish, publishedRecord, uploadFiles, walkthroughMetadata } from '../records/support.js';

interface Receiver {
  url: string;
  got: { headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/**
 * Where the receivers listen: loopback with the processes runtime; under E2E_RUNTIME=containers the
 * webhooks service runs on a private network and reaches this machine at that network's gateway
 * (E2E_RECEIVER_HOST, set by the global setup and allowed in WEBHOOKS_ALLOWED_CIDRS there).
 */
const RECEIVER_HOST = process.env.E2E_RECEIVER_HOST || '127.0.0.1';

async function receiver(hang = false): Promise<Receiver> {
  const got: Receiver['got'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (!hang) res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, RECEIVER_HOST, resolve));
  return {
    url: `http://${RECEIVER_HOST}:${(server.address() as { port: number }).port}/hook`,
    got,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until<T>(read: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function timedPublish(owner: TestUser): Promise<number> {
  const d = await createDraft(owner.token);
  await uploadFiles(owner.token, d.body.id, { 'a.txt': 'x' });
  const t = performance.now();
  const p = await publish(owner.token, d.body.id);
  const ms = performance.now() - t;
  expect(p.status).toBe(202);
  return ms;
}

describe('webhooks', () => {
  let owner: TestUser;
  let other: TestUser;
  let admin: TestUser;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    [owner, other, admin] = await Promise.all([
      createUser({ email: uniqueEmail('wh-owner') }),
      createUser({ email: uniqueEmail('wh-other') }),
      createUser({ email: uniqueEmail('wh-admin'), admin: true }),
    ]);
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });

  it('should deliver a signed record.published to the owner’s receiver, verifiable with standardwebhooks', async () => {
    const rx = await receiver();
    receivers.push(rx);
    const sub = await api('/api/webhooks', {
      token: owner.token,
      body: { url: rx.url, events: ['record.published', 'record.new_version'] },
    });
    expect(sub.status).toBe(201);
    expect(sub.body.secret).toMatch(/^whsec_/);
    const rec = await publishedRecord(owner.token);
    const got = await until(() => rx.got.find((g) => JSON.parse(g.body).data?.id === rec.id));
    const payload = new Webhook(sub.body.secret).verify(got.body, got.headers as Record<string, string>) as any;
    expect(payload.type).toBe('record.published');
    expect(payload.data).toMatchObject({
      id: rec.id,
      parent_id: rec.parent.id,
      links: { self: expect.stringContaining(`/api/records/${rec.id}`) },
    });
    expect(payload.data.record.metadata.title).toBe(rec.metadata.title);
    const log = await api(`/api/webhooks/${sub.body.id}/deliveries`, { token: owner.token });
    expect(log.status).toBe(200);
    expect(log.body.hits.hits.some((d: any) => d.webhook_id === got.headers['webhook-id'])).toBe(true);
    expect((await api(`/api/webhooks/${sub.body.id}`, { token: other.token })).status).toBe(404);
  });

  it('should not slow a publication when the subscriber’s receiver never answers', async () => {
    const quiet = await createUser({ email: uniqueEmail('wh-quiet') });
    const baseline: number[] = [];
    for (let i = 0; i < 3; i++) baseline.push(await timedPublish(quiet));
    const hanging = await receiver(true);
    receivers.push(hanging);
    const sub = await api('/api/webhooks', { token: quiet.token, body: { url: hanging.url, events: ['record.published'] } });
    expect(sub.status).toBe(201);
    const withHook: number[] = [];
    for (let i = 0; i < 3; i++) withHook.push(await timedPublish(quiet));
    await until(() => (hanging.got.length > 0 ? true : undefined));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1] as number;
    // Deliveries run in another service after the commit: the publish answer never waits for them.
    expect(median(withHook)).toBeLessThan(median(baseline) * 2 + 250);
  });

  it('should let a user subscribe only to their own records, not to everything or a community they do not manage', async () => {
    const rx = await receiver();
    receivers.push(rx);
    expect(
      (await api('/api/webhooks', { token: other.token, body: { url: rx.url, events: ['record.published'], scope: { type: 'all' } } }))
        .status,
    ).toBe(403);
    // Another user's records: a user scope names nobody, it is always the caller's own records.
    const others = await api('/api/webhooks', {
      token: other.token,
      body: { url: rx.url, events: ['record.published'], scope: { type: 'user', user_id: owner.id } },
    });
    expect(others.status).toBe(400);
    expect(others.body.errors.map((e: { field: string }) => e.field)).toContain('scope.user_id');
    const community = await makeCommunity(admin.token, 'Webhooks community');
    await addMember(admin.token, community.id, other, 'reader');
    const scoped = { url: rx.url, events: ['record.published'], scope: { type: 'community', community_id: community.id } };
    expect((await api('/api/webhooks', { token: other.token, body: scoped })).status).toBe(403);
    expect((await api('/api/webhooks', { token: admin.token, body: scoped })).status).toBe(201);
    expect((await api('/api/webhooks', { body: { url: rx.url, events: ['record.published'] } })).status).toBe(403);

    // other's own-records webhook: owner's restricted record never reaches it; other's own does.
    const mine = await api('/api/webhooks', { token: other.token, body: { url: rx.url, events: ['record.published'] } });
    expect(mine.status).toBe(201);
    const title = `Restricted webhook record ${Date.now().toString(36)}`;
    const secret = await publishedRecord(owner.token, { ...walkthroughMetadata(), title }, { record: 'restricted', files: 'restricted' });
    const own = await publishedRecord(other.token);
    await until(() => rx.got.find((g) => JSON.parse(g.body).data?.id === own.id));
    expect(rx.got.some((g) => g.body.includes(secret.id) || g.body.includes(title))).toBe(false);
  });

  it('should refuse an SSRF target and bad input with 400, never a 500', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:10.0.0.1]/',
      'http://10.0.0.1/x',
      'gopher://127.0.0.1/',
    ]) {
      const res = await api('/api/webhooks', { token: owner.token, body: { url, events: ['record.published'] } });
      expect(res.status, url).toBe(400);
      expect(res.body.errors[0].field).toBe('url');
    }
    expect((await api('/api/webhooks', { token: owner.token, raw: '{', headers: { 'content-type': 'application/json' } })).status).toBe(
      400,
    );
  });
});
