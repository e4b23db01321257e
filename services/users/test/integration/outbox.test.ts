import { ensureStream, OutboxRelay, SYSTEM, subjectMatches } from '@rdm/platform';
import { type TestDb, testDb, testLogger, testNats, waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokensService } from '../../src/domain/tokens.service.js';
import { UsersService } from '../../src/domain/users.service.js';
import { USERS_STREAM, USERS_STREAM_SUBJECTS } from '../../src/events/streams.js';

describe('users events through the outbox', () => {
  let t: TestDb;
  let nats: Awaited<ReturnType<typeof testNats>>;
  let relay: OutboxRelay;

  beforeAll(async () => {
    t = await testDb('users');
    nats = await testNats();
    await ensureStream(nats.jsm, { name: USERS_STREAM, subjects: USERS_STREAM_SUBJECTS });
    relay = new OutboxRelay({ db: t.db, js: nats.js, logger: testLogger(), pollMs: 50 });
    relay.start();
  });
  afterAll(async () => {
    await relay?.stop();
    await nats?.close();
    await t?.destroy();
  });

  it('should capture user and token events but never RPC subjects in the USERS stream', async () => {
    const info = await nats.jsm.streams.info(USERS_STREAM);
    expect([...(info.config.subjects ?? [])].sort()).toEqual([...USERS_STREAM_SUBJECTS].sort());
    const captured = (s: string) => USERS_STREAM_SUBJECTS.some((p) => subjectMatches(p, s));
    for (const s of ['rdm.users.user.created', 'rdm.users.user.deactivated', 'rdm.users.token.revoked']) expect(captured(s), s).toBe(true);
    for (const s of ['rdm.users.rpc.verify-token', 'rdm.users.rpc.get-users']) expect(captured(s), s).toBe(false);
  });

  // The relay publishes at least once (a fast path and a locking round can both send a row);
  // JetStream drops the duplicates by message id, so the stream, not a core subscription, is what
  // consumers see. Read it back from the stream.
  it('should publish created, revoked and deactivated events with the outbox id as message id', async () => {
    const users = new UsersService(t.db);
    const tokens = new TokensService(t.db);
    const { user } = await users.ensureUser(SYSTEM, { email: 'events@example.org' });
    const { row } = await tokens.issue(SYSTEM, user.id);
    await tokens.revoke(SYSTEM, { id: row.id });
    await users.deactivate(SYSTEM, 'events@example.org');

    const outbox = await t.db('outbox').orderBy('seq').select('id', 'subject');
    await waitFor(async () => (await t.db('outbox').whereNull('published_at').count({ n: '*' }))[0].n === '0', {
      message: 'relay did not publish',
    });
    const ids = new Set(outbox.map((o) => o.id as string));
    const { state } = await nats.jsm.streams.info(USERS_STREAM);
    const mine: { subject: string; id: string; msgId: string | undefined; data: unknown }[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
      const m = await nats.jsm.streams.getMessage(USERS_STREAM, { seq }).catch(() => undefined);
      if (!m) continue;
      const env = m.json<{ id: string; data: unknown }>();
      if (ids.has(env.id)) mine.push({ subject: m.subject, id: env.id, msgId: m.header?.get('Nats-Msg-Id'), data: env.data });
    }
    expect(mine.map((s) => [s.subject, s.data])).toEqual([
      ['rdm.users.user.created', { id: user.id, email: 'events@example.org' }],
      ['rdm.users.token.revoked', { id: row.id, user_id: user.id }],
      ['rdm.users.user.deactivated', { id: user.id }],
    ]);
    for (const s of mine) expect(s.msgId).toBe(s.id);
  });
});
