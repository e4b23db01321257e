/**
 * The spec's walkthrough, steps 1, 2, 5 and 6, through the gateway: create a draft with full
 * metadata, register/upload/commit two files, publish, read anonymously, edit through a draft
 * and publish again, then a new version with files-import, publish, and the versions list.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { createDraft, publish, uploadFiles } from './support.js';

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;
const ID = /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{3}[0-9]{2}$/;

describe('records walkthrough (spec steps 1, 2, 5, 6)', () => {
  let owner: TestUser;
  let api_: string;
  let id: string;
  let parentId: string;
  let v2: string;

  beforeAll(async () => {
    owner = await createUser({ email: uniqueEmail('rec-walk') });
    api_ = `${baseUrl()}/api`;
  });

  it('step 1: POST /api/records creates a draft with full metadata (201, Location)', async () => {
    const res = await createDraft(owner.token);
    expect(res.status).toBe(201);
    const d = res.body;
    id = d.id;
    parentId = d.parent.id;
    expect(id).toMatch(ID);
    expect(parentId).toMatch(ID);
    expect(res.headers.get('location')).toBe(`${api_}/records/${id}/draft`);
    expect(res.headers.get('etag')).toBe(`"${d.revision_id}"`);
    expect(d.created).toMatch(TS);
    expect(d.updated).toMatch(TS);
    expect(d).toMatchObject({
      is_draft: true,
      is_published: false,
      status: 'draft',
      versions: { is_latest: false, is_latest_draft: true, index: 1 },
      pids: {},
      custom_fields: {},
      access: { record: 'public', files: 'public', embargo: { active: false, reason: null }, status: 'open' },
      files: { enabled: true, order: [], count: 0, total_bytes: 0, entries: {} },
      media_files: { enabled: false },
      parent: {
        id: parentId,
        access: {
          owned_by: { user: owner.id },
          settings: { allow_user_requests: false, allow_guest_requests: false, accept_conditions_text: null, secret_link_expiration: 0 },
        },
        communities: {},
        pids: {},
      },
    });
    expect(d.errors).toBeUndefined();
    expect(d.metadata.resource_type).toEqual({ id: 'image-photo', title: expect.objectContaining({ en: 'Photo' }) });
    expect(d.metadata.resource_types).toEqual([d.metadata.resource_type]);
    expect(d.metadata.creators[0].person_or_org.name).toBe('Brown, Troy');
    expect(d.metadata.creators[0].affiliations[0]).toEqual({ id: '01ggx4157', name: 'European Organization for Nuclear Research' });
    expect(d.metadata.creators[0].role).toEqual({ id: 'researcher', title: expect.objectContaining({ en: 'Researcher' }) });
    expect(d.metadata.languages.map((l: any) => l.id)).toEqual(['dan', 'eng']);
    expect(d.metadata.rights[0].id).toBe('cc-by-4.0');
    expect(d.metadata.rights[0].title.en).toBeTruthy();
    expect(d.metadata.funding[0].funder).toEqual({ id: '00k4n6c32', name: 'European Commission' });
    expect(d.metadata.identifiers).toEqual(d.metadata.alternate_identifiers);
    expect(d.links).toMatchObject({
      self: `${api_}/records/${id}/draft`,
      self_html: `${baseUrl()}/uploads/${id}`,
      files: `${api_}/records/${id}/draft/files`,
      publish: `${api_}/records/${id}/draft/actions/publish`,
      reserve_doi: `${api_}/records/${id}/draft/pids/doi`,
      versions: `${api_}/records/${id}/versions`,
    });
    const read = await api(`/api/records/${id}/draft`, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body.metadata).toEqual(d.metadata);
  });

  it('step 2: registers, uploads and commits two files on the draft', async () => {
    await uploadFiles(owner.token, id, { 'article.txt': 'Hello world', 'figure.png': 'not-really-a-png' });
    const list = await api(`/api/records/${id}/draft/files`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.entries.map((e: any) => [e.key, e.status]).sort()).toEqual([
      ['article.txt', 'completed'],
      ['figure.png', 'completed'],
    ]);
    const draft = await api(`/api/records/${id}/draft`, { token: owner.token });
    expect(draft.body.files.count).toBe(2);
    expect(draft.body.files.total_bytes).toBe(11 + 16);
    expect(draft.body.files.entries['article.txt']).toMatchObject({
      key: 'article.txt',
      size: 11,
      checksum: 'md5:3e25960a79dbc69b674cd4ec67a72c62',
    });
  });

  it('step 5: the publish action answers 202 with the published record', async () => {
    const res = await publish(owner.token, id);
    expect(res.status).toBe(202);
    const r = res.body;
    expect(r).toMatchObject({
      id,
      is_published: true,
      is_draft: false,
      status: 'published',
      versions: { is_latest: true, index: 1 },
      deletion_status: { is_deleted: false, status: 'P' },
      files: { enabled: true, count: 2 },
    });
    expect(r.pids.oai.provider).toBe('oai');
    expect(r.pids.oai.identifier).toMatch(new RegExp(`^oai:.+:${id}$`));
    expect(r.stats).toEqual({
      this_version: { views: 0, unique_views: 0, downloads: 0, unique_downloads: 0, data_volume: 0 },
      all_versions: { views: 0, unique_views: 0, downloads: 0, unique_downloads: 0, data_volume: 0 },
    });
    for (const key of [
      'self',
      'self_html',
      'preview_html',
      'reserve_doi',
      'parent',
      'parent_html',
      'self_iiif_manifest',
      'self_iiif_sequence',
      'files',
      'media_files',
      'thumbnails',
      'archive',
      'archive_media',
      'latest',
      'latest_html',
      'versions',
      'draft',
      'access_links',
      'access_grants',
      'access_users',
      'access_request',
      'access',
      'communities',
      'communities-suggestions',
      'requests',
    ]) {
      expect(r.links, key).toHaveProperty([key]);
    }
    expect(r.links.self).toBe(`${api_}/records/${id}`);
    expect(r.links.files).toBe(`${api_}/records/${id}/files`);
    expect(r.links.parent).toBe(`${api_}/records/${parentId}`);
    const gone = await api(`/api/records/${id}/draft`, { token: owner.token });
    expect(gone.status).toBe(404);
  });

  it('step 5: anyone reads the published record and its files', async () => {
    const res = await api(`/api/records/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.metadata.title).toBe('A Romans story');
    expect(res.body.versions).toEqual({ is_latest: true, index: 1 });
    expect(res.body.files.entries['figure.png'].links.content).toBe(`${api_}/records/${id}/files/figure.png/content`);
    const files = await api(`/api/records/${id}/files`);
    expect(files.status).toBe(200);
    expect(files.body.entries.length).toBe(2);
    const content = await api(`/api/records/${id}/files/article.txt/content`);
    expect(content.status).toBe(200);
    expect(content.text).toBe('Hello world');
    const parent = await api(`/api/records/${parentId}`);
    expect(parent.status).toBe(302);
    expect(parent.headers.get('location')).toBe(`${api_}/records/${id}`);
  });

  it('step 6: edits the published record through a new draft and publishes again', async () => {
    const edit = await api(`/api/records/${id}/draft`, { method: 'POST', token: owner.token });
    expect(edit.status).toBe(201);
    expect(edit.body).toMatchObject({ id, is_published: true, is_draft: true, status: 'published' });
    const put = await api(`/api/records/${id}/draft`, {
      method: 'PUT',
      token: owner.token,
      body: { access: edit.body.access, files: edit.body.files, metadata: { ...edit.body.metadata, title: 'A Romans story, revised' } },
    });
    expect(put.status).toBe(200);
    expect(put.body.errors).toBeUndefined();
    expect(put.body.metadata.title).toBe('A Romans story, revised');
    expect((await api(`/api/records/${id}`)).body.metadata.title).toBe('A Romans story');
    const before = (await api(`/api/records/${id}`)).body.revision_id;
    const pub = await publish(owner.token, id);
    expect(pub.status).toBe(202);
    expect(pub.body.id).toBe(id);
    expect(pub.body.revision_id).toBeGreaterThan(before);
    expect((await api(`/api/records/${id}`)).body.metadata.title).toBe('A Romans story, revised');
  });

  it('step 6: creates a new version, imports the files and publishes it', async () => {
    const nv = await api(`/api/records/${id}/versions`, { method: 'POST', token: owner.token });
    expect(nv.status).toBe(201);
    v2 = nv.body.id;
    expect(v2).not.toBe(id);
    expect(nv.body).toMatchObject({
      status: 'new_version_draft',
      pids: {},
      versions: { index: 2, is_latest: false, is_latest_draft: true },
      parent: { id: parentId },
    });
    expect(nv.body.metadata.version).toBeUndefined();
    expect(nv.body.metadata.title).toBe('A Romans story, revised');
    const imp = await api(`/api/records/${v2}/draft/actions/files-import`, { method: 'POST', token: owner.token });
    expect(imp.status).toBe(201);
    expect(imp.body.enabled).toBe(true);
    expect(imp.body.entries.map((e: any) => e.key).sort()).toEqual(['article.txt', 'figure.png']);
    const pub = await publish(owner.token, v2);
    expect(pub.status).toBe(202);
    expect(pub.body.versions).toMatchObject({ is_latest: true, index: 2 });
    const content = await api(`/api/records/${v2}/files/article.txt/content`);
    expect(content.text).toBe('Hello world');
    expect((await api(`/api/records/${id}`)).body.versions).toEqual({ is_latest: false, index: 1 });
  });

  it('step 6: lists the versions newest first and serves the latest', async () => {
    const list = await api(`/api/records/${id}/versions`);
    expect(list.status).toBe(200);
    expect(list.body.hits.total).toBe(2);
    expect(list.body.hits.hits.map((h: any) => h.id)).toEqual([v2, id]);
    expect(list.body.links.self).toBe(`${api_}/records/${id}/versions?page=1&size=25&sort=version`);
    const latest = await api(`/api/records/${id}/versions/latest`);
    expect(latest.status).toBe(200);
    expect(latest.body.id).toBe(v2);
    expect(latest.headers.get('content-location')).toBe(`${api_}/records/${v2}`);
    const parent = await api(`/api/records/${parentId}`);
    expect(parent.headers.get('location')).toBe(`${api_}/records/${v2}`);
  });
});
