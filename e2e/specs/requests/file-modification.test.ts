/**
 * Owners' file-modification requests through the gateway (issue 24, InvenioRDM 13+
 * `file-modification`): the files of a published version are locked; within the grace period the
 * owner's request is accepted at once and unlocks them, the edit draft gets its own copy of the
 * files (the published version keeps serving the old ones), and publishing it replaces the
 * version's files (a new revision) and consumes the unlock. After the grace period (the record's
 * publication moved back in the database: no API makes an old record) an administrator accepts,
 * declines, or the owner cancels. Each step's e-mails land in the records service's development
 * mail sink and its events on NATS. A stranger can neither ask nor accept; the owner cannot
 * accept their own request after the grace period.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/up.js';
import { api } from '../../support/client.js';
import { type EventWatch, watchEvents } from '../../support/events.js';
import { mailWith as mail } from '../../support/mail-sink.js';
import { readStackState } from '../../support/stack.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { publishedRecord, uploadFiles } from '../records/support.js';

/** The little of `pg`'s client used here. */
type PgClient = new (o: { connectionString: string }) => {
  connect(): Promise<void>;
  query(sql: string, params: unknown[]): Promise<unknown>;
  end(): Promise<void>;
};

/** Move a record's publication `days` back (records' own table; the stack's database). */
async function publishedDaysAgo(id: string, days: number): Promise<void> {
  // Why the platform's `pg`: the e2e package has no database client of its own.
  const { Client } = createRequire(join(REPO_ROOT, 'services', '_platform', 'package.json'))('pg') as { Client: PgClient };
  const client = new Client({ connectionString: readStackState().databaseUrl });
  await client.connect();
  try {
    await client.query('UPDATE records.records SET created = created - make_interval(days => $2) WHERE id = $1', [id, days]);
  } finally {
    await client.end();
  }
}

/** Retry an ask while records has not closed the previous request's slot yet (its consumer). */
async function askUntilAccepted(ask: () => Promise<{ status: number; body: any }>) {
  let res = await ask();
  for (let i = 0; res.status === 400 && i < 40; i++) {
    await new Promise((r) => setTimeout(r, 250));
    res = await ask();
  }
  return res;
}

/**
 * The edit draft's files are the published version's, locked (files README, "Edit drafts"): a
 * new key registers (InvenioRDM's order) but its content is refused, and the record's file
 * cannot be deleted; the registration is deleted again.
 */
async function expectLocked(token: string, id: string, existing = 'data.txt'): Promise<void> {
  const init = await api(`/api/records/${id}/draft/files`, { method: 'POST', token, body: [{ key: 'probe.txt' }] });
  expect(init.status).toBe(201);
  const put = await api(`/api/records/${id}/draft/files/probe.txt/content`, { method: 'PUT', token, raw: 'x' });
  expect(put.status).toBe(403);
  expect(put.body.message).toBe('Bucket is locked for modifications.');
  expect((await api(`/api/records/${id}/draft/files/${existing}`, { method: 'DELETE', token })).status).toBe(403);
  expect((await api(`/api/records/${id}/draft/files/probe.txt`, { method: 'DELETE', token })).status).toBe(204);
}

const keysOf = (body: any): string[] => (body.entries as { key: string }[]).map((e) => e.key).sort();

