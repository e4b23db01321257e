import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, BASE, type Env, fullMetadata, startEnv } from './support.js';

const API = `${BASE}/api`;
const OWNER = '101';
const OTHER = '202';

describe('records workflow (create → files → publish → edit → new version)', () => {
  let env: Env;
  let id: string;
  let parentId: string;
  let v2: string;

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should create a draft with full metadata (201, Location, ETag, dereferenced vocabularies)', async () => {
    const res = await env.request
      .post('/api/records')
      .set(as(OWNER))
      .send({ access: { record: 'public', files: 'public' }, files: { enabled: true }, metadata: fullMetadata() });
    expect(res.status).toBe(201);
    const d = res.body;
    id = d.id;
    parentId = d.parent.id;
    expect(id).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{3}[0-9]{2}$/);
    expect(parentId).not.toBe(id);
    expect(res.headers.location).toBe(`${API}/records/${id}/draft`);
    expect(res.headers.etag).toBe(`"${d.revision_id}"`);
    expect(d.is_draft).toBe(true);
    expect(d.is_published).toBe(false);
    expect(d.status).toBe('draft');
    expect(d.expires_at).toBeNull();
    expect(d.versions).toEqual({ is_latest: false, is_latest_draft: true, index: 1 });
    expect(d.parent).toEqual({
      id: parentId,
      access: {
        owned_by: { user: OWNER },
        settings: { allow_user_requests: false, allow_guest_requests: false, accept_conditions_text: null, secret_link_expiration: 0 },
        grants: [],
        links: [],
      },
      communities: {},
      pids: {},
    });
    expect(d.pids).toEqual({});
    expect(d.custom_fields).toEqual({});
    expect(d.access).toEqual({ record: 'public', files: 'public', embargo: { active: false, reason: null }, status: 'open' });
    expect(d.files).toEqual({ enabled: true, order: [], count: 0, total_bytes: 0, entries: {} });
    expect(d.media_files).toEqual({ enabled: false, order: [], count: 0, total_bytes: 0, entries: {} });
    const md = d.metadata;
    expect(md.resource_types).toEqual([{ id: 'image-photo', title: { en: 'Photo' } }]);
    expect(md.resource_type).toEqual({ id: 'image-photo', title: { en: 'Photo' } });
    expect(md.creators[0].person_or_org.name).toBe('Brown, Troy');
    expect(md.creators[0].role).toEqual({ id: 'researcher', title: { en: 'Researcher' } });
    expect(md.creators[0].affiliations).toEqual([{ id: '01ggx4157', name: 'CERN' }, { name: 'Free text U' }]);
    expect(md.creators[1].person_or_org).toEqual({ type: 'organizational', name: 'Mars Institute' });
    expect(md.rights[0]).toEqual({
      id: 'cc-by-4.0',
      title: { en: 'Creative Commons Attribution 4.0 International' },
      props: { url: 'https://creativecommons.org/licenses/by/4.0/legalcode', scheme: 'spdx' },
    });
    expect(md.subjects[0]).toEqual({ id: 'http://id.nlm.nih.gov/mesh/A-D000007', subject: 'Abdominal Injuries', scheme: 'MeSH' });
    expect(md.funding[0]).toEqual({
      funder: { id: '00k4n6c32', name: 'European Commission' },
      award: { id: '755021', number: '755021', title: { en: 'Personalised Treatment For Cystic Fibrosis Patients' } },
    });
    expect(md.alternate_identifiers).toEqual(md.identifiers);
    expect(md.identifiers[0]).toEqual({ identifier: '10.9999/rdm.9999999', scheme: 'doi' });
    expect(d.errors).toBeUndefined();
    expect(Object.keys(d.links).sort()).toEqual(
      [
        'self',
        'self_html',
        'preview_html',
        'reserve_doi',
        'self_iiif_manifest',
        'self_iiif_sequence',
        'files',
        'media_files',
        'archive',
        'archive_media',
        'versions',
        'record',
        'record_html',
        'publish',
        'review',
        'access_links',
        'access_grants',
        'access_users',
        'access_request',
        'access',
        'communities',
        'communities-suggestions',
        'quota_increase',
        'requests',
      ].sort(),
    );
    expect(d.links.files).toBe(`${API}/records/${id}/draft/files`);
    expect(d.links.self_html).toBe(`${BASE}/uploads/${id}`);
    // One batched resolve for the whole write.
    expect(env.vocabCalls.length).toBe(1);
  });

  it('should write the draft.created event to the outbox in the same transaction', async () => {
    const rows = await env.db('outbox').where({ aggregate_id: id });
    expect(rows.map((r) => r.subject)).toEqual(['rdm.records.draft.created']);
    expect(rows[0].payload.data).toEqual({ id, parent_id: parentId, owner: OWNER });
  });

  it('should hide the draft from anyone but its owner and never serve it as a record', async () => {
    expect((await env.request.get(`/api/records/${id}/draft`)).status).toBe(403);
    expect((await env.request.get(`/api/records/${id}/draft`).set(as(OTHER))).status).toBe(403);
    expect((await env.request.get(`/api/records/${id}/draft`).set(as('999', ['admin']))).status).toBe(200);
    const rec = await env.request.get(`/api/records/${id}`).set(as(OWNER));
    expect(rec.status).toBe(404);
    expect(rec.body).toEqual({ status: 404, message: 'The persistent identifier is not registered.' });
  });

  it('should report missing files on PUT and refuse publish without files', async () => {
    const get = await env.request.get(`/api/records/${id}/draft`).set(as(OWNER));
    const body = { access: get.body.access, files: { enabled: true }, metadata: get.body.metadata };
    const put = await env.request.put(`/api/records/${id}/draft`).set(as(OWNER)).send(body);
    expect(put.status).toBe(200);
    expect(put.body.errors).toEqual([
      { field: 'files.enabled', messages: ['Missing uploaded files. To disable files for this record please mark it as metadata-only.'] },
    ]);
    const pub = await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(OWNER));
    expect(pub.status).toBe(400);
    expect(pub.body).toEqual({
      status: 400,
      message: 'A validation error occurred.',
      errors: [
        { field: 'files.enabled', messages: ['Missing uploaded files. To disable files for this record please mark it as metadata-only.'] },
      ],
    });
  });

  it('should refuse publish while a file is pending', async () => {
    env.files.addFile(id, 'article.pdf', { pending: true });
    const pub = await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(OWNER));
    expect(pub.status).toBe(400);
    expect(pub.body.errors).toEqual([{ field: 'files', messages: ['One or more files have not completed their transfer, please wait.'] }]);
    env.files.bucket(id).entries = [];
  });

  it('should show the live manifest in the draft and honour If-Match', async () => {
    env.files.addFile(id, 'article.pdf', { size: 100 });
    env.files.addFile(id, 'figure.png', { size: 50 });
    const get = await env.request.get(`/api/records/${id}/draft`).set(as(OWNER));
    expect(get.body.files.count).toBe(2);
    expect(get.body.files.total_bytes).toBe(150);
    expect(Object.keys(get.body.files.entries).sort()).toEqual(['article.pdf', 'figure.png']);
    expect(get.body.files.entries['article.pdf']).toMatchObject({
      key: 'article.pdf',
      size: 100,
      checksum: 'md5:d41d8cd98f00b204e9800998ecf8427e',
      ext: 'pdf',
      mimetype: 'application/pdf',
      access: { hidden: false },
    });
    const rev = get.body.revision_id;
    const stale = await env.request
      .put(`/api/records/${id}/draft`)
      .set(as(OWNER))
      .set('If-Match', String(rev + 5))
      .send({ metadata: get.body.metadata });
    expect(stale.status).toBe(412);
    expect(stale.body.message).toBe(`Revision id provided(${rev + 5}) doesn't match record's one(${rev})`);
    const ok = await env.request
      .put(`/api/records/${id}/draft`)
      .set(as(OWNER))
      .set('If-Match', `"${rev}"`)
      .send({
        access: get.body.access,
        files: { enabled: true, default_preview: 'figure.png', order: ['figure.png', 'article.pdf'] },
        metadata: get.body.metadata,
      });
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.revision_id).toBe(rev + 1);
    expect(ok.body.files.default_preview).toBe('figure.png');
    expect(ok.body.files.order).toEqual(['figure.png', 'article.pdf']);
  });

  it('should reserve a DOI (201) and register it on publish (202) with oai and concept DOI', async () => {
    const res = await env.request.post(`/api/records/${id}/draft/pids/doi`).set(as(OWNER));
    expect(res.status).toBe(201);
    expect(res.body.pids.doi).toEqual({ identifier: `10.1234/${id}`, provider: 'datacite', client: 'datacite' });
    expect(res.body.links.doi).toBe(`https://doi.org/10.1234/${id}`);
    const again = await env.request.post(`/api/records/${id}/draft/pids/doi`).set(as(OWNER));
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual([{ field: 'pids.doi', messages: ['A PID already exists for type doi'] }]);

    const pub = await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(OWNER));
    expect(pub.status).toBe(202);
    const r = pub.body;
    expect(r.id).toBe(id);
    expect(r.is_published).toBe(true);
    expect(r.is_draft).toBe(false);
    expect(r.status).toBe('published');
    expect(r.versions).toEqual({ is_latest: true, is_latest_draft: true, index: 1 });
    expect(r.pids).toEqual({
      doi: { identifier: `10.1234/${id}`, provider: 'datacite', client: 'datacite' },
      oai: { identifier: `oai:rdm.example.org:${id}`, provider: 'oai' },
    });
    expect(r.parent.pids).toEqual({ doi: { identifier: `10.1234/${parentId}`, provider: 'datacite', client: 'datacite' } });
    expect(r.deletion_status).toEqual({ is_deleted: false, status: 'P' });
    expect(r.stats.this_version).toEqual({ views: 0, unique_views: 0, downloads: 0, unique_downloads: 0, data_volume: 0 });
    expect(r.files.count).toBe(2);
    expect(r.links.self).toBe(`${API}/records/${id}`);
    expect(r.links.self_doi).toBe(`https://doi.org/10.1234/${id}`);
    expect(r.links.self_doi_html).toBe(`${BASE}/doi/10.1234/${id}`);
    expect(r.links.parent_doi).toBe(`https://doi.org/10.1234/${parentId}`);
    expect(r.links.parent).toBe(`${API}/records/${parentId}`);
    expect(r.links.latest).toBe(`${API}/records/${id}/versions/latest`);
    expect(r.links.thumbnails['250']).toBe(`${API}/iiif/record:${id}:figure.png/full/%5E250,/0/default.jpg`);
    for (const key of [
      'self',
      'self_html',
      'preview_html',
      'doi',
      'self_doi',
      'self_doi_html',
      'reserve_doi',
      'parent',
      'parent_html',
      'parent_doi',
      'parent_doi_html',
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
    expect(env.files.bucket(id).locked).toBe(true);
    const events = await env.db('outbox').where({ aggregate_id: id, subject: 'rdm.records.record.published' });
    expect(events[0].payload.data).toEqual({
      id,
      parent_id: parentId,
      index: 1,
      is_latest: true,
      access_status: 'open',
      bucket_id: id,
      files_count: r.files.count,
      files_bytes: r.files.total_bytes,
    });
    expect((await env.request.get(`/api/records/${id}/draft`).set(as(OWNER))).status).toBe(404);
  });

  it('should serve the published record anonymously without calling the files service', async () => {
    const before = env.files.calls.length;
    const res = await env.request.get(`/api/records/${id}`);
    expect(res.status).toBe(200);
    expect(env.files.calls.length).toBe(before);
    expect(res.headers.etag).toBe(`"${res.body.revision_id}"`);
    // FAIR signposting level 1 (export/signposting.ts; its own tests check every relation).
    expect(res.headers.link).toContain(`<${API}/records/${id}> ; rel="linkset" ; type="application/linkset+json"`);
    expect(res.headers.link).toContain(`<https://doi.org/10.1234/${id}> ; rel="cite-as"`);
    expect(res.body.versions).toEqual({ is_latest: true, index: 1 });
    expect(res.body.parent.access.grants).toBeUndefined();
    expect(res.body.files.entries['article.pdf'].links).toEqual({
      self: `${API}/records/${id}/files/article.pdf`,
      content: `${API}/records/${id}/files/article.pdf/content`,
    });
    const parent = await env.request.get(`/api/records/${parentId}`);
    expect(parent.status).toBe(302);
    expect(parent.headers.location).toBe(`${API}/records/${id}`);
  });

  it('should refuse to discard a registered DOI', async () => {
    await env.request.post(`/api/records/${id}/draft`).set(as(OWNER)).expect(201);
    const res = await env.request.delete(`/api/records/${id}/draft/pids/doi`).set(as(OWNER));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'pids.doi', messages: ['Cannot discard a reserved or registered persistent identifier.'] }]);
  });

  it('should edit a published record through an edit draft and publish it in place', async () => {
    const edit = await env.request.post(`/api/records/${id}/draft`).set(as(OWNER));
    expect(edit.status).toBe(201);
    expect(edit.body.is_published).toBe(true);
    expect(edit.body.is_draft).toBe(true);
    expect(edit.body.status).toBe('published');
    expect(edit.body.files.count).toBe(2);
    const other = await env.request.post(`/api/records/${id}/draft`).set(as(OTHER));
    expect(other.status).toBe(403);
    const before = await env.request.get(`/api/records/${id}`);
    const md = { ...edit.body.metadata, title: 'An edited title' };
    const put = await env.request
      .put(`/api/records/${id}/draft`)
      .set(as(OWNER))
      .send({ access: edit.body.access, metadata: md, files: edit.body.files, pids: edit.body.pids });
    expect(put.status).toBe(200);
    expect(put.body.errors).toBeUndefined();
    const stillOld = await env.request.get(`/api/records/${id}`);
    expect(stillOld.body.metadata.title).toBe('A Romans story');
    const pub = await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(OWNER));
    expect(pub.status).toBe(202);
    expect(pub.body.id).toBe(id);
    expect(pub.body.metadata.title).toBe('An edited title');
    expect(pub.body.revision_id).toBe(before.body.revision_id + 1);
    expect(pub.body.versions.index).toBe(1);
    expect(pub.body.files.count).toBe(2);
    expect(pub.body.created).toBe(before.body.created);
  });

  it('should create a new version (201), import files (201) and publish it (202)', async () => {
    const nv = await env.request.post(`/api/records/${id}/versions`).set(as(OWNER));
    expect(nv.status).toBe(201);
    v2 = nv.body.id;
    expect(v2).not.toBe(id);
    expect(nv.body.parent.id).toBe(parentId);
    expect(nv.body.status).toBe('new_version_draft');
    expect(nv.body.versions).toEqual({ is_latest: false, is_latest_draft: true, index: 2 });
    expect(nv.body.pids).toEqual({});
    expect(nv.body.metadata.version).toBeUndefined();
    expect(nv.body.metadata.publication_date).toBe(new Date().toISOString().slice(0, 10));
    expect(nv.body.metadata.title).toBe('An edited title');
    expect(nv.body.files).toMatchObject({ enabled: true, count: 0, entries: {} });
    const again = await env.request.post(`/api/records/${id}/versions`).set(as(OWNER));
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(v2);

    const imp = await env.request.post(`/api/records/${v2}/draft/actions/files-import`).set(as(OWNER));
    expect(imp.status).toBe(201);
    expect(imp.body.enabled).toBe(true);
    expect(imp.body.links).toEqual({ self: `${API}/records/${v2}/draft/files`, archive: `${API}/records/${v2}/draft/files-archive` });
    expect(imp.body.entries.map((e: any) => e.key).sort()).toEqual(['article.pdf', 'figure.png']);
    expect(imp.body.entries[0]).toMatchObject({ status: 'completed', transfer: { type: 'L' }, storage_class: 'L' });
    expect(imp.body.default_preview).toBe('figure.png');
    expect(env.files.calls.find((c) => c.subject === 'import')?.payload).toEqual({ from_bucket_id: id, to_bucket_id: v2 });
    const twice = await env.request.post(`/api/records/${v2}/draft/actions/files-import`).set(as(OWNER));
    expect(twice.status).toBe(400);
    expect(twice.body.errors).toEqual([{ field: 'files.enabled', messages: ['Please remove all files first.'] }]);

    const pub = await env.request.post(`/api/records/${v2}/draft/actions/publish`).set(as(OWNER));
    expect(pub.status).toBe(202);
    expect(pub.body.versions).toEqual({ is_latest: true, is_latest_draft: true, index: 2 });
    expect(pub.body.pids.oai.identifier).toBe(`oai:rdm.example.org:${v2}`);
    expect(pub.body.pids.doi).toBeUndefined();
    expect(pub.body.parent.pids.doi.identifier).toBe(`10.1234/${parentId}`);
    const old = await env.request.get(`/api/records/${id}`).set(as(OWNER));
    expect(old.body.versions).toEqual({ is_latest: false, is_latest_draft: false, index: 1 });
    const parent = await env.request.get(`/api/records/${parentId}`);
    expect(parent.headers.location).toBe(`${API}/records/${v2}`);
  });

  it('should list versions newest first with links and paging', async () => {
    const res = await env.request.get(`/api/records/${id}/versions`);
    expect(res.status).toBe(200);
    expect(res.body.hits.total).toBe(2);
    expect(res.body.hits.hits.map((h: any) => h.id)).toEqual([v2, id]);
    expect(res.body.sortBy).toBe('version');
    expect(res.body.links.self).toBe(`${API}/records/${id}/versions?page=1&size=25&sort=version`);
    expect(res.body).not.toHaveProperty('aggregations'); // InvenioRDM: no facets on the versions list
    const page = await env.request.get(`/api/records/${v2}/versions?size=1&page=2`);
    expect(page.body.hits.hits.map((h: any) => h.id)).toEqual([id]);
    expect(page.body.links.prev).toBe(`${API}/records/${v2}/versions?page=1&size=1&sort=version`);
    expect(page.body.links.next).toBeUndefined();
  });

  it('should accept every record sort option on the versions list, as InvenioRDM does (inveniordm-py sends sort=newest)', async () => {
    const newest = await env.request.get(`/api/records/${id}/versions?q=&page=1&size=10&sort=newest&allversions=1`);
    expect(newest.status).toBe(200);
    expect(newest.body.sortBy).toBe('newest');
    expect(newest.body.hits.hits.map((h: any) => h.id)).toEqual([v2, id]);
    expect(newest.body.links.self).toBe(`${API}/records/${id}/versions?page=1&size=10&sort=newest`);
    const oldest = await env.request.get(`/api/records/${id}/versions?sort=oldest`);
    expect(oldest.body.hits.hits.map((h: any) => h.id)).toEqual([id, v2]);
    const bestmatch = await env.request.get(`/api/records/${id}/versions?sort=bestmatch`);
    expect(bestmatch.body.sortBy).toBe('version');
    for (const sort of ['updated-desc', 'updated-asc', 'mostviewed', 'mostdownloaded']) {
      const res = await env.request.get(`/api/records/${id}/versions?sort=${sort}`);
      expect(res.status, sort).toBe(200);
      expect(res.body.hits.total, sort).toBe(2);
    }
    const big = await env.request.get(`/api/records/${id}/versions?size=10000`);
    expect(big.status).toBe(200);
    expect(big.body.hits.hits).toHaveLength(2);
  });

  it('should answer versions/latest with the latest record (200, Content-Location), also for the parent id', async () => {
    for (const ref of [id, v2, parentId]) {
      const res = await env.request.get(`/api/records/${ref}/versions/latest`);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(v2);
      expect(res.headers['content-location']).toBe(`${API}/records/${v2}`);
    }
  });

  it('should keep search_docs in step with every write', async () => {
    const docs = await env.db('search_docs').where({ parent_id: parentId }).orderBy('version_index');
    expect(docs.map((d) => [d.id, d.kind, d.is_latest, d.has_draft])).toEqual([
      [id, 'record', false, false],
      [v2, 'record', true, false],
    ]);
    const rec = docs.find((d) => d.id === v2 && d.kind === 'record');
    expect(rec).toMatchObject({
      owner_id: OWNER,
      is_published: true,
      access_status: 'open',
      resource_type_id: 'image-photo',
      resource_type_type: 'image',
      resource_type_subtype: 'image-photo',
      file_types: ['pdf', 'png'],
      version_index: 2,
    });
    expect(rec.doc.links).toBeUndefined();
    expect(rec.doc.versions.is_latest).toBe(true);
    const hit = await env.db('search_docs').whereRaw("search_vector @@ to_tsquery('simple', 'romans')").andWhere({ id: v2 });
    expect(hit.length).toBe(0); // title was edited
    const found = await env
      .db('search_docs')
      .whereRaw("search_vector @@ plainto_tsquery('simple', 'edited brown')")
      .andWhere({ id: v2, kind: 'record' });
    expect(found.length).toBe(1);
  });
});
