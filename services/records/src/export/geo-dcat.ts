/**
 * GeoJSON (`application/vnd.geo+json`: a FeatureCollection of the record's `metadata.locations`,
 * empty when it has none) and DCAT-AP RDF/XML (`application/dcat+xml`: a `dcat:Dataset` with
 * DCAT-AP's mandatory and recommended properties, visible files as `dcat:Distribution`s). InvenioRDM
 * builds DCAT-AP by an XSLT from its DataCite XML; this maps the same content directly.
 */
import { dublinCoreValues } from './dublincore.js';
import { el, textEl, type XmlNode } from './xml.js';
import type { ExportContext, RecordJson } from './util.js';
import * as util from './util.js';

/** The GeoJSON FeatureCollection of a record's locations. */
export function geoJson(r: RecordJson): Record<string, any> {
  const features = util.list(r.metadata?.locations?.features).map((f) => {
    const properties: Record<string, unknown> = {};
    if (f.place) properties.place = f.place;
    if (f.description) properties.description = f.description;
    if (Array.isArray(f.identifiers) && f.identifiers.length) properties.identifiers = f.identifiers;
    return { type: 'Feature', geometry: f.geometry ?? null, properties };
  });
  return { type: 'FeatureCollection', features };
}

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const ACCESS_RIGHT: Record<string, string> = {
  open: 'PUBLIC',
  embargoed: 'NON_PUBLIC',
  restricted: 'RESTRICTED',
  'metadata-only': 'NON_PUBLIC',
};

function wkt(geometry: Record<string, any> | undefined): string | undefined {
  const c = geometry?.coordinates;
  if (geometry?.type === 'Point' && Array.isArray(c)) return `POINT(${c[0]} ${c[1]})`;
  if (geometry?.type === 'Polygon' && Array.isArray(c?.[0]))
    return `POLYGON((${(c[0] as number[][]).map((p) => `${p[0]} ${p[1]}`).join(', ')}))`;
  return undefined;
}

const res = (name: string, iri: string | undefined) => (iri ? el(name, { 'rdf:resource': iri }) : undefined);

/** The DCAT-AP RDF/XML document root (`rdf:RDF`) of a record. */
export function dcatXml(r: RecordJson, ctx: ExportContext): XmlNode {
  const m = r.metadata ?? {};
  const doi = util.doiOf(r);
  const about = doi ? `https://doi.org/${doi}` : util.landingPage(r, ctx);
  const dc = dublinCoreValues(r, ctx);
  const agentOf = (c: Record<string, any>) => {
    const p = c.person_or_org ?? {};
    const org = p.type === 'organizational';
    const orcid = util.list(p.identifiers).find((i) => i.scheme === 'orcid' || i.scheme === 'ror');
    return el(
      org ? 'foaf:Organization' : 'foaf:Person',
      orcid ? { 'rdf:about': util.identifierUrl(orcid.identifier, orcid.scheme) } : null,
      textEl('foaf:name', util.personName(p)),
      org ? undefined : textEl('foaf:givenName', p.given_name),
      org ? undefined : textEl('foaf:familyName', p.family_name),
    );
  };
  const licenses = util
    .list(m.rights)
    .map((x) => x.props?.url ?? x.link)
    .filter((u): u is string => typeof u === 'string' && u !== '');
  const typeIri = ctx.props('resourcetypes', util.resourceTypeOf(r)?.id)['schema.org'];
  const issued = String(m.publication_date ?? '').split('/')[0];
  const distributions = util.visibleFiles(r).map((f) => {
    const url = util.fileUrl(r, f.key, ctx);
    const md5 = typeof f.checksum === 'string' && f.checksum.startsWith('md5:') ? f.checksum.slice(4) : undefined;
    return el(
      'dcat:distribution',
      null,
      el(
        'dcat:Distribution',
        { 'rdf:about': url },
        res('dcat:accessURL', util.landingPage(r, ctx)),
        res('dcat:downloadURL', url),
        textEl('dct:title', f.key),
        f.mimetype ? res('dcat:mediaType', `http://www.iana.org/assignments/media-types/${f.mimetype}`) : undefined,
        typeof f.size === 'number' ? el('dcat:byteSize', { 'rdf:datatype': `${XSD}nonNegativeInteger` }, String(f.size)) : undefined,
        md5
          ? el(
              'spdx:checksum',
              null,
              el(
                'spdx:Checksum',
                null,
                res('spdx:algorithm', 'http://spdx.org/rdf/terms#checksumAlgorithm_md5'),
                el('spdx:checksumValue', { 'rdf:datatype': `${XSD}hexBinary` }, md5),
              ),
            )
          : undefined,
        ...licenses.map((u) => res('dct:license', u)),
      ),
    );
  });
  return el(
    'rdf:RDF',
    {
      'xmlns:rdf': 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
      'xmlns:dcat': 'http://www.w3.org/ns/dcat#',
      'xmlns:dct': 'http://purl.org/dc/terms/',
      'xmlns:foaf': 'http://xmlns.com/foaf/0.1/',
      'xmlns:locn': 'http://www.w3.org/ns/locn#',
      'xmlns:owl': 'http://www.w3.org/2002/07/owl#',
      'xmlns:spdx': 'http://spdx.org/rdf/terms#',
    },
    el(
      'dcat:Dataset',
      { 'rdf:about': about },
      textEl('dct:identifier', about),
      textEl('dct:title', util.plain(m.title)),
      textEl('dct:description', util.stripHtml(m.description)),
      ...util.list(m.creators).map((c) => el('dct:creator', null, agentOf(c))),
      ...util.list(m.contributors).map((c) => el('dct:contributor', null, agentOf(c))),
      m.publisher ? el('dct:publisher', null, el('foaf:Agent', null, textEl('foaf:name', m.publisher))) : undefined,
      /^\d{4}-\d{2}-\d{2}$/.test(issued)
        ? el('dct:issued', { 'rdf:datatype': `${XSD}date` }, issued)
        : textEl('dct:issued', issued || undefined),
      typeof r.updated === 'string' ? el('dct:modified', { 'rdf:datatype': `${XSD}dateTime` }, r.updated) : undefined,
      ...(dc.subject ?? []).map((s) => textEl('dcat:keyword', s)),
      ...util
        .list(m.languages)
        .map((l) =>
          res(
            'dct:language',
            typeof l.id === 'string' ? `http://publications.europa.eu/resource/authority/language/${l.id.toUpperCase()}` : undefined,
          ),
        ),
      typeof typeIri === 'string' ? res('dct:type', typeIri) : undefined,
      textEl('owl:versionInfo', m.version),
      res('dcat:landingPage', util.landingPage(r, ctx)),
      res(
        'dct:accessRights',
        `http://publications.europa.eu/resource/authority/access-right/${ACCESS_RIGHT[r.access?.status] ?? 'PUBLIC'}`,
      ),
      ...util.list(m.rights).map((x) => textEl('dct:rights', util.l10n(x.title))),
      ...(dc.relation ?? []).filter((u) => /^https?:\/\//.test(u)).map((u) => res('dct:relation', u)),
      ...util
        .list(m.locations?.features)
        .map((f) =>
          el(
            'dct:spatial',
            null,
            el(
              'dct:Location',
              null,
              textEl('locn:geographicName', f.place),
              wkt(f.geometry)
                ? el('locn:geometry', { 'rdf:datatype': 'http://www.opengis.net/ont/geosparql#wktLiteral' }, wkt(f.geometry))
                : undefined,
            ),
          ),
        ),
      ...distributions,
    ),
  );
}
