import { parseQuery } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { STATIC_FIELDS } from '../domain/search.js';
import { dslFieldsFor, ENTRY_DSL_FIELDS, entryDoc, fieldPath } from './entry-index.js';
import type { IndexRow } from '../repo/entry-index.repo.js';

describe(dslFieldsFor.name, () => {
  it('should know exactly the q fields of the postgres engine', () => {
    expect(Object.keys(ENTRY_DSL_FIELDS).sort()).toEqual(Object.keys(STATIC_FIELDS).sort());
  });

  it('should add the dynamic props/title fields a query names, under an encoded path', () => {
    const fields = dslFieldsFor(parseQuery('props.department:x OR title.pt:y'));
    expect(fields['props.department']).toEqual({ kind: 'text', path: 'f.props%2Edepartment' });
    expect(fields['title.pt']).toEqual({ kind: 'text', path: 'f.title%2Ept' });
  });
});

describe(fieldPath.name, () => {
  it('should keep dots out of field names so that `title` and `title.en` can both exist', () => {
    expect(fieldPath('title')).toBe('f.title');
    expect(fieldPath('title.en')).toBe('f.title%2Een');
    expect(fieldPath('a%2Eb')).toBe('f.a%252Eb');
  });
});

describe(entryDoc.name, () => {
  it('should version the document with index_version and carry the postgres suggest lexemes', () => {
    const row = {
      type: 'affiliations',
      id: '01ggx4157',
      pid: '01ggx4157',
      title: { en: 'CERN' },
      description: null,
      icon: null,
      tags: [],
      props: null,
      acronym: 'CERN',
      name: 'European Organization for Nuclear Research',
      scheme: null,
      subject: null,
      number: null,
      country: 'CH',
      identifiers: [{ scheme: 'ror', identifier: '01ggx4157' }],
      extra: { types: ['facility'] },
      created: '2024-01-02T03:04:05.123456+00:00',
      updated: '2024-01-02T03:04:05.123456+00:00',
      revision_id: 1,
      sort_key: 'European Organization for Nuclear Research',
      search_fields: { name: 'european organization for nuclear research', 'title.en': 'cern' },
      index_version: '42',
      created_us: '1704164645123456',
      suggest_terms: ['cern', 'european'],
    } as IndexRow;
    const doc = entryDoc(row);
    expect(doc).toMatchObject({ id: 'affiliations/01ggx4157', version: 42 });
    expect(doc.source).toMatchObject({
      acronym_lower: 'cern',
      title_key: 'cern',
      created_us: 1704164645123456,
      identifier_values: ['01ggx4157'],
      types: ['facility'],
      suggest_terms: ['cern', 'european'],
      f: { name: 'european organization for nuclear research', 'title%2Een': 'cern' },
    });
  });
});
