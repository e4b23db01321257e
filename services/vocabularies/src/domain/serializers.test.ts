import { describe, expect, it } from 'vitest';
import { type EntryRow, rowToDoc, toRowInput } from './documents.js';
import { normalizeEntry } from './entry.js';
import { resolvedEntry, serializeEntry, serializeL10n, serializeType } from './serializers.js';

const BASE = 'https://repo.example.org';

/** A stored row built the way the loader builds it. */
function stored(type: string, raw: Record<string, unknown>): EntryRow {
  const r = toRowInput(type, normalizeEntry(type, raw));
  return {
    type,
    id: r.id,
    pid: r.pid,
    title: r.title,
    description: r.description,
    icon: r.icon,
    tags: r.tags,
    props: r.props,
    acronym: r.acronym,
    name: r.name,
    scheme: r.scheme,
    subject: r.subject,
    number: r.number,
    country: r.country,
    identifiers: r.identifiers,
    extra: r.extra,
    created: '2024-01-02T03:04:05.123456+00:00',
    updated: '2024-01-02T03:04:05.123456+00:00',
    revision_id: 3,
  };
}

describe(serializeEntry.name, () => {
  it('should render a generic entry with every field of the spec and type = the vocabulary id', () => {
    const row = stored('resourcetypes', {
      id: 'image-photo',
      title: { en: 'Photo', de: 'Foto' },
      icon: 'chart',
      tags: ['depositable'],
      props: { type: 'image', subtype: 'image-photo' },
    });
    expect(serializeEntry(row, BASE)).toEqual({
      id: 'image-photo',
      created: '2024-01-02T03:04:05.123456+00:00',
      updated: '2024-01-02T03:04:05.123456+00:00',
      links: { self: `${BASE}/api/vocabularies/resourcetypes/image-photo` },
      revision_id: 3,
      title: { de: 'Foto', en: 'Photo' },
      icon: 'chart',
      tags: ['depositable'],
      props: { subtype: 'image-photo', type: 'image' },
      type: 'resourcetypes',
    });
  });

  it('should default icon, tags and props of a generic entry and keep a description', () => {
    const out = serializeEntry(stored('titletypes', { id: 'subtitle', title: { en: 'Subtitle' }, description: { en: 'd' } }), BASE);
    expect(out).toMatchObject({ icon: '', tags: [], props: {}, description: { en: 'd' }, type: 'titletypes' });
  });

  it('should render a special entry with its own fields, a root self link and no type', () => {
    const row = stored('affiliations', {
      id: '01ggx4157',
      name: 'CERN org',
      acronym: 'CERN',
      country: 'CH',
      identifiers: [{ identifier: '01ggx4157', scheme: 'ror' }],
      types: ['facility'],
    });
    const out = serializeEntry(row, BASE);
    expect(out).toEqual({
      id: '01ggx4157',
      created: '2024-01-02T03:04:05.123456+00:00',
      updated: '2024-01-02T03:04:05.123456+00:00',
      links: { self: `${BASE}/api/affiliations/01ggx4157` },
      revision_id: 3,
      name: 'CERN org',
      acronym: 'CERN',
      identifiers: [{ identifier: '01ggx4157', scheme: 'ror' }],
      country: 'CH',
      types: ['facility'],
    });
  });

  it('should keep slashes of subject ids in the self link', () => {
    const out = serializeEntry(stored('subjects', { id: 'https://id.loc.gov/x', scheme: 'LCSH', subject: 'X' }), BASE);
    expect((out.links as { self: string }).self).toBe(`${BASE}/api/subjects/https://id.loc.gov/x`);
  });
});

describe(resolvedEntry.name, () => {
  it('should give {id, title, props, tags, type}', () => {
    const row = stored('licenses', { id: 'cc0-1.0', title: { en: 'CC0' }, tags: ['recommended'], props: { scheme: 'spdx' } });
    expect(resolvedEntry(row)).toEqual({
      id: 'cc0-1.0',
      title: { en: 'CC0' },
      props: { scheme: 'spdx' },
      tags: ['recommended'],
      type: 'licenses',
    });
  });
});

describe(serializeType.name, () => {
  it('should render a vocabulary list item', () => {
    expect(serializeType({ id: 'languages', pid_type: 'lng', is_custom: false, revision_id: 1, count: 7847 }, BASE)).toEqual({
      id: 'languages',
      pid_type: 'lng',
      count: 7847,
      is_custom_vocabulary: false,
      links: { self: `${BASE}/api/vocabularies/languages` },
    });
  });
});

describe(serializeL10n.name, () => {
  it('should localize title and description, falling back to English', () => {
    const row = stored('resourcetypes', {
      id: 'dataset',
      title: { en: 'Dataset', de: 'Datensatz' },
      icon: 'table',
      props: { type: 'dataset' },
    });
    expect(serializeL10n(row, 'de')).toEqual({ id: 'dataset', title_l10n: 'Datensatz', icon: 'table', props: { type: 'dataset' } });
    expect(serializeL10n(row, 'fr').title_l10n).toBe('Dataset');
  });
});

describe(rowToDoc.name, () => {
  it('should sort nested keys like InvenioRDM JSON', () => {
    const row = stored('resourcetypes', { id: 'x', title: { sv: 'b', en: 'a' } });
    expect(Object.keys(rowToDoc(row).title as object)).toEqual(['en', 'sv']);
  });
});