describe('file-modification requests', () => {
  let owner: TestUser;
  let admin: TestUser;
  let stranger: TestUser;
  let events: EventWatch;
  /** Wait (up to 20 s) for an event on `subject` whose data matches. */
  const event = (subject: string, match: (d: Record<string, any>) => boolean) => events.event(subject, match);

  const ask = (id: string, token: string | undefined, body?: unknown) =>
    api(`/api/records/${id}/file-modification`, { method: 'POST', token, ...(body !== undefined ? { body } : {}) });

  beforeAll(async () => {
    [owner, admin, stranger] = await Promise.all([
      createUser({ email: uniqueEmail('fmod-owner') }),
      createUser({ email: uniqueEmail('fmod-admin'), admin: true }),
      createUser({ email: uniqueEmail('fmod-stranger') }),
    ]);
    events = await watchEvents(['rdm.requests.request.>', 'rdm.records.record.>']);
  });
  afterAll(async () => {
    await events?.close();
  });

  it('should keep the files of a published version locked, then unlock them at once in the grace period and replace them by publishing the edit', async () => {
    const rec = await publishedRecord(owner.token);
    const id = rec.id as string;
    expect((await api(`/api/records/${id}`, { token: owner.token })).body.links.file_modification).toMatch(
      new RegExp(`/api/records/${id}/file-modification$`),
    );
    for (const who of [stranger.token, admin.token, undefined]) {
      expect((await api(`/api/records/${id}`, { token: who })).body.links.file_modification).toBeUndefined();
    }

    // Without an accepted request the edit draft's files are the record's, locked.
    expect((await api(`/api/records/${id}/draft`, { method: 'POST', token: owner.token })).status).toBe(201);
    await expectLocked(owner.token, id);

    for (const who of [stranger.token, undefined]) {
      const refused = await ask(id, who, {});
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ status: 403, message: 'Permission denied.' });
    }
    // An unknown record: 404, the same body whoever asks (no existence oracle).
    for (const who of [owner.token, stranger.token]) {
      const unknown = await ask('zzzzz-zzz99', who, { comment: 'The data file has a wrong column header.' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ status: 404 });
    }
    const short = await ask(id, owner.token, { comment: 'too short' });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual([{ field: 'comment', messages: ['Shorter than minimum length 25.'] }]);

    const res = await ask(id, owner.token, { comment: 'The data file has a wrong column header.' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: 'file-modification',
      status: 'accepted',
      is_closed: true,
      title: `File modification request for "${rec.metadata.title}"`,
      created_by: { user: owner.id },
      receiver: { group: 'admin' },
      topic: { record: id },
    });
    const dup = await ask(id, owner.token);
    expect(dup.status).toBe(400);
    expect(dup.body.message).toBe('A file modification request for this record already exists.');
    await event('rdm.records.record.files-unlocked', (d) => d.request_id === res.body.id && d.record_id === id);
    await mail(`To: ${owner.email}`, 'may now be changed', res.body.id);

    // The existing edit draft now gets its own copy: editable, the published version untouched.
    const edit = await api(`/api/records/${id}/draft`, { method: 'POST', token: owner.token });
    expect(edit.status).toBe(201);
    await uploadFiles(owner.token, id, { 'fixed.txt': 'corrected bytes' });
    expect((await api(`/api/records/${id}/draft/files/data.txt`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect(keysOf((await api(`/api/records/${id}/draft/files`, { token: owner.token })).body)).toEqual(['fixed.txt']);
    expect(keysOf((await api(`/api/records/${id}/files`)).body)).toEqual(['data.txt']);
    expect((await api(`/api/records/${id}/files/data.txt/content`)).text).toBe('hello');

    const before = (await api(`/api/records/${id}`)).body.revision_id as number;
    const pub = await api(`/api/records/${id}/draft/actions/publish`, { method: 'POST', token: owner.token });
    expect(pub.status).toBe(202);
    expect(pub.body.files).toMatchObject({ count: 1 });
    expect(Object.keys(pub.body.files.entries)).toEqual(['fixed.txt']);
    const after = await api(`/api/records/${id}`);
    expect(after.body.revision_id).toBeGreaterThan(before);
    expect(keysOf((await api(`/api/records/${id}/files`)).body)).toEqual(['fixed.txt']);
    expect((await api(`/api/records/${id}/files/fixed.txt/content`)).text).toBe('corrected bytes');
    expect((await api(`/api/records/${id}/files/data.txt/content`)).status).toBe(404);
    await event('rdm.records.record.published', (d) => d.id === id && d.file_modification_request_id === res.body.id);

    // The unlock was consumed: a new edit draft shares the (locked) files again.
    expect((await api(`/api/records/${id}/draft`, { method: 'POST', token: owner.token })).status).toBe(201);
    await expectLocked(owner.token, id, 'fixed.txt');
    expect((await api(`/api/records/${id}/draft`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    // The owner may ask again once the unlock is consumed.
    expect((await ask(id, owner.token)).status).toBe(201);
  });

  it('should wait for an administrator after the grace period: cancel, decline, accept', async () => {
    const rec = await publishedRecord(owner.token);
    const id = rec.id as string;
    await publishedDaysAgo(id, 400);

    const first = await ask(id, owner.token, { comment: 'One of the files is from an older run.' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ type: 'file-modification', status: 'submitted', is_open: true });
    await mail('To: abuse@', 'asks to modify its files', first.body.id);
    for (const who of [stranger, owner]) {
      const acc = await api(`/api/requests/${first.body.id}/actions/accept`, { method: 'POST', token: who.token, body: {} });
      expect(acc.status).toBe(403);
    }
    const cancel = await api(`/api/requests/${first.body.id}/actions/cancel`, { method: 'POST', token: owner.token, body: {} });
    expect(cancel.body.status).toBe('cancelled');
    await event('rdm.requests.request.cancelled', (d) => d.id === first.body.id);

    const second = await askUntilAccepted(() => ask(id, owner.token));
    expect(second.status).toBe(201);
    expect(second.body.status).toBe('submitted');
    const decline = await api(`/api/requests/${second.body.id}/actions/decline`, { method: 'POST', token: admin.token, body: {} });
    expect(decline.body.status).toBe('declined');
    await mail(`To: ${owner.email}`, 'declined', second.body.id);
    // Still locked: the edit draft's files are the record's.
    expect((await api(`/api/records/${id}/draft`, { method: 'POST', token: owner.token })).status).toBe(201);
    await expectLocked(owner.token, id);
    // The edit is discarded (its registration goes with it) before the administrator's accept.
    expect((await api(`/api/records/${id}/draft`, { method: 'DELETE', token: owner.token })).status).toBe(204);

    const third = await askUntilAccepted(() => ask(id, owner.token));
    expect(third.status).toBe(201);
    const accept = await api(`/api/requests/${third.body.id}/actions/accept`, { method: 'POST', token: admin.token, body: {} });
    expect(accept.status).toBe(200);
    expect(accept.body.status).toBe('accepted');
    await event('rdm.records.record.files-unlocked', (d) => d.request_id === third.body.id);
    await mail(`To: ${owner.email}`, 'may now be changed', third.body.id);
    expect((await api(`/api/records/${id}/draft`, { method: 'POST', token: owner.token })).status).toBe(201);
    await uploadFiles(owner.token, id, { 'x.txt': 'x' });
    expect(keysOf((await api(`/api/records/${id}/draft/files`, { token: owner.token })).body)).toEqual(['data.txt', 'x.txt']);
    expect(keysOf((await api(`/api/records/${id}/files`)).body)).toEqual(['data.txt']);
  });
});
