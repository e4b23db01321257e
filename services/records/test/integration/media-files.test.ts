/**
 * Media files as records drives them (media.component.ts): `media_files.enabled`, the media
 * bucket granted through `authorize-files` with `bucket: "media"`, frozen at publish, copied for
 * an edit and swapped in when the edit is published, dropped with a deleted draft, and the
 * events the files service acts on. Real PostgreSQL and NATS; the files service is the stub of
 * support.ts behind its real RPC subjects.
 */
import { isAppError } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '1501';
const OTHER = '1502';
const SUBJECT = 'rdm.records.rpc.authorize-files';
const user = (sub: string | null, roles: string[] = []) => ({ sub, roles });

describe('media files', () => {
  let env: Env;
  const authorize = (payload: Record<string, unknown>) => env.rpc<Record<string, any>>(SUBJECT, { bucket: 'media', ...payload });
  const failure = async (payload: Record<string, unknown>) => {
    try {
      await authorize(payload);
    } catch (err) {
      if (isAppError(err)) return { status: err.status, message: err.message };
      throw err;
    }
    throw new Error('expected a failure');
  };
  const mediaBucket = async (table: 'drafts' | 'records', id: string): Promise<string | undefined> =>
    (await env.db(table).where({ id }).first())?.media_files?.bucket_id;
  const outbox = async (subject: string, id: string) =>
    (await env.db('outbox').where({ aggregate_id: id, subject }).orderBy('seq')).map((r: any) => r.payload.data);

  async function mediaDraft(extra: Record<string, unknown> = {}): Promise<any> {
    const res = await env.request
      .post('/api/records')
      .set(as(OWNER))
      .send({ metadata: fullMetadata(), media_files: { enabled: true }, ...extra });
    expect(res.status, res.text).toBe(201);
    return res.body;
  }

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should keep media files disabled by default, with no bucket and a disabled grant', async () => {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() }).expect(201)).body;
    expect(d.media_files).toEqual({ enabled: false, order: [], count: 0, total_bytes: 0, entries: {} });
    expect(await mediaBucket('drafts', d.id)).toBeUndefined();
    expect(await authorize({ record_id: d.id, scope: 'draft', action: 'update', identity: user(OWNER) })).toMatchObject({
      bucket: 'media',
      enabled: false,
      locked: false,
    });
  });

  it('should grant the draft media bucket (its own, unlocked) by the draft permissions, echoing bucket', async () => {
    const d = await mediaDraft();
    expect(d.media_files.enabled).toBe(true);
    const bucket = await mediaBucket('drafts', d.id);
    expect(bucket).toMatch(/^media-/);
    expect(bucket).not.toBe(d.id);
    expect(await authorize({ record_id: d.id, scope: 'draft', action: 'update', identity: user(OWNER) })).toEqual({
      bucket: 'media',
      bucket_id: bucket,
      record_id: d.id,
      enabled: true,
      locked: false,
      default_preview: null,
      order: [],
    });
    for (const action of ['read', 'update']) {
      expect(await failure({ record_id: d.id, scope: 'draft', action, identity: user(OTHER) })).toEqual({
        status: 403,
        message: 'Permission denied.',
      });
      expect(await failure({ record_id: d.id, scope: 'draft', action, identity: user(null) })).toMatchObject({ status: 403 });
    }
    expect(await failure({ record_id: d.id, scope: 'record', action: 'read', identity: user(OWNER) })).toMatchObject({ status: 404 });
    // The files bucket is still granted without `bucket` (and without the echo).
    expect(await env.rpc(SUBJECT, { record_id: d.id, scope: 'draft', action: 'read', identity: user(OWNER) })).toMatchObject({
      bucket_id: d.id,
    });
  });

  it('should refuse to disable media files that are still there, and keep them when media_files is omitted', async () => {
    const d = await mediaDraft();
    env.files.addFile((await mediaBucket('drafts', d.id))!, 'cover.png');
    const off = await env.request
      .put(`/api/records/${d.id}/draft`)
      .set(as(OWNER))
      .send({ metadata: d.metadata, media_files: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.errors).toContainEqual({
      field: 'media_files.enabled',
      messages: ['You must first delete all files to set the record to be metadata-only.'],
    });
    expect(off.body.media_files.enabled).toBe(true);
    const omitted = await env.request.put(`/api/records/${d.id}/draft`).set(as(OWNER)).send({ metadata: d.metadata });
    expect(omitted.body.media_files.enabled).toBe(true);
  });

  it('should refuse to publish with a pending media file, without freezing the files', async () => {
    const d = await mediaDraft();
    env.files.addFile(d.id, 'data.txt');
    env.files.addFile((await mediaBucket('drafts', d.id))!, 'cover.png', { pending: true });
    const res = await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'media_files', messages: ['One or more files have not completed their transfer, please wait.'] },
    ]);
    expect(env.files.bucket(d.id).locked).toBe(false);
  });

  describe('published, edited, discarded', () => {
    let id: string;
    let first: string;

    it('should freeze the media files at publish (lock with if_complete + allow_empty) and name the bucket in record.published', async () => {
      const d = await mediaDraft();
      id = d.id;
      first = (await mediaBucket('drafts', id))!;
      env.files.addFile(id, 'data.txt');
      env.files.addFile(first, 'cover.png', { size: 7 });
      const pub = await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(OWNER));
      expect(pub.status, pub.text).toBe(202);
      expect(env.files.calls.filter((c) => c.payload?.bucket_id === first && c.subject === 'lock').map((c) => c.payload)).toEqual([
        { bucket_id: first, if_complete: true, allow_empty: true },
      ]);
      expect(pub.body.media_files).toMatchObject({ enabled: true, count: 1, total_bytes: 7 });
      expect(Object.keys(pub.body.media_files.entries)).toEqual(['cover.png']);
      expect(pub.body.links.media_files).toBe(`${pub.body.links.self}/media-files`);
      expect(await mediaBucket('records', id)).toBe(first);
      expect((await outbox('rdm.records.record.published', id))[0]).toMatchObject({ bucket_id: id, media_bucket_id: first });
      expect((await outbox('rdm.records.record.published', id))[0].superseded_media_bucket_id).toBeUndefined();
    });

    it("should grant the record's media (locked) by the record's visibility, and refuse every write", async () => {
      expect(await authorize({ record_id: id, scope: 'record', action: 'read', identity: user(null) })).toMatchObject({
        bucket: 'media',
        bucket_id: first,
        enabled: true,
        locked: true,
      });
      expect(await failure({ record_id: id, scope: 'record', action: 'update', identity: user(OWNER) })).toEqual({
        status: 403,
        message: 'Permission denied.',
      });
      expect(await failure({ record_id: id, scope: 'record', action: 'update', identity: user('1', ['admin']) })).toMatchObject({
        status: 403,
      });
    });

    it('should give an edit draft its own copy, swapped in (and the old one superseded) when the edit is published', async () => {
      const edit = await env.request.post(`/api/records/${id}/draft`).set(as(OWNER));
      expect(edit.status).toBe(201);
      const copy = (await mediaBucket('drafts', id))!;
      expect(copy).toMatch(/^media-/);
      expect(copy).not.toBe(first);
      expect(env.files.calls.find((c) => c.subject === 'import' && c.payload.to_bucket_id === copy)?.payload).toEqual({
        from_bucket_id: first,
        to_bucket_id: copy,
        allow_empty: true,
      });
      expect(await authorize({ record_id: id, scope: 'draft', action: 'update', identity: user(OWNER) })).toMatchObject({
        bucket_id: copy,
        locked: false,
      });
      env.files.addFile(copy, 'poster.png', { size: 3 });
      const pub = await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(OWNER));
      expect(pub.status, pub.text).toBe(202);
      expect(Object.keys(pub.body.media_files.entries).sort()).toEqual(['cover.png', 'poster.png']);
      expect(await mediaBucket('records', id)).toBe(copy);
      const events = await outbox('rdm.records.record.published', id);
      expect(events.at(-1)).toMatchObject({ media_bucket_id: copy, superseded_media_bucket_id: first });
    });

    it("should drop a discarded edit's copy (draft.deleted names it) and keep the record's", async () => {
      const current = await mediaBucket('records', id);
      await env.request.post(`/api/records/${id}/draft`).set(as(OWNER)).expect(201);
      const copy = (await mediaBucket('drafts', id))!;
      expect(env.files.buckets.has(copy)).toBe(true);
      expect((await env.request.delete(`/api/records/${id}/draft`).set(as(OWNER))).status).toBe(204);
      expect((await outbox('rdm.records.draft.deleted', id)).at(-1)).toMatchObject({ kind: 'edit', bucket_id: id, media_bucket_id: copy });
      expect(env.files.buckets.has(copy)).toBe(false);
      expect(await mediaBucket('records', id)).toBe(current);
    });

    it('should start a new version without media files', async () => {
      const nv = (await env.request.post(`/api/records/${id}/versions`).set(as(OWNER)).expect(201)).body;
      expect(nv.media_files).toMatchObject({ enabled: false, count: 0 });
      expect(await mediaBucket('drafts', nv.id)).toBeUndefined();
    });
  });

  it("should drop a deleted first draft's media bucket and name it in draft.deleted", async () => {
    const d = await mediaDraft();
    const bucket = (await mediaBucket('drafts', d.id))!;
    env.files.addFile(bucket, 'cover.png');
    expect((await env.request.delete(`/api/records/${d.id}/draft`).set(as(OWNER))).status).toBe(204);
    expect((await outbox('rdm.records.draft.deleted', d.id)).at(-1)).toEqual({
      id: d.id,
      parent_id: d.parent.id,
      bucket_id: d.id,
      kind: 'new',
      media_bucket_id: bucket,
    });
    expect(env.files.buckets.has(bucket)).toBe(false);
  });

  it("should serve a public record's media even when its files are restricted (InvenioRDM: record visibility)", async () => {
    const d = await mediaDraft({ access: { record: 'public', files: 'restricted' } });
    env.files.addFile(d.id, 'data.txt');
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    expect(await authorize({ record_id: d.id, scope: 'record', action: 'read', identity: user(null) })).toMatchObject({ enabled: true });
    const r = (
      await env.request
        .post('/api/records')
        .set(as(OWNER))
        .send({ metadata: fullMetadata(), media_files: { enabled: true }, access: { record: 'restricted', files: 'restricted' } })
    ).body;
    env.files.addFile(r.id, 'data.txt');
    await env.request.post(`/api/records/${r.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    expect(await failure({ record_id: r.id, scope: 'record', action: 'read', identity: user(null) })).toMatchObject({ status: 403 });
    expect(await failure({ record_id: r.id, scope: 'record', action: 'read', identity: user(OTHER) })).toMatchObject({ status: 403 });
  });
});
