import { ANONYMOUS } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { defaultAccess } from './access.js';
import type { ParentRow, RecordRow } from './model.js';
import { buildDoc, formatTimestamp, serializeItem } from './serializers.js';
import { fileEntryLinks } from './links.js';

const BASE = 'https://rdm.example.org';
const owner = { sub: '7', roles: [] };
const stranger = { sub: '8', roles: [] };

function parent(over: Partial<ParentRow> = {}): ParentRow {
  return {
    id: 'ppppp-ppp11',
    owner_id: '7',
    created: new Date('2024-01-01T00:00:00Z'),
    updated: new Date('2024-01-01T00:00:00Z'),
    revision_id: 1,
    access: {
      owned_by: { user: '7' },
      settings: { allow_user_requests: false, allow_guest_requests: false, accept_conditions_text: null, secret_link_expiration: 0 },
      grants: [],
      links: [],
    },
    communities: {},
    pids: {},
    latest_id: 'rrrrr-rrr22',
    latest_index: 1,
    next_draft_id: null,
    ...over,
  };
}

function record(over: Partial<RecordRow> = {}): RecordRow {
  return {
    id: 'rrrrr-rrr22',
    parent_id: 'ppppp-ppp11',
    index: 1,
    created: new Date('2024-02-03T04:05:06.789Z'),
    updated: new Date('2024-02-03T04:05:06.789Z'),
    revision_id: 3,
    draft_revision_id: 2,
    metadata: {
      title: 'T',
      resource_types: [{ id: 'image-photo', title: { en: 'Photo' } }],
      alternate_identifiers: [{ identifier: 'https://x.org', scheme: 'url' }],
    },
    custom_fields: {},
    access: defaultAccess(),
    files: {
      enabled: true,
      order: [],
      default_preview: null,
      count: 1,
      total_bytes: 5,
      entries: {
        'a.png': {
          id: 'f1',
          key: 'a.png',
          size: 5,
          checksum: 'md5:x',
          ext: 'png',
          mimetype: 'image/png',
          storage_class: 'L',
          metadata: {},
          access: { hidden: false },
        },
      },
    },
    media_files: { enabled: false, order: [] },
    pids: {
      doi: { identifier: '10.1234/rrrrr-rrr22', provider: 'datacite', client: 'datacite' },
      oai: { identifier: 'oai:x:rrrrr-rrr22', provider: 'oai' },
    },
    bucket_id: 'rrrrr-rrr22',
    deletion_status: 'P',
    resource_type_type: 'image',
    resource_type_subtype: 'image-photo',
    ...over,
  };
}

const recordDoc = (r = record(), p = parent()) =>
  buildDoc({
    kind: 'record',
    row: r,
    parent: p,
    isPublished: true,
    files: { count: r.files.count!, total_bytes: r.files.total_bytes!, entries: r.files.entries! },
  });

describe(formatTimestamp.name, () => {
  it('should render microseconds and +00:00', () => {
    expect(formatTimestamp(new Date('2023-11-14T19:33:09.837Z'))).toBe('2023-11-14T19:33:09.837000+00:00');
  });
});

describe(buildDoc.name, () => {
  it('should build the full record read form without links', () => {
    const sut = recordDoc();
    expect(Object.keys(sut)).toEqual([
      'id',
      'created',
      'updated',
      'revision_id',
      'parent',
      'versions',
      'is_published',
      'is_draft',
      'status',
      'pids',
      'metadata',
      'custom_fields',
      'access',
      'files',
      'media_files',
      'deletion_status',
      'stats',
    ]);
    expect(sut.versions).toEqual({ is_latest: true, is_latest_draft: true, index: 1 });
    expect(sut.metadata.resource_type).toEqual({ id: 'image-photo', title: { en: 'Photo' } });
    expect(sut.metadata.identifiers).toEqual(sut.metadata.alternate_identifiers);
    expect(sut.access.status).toBe('open');
    expect(sut.created).toBe('2024-02-03T04:05:06.789000+00:00');
  });

  it('should mark a new-version draft and its versions', () => {
    const p = parent({ next_draft_id: 'ddddd-ddd33' });
    const draft = { ...record({ id: 'ddddd-ddd33', index: 2 }), expires_at: null };
    const sut = buildDoc({ kind: 'draft', row: draft, parent: p, isPublished: false, files: { count: 0, total_bytes: 0, entries: {} } });
    expect(sut.status).toBe('new_version_draft');
    expect(sut.is_draft).toBe(true);
    expect(sut.is_published).toBe(false);
    expect(sut.versions).toEqual({ is_latest: false, is_latest_draft: true, index: 2 });
    expect(sut.expires_at).toBeNull();
    expect(sut.stats).toBeUndefined();
  });
});

