import { describe, expect, it } from 'vitest';
import { mapCsvRow, readFixtures } from './fixtures.js';

const fixtures = readFixtures();
const byType = new Map(fixtures.vocabularies.map((v) => [v.type, v]));
const entry = (type: string, id: string) => byType.get(type)?.entries.find((e) => e.id === id);

describe(readFixtures.name, () => {
  it('should read every vocabulary of vocabularies.yaml plus subjects, with InvenioRDM pid types', () => {
    const types = Object.fromEntries(fixtures.vocabularies.map((v) => [v.type, v.pidType]));
    expect(types).toEqual({
      affiliations: 'aff',
      creatorsroles: 'crr',
      contributorsroles: 'cor',
      languages: 'lng',
      licenses: 'lic',
      resourcetypes: 'rsrct',
      descriptiontypes: 'dty',
      datetypes: 'dat',
      names: 'names',
      relationtypes: 'rlt',
      removalreasons: 'rem',
      titletypes: 'ttyp',
      communitytypes: 'comtyp',
      funders: 'fun',
      awards: 'awa',
      'code:developmentStatus': 'ds',
      'code:programmingLanguages': 'pl',
      subjects: 'sub',
    });
  });

  it('should parse every row without problems and count the entries per type', () => {
    expect(fixtures.problems).toEqual([]);
    const counts = Object.fromEntries(fixtures.vocabularies.map((v) => [v.type, v.entries.length]));
    expect(counts).toMatchObject({
      affiliations: 17,
      creatorsroles: 22,
      contributorsroles: 22,
      languages: 7847,
      licenses: 419,
      resourcetypes: 47,
      descriptiontypes: 6,
      datetypes: 12,
      relationtypes: 39,
      removalreasons: 12,
      titletypes: 4,
      communitytypes: 4,
      funders: 21,
      'code:developmentStatus': 8,
      'code:programmingLanguages': 706,
      names: 0,
      awards: 0,
      subjects: 0,
    });
  });

  it('should mark the data files that are not shipped (names, awards) and give their types no entries', () => {
    expect(byType.get('names')?.missingFile).toBe(true);
    expect(byType.get('awards')?.missingFile).toBe(true);
    expect(byType.get('resourcetypes')?.missingFile).toBe(false);
  });

  it('should load creators and contributors roles from the same roles.yaml', () => {
    const ids = (t: string) => byType.get(t)?.entries.map((e) => e.id);
    expect(ids('creatorsroles')).toEqual(ids('contributorsroles'));
    expect(entry('creatorsroles', 'contactperson')).toMatchObject({ props: { datacite: 'ContactPerson', marc: 'prc' } });
  });

  it('should keep the full props, titles, icon and tags of resource types', () => {
    expect(entry('resourcetypes', 'image-photo')).toEqual({
      id: 'image-photo',
      title: { en: 'Photo', sv: 'Foto', de: 'Foto', es: 'Foto', cs: 'Fotografie', ar: 'صورة فوتوغرافيّة' },
      icon: 'chart bar outline',
      tags: ['depositable', 'linkable'],
      props: {
        csl: 'graphic',
        datacite_general: 'Image',
        datacite_type: 'Photo',
        openaire_resourceType: '0025',
        openaire_type: 'dataset',
        eurepo: 'info:eu-repo/semantics/other',
        'schema.org': 'https://schema.org/Photograph',
        subtype: 'image-photo',
        type: 'image',
        marc21_type: 'image',
        marc21_subtype: 'photo',
      },
    });
    expect(entry('resourcetypes', 'project')?.tags).toEqual(['linkable']);
  });

  it('should map licenses.csv rows: tags split, `a__b` columns nested', () => {
    expect(entry('licenses', 'cc-by-4.0')).toMatchObject({
      title: { en: 'Creative Commons Attribution 4.0 International' },
      tags: ['recommended', 'all', 'data'],
      props: { url: 'https://creativecommons.org/licenses/by/4.0/', scheme: 'spdx' },
    });
  });

  it('should keep the special fields of affiliations and funders', () => {
    expect(entry('affiliations', '01ggx4157')).toMatchObject({
      name: 'European Organization for Nuclear Research',
      acronym: 'CERN',
      country: 'CH',
      country_name: 'Switzerland',
      identifiers: expect.arrayContaining([{ identifier: '01ggx4157', scheme: 'ror' }]),
      types: ['facility', 'funder'],
    });
    expect(entry('funders', '00k4n6c32')).toMatchObject({ name: 'European Commission', country: 'BE' });
  });

  it('should keep language props as strings (alpha_2)', () => {
    expect(entry('languages', 'eng')).toMatchObject({ title: { en: 'English' }, props: { alpha_2: 'en' } });
  });
});

describe(mapCsvRow.name, () => {
  it('should split tags, nest double-underscore columns and keep empty values', () => {
    expect(mapCsvRow({ id: 'x', title__en: 'X', tags: 'a, b', props__url: 'u', props__osi_approved: '' })).toEqual({
      id: 'x',
      title: { en: 'X' },
      tags: ['a', 'b'],
      props: { url: 'u', osi_approved: '' },
    });
  });
});
