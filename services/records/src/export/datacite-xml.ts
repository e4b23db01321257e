/**
 * DataCite XML 4.5 (`application/vnd.datacite.datacite+xml`, the OAI-PMH `datacite` prefix and the
 * `oai_datacite` payload): the `<resource>` element of a DataCite JSON (datacite.ts), validated
 * against kernel-4.5/metadata.xsd in the tests.
 */
import type { DataCiteJson } from './datacite.js';
import { el, textEl, type XmlChild, type XmlNode } from './xml.js';

const langAttr = (lang: unknown) => (typeof lang === 'string' && lang ? { 'xml:lang': lang } : {});

function nameXml(tag: 'creator' | 'contributor', p: DataCiteJson): XmlNode {
  return el(
    tag,
    tag === 'contributor' ? { contributorType: p.contributorType } : null,
    textEl(`${tag}Name`, p.name, { nameType: p.nameType }),
    textEl('givenName', p.givenName),
    textEl('familyName', p.familyName),
    ...(p.nameIdentifiers ?? []).map((i: DataCiteJson) =>
      textEl('nameIdentifier', i.nameIdentifier, { nameIdentifierScheme: i.nameIdentifierScheme, schemeURI: i.schemeUri }),
    ),
    ...(p.affiliation ?? []).map((a: DataCiteJson) =>
      textEl('affiliation', a.name, {
        affiliationIdentifier: a.affiliationIdentifier,
        affiliationIdentifierScheme: a.affiliationIdentifierScheme,
        schemeURI: a.schemeUri,
      }),
    ),
  );
}

function pointXml(name: string, p: DataCiteJson): XmlNode {
  return el(name, null, textEl('pointLongitude', p.pointLongitude), textEl('pointLatitude', p.pointLatitude));
}

/** The `<resource>` element (DataCite kernel-4) of a DataCite JSON. */
export function dataciteResourceXml(d: DataCiteJson): XmlNode {
  const wrap = (name: string, items: XmlChild[] | undefined) => (items?.length ? el(name, null, ...items) : undefined);
  const ids = d.identifiers as DataCiteJson[];
  const main = d.doi ? { identifier: d.doi, identifierType: 'DOI' } : ids[0];
  const alternates = ids.filter((i) => !(i.identifierType === main.identifierType && i.identifier === main.identifier));
  return el(
    'resource',
    {
      xmlns: 'http://datacite.org/schema/kernel-4',
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation': 'http://datacite.org/schema/kernel-4 http://schema.datacite.org/meta/kernel-4.5/metadata.xsd',
    },
    el('identifier', { identifierType: main.identifierType }, main.identifier),
    el(
      'creators',
      null,
      ...(d.creators.length ? d.creators : [{ name: ':unav', nameType: 'Organizational' }]).map((c: DataCiteJson) => nameXml('creator', c)),
    ),
    el(
      'titles',
      null,
      ...(d.titles.length ? d.titles : [{ title: ':unas' }]).map((t: DataCiteJson) =>
        textEl('title', t.title, { titleType: t.titleType, ...langAttr(t.lang) }),
      ),
    ),
    el('publisher', null, d.publisher.name),
    el('publicationYear', null, d.publicationYear ?? new Date().getUTCFullYear()),
    el('resourceType', { resourceTypeGeneral: d.types.resourceTypeGeneral }, d.types.resourceType),
    wrap(
      'subjects',
      d.subjects?.map((s: DataCiteJson) => textEl('subject', s.subject, { subjectScheme: s.subjectScheme, valueURI: s.valueUri })),
    ),
    wrap(
      'contributors',
      d.contributors?.map((c: DataCiteJson) => nameXml('contributor', c)),
    ),
    wrap(
      'dates',
      d.dates?.map((x: DataCiteJson) => textEl('date', x.date, { dateType: x.dateType, dateInformation: x.dateInformation })),
    ),
    textEl('language', d.language),
    wrap(
      'alternateIdentifiers',
      alternates.map((a) => textEl('alternateIdentifier', a.identifier, { alternateIdentifierType: a.identifierType })),
    ),
    wrap(
      'relatedIdentifiers',
      d.relatedIdentifiers?.map((x: DataCiteJson) =>
        textEl('relatedIdentifier', x.relatedIdentifier, {
          relatedIdentifierType: x.relatedIdentifierType,
          relationType: x.relationType,
          resourceTypeGeneral: x.resourceTypeGeneral,
        }),
      ),
    ),
    wrap(
      'sizes',
      d.sizes?.map((s: string) => textEl('size', s)),
    ),
    wrap(
      'formats',
      d.formats?.map((s: string) => textEl('format', s)),
    ),
    textEl('version', d.version),
    wrap(
      'rightsList',
      d.rightsList?.map((x: DataCiteJson) =>
        el(
          'rights',
          {
            rightsURI: x.rightsUri,
            rightsIdentifier: x.rightsIdentifier,
            rightsIdentifierScheme: x.rightsIdentifierScheme,
          },
          x.rights,
        ),
      ),
    ),
    wrap(
      'descriptions',
      d.descriptions?.map((x: DataCiteJson) =>
        textEl('description', x.description, { descriptionType: x.descriptionType, ...langAttr(x.lang) }),
      ),
    ),
    wrap(
      'geoLocations',
      d.geoLocations?.map((g: DataCiteJson) =>
        el(
          'geoLocation',
          null,
          textEl('geoLocationPlace', g.geoLocationPlace),
          g.geoLocationPoint && pointXml('geoLocationPoint', g.geoLocationPoint),
          g.geoLocationBox &&
            el(
              'geoLocationBox',
              null,
              textEl('westBoundLongitude', g.geoLocationBox.westBoundLongitude),
              textEl('eastBoundLongitude', g.geoLocationBox.eastBoundLongitude),
              textEl('southBoundLatitude', g.geoLocationBox.southBoundLatitude),
              textEl('northBoundLatitude', g.geoLocationBox.northBoundLatitude),
            ),
          g.geoLocationPolygon &&
            el('geoLocationPolygon', null, ...g.geoLocationPolygon.map((p: DataCiteJson) => pointXml('polygonPoint', p.polygonPoint))),
        ),
      ),
    ),
    wrap(
      'fundingReferences',
      d.fundingReferences?.map((f: DataCiteJson) =>
        el(
          'fundingReference',
          null,
          textEl('funderName', f.funderName),
          textEl('funderIdentifier', f.funderIdentifier, { funderIdentifierType: f.funderIdentifierType }),
          textEl('awardNumber', f.awardNumber, { awardURI: f.awardUri }),
          textEl('awardTitle', f.awardTitle),
        ),
      ),
    ),
  );
}
