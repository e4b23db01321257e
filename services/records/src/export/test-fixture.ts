/**
 * Test fixtures of the export serializers (used by the unit tests only): a published record in its
 * JSON read form with every metadata field, and vocabulary props as the vocabularies fixtures
 * define them (services/vocabularies/src/fixtures/vocabularies/*.yaml).
 */
import type { ExportContext, PropsLookup, RecordJson } from './util.js';

const PROPS: Record<string, Record<string, any>> = {
  'resourcetypes/image-photo': {
    csl: 'graphic',
    datacite_general: 'Image',
    datacite_type: 'Photo',
    eurepo: 'info:eu-repo/semantics/other',
    'schema.org': 'https://schema.org/Photograph',
    marc21_type: 'image',
    marc21_subtype: 'photo',
  },
  'resourcetypes/dataset': {
    csl: 'dataset',
    datacite_general: 'Dataset',
    datacite_type: '',
    eurepo: 'info:eu-repo/semantics/other',
    'schema.org': 'https://schema.org/Dataset',
    marc21_type: 'dataset',
  },
  'resourcetypes/poster': { csl: 'speech', datacite_general: 'Poster', 'schema.org': 'https://schema.org/Poster' },
  'contributorsroles/editor': { datacite: 'Editor', marc: 'edt' },
  'contributorsroles/translator': { datacite: 'Translator' },
  'titletypes/alternative-title': { datacite: 'AlternativeTitle' },
  'descriptiontypes/methods': { datacite: 'Methods' },
  'datetypes/other': { datacite: 'Other' },
  'datetypes/coverage': { datacite: 'Coverage' },
  'relationtypes/iscitedby': { datacite: 'IsCitedBy' },
  'relationtypes/istranslationof': { datacite: 'IsTranslationOf' },
};

/** A props lookup over the fixture vocabularies. */
export const fixtureProps: PropsLookup = (type, id) => (id ? (PROPS[`${type}/${id}`] ?? {}) : {});

/** An export context over the fixtures. */
export function fixtureContext(): ExportContext {
  return { baseUrl: 'https://rdm.example.org', siteName: 'Invenio', doiResolverUrl: 'https://doi.org', props: fixtureProps };
}

