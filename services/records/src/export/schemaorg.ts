/**
 * schema.org JSON-LD (`application/ld+json`), after InvenioRDM's SchemaorgSchema: `@type` from the
 * resource type's `props["schema.org"]` (CreativeWork when absent), `@id`/`identifier` the DOI URL
 * (else the landing page), creators and contributors as Person/Organization with ORCID `@id` and
 * affiliations, license URLs, funding as MonetaryGrant, locations as Place/GeoCoordinates or
 * GeoShape, visible files as DataDownload `distribution`, related identifiers as `sameAs`/`isPartOf`/
 * `hasPart`/`citation` by relation type.
 */
import type { ExportContext, RecordJson } from './util.js';
import * as util from './util.js';

const RELATION_PROPERTY: Record<string, string> = {
  isidenticalto: 'sameAs',
  ispartof: 'isPartOf',
  haspart: 'hasPart',
  cites: 'citation',
  references: 'citation',
  isversionof: 'isBasedOn',
  isderivedfrom: 'isBasedOn',
  issupplementto: 'isPartOf',
};

function agent(c: Record<string, any>): Record<string, any> | undefined {
  const p = c.person_or_org ?? {};
  const name = util.personName(p);
  if (!name) return undefined;
  const out: Record<string, any> = { '@type': p.type === 'organizational' ? 'Organization' : 'Person', name };
  if (p.type !== 'organizational') {
    if (p.given_name) out.givenName = p.given_name;
    if (p.family_name) out.familyName = p.family_name;
  }
  const orcid = util.list(p.identifiers).find((i) => i.scheme === 'orcid' || i.scheme === 'ror');
  if (orcid) out['@id'] = util.identifierUrl(orcid.identifier, orcid.scheme);
  const affs = util.list(c.affiliations).filter((a) => a.name);
  if (affs.length) out.affiliation = affs.map((a) => ({ '@type': 'Organization', name: a.name }));
  return out;
}

function place(f: Record<string, any>): Record<string, any> | undefined {
  const out: Record<string, any> = { '@type': 'Place' };
  if (f.place) out.name = f.place;
  if (f.description) out.description = f.description;
  const g = f.geometry;
  if (g?.type === 'Point' && Array.isArray(g.coordinates)) {
    out.geo = { '@type': 'GeoCoordinates', longitude: g.coordinates[0], latitude: g.coordinates[1] };
  } else if (g?.type === 'Polygon' && Array.isArray(g.coordinates?.[0])) {
    out.geo = { '@type': 'GeoShape', polygon: (g.coordinates[0] as number[][]).map((c) => `${c[1]} ${c[0]}`).join(' ') };
  }
  return Object.keys(out).length > 1 ? out : undefined;
}

/** The schema.org JSON-LD document of a record. */
export function schemaOrg(r: RecordJson, ctx: ExportContext): Record<string, any> {
  const m = r.metadata ?? {};
  const doi = util.doiOf(r);
  const id = doi ? `https://doi.org/${doi}` : util.landingPage(r, ctx);
  const typeIri = ctx.props('resourcetypes', util.resourceTypeOf(r)?.id)['schema.org'];
  const type = typeof typeIri === 'string' && typeIri ? typeIri.replace(/^https?:\/\/schema\.org\//, '') : 'CreativeWork';
  const out: Record<string, any> = {
    '@context': 'http://schema.org',
    '@id': id,
    '@type': type,
    identifier: id,
    name: util.plain(m.title),
    url: util.landingPage(r, ctx),
  };
  const creators = util.list(m.creators).map(agent).filter(Boolean);
  if (creators.length) {
    out.creator = creators;
    out.author = creators;
  }
  const editors = util.list(m.contributors).map(agent).filter(Boolean);
  if (editors.length) out.contributor = editors;
  const description = util.stripHtml(m.description);
  if (description) out.description = description;
  if (m.publisher) out.publisher = { '@type': 'Organization', name: m.publisher };
  if (m.publication_date) out.datePublished = String(m.publication_date).split('/')[0];
  if (typeof r.created === 'string') out.dateCreated = r.created;
  if (typeof r.updated === 'string') out.dateModified = r.updated;
  const keywords = util
    .list(m.subjects)
    .map((s) => s.subject)
    .filter((s) => typeof s === 'string' && s);
  if (keywords.length) out.keywords = keywords;
  const langs = util.list(m.languages).map((l) => ({ '@type': 'Language', alternateName: l.id, name: util.l10n(l.title) ?? l.id }));
  if (langs.length) out.inLanguage = langs.length === 1 ? langs[0] : langs;
  if (m.version) out.version = String(m.version);
  const licenses = util
    .list(m.rights)
    .map((x) => x.props?.url ?? x.link)
    .filter((u) => typeof u === 'string' && u);
  if (licenses.length) out.license = licenses.length === 1 ? licenses[0] : licenses;
  if (Array.isArray(m.formats) && m.formats.length) out.encodingFormat = m.formats;
  if (Array.isArray(m.sizes) && m.sizes.length) out.size = m.sizes;
  const places = util.list(m.locations?.features).map(place).filter(Boolean);
  if (places.length) out.spatialCoverage = places;
  const funding = util
    .list(m.funding)
    .filter((f) => f.funder)
    .map((f) => {
      const grant: Record<string, any> = {
        '@type': 'MonetaryGrant',
        funder: { '@type': 'Organization', name: f.funder.name ?? util.l10n(f.funder.title) },
      };
      if (f.award?.number) grant.identifier = String(f.award.number);
      const title = util.l10n(f.award?.title);
      if (title) grant.name = title;
      return grant;
    });
  if (funding.length) out.funding = funding;
  const sameAs = util
    .alternateIdentifiersOf(r)
    .map((a) => util.identifierUrl(a.identifier, a.scheme))
    .filter((u): u is string => !!u);
  for (const x of util.list(m.related_identifiers)) {
    const url = util.identifierUrl(x.identifier, x.scheme);
    const prop = RELATION_PROPERTY[String(x.relation_type?.id ?? '')];
    if (!url || !prop) continue;
    if (prop === 'sameAs') sameAs.push(url);
    else {
      out[prop] ??= [];
      out[prop].push({ '@id': url });
    }
  }
  if (sameAs.length) out.sameAs = sameAs;
  const files = util.visibleFiles(r);
  if (files.length) {
    out.distribution = files.map((f) => {
      const d: Record<string, any> = { '@type': 'DataDownload', contentUrl: util.fileUrl(r, f.key, ctx), name: f.key };
      if (f.mimetype) d.encodingFormat = f.mimetype;
      if (typeof f.size === 'number') d.contentSize = String(f.size);
      return d;
    });
  }
  return out;
}
