import { parse as parseBibtex } from '@retorquere/bibtex-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { bibtex, cslJson } from './citation.js';
import { dataciteJson } from './datacite.js';
import { dataciteResourceXml } from './datacite-xml.js';
import { dublinCoreXml } from './dublincore.js';
import { EXPORT_FORMATS, formatByName, MEDIA_TYPES, negotiateFormat } from './formats.js';
import { dcatXml, geoJson } from './geo-dcat.js';
import { marcXml } from './marcxml.js';
import { schemaOrg } from './schemaorg.js';
import { fixtureContext, fixtureRecord } from './test-fixture.js';
import { uiJson } from './ui.js';
import type { RecordJson } from './util.js';
import { xmlDocument } from './xml.js';
import { validateXml, wellFormed, XSD } from './xsd/xmllint.js';

const ctx = fixtureContext();

/** A minimal published record: no DOI, no optional fields, restricted files (entries stripped). */
function minimalRecord(): RecordJson {
  return {
    id: 'zzzzz-zzz99',
    created: '2024-05-01T00:00:00.000000+00:00',
    updated: '2024-05-01T00:00:00.000000+00:00',
    links: { self_html: 'https://rdm.example.org/records/zzzzz-zzz99' },
    parent: { id: 'p', communities: {}, pids: {} },
    pids: {},
    metadata: {
      resource_types: [{ id: 'poster' }],
      title: 'T\u0001itle with a control character',
      publication_date: '2021',
      creators: [{ person_or_org: { type: 'organizational', name: 'Org' } }],
    },
    access: { record: 'public', files: 'restricted', embargo: { active: false, reason: null }, status: 'restricted' },
    files: { enabled: true },
  };
}

const RECORDS: [string, () => RecordJson][] = [
  ['a full record', fixtureRecord],
  ['a minimal record', minimalRecord],
];

describe('XML exports against the official XSDs (xmllint)', () => {
  for (const [label, make] of RECORDS) {
    it(`should produce valid DataCite 4.5 XML for ${label}`, () => {
      const xml = xmlDocument(dataciteResourceXml(dataciteJson(make(), ctx)));
      expect(validateXml(xml, XSD.datacite)).toEqual([]);
    });
    it(`should produce valid oai_dc XML for ${label}`, () => {
      expect(validateXml(xmlDocument(dublinCoreXml(make(), ctx)), XSD.oaiDc)).toEqual([]);
    });
    it(`should produce valid MARC21 slim XML for ${label}`, () => {
      expect(validateXml(xmlDocument(marcXml(make(), ctx)), XSD.marc21)).toEqual([]);
    });
    it(`should produce well-formed DCAT-AP RDF/XML for ${label}`, () => {
      const xml = xmlDocument(dcatXml(make(), ctx));
      expect(wellFormed(xml)).toEqual([]);
      for (const tag of [
        '<rdf:RDF',
        '<dcat:Dataset rdf:about=',
        '<dct:title>',
        '<dct:identifier>',
        '<dcat:landingPage',
        '<dct:accessRights',
      ]) {
        expect(xml).toContain(tag);
      }
    });
  }

  it('should reject what the schema forbids (the validator is real)', () => {
    const xml = xmlDocument(dataciteResourceXml(dataciteJson(fixtureRecord(), ctx))).replace('<publicationYear>2020</publicationYear>', '');
    expect(validateXml(xml, XSD.datacite).join('\n')).toContain('publicationYear');
  });
});