/** A published, public record with every field (as `GET /api/records/<id>` shows it). */
export function fixtureRecord(): RecordJson {
  return {
    id: 'abcde-fgh12',
    created: '2024-01-02T10:00:00.123456+00:00',
    updated: '2024-01-03T11:30:00.654321+00:00',
    links: { self: 'https://rdm.example.org/api/records/abcde-fgh12', self_html: 'https://rdm.example.org/records/abcde-fgh12' },
    revision_id: 3,
    parent: {
      id: 'pppp1-pppp2',
      access: { owned_by: { user: '1' } },
      communities: { ids: ['c-1'], default: 'c-1', entries: [{ id: 'c-1', slug: 'ocean', metadata: { title: 'Ocean' } }] },
      pids: { doi: { identifier: '10.1234/pppp1-pppp2', provider: 'datacite' } },
    },
    versions: { is_latest: true, index: 1 },
    is_published: true,
    is_draft: false,
    status: 'published',
    pids: {
      doi: { identifier: '10.1234/abcde-fgh12', provider: 'datacite', client: 'datacite' },
      oai: { identifier: 'oai:rdm.example.org:abcde-fgh12', provider: 'oai' },
    },
    metadata: {
      resource_types: [{ id: 'image-photo', title: { en: 'Photo' } }],
      resource_type: { id: 'image-photo', title: { en: 'Photo' } },
      title: 'A Romans story & <friends>',
      publication_date: '2020-06-01',
      creators: [
        {
          person_or_org: {
            type: 'personal',
            name: 'Brown, Troy',
            given_name: 'Troy',
            family_name: 'Brown',
            identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }],
          },
          affiliations: [{ id: '01ggx4157', name: 'CERN' }, { name: 'Free text U' }],
        },
        { person_or_org: { type: 'organizational', name: 'Mars Institute' } },
      ],
      contributors: [
        {
          person_or_org: { type: 'personal', name: 'Collins, Thomas', family_name: 'Collins', given_name: 'Thomas' },
          role: { id: 'editor', title: { en: 'Editor' } },
        },
        {
          person_or_org: { type: 'personal', name: 'Lang, Ada', family_name: 'Lang', given_name: 'Ada' },
          role: { id: 'translator', title: { en: 'Translator' } },
        },
      ],
      additional_titles: [
        { title: 'Another title', type: { id: 'alternative-title', title: { en: 'Alternative title' } }, lang: { id: 'eng' } },
      ],
      description: '<p>A <b>description</b> with 50% &amp; more</p>',
      additional_descriptions: [{ description: 'Some methods', type: { id: 'methods', title: { en: 'Methods' } }, lang: { id: 'eng' } }],
      rights: [
        {
          id: 'cc-by-4.0',
          title: { en: 'Creative Commons Attribution 4.0 International' },
          props: { url: 'https://creativecommons.org/licenses/by/4.0/legalcode', scheme: 'spdx' },
        },
        { title: { en: 'A custom license' }, description: { en: 'A description' }, link: 'https://customlicense.org/licenses/by/4.0/' },
      ],
      copyright: '(c) 2020 Mars Institute',
      subjects: [{ id: 'http://id.nlm.nih.gov/mesh/A-D000007', subject: 'Abdominal Injuries', scheme: 'MeSH' }, { subject: 'custom' }],
      languages: [
        { id: 'dan', title: { en: 'Danish' } },
        { id: 'eng', title: { en: 'English' } },
      ],
      dates: [
        { date: '1939/1945', type: { id: 'other', title: { en: 'Other' } }, description: 'A date' },
        { date: '2019', type: { id: 'coverage', title: { en: 'Coverage' } } },
      ],
      version: 'v1.0',
      publisher: 'InvenioRDM',
      alternate_identifiers: [
        { identifier: '10.9999/rdm.9999999', scheme: 'doi' },
        { identifier: 'https://example.org/x', scheme: 'url' },
      ],
      identifiers: [
        { identifier: '10.9999/rdm.9999999', scheme: 'doi' },
        { identifier: 'https://example.org/x', scheme: 'url' },
      ],
      related_identifiers: [
        { identifier: '10.9999/rdm.9999988', scheme: 'doi', relation_type: { id: 'iscitedby' }, resource_type: { id: 'dataset' } },
        { identifier: '10.9999/rdm.1', scheme: 'doi', relation_type: { id: 'istranslationof' } },
      ],
      sizes: ['11 pages'],
      formats: ['application/pdf'],
      locations: {
        features: [
          {
            geometry: { type: 'Point', coordinates: [-32.94682, -60.63932] },
            place: 'test location place',
            description: 'test location description',
          },
          {
            geometry: {
              type: 'Polygon',
              coordinates: [
                [
                  [0, 0],
                  [10, 0],
                  [10, 5],
                  [0, 5],
                  [0, 0],
                ],
              ],
            },
            place: 'a box',
          },
          {
            geometry: {
              type: 'Polygon',
              coordinates: [
                [
                  [0, 0],
                  [10, 0],
                  [12, 6],
                  [3, 9],
                  [0, 0],
                ],
              ],
            },
          },
        ],
      },
      funding: [
        {
          funder: { id: '00k4n6c32', name: 'European Commission' },
          award: {
            id: '755021',
            number: '755021',
            title: { en: 'Personalised Treatment For Cystic Fibrosis Patients' },
            identifiers: [{ scheme: 'url', identifier: 'https://cordis.europa.eu/project/id/755021' }],
          },
        },
      ],
    },
    custom_fields: {},
    access: { record: 'public', files: 'public', embargo: { active: false, reason: null }, status: 'open' },
    files: {
      enabled: true,
      order: [],
      count: 1,
      total_bytes: 1024,
      entries: {
        'data file.csv': {
          id: 'f1',
          key: 'data file.csv',
          checksum: 'md5:d41d8cd98f00b204e9800998ecf8427e',
          ext: 'csv',
          size: 1024,
          mimetype: 'text/csv',
          access: { hidden: false },
        },
      },
    },
    media_files: { enabled: false },
    deletion_status: { is_deleted: false, status: 'P' },
    stats: {},
  };
}
