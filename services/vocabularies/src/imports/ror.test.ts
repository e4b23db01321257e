import { describe, expect, it } from 'vitest';
import { rorOrganization } from '../../test/support/ror-dump.js';
import { EntryError } from '../domain/entry.js';
import { DEPRECATED_TAG, mapRorRecord, rorChecksumOk, rorIdOf } from './ror.js';

/** A ROR v2 record close to ROR's own CERN record. */
const cern = () => ({
  id: 'https://ror.org/01ggx4157',
  names: [
    { value: 'CERN', types: ['acronym'], lang: null },
    { value: 'European Organization for Nuclear Research', types: ['ror_display', 'label'], lang: 'en' },
    { value: 'Organisation européenne pour la recherche nucléaire', types: ['label'], lang: 'fr' },
    { value: 'Conseil Européen pour la Recherche Nucléaire', types: ['alias'], lang: null },
  ],
  locations: [{ geonames_id: 2660646, geonames_details: { country_code: 'CH', country_name: 'Switzerland', name: 'Geneva' } }],
  external_ids: [
    { type: 'fundref', all: ['100012470'], preferred: '100012470' },
    { type: 'grid', all: ['grid.9132.9'], preferred: 'grid.9132.9' },
    { type: 'isni', all: ['0000 0001 2156 142X'], preferred: null },
    { type: 'wikidata', all: ['Q42944'], preferred: null },
  ],
  links: [{ type: 'website', value: 'https://home.cern' }],
  domains: ['cern.ch'],
  status: 'active',
  types: ['facility', 'funder'],
});

describe(mapRorRecord.name, () => {
  it('should map names, labels by language, acronym, aliases, location, types and identifiers to an affiliation', () => {
    const { id, affiliation } = mapRorRecord(cern());
    expect(id).toBe('01ggx4157');
    expect(affiliation).toEqual({
      id: '01ggx4157',
      name: 'European Organization for Nuclear Research',
      acronym: 'CERN',
      aliases: ['Conseil Européen pour la Recherche Nucléaire'],
      title: { en: 'European Organization for Nuclear Research', fr: 'Organisation européenne pour la recherche nucléaire' },
      country: 'CH',
      country_name: 'Switzerland',
      location_name: 'Geneva',
      website: 'https://home.cern',
      domains: ['cern.ch'],
      status: 'active',
      types: ['facility', 'funder'],
      identifiers: [
        { scheme: 'ror', identifier: '01ggx4157' },
        { scheme: 'grid', identifier: 'grid.9132.9' },
        { scheme: 'isni', identifier: '0000 0001 2156 142X' },
        { scheme: 'wikidata', identifier: 'Q42944' },
      ],
    });
  });

  it('should make a funder of an organisation with a FundRef id, its DOI under 10.13039', () => {
    const { funder } = mapRorRecord(cern());
    expect(funder).toMatchObject({ id: '01ggx4157', name: 'European Organization for Nuclear Research', acronym: 'CERN', country: 'CH' });
    expect(funder?.identifiers).toContainEqual({ scheme: 'doi', identifier: '10.13039/100012470' });
    const noFundref = { ...cern(), external_ids: cern().external_ids.filter((x) => x.type !== 'fundref') };
    expect(mapRorRecord(noFundref).funder).toBeUndefined();
  });

  it('should tag withdrawn and inactive organisations deprecated, and keep their status', () => {
    for (const status of ['withdrawn', 'inactive']) {
      const { affiliation, funder } = mapRorRecord({ ...cern(), status });
      expect(affiliation).toMatchObject({ status, tags: [DEPRECATED_TAG] });
      expect(funder).toMatchObject({ status, tags: [DEPRECATED_TAG] });
    }
    expect(mapRorRecord(cern()).affiliation.tags).toBeUndefined();
  });

  it('should default the English title to the display name when no English label exists', () => {
    const r = cern();
    r.names = [{ value: 'Universität Wien', types: ['ror_display'], lang: 'de' }];
    expect(mapRorRecord(r).affiliation.title).toEqual({ de: 'Universität Wien', en: 'Universität Wien' });
  });

  it('should reject malformed records naming the field', () => {
    const cases: [unknown, string, RegExp][] = [
      [{ ...cern(), id: undefined }, 'id', /Missing PID/],
      [{ ...cern(), id: 'https://ror.org/01ggx4158' }, 'id', /Not a ROR id/],
      [{ ...cern(), id: 42 }, 'id', /Not a valid string/],
      [{ ...cern(), names: 'CERN' }, 'names', /Not a valid list/],
      [{ ...cern(), names: [{ value: 'CERN', types: ['acronym'] }] }, 'names', /ror_display/],
      [{ ...cern(), names: [{ value: '', types: ['ror_display'] }] }, 'names.0.value', /required/],
      [{ ...cern(), locations: [7] }, 'locations.0', /Invalid input type/],
      [{ ...cern(), external_ids: [{ type: 'grid', all: [3] }] }, 'external_ids.0.all.0', /Not a valid string/],
      ['not an object', '_schema', /Invalid input type/],
    ];
    for (const [raw, field, message] of cases) {
      let err: unknown;
      try {
        mapRorRecord(raw);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(raw).slice(0, 80)).toBeInstanceOf(EntryError);
      expect((err as EntryError).field).toBe(field);
      expect((err as EntryError).message).toMatch(message);
    }
  });

  it('should map every generated organisation (the fixtures are valid ROR v2 records)', () => {
    for (let i = 0; i < 300; i++) expect(() => mapRorRecord(rorOrganization(i))).not.toThrow();
  });
});

describe(rorIdOf.name, () => {
  it('should accept ROR URLs and bare ids with a valid checksum only', () => {
    expect(rorIdOf('https://ror.org/02ex6cf31')).toBe('02ex6cf31');
    expect(rorIdOf('00rbzpz17')).toBe('00rbzpz17');
    expect(rorChecksumOk('05k73zm37')).toBe(true);
    expect(rorChecksumOk('05k73zm38')).toBe(false);
    expect(() => rorIdOf('https://ror.org/0abcdefgh')).toThrow(EntryError);
  });
});