describe(dataciteJson.name, () => {
  it('should map the record as InvenioRDM does', () => {
    const sut = dataciteJson(fixtureRecord(), ctx);
    expect(sut.types).toEqual({ resourceTypeGeneral: 'Image', resourceType: 'Photo' });
    expect(sut.doi).toBe('10.1234/abcde-fgh12');
    expect(sut.creators[0]).toMatchObject({
      name: 'Brown, Troy',
      nameType: 'Personal',
      nameIdentifiers: [{ nameIdentifier: '0000-0002-1825-0097', nameIdentifierScheme: 'ORCID' }],
      affiliation: [
        { name: 'CERN', affiliationIdentifier: 'https://ror.org/01ggx4157', affiliationIdentifierScheme: 'ROR' },
        { name: 'Free text U' },
      ],
    });
    expect(sut.contributors.map((c: any) => c.contributorType)).toEqual(['Editor', 'Other']);
    expect(sut.titles).toEqual([
      { title: 'A Romans story & <friends>' },
      { title: 'Another title', titleType: 'AlternativeTitle', lang: 'eng' },
    ]);
    expect(sut.publicationYear).toBe('2020');
    expect(sut.dates).toEqual([
      { date: '2020-06-01', dateType: 'Issued' },
      { date: '1939/1945', dateType: 'Other', dateInformation: 'A date' },
      { date: '2019', dateType: 'Other' },
      { date: '2024-01-03', dateType: 'Updated' },
    ]);
    expect(sut.relatedIdentifiers).toEqual([
      { relatedIdentifier: '10.9999/rdm.9999988', relatedIdentifierType: 'DOI', relationType: 'IsCitedBy', resourceTypeGeneral: 'Dataset' },
      { relatedIdentifier: '10.1234/pppp1-pppp2', relatedIdentifierType: 'DOI', relationType: 'IsVersionOf' },
      { relatedIdentifier: 'https://rdm.example.org/communities/ocean', relatedIdentifierType: 'URL', relationType: 'IsPartOf' },
    ]);
    expect(sut.geoLocations[1].geoLocationBox).toEqual({
      westBoundLongitude: '0',
      eastBoundLongitude: '10',
      southBoundLatitude: '0',
      northBoundLatitude: '5',
    });
    expect(sut.geoLocations[2].geoLocationPolygon).toHaveLength(5);
    expect(sut.fundingReferences[0]).toMatchObject({
      funderName: 'European Commission',
      funderIdentifierType: 'ROR',
      awardNumber: '755021',
    });
    expect(sut.rightsList[0]).toMatchObject({ rightsIdentifier: 'cc-by-4.0', rightsIdentifierScheme: 'spdx' });
  });

  it('should fall back to 4.5 values and the landing page without a DOI', () => {
    const sut = dataciteJson(minimalRecord(), ctx);
    expect(sut.types.resourceTypeGeneral).toBe('Other');
    expect(sut.types.resourceType).toBe('Poster');
    expect(sut.doi).toBeUndefined();
    expect(sut.publisher).toEqual({ name: 'Invenio' });
    const xml = xmlDocument(dataciteResourceXml(sut));
    expect(xml).toContain('<identifier identifierType="URL">https://rdm.example.org/records/zzzzz-zzz99</identifier>');
    expect(xml).not.toContain('\u0001');
  });
});

const SCHEMA_ORG_SHAPE = {
  type: 'object',
  required: ['@context', '@type', '@id', 'name', 'creator', 'datePublished', 'url'],
  properties: {
    '@context': { const: 'http://schema.org' },
    '@type': { enum: ['CreativeWork', 'Dataset', 'Photograph', 'Poster', 'ScholarlyArticle', 'SoftwareSourceCode', 'Book', 'Article'] },
    '@id': { type: 'string', pattern: '^https://' },
    name: { type: 'string', minLength: 1 },
    datePublished: { type: 'string', pattern: '^\\d{4}(-\\d{2}(-\\d{2})?)?$' },
    creator: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['@type', 'name'],
        properties: { '@type': { enum: ['Person', 'Organization'] }, name: { type: 'string' } },
      },
    },
    publisher: { type: 'object', required: ['@type', 'name'], properties: { '@type': { const: 'Organization' } } },
    license: {
      anyOf: [
        { type: 'string', format: 'uri' },
        { type: 'array', items: { type: 'string' } },
      ],
    },
    distribution: {
      type: 'array',
      items: { type: 'object', required: ['@type', 'contentUrl'], properties: { '@type': { const: 'DataDownload' } } },
    },
    spatialCoverage: { type: 'array', items: { type: 'object', required: ['@type'], properties: { '@type': { const: 'Place' } } } },
    funding: {
      type: 'array',
      items: { type: 'object', required: ['@type', 'funder'], properties: { '@type': { const: 'MonetaryGrant' } } },
    },
  },
};

