import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as repo from '../../src/repo/records.repo.js';
import type { CommunitySummary } from '../../src/domain/ports.js';
import { community } from './review-support.js';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '971';
const CURATOR = '972';
const MANAGER = '973';
const COWNER = '974';
const READER = '975';
const OTHER = '976';

/**
 * Community roles decide the write paths as they decide reads (InvenioRDM's
 * `RDMRecordPermissionPolicy`): curators, managers and owners of a record's community curate it
 * (edit, update, publish, DOI, new version, delete the edit draft); curators of the community a
 * draft is submitted to review it (update, DOI, files import); members read the latest version of
 * a restricted record. Roles come from the (fake) communities service on every check.
 */
describe('community curation: write paths decided with community roles', () => {
  let env: Env;
  let c: CommunitySummary;
  let elsewhere: CommunitySummary;

  beforeAll(async () => {
    env = await startEnv();
    c = env.fakeCommunities.add(community('curation-c'));
    elsewhere = env.fakeCommunities.add(community('curation-elsewhere'));
    env.fakeCommunities.setRole(CURATOR, c.id, 'curator');
    env.fakeCommunities.setRole(MANAGER, c.id, 'manager');
    env.fakeCommunities.setRole(COWNER, c.id, 'owner');
    env.fakeCommunities.setRole(READER, c.id, 'reader');
    // A curator elsewhere is nobody here.
    env.fakeCommunities.setRole(OTHER, elsewhere.id, 'curator');
  });
  afterAll(async () => {
    await env?.close();
  });

  async function draft(access?: Record<string, unknown>): Promise<{ id: string; parent: { id: string } }> {
    const body = { metadata: fullMetadata(), ...(access ? { access } : {}) };
    const d = (await env.request.post('/api/records').set(as(OWNER)).send(body).expect(201)).body;
    env.files.addFile(d.id, 'data.csv');
    return d;
  }

  /** A record of OWNER published and then in community `c` (parent.communities written as an inclusion does). */
  async function inCommunity(access?: Record<string, unknown>): Promise<{ id: string; parentId: string }> {
    const d = await draft(access);
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    await repo.updateParent(env.db, d.parent.id, { communities: { ids: [c.id], default: c.id } } as never);
    return { id: d.id, parentId: d.parent.id };
  }

  /** A first draft of OWNER submitted for review to community `c` (the snapshot the review writes). */
  async function inReview(): Promise<{ id: string; parentId: string }> {
    const d = await draft();
    const review = {
      id: '00000000-0000-4000-8000-000000000001',
      type: 'community-submission',
      receiver: { community: c.id },
      status: 'submitted',
    };
    await repo.updateParent(env.db, d.parent.id, { review } as never);
    return { id: d.id, parentId: d.parent.id };
  }

  it.each([
    ['curator', CURATOR],
    ['manager', MANAGER],
    ['owner', COWNER],
  ])("should let a %s of the record's community edit, update, reserve and discard a DOI, and publish it", async (_role, user) => {
    const r = await inCommunity();
    const edit = await env.request.post(`/api/records/${r.id}/draft`).set(as(user));
    expect(edit.status).toBe(201);
    const put = await env.request
      .put(`/api/records/${r.id}/draft`)
      .set(as(user))
      .send({ ...edit.body, metadata: { ...edit.body.metadata, title: `curated by ${user}` } });
    expect(put.status).toBe(200);
    expect(put.body.metadata.title).toBe(`curated by ${user}`);
    expect((await env.request.post(`/api/records/${r.id}/draft/pids/doi`).set(as(user))).status).toBe(201);
    expect((await env.request.delete(`/api/records/${r.id}/draft/pids/doi`).set(as(user))).status).toBe(204);
    const published = await env.request.post(`/api/records/${r.id}/draft/actions/publish`).set(as(user));
    expect(published.status).toBe(202);
    expect(published.body.metadata.title).toBe(`curated by ${user}`);
  });

  it("should let a curator of the record's community discard its edit draft and make a new version", async () => {
    const r = await inCommunity();
    await env.request.post(`/api/records/${r.id}/draft`).set(as(OWNER)).expect(201);
    expect((await env.request.delete(`/api/records/${r.id}/draft`).set(as(CURATOR))).status).toBe(204);
    const next = await env.request.post(`/api/records/${r.id}/versions`).set(as(CURATOR));
    expect(next.status).toBe(201);
    // The new version stays the record owner's.
    expect(next.body.parent.access.owned_by).toEqual({ user: OWNER });
  });

  it("should refuse the record's writes to readers of its community, curators elsewhere and strangers", async () => {
    const r = await inCommunity();
    for (const user of [READER, OTHER]) {
      expect((await env.request.post(`/api/records/${r.id}/draft`).set(as(user))).status).toBe(403);
      expect((await env.request.post(`/api/records/${r.id}/versions`).set(as(user))).status).toBe(403);
    }
    await env.request.post(`/api/records/${r.id}/draft`).set(as(OWNER)).expect(201);
    for (const user of [READER, OTHER]) {
      expect((await env.request.put(`/api/records/${r.id}/draft`).set(as(user)).send({ metadata: fullMetadata() })).status).toBe(403);
      expect((await env.request.post(`/api/records/${r.id}/draft/actions/publish`).set(as(user))).status).toBe(403);
      expect((await env.request.post(`/api/records/${r.id}/draft/pids/doi`).set(as(user))).status).toBe(403);
      expect((await env.request.delete(`/api/records/${r.id}/draft`).set(as(user))).status).toBe(403);
    }
  });

  it('should decide afresh on every write: a curator removed from the community is refused at once', async () => {
    const r = await inCommunity();
    const user = '977';
    env.fakeCommunities.setRole(user, c.id, 'curator');
    expect((await env.request.post(`/api/records/${r.id}/draft`).set(as(user))).status).toBe(201);
    env.fakeCommunities.roles.delete(user);
    expect((await env.request.put(`/api/records/${r.id}/draft`).set(as(user)).send({ metadata: fullMetadata() })).status).toBe(403);
    expect((await env.request.post(`/api/records/${r.id}/draft/actions/publish`).set(as(user))).status).toBe(403);
  });

  it("should let curators of the draft's review community update it and reserve its DOI; not its community's readers", async () => {
    const d = await inReview();
    const put = await env.request
      .put(`/api/records/${d.id}/draft`)
      .set(as(CURATOR))
      .send({ metadata: { ...fullMetadata(), title: 'reviewed' } });
    expect(put.status).toBe(200);
    expect(put.body.metadata.title).toBe('reviewed');
    expect((await env.request.post(`/api/records/${d.id}/draft/pids/doi`).set(as(MANAGER))).status).toBe(201);
    for (const user of [READER, OTHER]) {
      expect((await env.request.put(`/api/records/${d.id}/draft`).set(as(user)).send({ metadata: fullMetadata() })).status).toBe(403);
    }
  });

  it("should let curators of the record's community import the previous version's files into a new version", async () => {
    const r = await inCommunity();
    const next = (await env.request.post(`/api/records/${r.id}/versions`).set(as(OWNER)).expect(201)).body;
    // Past both permission checks (update the draft, read the latest version's files).
    const imported = await env.request.post(`/api/records/${next.id}/draft/actions/files-import`).set(as(CURATOR));
    expect(imported.status).not.toBe(403);
    expect((await env.request.post(`/api/records/${next.id}/draft/actions/files-import`).set(as(READER))).status).toBe(403);
  });

  it("should answer …/versions/latest of a restricted record to its community's members as the record itself", async () => {
    const r = await inCommunity({ record: 'restricted', files: 'restricted' });
    for (const user of [READER, CURATOR]) {
      expect((await env.request.get(`/api/records/${r.id}`).set(as(user))).status).toBe(200);
      const latest = await env.request.get(`/api/records/${r.id}/versions/latest`).set(as(user));
      expect(latest.status).toBe(200);
      expect(latest.body.id).toBe(r.id);
    }
    expect((await env.request.get(`/api/records/${r.id}/versions/latest`).set(as(OTHER))).status).toBe(403);
    expect((await env.request.get(`/api/records/${r.id}/versions/latest`)).status).toBe(403);
  });

  it("should let the draft's owner read and delete its review after leaving the restricted community it names", async () => {
    const hidden = env.fakeCommunities.add(community('curation-hidden', { visibility: 'restricted' }));
    const user = '978';
    env.fakeCommunities.setRole(user, hidden.id, 'reader');
    const d = (await env.request.post('/api/records').set(as(user)).send({ metadata: fullMetadata() }).expect(201)).body;
    const put = await env.request
      .put(`/api/records/${d.id}/draft/review`)
      .set(as(user))
      .send({ type: 'community-submission', receiver: { community: hidden.id } });
    expect(put.status).toBe(200);
    env.fakeCommunities.roles.delete(user);
    const read = await env.request.get(`/api/records/${d.id}/draft/review`).set(as(user));
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(put.body.id);
    expect((await env.request.delete(`/api/records/${d.id}/draft/review`).set(as(user))).status).toBe(204);
    expect((await env.request.get(`/api/records/${d.id}/draft`).set(as(user))).body.parent.review).toBeUndefined();
  });
});
