/**
 * Media files through the gateway (black box): `…/draft/media-files…` as a second bucket of the
 * draft, managed like files (register, upload, commit, list, download, archive, delete), apart
 * from the draft's files; published with the record and read-only there (writes 403, InvenioRDM's
 * default policy); same permissions as files.
 *
 * Needs the records service to grant media buckets (`authorize-files` with `bucket: "media"`,
 * proto/README.md). Against a records service that does not yet, the files service answers 501
 * and every test here is reported as skipped, with that reason.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { walkthroughMetadata } from '../records/support.js';

let owner: TestUser;
let other: TestUser;
let id: string;
let unsupported: string | undefined;

const draftMedia = () => `/api/records/${id}/draft/media-files`;

beforeAll(async () => {
  owner = await createUser({ email: uniqueEmail('media-owner') });
  other = await createUser({ email: uniqueEmail('media-other') });
  const res = await api('/api/records', {
    method: 'POST',
    token: owner.token,
    body: {
      access: { record: 'public', files: 'public' },
      files: { enabled: true },
      media_files: { enabled: true },
      metadata: walkthroughMetadata(),
    },
  });
  if (res.status !== 201) throw new Error(`create draft ${res.status}: ${res.text}`);
  id = res.body.id;
  const probe = await api(draftMedia(), { token: owner.token });
  if (probe.status === 501) unsupported = `records does not grant media buckets yet: ${probe.body?.message}`;
  // The gateway routes media files only once records keeps media buckets (honest surfaces).
  if (probe.status === 404 && /not found on the server/.test(probe.text)) unsupported = 'media files are not routed by the gateway yet';
  if (unsupported) process.stderr.write(`[media-files] SKIPPED: ${unsupported}\n`);
});

/** Skip (reported as skipped, with the reason) while records does not grant media buckets. */
function needsMedia(ctx: { skip: (note?: string) => void }): void {
  if (unsupported) ctx.skip(unsupported);
}

describe('draft media files', () => {
  it('register, upload and commit a media file in the media bucket, with media-files links', async (ctx) => {
    needsMedia(ctx);
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

  it("media files are not the draft's files", async (ctx) => {
    needsMedia(ctx);
    const files = await api(`/api/records/${id}/draft/files`, { token: owner.token });
    expect(files.body.entries.map((e: { key: string }) => e.key)).not.toContain('cover.png');
    const media = await api(draftMedia(), { token: owner.token });
    expect(media.body.entries.map((e: { key: string }) => e.key)).toEqual(['cover.png']);
  });

  it('same permissions as files: anonymous and other users may not manage them', async (ctx) => {
    needsMedia(ctx);
    expect((await api(draftMedia(), { method: 'POST', body: [{ key: 'x.png' }] })).status).toBe(403);
    expect((await api(draftMedia(), { method: 'POST', token: other.token, body: [{ key: 'x.png' }] })).status).toBe(403);
    expect((await api(`${draftMedia()}/cover.png`, { method: 'DELETE', token: other.token })).status).toBe(403);
  });

  it('delete and re-add a media file', async (ctx) => {
    needsMedia(ctx);
    expect((await api(draftMedia(), { method: 'POST', token: owner.token, body: [{ key: 'tmp.png' }] })).status).toBe(201);
    expect((await api(`${draftMedia()}/tmp.png`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(`${draftMedia()}/tmp.png`, { token: owner.token })).status).toBe(404);
  });
});

describe('published media files', () => {
  beforeAll(async () => {
    if (unsupported) return;
    const init = await api(`/api/records/${id}/draft/files`, { method: 'POST', token: owner.token, body: [{ key: 'data.txt' }] });
    if (init.status !== 201) throw new Error(`init ${init.status}: ${init.text}`);
    await api(`/api/records/${id}/draft/files/data.txt/content`, { method: 'PUT', token: owner.token, raw: 'data' });
    await api(`/api/records/${id}/draft/files/data.txt/commit`, { method: 'POST', token: owner.token });
    const pub = await api(`/api/records/${id}/draft/actions/publish`, { method: 'POST', token: owner.token });
    if (pub.status !== 202) throw new Error(`publish ${pub.status}: ${pub.text}`);
  });

  it('the record serves its media files to anyone', async (ctx) => {
    needsMedia(ctx);
    const list = await api(`/api/records/${id}/media-files`);
    expect(list.status).toBe(200);
    expect(list.body.entries.map((e: { key: string }) => e.key)).toEqual(['cover.png']);
    const res = await fetch(`${baseUrl()}/api/records/${id}/media-files/cover.png/content`);
    expect(await res.text()).toBe('PNGDATA');
  });

  it("a published record's media files are read-only (403, even for the owner)", async (ctx) => {
    needsMedia(ctx);
    expect((await api(`/api/records/${id}/media-files`, { method: 'POST', token: owner.token, body: [{ key: 'y.png' }] })).status).toBe(
      403,
    );
    expect((await api(`/api/records/${id}/media-files/cover.png`, { method: 'DELETE', token: owner.token })).status).toBe(403);
  });
});