const CSL_SHAPE = {
  type: 'object',
  required: ['id', 'type', 'title'],
  properties: {
    id: { type: 'string' },
    type: {
      enum: [
        'article',
        'book',
        'chapter',
        'dataset',
        'graphic',
        'report',
        'speech',
        'software',
        'thesis',
        'paper-conference',
        'article-journal',
      ],
    },
    title: { type: 'string' },
    author: {
      type: 'array',
      items: {
        anyOf: [
          { type: 'object', required: ['family'] },
          { type: 'object', required: ['literal'] },
        ],
      },
    },
    issued: {
      type: 'object',
      required: ['date-parts'],
      properties: { 'date-parts': { type: 'array', items: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 } } },
    },
  },
};

describe('JSON exports', () => {
  const ajv = new Ajv2020({ strict: false });
  const schemaOk = ajv.compile(SCHEMA_ORG_SHAPE);
  const cslOk = ajv.compile(CSL_SHAPE);

  for (const [label, make] of RECORDS) {
    it(`should give schema.org JSON-LD of the right shape for ${label}`, () => {
      const sut = schemaOrg(make(), ctx);
      expect(schemaOk(sut), JSON.stringify(schemaOk.errors)).toBe(true);
    });
    it(`should give a CSL JSON item of the right shape for ${label}`, () => {
      const sut = cslJson(make(), ctx);
      expect(cslOk(sut), JSON.stringify(cslOk.errors)).toBe(true);
    });
  }

  it('should type, identify and link the schema.org document', () => {
    const sut = schemaOrg(fixtureRecord(), ctx);
    expect(sut['@type']).toBe('Photograph');
    expect(sut['@id']).toBe('https://doi.org/10.1234/abcde-fgh12');
    expect(sut.creator[0]).toMatchObject({ '@type': 'Person', '@id': 'https://orcid.org/0000-0002-1825-0097' });
    expect(sut.distribution[0].contentUrl).toBe('https://rdm.example.org/records/abcde-fgh12/files/data%20file.csv');
  });

  it('should give CSL dates as date-parts and organizations as literals', () => {
    const sut = cslJson(fixtureRecord(), ctx);
    expect(sut).toMatchObject({ type: 'graphic', issued: { 'date-parts': [[2020, 6, 1]] }, DOI: '10.1234/abcde-fgh12' });
    expect(sut.author).toEqual([{ family: 'Brown', given: 'Troy' }, { literal: 'Mars Institute' }]);
  });

  it('should give a GeoJSON FeatureCollection of the locations (empty without)', () => {
    expect(geoJson(fixtureRecord()).features).toHaveLength(3);
    expect(geoJson(fixtureRecord()).features[0]).toEqual({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [-32.94682, -60.63932] },
      properties: { place: 'test location place', description: 'test location description' },
    });
    expect(geoJson(minimalRecord())).toEqual({ type: 'FeatureCollection', features: [] });
  });

  it('should add the ui block to the UI form', () => {
    const sut = uiJson(fixtureRecord(), ctx);
    expect(sut.id).toBe('abcde-fgh12');
    expect(sut.ui).toMatchObject({
      publication_date_l10n_long: 'June 1, 2020',
      resource_type: { id: 'image-photo', title_l10n: 'Photo' },
      access_status: { id: 'open', title_l10n: 'Open' },
      description_stripped: 'A description with 50% & more',
    });
    expect(sut.ui.creators.affiliations).toEqual([
      [1, 'CERN', '01ggx4157'],
      [2, 'Free text U', null],
    ]);
  });
});

