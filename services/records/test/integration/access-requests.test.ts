import { randomUUID } from 'node:crypto';
import { waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_EFFECT_MESSAGES } from '../../src/events/access-request-effects.js';
import { ACCESS_REQUESTS_DURABLE, accessRequestWorkers } from '../../src/events/access-requests.consumer.js';
import { GUEST_ASK_LIMIT } from '../../src/http/access-request.routes.js';
import { type MailWorkersFixture, startMailWorkers } from './mail-workers-support.js';
import { anonymousFrom, as, type Env, fullMetadata } from './support.js';

const OWNER = '701';
const ASKER = '702';
const OTHER = '703';

describe('access requests (records side)', () => {
  let f: MailWorkersFixture;
  let env: Env;
  let smtp: MailWorkersFixture['smtp'];

  beforeAll(async () => {
    f = await startMailWorkers({
      streams: ['RECORDS', 'REQUESTS'],
      relay: true,
      workers: (base, e) =>
        accessRequestWorkers({
          ...{ db: base.db, nats: base.nats, sender: base.sender, logger: base.logger, from: base.from, baseUrl: base.baseUrl },
          ...{ effects: e.parts.accessEffects, links: e.parts.accessLinks, secret: e.deps.config.IDENTITY_SECRET, backoffMs: [200] },
        }),
    });
    ({ env, smtp } = f);
  });
  afterAll(async () => {
    await f?.close();
  });

  /** A published record (public metadata, restricted files) with the given access settings. */
  async function record(settings: Record<string, unknown>, access = { record: 'public', files: 'restricted' }) {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata(), access }).expect(201)).body;
    env.files.addFile(d.id, 'data.csv');
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    await env.request.patch(`/api/records/${d.id}/access`).set(as(OWNER)).send({ settings }).expect(200);
    return { id: d.id as string, parentId: d.parent.id as string };
  }

  const ask = (id: string, user: string | null, body: unknown = {}) =>
    env.request
      .post(`/api/records/${id}/access/request`)
      .set(user === null ? anonymousFrom('10.9.0.1') : as(user))
      .send(body as object);
  const outbox = (subject: string, field: string, value: string) =>
    env.db('outbox').where({ subject }).whereRaw(`payload->'data'->>? = ?`, [field, value]).orderBy('seq');
  const send = (verb: string, data: Record<string, unknown>, id = randomUUID()) => {
    const e = {
      id,
      type: `rdm.requests.request.${verb}`,
      version: 1,
      occurred_at: new Date().toISOString(),
      aggregate: { type: 'request', id: data.id, revision: 2 },
      data: { number: '1', actor: { user: OWNER }, receiver: { user: OWNER }, ...data } as Record<string, unknown>,
    };
    return env.nats.js.publish(e.type, JSON.stringify(e), { msgID: randomUUID() }).then(() => e);
  };
  /** Mails to the guest (servers may lower-case the domain) whose text contains `part`. */
  const toGuest = (part: string) =>
    smtp.received.filter((m) => m.to.some((t) => t.toLowerCase() === 'guest@example.org') && m.text.includes(part));
  const processed = async (eventId: string) =>
    (await env.db('inbox').where({ message_id: eventId, consumer: ACCESS_REQUESTS_DURABLE })).length === 1 || undefined;

  it('should create a user-access-request for the owner, refuse a duplicate, the owner and disabled settings', async () => {
    const r = await record({ allow_user_requests: true });
    const res = await ask(r.id, ASKER, { message: 'I study oceans.', consent_to_share_personal_data: 'true' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'user-access-request', created_by: { user: ASKER }, receiver: { user: OWNER } });
    const call = env.fakeRequests.calls.filter((c) => c.subject === 'create').at(-1)!.payload;
    expect(call).toMatchObject({
      type: 'user-access-request',
      created_by: { user: ASKER },
      receiver: { user: OWNER },
      topic: { record: r.id },
      title: fullMetadata().title,
      payload: { permission: 'view', message: 'I study oceans.', consent_to_share_personal_data: 'true' },
      comment: { content: 'I study oceans.', format: 'html' },
      identity: { sub: ASKER },
    });
    const dup = await ask(r.id, ASKER, { message: 'again' });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toBe(`Identical access requests already exist: ${res.body.id}`);
    // Concurrent asks by another user: exactly one request.
    const both = await Promise.all([ask(r.id, OTHER), ask(r.id, OTHER), ask(r.id, OTHER)]);
    expect(both.map((b) => b.status).sort()).toEqual([200, 400, 400]);

    const own = await ask(r.id, OWNER);
    expect(own.status).toBe(403);
    expect(own.body.message).toBe('You already have access to files of this record.');
    const bad = await ask(r.id, '704', { message: 5, consent_to_share_personal_data: 'maybe', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { field: 'colour', messages: ['Unknown field.'] },
      { field: 'message', messages: ['Not a valid string.'] },
      { field: 'consent_to_share_personal_data', messages: ['Must be one of: true, false.'] },
    ]);

    const off = await record({ allow_user_requests: false, allow_guest_requests: true });
    expect((await ask(off.id, ASKER)).body).toMatchObject({ status: 403, message: 'Permission denied.' });
    const hidden = await record({ allow_user_requests: true }, { record: 'restricted', files: 'restricted' });
    expect((await ask(hidden.id, ASKER)).status).toBe(403);
    expect((await ask('zzzzz-zzz99', ASKER)).status).toBe(404);
  });

  it('should grant the user exactly once however the accept is redelivered, then refuse a new ask', async () => {
    const r = await record({ allow_user_requests: true });
    const req = (await ask(r.id, ASKER).expect(200)).body;
    const data = {
      id: req.id,
      type: 'user-access-request',
      created_by: { user: ASKER },
      topic: { record: r.id },
      payload: { permission: 'view' },
    };
    const first = await send('accepted', data);
    await env.nats.js.publish(first.type, JSON.stringify(first), { msgID: randomUUID() });
    const second = await send('accepted', data);
    await waitFor(async () => (await processed(first.id)) && (await processed(second.id)));
    expect(await outbox('rdm.records.access-request.granted', 'request_id', req.id)).toMatchObject([
      { payload: { data: { kind: 'grant', user_id: ASKER, permission: 'view', parent_id: r.parentId, record_id: r.id } } },
    ]);
    const users = await env.request.get(`/api/records/${r.id}/access/users`).set(as(OWNER)).expect(200);
    expect(users.body.hits.hits).toEqual([
      { id: ASKER, subject: { type: 'user', id: ASKER }, permission: 'view', origin: `request:${req.id}` },
    ]);
    const again = await ask(r.id, ASKER);
    expect(again.status).toBe(403);
    expect(again.body.message).toBe('You already have access to files of this record.');
  });

  it('should free the slot when a request is declined and fail the accept of a vanished record', async () => {
    const r = await record({ allow_user_requests: true });
    const req = (await ask(r.id, OTHER).expect(200)).body;
    const declined = await send('declined', {
      id: req.id,
      type: 'user-access-request',
      created_by: { user: OTHER },
      topic: { record: r.id },
    });
    await waitFor(() => processed(declined.id));
    expect((await ask(r.id, OTHER)).status).toBe(200);

    const gone = await send('accepted', {
      id: randomUUID(),
      type: 'user-access-request',
      created_by: { user: OTHER },
      topic: { record: 'zzzzz-zzz98' },
      payload: { permission: 'view' },
    });
    const failed = await waitFor(async () => (await outbox('rdm.records.access-request.failed', 'request_id', String(gone.data.id)))[0]);
    expect(failed.payload.data).toEqual({ request_id: gone.data.id, record_id: 'zzzzz-zzz98', message: 'The record no longer exists.' });
  });

  it('should limit guest asks by the address the gateway signed, whatever X-Forwarded-For says (issue 18, finding 8)', async () => {
    const r = await record({ allow_guest_requests: true });
    const statuses: number[] = [];
    for (let i = 0; i <= GUEST_ASK_LIMIT.max; i++) {
      const res = await env.request
        .post(`/api/records/${r.id}/access/request`)
        .set(anonymousFrom('10.9.0.7'))
        .set('x-forwarded-for', `198.51.100.${i + 1}`)
        .send({ email: 'nope' });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(GUEST_ASK_LIMIT.max).fill(400), 429]);
    const other = await env.request.post(`/api/records/${r.id}/access/request`).set(anonymousFrom('10.9.0.8')).send({ email: 'nope' });
    expect(other.status).toBe(400);
  });

  // Issue 18: every request type's effect re-checks authority at accept time.
  it("should grant nothing when the accepted request is not records' own request of that record or its receiver is not the owner", async () => {
    const r = await record({ allow_user_requests: true });
    const other = await record({ allow_user_requests: true });
    const req = (await ask(r.id, ASKER).expect(200)).body;
    const base = { id: req.id, type: 'user-access-request', created_by: { user: ASKER }, payload: { permission: 'manage' } };
    // Aimed at another record than the one asked for.
    const reaimed = await send('accepted', { ...base, topic: { record: other.id } });
    const f1 = await waitFor(async () => (await outbox('rdm.records.access-request.failed', 'request_id', req.id))[0]);
    expect(f1.payload.data).toEqual({ request_id: req.id, record_id: other.id, message: ACCESS_EFFECT_MESSAGES.notThisRequest });
    await waitFor(() => processed(reaimed.id));
    // Received (and accepted) by someone who does not own the record.
    const stranger = await send('accepted', { ...base, topic: { record: r.id }, receiver: { user: OTHER }, actor: { user: OTHER } });
    await waitFor(() => processed(stranger.id));
    const failures = await outbox('rdm.records.access-request.failed', 'request_id', req.id);
    expect(failures.map((f) => f.payload.data.message)).toEqual([
      ACCESS_EFFECT_MESSAGES.notThisRequest,
      ACCESS_EFFECT_MESSAGES.notTheOwner,
    ]);
    expect(await outbox('rdm.records.access-request.granted', 'request_id', req.id)).toHaveLength(0);
    for (const id of [r.id, other.id]) {
      const users = await env.request.get(`/api/records/${id}/access/users`).set(as(OWNER)).expect(200);
      expect(users.body.hits.hits).toEqual([]);
    }
  });

  it('should verify a guest by e-mail, create the request on confirmation, and mail the secret link once accepted', async () => {
    const r = await record({ allow_guest_requests: true, secret_link_expiration: 10 });
    const invalid = await ask(r.id, null, { email: 'nope', message: 'x' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual([
      { field: 'email', messages: ['Not a valid email address.'] },
      { field: 'full_name', messages: ['Missing data for required field.'] },
    ]);
    const res = await ask(r.id, null, { email: 'Guest@Example.org', full_name: 'Grace Guest', message: 'For my thesis.' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Verification link sent out, please check your e-mail inbox' });

    const mail = await waitFor(async () => toGuest('confirm')[0]);
    const url = /https:\/\/rdm\.example\.org(\/api\/records\/[^\s]+\/access\/request\/confirm\?access_request_token=[^\s]+)/.exec(
      mail.text,
    )?.[1];
    expect(url).toBeDefined();
    expect((await env.request.get(url!).set(as(ASKER))).status).toBe(403);
    expect((await env.request.get(`/api/records/${r.id}/access/request/confirm?access_request_token=forged`)).status).toBe(404);
    const confirmed = await env.request.get(url!);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ type: 'guest-access-request', created_by: { email: 'Guest@Example.org' } });
    const call = env.fakeRequests.calls.filter((c) => c.subject === 'create').at(-1)!.payload;
    expect(call).toMatchObject({
      identity: { sub: 'system' },
      receiver: { user: OWNER },
      payload: {
        permission: 'view',
        email: 'Guest@Example.org',
        full_name: 'Grace Guest',
        message: 'For my thesis.',
        consent_to_share_personal_data: 'false',
        secret_link_expiration: '10',
      },
      comment: { content: 'For my thesis.' },
    });
    expect((await env.request.get(url!)).status).toBe(404); // used once
    // The same guest asking again while open: the confirmation is refused as identical.
    await ask(r.id, null, { email: 'guest@example.org', full_name: 'Grace Guest' }).expect(200);
    const mail2 = await waitFor(async () => toGuest('access_request_token=')[1]);
    const url2 = /https:\/\/rdm\.example\.org(\/api\/records\/\S+confirm\S+)/.exec(mail2.text)![1]!;
    expect((await env.request.get(url2)).body.message).toBe(`Identical access requests already exist: ${confirmed.body.id}`);

    const data = {
      id: confirmed.body.id,
      type: 'guest-access-request',
      created_by: { email: 'Guest@Example.org' },
      topic: { record: r.id },
      payload: call.payload,
    };
    const e1 = await send('accepted', data);
    await env.nats.js.publish(e1.type, JSON.stringify(e1), { msgID: randomUUID() });
    await waitFor(() => processed(e1.id));
    const granted = await outbox('rdm.records.access-request.granted', 'request_id', confirmed.body.id);
    expect(granted).toHaveLength(1);
    const expires = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    expect(granted[0].payload.data).toMatchObject({ kind: 'link', permission: 'view', expires_at: expires });
    const links = await env.request.get(`/api/records/${r.id}/access/links`).set(as(OWNER)).expect(200);
    expect(links.body.hits.hits).toMatchObject([
      {
        id: granted[0].payload.data.link_id,
        permission: 'view',
        expires_at: expires,
        description: 'Requested by guest: Grace Guest (Guest@Example.org)',
      },
    ]);
    const linkMail = await waitFor(async () => toGuest('was accepted')[0]);
    expect(linkMail.to.map((t) => t.toLowerCase())).toEqual(['guest@example.org']);
    const token = decodeURIComponent(/\/api\/records\/\S+\?token=(\S+)/.exec(linkMail.text)![1]!);
    expect(token).toBe(links.body.hits.hits[0].token);
    const authorize = (access_token?: string) =>
      env
        .rpc<any>('rdm.records.rpc.authorize-files', {
          record_id: r.id,
          scope: 'record',
          action: 'read',
          identity: { sub: null, roles: [] },
          access_token,
        })
        .then(
          () => 200,
          (e: { status?: number }) => e.status,
        );
    expect(await authorize()).toBe(403);
    expect(await authorize(token)).toBe(200);
    await new Promise((res) => setTimeout(res, 500));
    expect(toGuest('was accepted')).toHaveLength(1);
  });
});
