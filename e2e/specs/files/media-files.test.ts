/**
 * Media files through the gateway (black box): `…/draft/media-files…` as a second bucket of the
 * draft, managed like files (register, upload, commit, list, download, archive, delete), apart
 * from the draft's files; published with the record and read-only there (writes 403, InvenioRDM's
 * default policy); same permissions as files. An edit draft works on its own copy, which becomes
 * the record's when the edit is published; a new version starts without media files.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, walkthroughMetadata } from '../records/support.js';

let owner: TestUser;
let other: TestUser;
let id: string;

const draftMedia = () => `/api/records/${id}/draft/media-files`;

beforeAll(async () => {
  owner = await createUser({ email: uniqueEmail('media-owner') });
  other = await createUser({ email: uniqueEmail('media-other') });
  const res = await createDraft(owner.token, {
    access: { record: 'public', files: 'public' },
    files: { enabled: true },
    media_files: { enabled: true },
    metadata: walkthroughMetadata(),
  });
  if (res.status !== 201) throw new Error(`create draft ${res.status}: ${res.text}`);
  id = res.body.id;
});

describe('draft media files', () => {
  it('register, upload and commit a media file in the media bucket, with media-files links', async () => {
    const init = await api(draftMedia(), { method: 'POST', token: owner.token, body: [{ key: 'cover.png' }] });
    expect(init.status, init.text).toBe(201);
    const base = `${baseUrl()}${draftMedia()}`;
    expect(init.body.links).toEqual({ self: base, archive: `${baseUrl()}/api/records/${id}/draft/media-files-archive` });
    expect(init.body.entries[0].links).toEqual({
      self: `${base}/cover.png`,
      content: `${base}/cover.png/content`,
      commit: `${base}/cover.png/commit`,
    });
    expect((await api(`${draftMedia()}/cover.png/content`, { method: 'PUT', token: owner.token, raw: 'PNGDATA' })).status).toBe(200);
    const commit = await api(`${draftMedia()}/cover.png/commit`, { method: 'POST', token: owner.token });
    expect(commit.body).toMatchObject({ key: 'cover.png', status: 'completed', size: 7 });
    const res = await fetch(`${base}/cover.png/content`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(await res.text()).toBe('PNGDATA');
  });

  it("media files are not the draft's files", async () => {
    const files = await api(`/api/records/${id}/draft/files`, { token: owner.token });
    expect(files.body.entries.map((e: { key: string }) => e.key)).not.toContain('cover.png');
    const media = await api(draftMedia(), { token: owner.token });
    expect(media.body.entries.map((e: { key: string }) => e.key)).toEqual(['cover.png']);
  });

  it('same permissions as files: anonymous and other users may not manage them', async () => {
    expect((await api(draftMedia(), { method: 'POST', body: [{ key: 'x.png' }] })).status).toBe(403);
    expect((await api(draftMedia(), { method: 'POST', token: other.token, body: [{ key: 'x.png' }] })).status).toBe(403);
    expect((await api(`${draftMedia()}/cover.png`, { method: 'DELETE', token: other.token })).status).toBe(403);
  });

  it('delete and re-add a media file', async () => {
    expect((await api(draftMedia(), { method: 'POST', token: owner.token, body: [{ key: 'tmp.png' }] })).status).toBe(201);
    expect((await api(`${draftMedia()}/tmp.png`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(`${draftMedia()}/tmp.png`, { token: owner.token })).status).toBe(404);
  });
});

describe('published media files', () => {
  beforeAll(async () => {
    const init = await api(`/api/records/${id}/draft/files`, { method: 'POST', token: owner.token, body: [{ key: 'data.txt' }] });
    if (init.status !== 201) throw new Error(`init ${init.status}: ${init.text}`);
    await api(`/api/records/${id}/draft/files/data.txt/content`, { method: 'PUT', token: owner.token, raw: 'data' });
    await api(`/api/records/${id}/draft/files/data.txt/commit`, { method: 'POST', token: owner.token });
    const pub = await api(`/api/records/${id}/draft/actions/publish`, { method: 'POST', token: owner.token });
    if (pub.status !== 202) throw new Error(`publish ${pub.status}: ${pub.text}`);
  });

  it('the record serves its media files to anyone', async () => {
    const list = await api(`/api/records/${id}/media-files`);
    expect(list.status).toBe(200);
    expect(list.body.entries.map((e: { key: string }) => e.key)).toEqual(['cover.png']);
    const res = await fetch(`${baseUrl()}/api/records/${id}/media-files/cover.png/content`);
    expect(await res.text()).toBe('PNGDATA');
  });

  it("a published record's media files are read-only (403, even for the owner)", async () => {
    expect((await api(`/api/records/${id}/media-files`, { method: 'POST', token: owner.token, body: [{ key: 'y.png' }] })).status).toBe(
      403,
    );
    expect((await api(`/api/records/${id}/media-files/cover.png`, { method: 'DELETE', token: owner.token })).status).toBe(403);
  });
});

describe('media files in the record JSON, edits and new versions', () => {
  const keys = (body: { entries: { key: string }[] }) => body.entries.map((e) => e.key).sort();

  it("the record carries its media files' summary and a working media_files link", async () => {
    const rec = await api(`/api/records/${id}`);
    expect(rec.status).toBe(200);
    expect(rec.body.media_files).toMatchObject({ enabled: true, count: 1, total_bytes: 7 });
    expect(Object.keys(rec.body.media_files.entries)).toEqual(['cover.png']);
    expect(rec.body.links.media_files).toBe(`${baseUrl()}/api/records/${id}/media-files`);
    expect((await api(rec.body.links.media_files.slice(baseUrl().length))).status).toBe(200);
  });

  it("an edit draft manages its own copy; publishing the edit makes it the record's", async () => {
    expect((await api(`/api/records/${id}/draft`, { method: 'POST', token: owner.token })).status).toBe(201);
    const copy = await api(draftMedia(), { token: owner.token });
    expect(copy.status).toBe(200);
    expect(keys(copy.body)).toEqual(['cover.png']);
    expect((await api(draftMedia(), { method: 'POST', token: owner.token, body: [{ key: 'poster.png' }] })).status).toBe(201);
    expect((await api(`${draftMedia()}/poster.png/content`, { method: 'PUT', token: owner.token, raw: 'POSTER' })).status).toBe(200);
    expect((await api(`${draftMedia()}/poster.png/commit`, { method: 'POST', token: owner.token })).status).toBe(200);
    expect((await api(`${draftMedia()}/cover.png`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    // The record is untouched until the edit is published.
    expect(keys((await api(`/api/records/${id}/media-files`)).body)).toEqual(['cover.png']);
    const pub = await api(`/api/records/${id}/draft/actions/publish`, { method: 'POST', token: owner.token });
    expect(pub.status, pub.text).toBe(202);
    expect(keys((await api(`/api/records/${id}/media-files`)).body)).toEqual(['poster.png']);
    const res = await fetch(`${baseUrl()}/api/records/${id}/media-files/poster.png/content`);
    expect(await res.text()).toBe('POSTER');
    expect((await api(`/api/records/${id}/media-files/cover.png`)).status).toBe(404);
  });

  it('a new version starts without media files', async () => {
    const nv = await api(`/api/records/${id}/versions`, { method: 'POST', token: owner.token });
    expect(nv.status).toBe(201);
    expect(nv.body.media_files.enabled).toBe(false);
    const list = await api(`/api/records/${nv.body.id}/draft/media-files`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.enabled).toBe(false);
    expect((await api(`/api/records/${nv.body.id}/draft`, { method: 'DELETE', token: owner.token })).status).toBe(204);
  });

  it("a draft's media files are not readable by anonymous users", async () => {
    const d = await api('/api/records', {
      method: 'POST',
      token: owner.token,
      body: { media_files: { enabled: true }, metadata: walkthroughMetadata() },
    });
    expect(d.status).toBe(201);
    expect((await api(`/api/records/${d.body.id}/draft/media-files`)).status).toBe(403);
    expect((await api(`/api/records/${d.body.id}/draft/media-files`, { token: other.token })).status).toBe(403);
    expect((await api(`/api/records/${d.body.id}/draft/media-files`, { token: owner.token })).status).toBe(200);
  });
});