describe(serializeItem.name, () => {
  it('should add record links, DOI links and thumbnails for image files', () => {
    const sut = serializeItem(recordDoc(record(), parent({ pids: { doi: { identifier: '10.1234/ppppp-ppp11', provider: 'datacite' } } })), {
      baseUrl: BASE,
      identity: ANONYMOUS,
      kind: 'record',
    });
    expect(sut.links.self).toBe(`${BASE}/api/records/rrrrr-rrr22`);
    expect(sut.links.doi).toBe('https://doi.org/10.1234/rrrrr-rrr22');
    expect(sut.links.self_doi_html).toBe(`${BASE}/doi/10.1234/rrrrr-rrr22`);
    expect(sut.links.parent_doi).toBe('https://doi.org/10.1234/ppppp-ppp11');
    expect(sut.links.thumbnails['10']).toBe(`${BASE}/api/iiif/record:rrrrr-rrr22:a.png/full/%5E10,/0/default.jpg`);
    expect(sut.links.draft).toBe(`${BASE}/api/records/rrrrr-rrr22/draft`);
    expect(sut.links.publish).toBeUndefined();
  });

  it('should strip is_latest_draft and parent grants/links for non-editors', () => {
    const anon = serializeItem(recordDoc(), { baseUrl: BASE, identity: ANONYMOUS, kind: 'record' });
    expect(anon.versions).toEqual({ is_latest: true, index: 1 });
    expect(anon.parent.access).toEqual({ owned_by: { user: '7' }, settings: expect.any(Object) });
    const own = serializeItem(recordDoc(), { baseUrl: BASE, identity: owner, kind: 'record' });
    expect(own.versions.is_latest_draft).toBe(true);
    expect(own.parent.access.grants).toEqual([]);
    const forced = serializeItem(recordDoc(), { baseUrl: BASE, identity: stranger, kind: 'record', canEdit: true });
    expect(forced.versions.is_latest_draft).toBe(true);
  });

  it('should hide file details of restricted files from those without read_files', () => {
    const restricted = recordDoc(record({ access: { record: 'public', files: 'restricted', embargo: { active: false, reason: null } } }));
    const anon = serializeItem(restricted, { baseUrl: BASE, identity: ANONYMOUS, kind: 'record' });
    expect(anon.files).toEqual({ enabled: true });
    expect(anon.links.thumbnails).toBeUndefined();
    const own = serializeItem(restricted, { baseUrl: BASE, identity: owner, kind: 'record' });
    expect(own.files.count).toBe(1);
  });

  it('should add per-file links only when asked', () => {
    const withLinks = serializeItem(recordDoc(), { baseUrl: BASE, identity: ANONYMOUS, kind: 'record', fileLinks: true });
    expect(withLinks.files.entries['a.png'].links.content).toBe(`${BASE}/api/records/rrrrr-rrr22/files/a.png/content`);
    const without = serializeItem(recordDoc(), { baseUrl: BASE, identity: ANONYMOUS, kind: 'record' });
    expect(without.files.entries['a.png'].links).toBeUndefined();
  });

  it('should not mutate the stored document', () => {
    const doc = recordDoc();
    const copy = structuredClone(doc);
    serializeItem(doc, { baseUrl: BASE, identity: ANONYMOUS, kind: 'record', fileLinks: true });
    expect(doc).toEqual(copy);
  });

  it('should render draft links', () => {
    const draft = { ...record({ pids: {} }), expires_at: null };
    const doc = buildDoc({
      kind: 'draft',
      row: draft,
      parent: parent({ latest_id: null, next_draft_id: draft.id }),
      isPublished: false,
      files: { count: 0, total_bytes: 0, entries: {} },
    });
    const sut = serializeItem(doc, { baseUrl: BASE, identity: owner, kind: 'draft' });
    expect(sut.links).toMatchObject({
      self: `${BASE}/api/records/rrrrr-rrr22/draft`,
      self_html: `${BASE}/uploads/rrrrr-rrr22`,
      preview_html: `${BASE}/records/rrrrr-rrr22?preview=1`,
      record: `${BASE}/api/records/rrrrr-rrr22`,
      publish: `${BASE}/api/records/rrrrr-rrr22/draft/actions/publish`,
      files: `${BASE}/api/records/rrrrr-rrr22/draft/files`,
      self_iiif_manifest: `${BASE}/api/iiif/draft:rrrrr-rrr22/manifest`,
    });
    expect(sut.links.latest).toBeUndefined();
    expect(sut.links.doi).toBeUndefined();
    expect(sut.status).toBe('draft');
  });
});

describe(fileEntryLinks.name, () => {
  const cfg = { baseUrl: 'https://rdm.test' };

  it('should lead media file entries to the media-files endpoints, without IIIF links', () => {
    expect(fileEntryLinks('a1', 'cover.png', 'record', cfg, true)).toEqual({
      self: 'https://rdm.test/api/records/a1/media-files/cover.png',
      content: 'https://rdm.test/api/records/a1/media-files/cover.png/content',
    });
    expect(fileEntryLinks('a1', 'cover.png', 'record', cfg).iiif_info).toBe('https://rdm.test/api/iiif/record:a1:cover.png/info.json');
    expect(fileEntryLinks('a1', 'data.txt', 'draft', cfg).self).toBe('https://rdm.test/api/records/a1/draft/files/data.txt');
  });
});