describe(bibtex.name, () => {
  it('should be parsed back by a BibTeX parser with the same values', () => {
    const sut = bibtex(fixtureRecord(), ctx);
    const parsed = parseBibtex(sut);
    expect(parsed.errors).toEqual([]);
    expect(parsed.entries).toHaveLength(1);
    const [e] = parsed.entries;
    expect(e.type).toBe('misc');
    expect(e.key).toBe('brown_2020_abcde-fgh12');
    expect(e.fields.title).toBe('A Romans story & <friends>');
    expect(e.fields.author).toEqual([{ lastName: 'Brown', firstName: 'Troy' }, { name: 'Mars Institute' }]);
    expect(e.fields.year).toBe('2020');
    expect(e.fields.doi).toBe('10.1234/abcde-fgh12');
    expect(e.fields.publisher).toEqual(['InvenioRDM']); // the parser reads publisher as a list field
  });

  it('should escape LaTeX specials so that they survive the round trip', () => {
    const r = minimalRecord();
    r.metadata.title = 'Braces {x}, 100% $cash$ #1 a_b ~tilde^ back\\slash';
    const parsed = parseBibtex(bibtex(r, ctx));
    expect(parsed.errors).toEqual([]);
    expect(parsed.entries[0].fields.title).toBe('Braces {x}, 100% $cash$ #1 a_b ~tilde^ back\\slash');
  });
});

describe(negotiateFormat.name, () => {
  const accepts = (accept: string) => (types: string[]) => {
    // A tiny stand-in of koa's ctx.accepts for exact types, */* and q-values.
    const prefs = accept.split(',').map((p) => {
      const [t, ...params] = p.trim().split(';');
      const q = params.find((x) => x.trim().startsWith('q='));
      return { t: t.trim(), q: q ? Number(q.trim().slice(2)) : 1 };
    });
    let best: string | false = false;
    let bestQ = 0;
    for (const type of types) {
      const q = Math.max(0, ...prefs.filter((p) => p.t === type || p.t === '*/*').map((p) => p.q));
      if (q > bestQ) {
        best = type;
        bestQ = q;
      }
    }
    return best;
  };
  const sut = (accept: string | undefined, format?: string) => negotiateFormat(accept, format, accepts(accept ?? '*/*')).name;

  it('should default to JSON', () => {
    expect(sut(undefined)).toBe('json');
    expect(sut('*/*')).toBe('json');
    expect(sut('application/json')).toBe('json');
  });
  it('should pick each supported media type', () => {
    for (const f of EXPORT_FORMATS) expect(sut(f.mediaType)).toBe(f.name);
  });
  it('should honour q-values', () => {
    expect(sut('application/json;q=0.5, application/x-bibtex')).toBe('bibtex');
  });
  it('should accept ?format= with a name, an alias or a media type', () => {
    expect(sut(undefined, 'bibtex')).toBe('bibtex');
    expect(sut('application/json', 'datacite-xml')).toBe('datacite-xml');
    expect(sut(undefined, 'application/ld+json')).toBe('json-ld');
    expect(formatByName('oai_dc')?.name).toBe('dublincore');
  });
  it('should refuse an unknown type with 406 listing every supported type', () => {
    let err: any;
    try {
      sut('text/html');
    } catch (e) {
      err = e;
    }
    expect(err.status).toBe(406);
    expect(err.message).toBe(`Invalid 'Accept' header. Expected one of: ${MEDIA_TYPES.join(', ')}`);
    expect(() => sut(undefined, 'nope')).toThrow(/Expected one of/);
  });
});

describe('restricted files', () => {
  // Timeout: the formatted citation compiles its default style's engine on first use (seconds on a loaded machine).
  it('should never show a file of a record whose files the caller may not read', { timeout: 120_000 }, () => {
    const r = minimalRecord();
    for (const f of EXPORT_FORMATS) {
      const out = f.render(r, ctx);
      expect(out).not.toContain('/files/');
    }
  });
});
