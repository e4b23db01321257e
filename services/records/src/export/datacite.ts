/**
 * DataCite Metadata Schema 4.5: the JSON form (XML in datacite-xml.ts) (`application/vnd.datacite.datacite+json`, the
 * attribute names of DataCite's REST API, as InvenioRDM's DataCite45JSONSerializer) and the XML
 * form (`application/vnd.datacite.datacite+xml`, validated against kernel-4.5/metadata.xsd in
 * the tests). Mapping after InvenioRDM (resource type `props.datacite_general/datacite_type`,
 * `props.datacite` of roles, date/title/description/relation types). Values the 4.5 lists do not
 * know (e.g. the 4.6 additions Project, Poster, Translator, Coverage) become `Other`; relations of
 * an unknown type or scheme are left out, so the XML always validates. A record without a DOI
 * carries its landing page as `identifier` (identifierType URL).
 */
import type { ExportContext, RecordJson } from './util.js';
import * as util from './util.js';

/** DataCite JSON (4.5) of a record. */
export type DataCiteJson = Record<string, any>;

const GENERAL = new Set(
  'Audiovisual Book BookChapter Collection ComputationalNotebook ConferencePaper ConferenceProceeding DataPaper Dataset Dissertation Event Image Instrument InteractiveResource Journal JournalArticle Model OutputManagementPlan PeerReview PhysicalObject Preprint Report Service Software Sound Standard StudyRegistration Text Workflow Other'.split(
    ' ',
  ),
);
const CONTRIBUTOR_TYPES = new Set(
  'ContactPerson DataCollector DataCurator DataManager Distributor Editor HostingInstitution Other Producer ProjectLeader ProjectManager ProjectMember RegistrationAgency RegistrationAuthority RelatedPerson ResearchGroup RightsHolder Researcher Sponsor Supervisor WorkPackageLeader'.split(
    ' ',
  ),
);
const DATE_TYPES = new Set('Accepted Available Collected Copyrighted Created Issued Other Submitted Updated Valid Withdrawn'.split(' '));
const RELATION_TYPES = new Set(
  'IsCitedBy Cites IsSupplementTo IsSupplementedBy IsContinuedBy Continues IsNewVersionOf IsPreviousVersionOf IsPartOf HasPart IsPublishedIn IsReferencedBy References IsDocumentedBy Documents IsCompiledBy Compiles IsVariantFormOf IsOriginalFormOf IsIdenticalTo HasMetadata IsMetadataFor Reviews IsReviewedBy IsDerivedFrom IsSourceOf Describes IsDescribedBy HasVersion IsVersionOf Requires IsRequiredBy Obsoletes IsObsoletedBy Collects IsCollectedBy'.split(
    ' ',
  ),
);
/** Related identifier schemes DataCite knows, by our scheme name. */
const RELATED_SCHEMES: Record<string, string> = {
  ark: 'ARK',
  arxiv: 'arXiv',
  bibcode: 'bibcode',
  ads: 'bibcode',
  doi: 'DOI',
  ean13: 'EAN13',
  eissn: 'EISSN',
  handle: 'Handle',
  igsn: 'IGSN',
  isbn: 'ISBN',
  issn: 'ISSN',
  istc: 'ISTC',
  lissn: 'LISSN',
  lsid: 'LSID',
  pmid: 'PMID',
  purl: 'PURL',
  upc: 'UPC',
  url: 'URL',
  urn: 'URN',
  w3id: 'w3id',
};
const NAME_SCHEMES: Record<string, { scheme: string; uri: string }> = {
  orcid: { scheme: 'ORCID', uri: 'https://orcid.org/' },
  isni: { scheme: 'ISNI', uri: 'https://isni.org/isni/' },
  gnd: { scheme: 'GND', uri: 'https://d-nb.info/gnd/' },
  ror: { scheme: 'ROR', uri: 'https://ror.org/' },
};
const FUNDER_ID_TYPES: Record<string, string> = { ror: 'ROR', isni: 'ISNI', grid: 'GRID', doi: 'Crossref Funder ID' };
const ROR_ID = /^0[a-hj-km-np-tv-z|0-9]{6}[0-9]{2}$/;

function personOrOrg(c: Record<string, any>): DataCiteJson | undefined {
  const p = c.person_or_org ?? {};
  const name = util.personName(p);
  if (!name) return undefined;
  const out: DataCiteJson = { name, nameType: p.type === 'organizational' ? 'Organizational' : 'Personal' };
  if (p.type !== 'organizational') {
    if (p.given_name) out.givenName = p.given_name;
    if (p.family_name) out.familyName = p.family_name;
  }
  const ids = util
    .list(p.identifiers)
    .filter((i) => typeof i.identifier === 'string' && typeof i.scheme === 'string')
    .map((i) => {
      const known = NAME_SCHEMES[i.scheme.toLowerCase()];
      return known
        ? { nameIdentifier: i.identifier, nameIdentifierScheme: known.scheme, schemeUri: known.uri }
        : { nameIdentifier: i.identifier, nameIdentifierScheme: String(i.scheme) };
    });
  if (ids.length) out.nameIdentifiers = ids;
  const affs = util
    .list(c.affiliations)
    .filter((a) => typeof a.name === 'string' && a.name !== '')
    .map((a) => {
      const aff: DataCiteJson = { name: a.name };
      if (typeof a.id === 'string' && ROR_ID.test(a.id)) {
        aff.affiliationIdentifier = `https://ror.org/${a.id}`;
        aff.affiliationIdentifierScheme = 'ROR';
        aff.schemeUri = 'https://ror.org/';
      }
      return aff;
    });
  if (affs.length) out.affiliation = affs;
  return out;
}

/** The DataCite JSON (4.5) of a published record. */
export function dataciteJson(r: RecordJson, ctx: ExportContext): DataCiteJson {
  const m = r.metadata ?? {};
  const out: DataCiteJson = {};
  const rt = util.resourceTypeOf(r);
  const rtProps = ctx.props('resourcetypes', rt?.id);
  const general = typeof rtProps.datacite_general === 'string' ? rtProps.datacite_general : 'Other';
  out.types = {
    resourceTypeGeneral: GENERAL.has(general) ? general : 'Other',
    resourceType: rtProps.datacite_type || (GENERAL.has(general) ? '' : general) || '',
  };

  const doi = util.doiOf(r);
  out.identifiers = [{ identifier: util.landingPage(r, ctx), identifierType: 'URL' }];
  for (const [scheme, pid] of Object.entries((r.pids ?? {}) as Record<string, any>)) {
    if (typeof pid?.identifier === 'string')
      out.identifiers.push({ identifier: pid.identifier, identifierType: scheme === 'doi' ? 'DOI' : scheme });
  }
  for (const a of util.alternateIdentifiersOf(r)) {
    if (typeof a.identifier === 'string') out.identifiers.push({ identifier: a.identifier, identifierType: String(a.scheme ?? 'Other') });
  }
  if (doi) out.doi = doi;

  out.creators = util.list(m.creators).map(personOrOrg).filter(Boolean);
  const contributors = util
    .list(m.contributors)
    .map((c) => {
      const p = personOrOrg(c);
      if (!p) return undefined;
      const role = ctx.props('contributorsroles', c.role?.id).datacite;
      p.contributorType = typeof role === 'string' && CONTRIBUTOR_TYPES.has(role) ? role : 'Other';
      return p;
    })
    .filter(Boolean);
  if (contributors.length) out.contributors = contributors;

  out.titles = [];
  if (m.title) out.titles.push({ title: util.plain(m.title) });
  for (const t of util.list(m.additional_titles)) {
    const title: DataCiteJson = { title: util.plain(t.title) };
    const type = ctx.props('titletypes', t.type?.id).datacite;
    if (['AlternativeTitle', 'Subtitle', 'TranslatedTitle', 'Other'].includes(type)) title.titleType = type;
    if (t.lang?.id) title.lang = t.lang.id;
    if (title.title) out.titles.push(title);
  }

  out.publisher = { name: typeof m.publisher === 'string' && m.publisher !== '' ? m.publisher : ctx.siteName };
  const year = util.yearOf(m.publication_date);
  if (year) out.publicationYear = year;

  const subjects = util
    .list(m.subjects)
    .filter((s) => typeof s.subject === 'string' && s.subject !== '')
    .map((s) => {
      const subject: DataCiteJson = { subject: s.subject };
      if (s.id && s.scheme) subject.subjectScheme = s.scheme;
      if (typeof s.id === 'string' && /^https?:\/\//.test(s.id)) subject.valueUri = s.id;
      return subject;
    });
  if (subjects.length) out.subjects = subjects;

  const dates: DataCiteJson[] = [];
  if (m.publication_date) dates.push({ date: m.publication_date, dateType: 'Issued' });
  let updated = false;
  for (const d of util.list(m.dates)) {
    if (!d.date) continue;
    const type = ctx.props('datetypes', d.type?.id).datacite;
    if (d.type?.id === 'updated') updated = true;
    const date: DataCiteJson = { date: d.date, dateType: typeof type === 'string' && DATE_TYPES.has(type) ? type : 'Other' };
    if (d.description) date.dateInformation = d.description;
    dates.push(date);
  }
  if (!updated && typeof r.updated === 'string') dates.push({ date: r.updated.slice(0, 10), dateType: 'Updated' });
  out.dates = dates;

  const lang = util.list(m.languages)[0]?.id;
  if (typeof lang === 'string') out.language = lang;

  const related: DataCiteJson[] = [];
  for (const x of util.list(m.related_identifiers)) {
    const type = RELATED_SCHEMES[String(x.scheme ?? '').toLowerCase()];
    const relation = ctx.props('relationtypes', x.relation_type?.id).datacite;
    if (!type || typeof relation !== 'string' || !RELATION_TYPES.has(relation) || typeof x.identifier !== 'string') continue;
    const rel: DataCiteJson = { relatedIdentifier: x.identifier, relatedIdentifierType: type, relationType: relation };
    if (x.resource_type?.id) {
      const g = ctx.props('resourcetypes', x.resource_type.id).datacite_general;
      rel.resourceTypeGeneral = typeof g === 'string' && GENERAL.has(g) ? g : 'Other';
    }
    related.push(rel);
  }
  const parentDoi = r.parent?.pids?.doi?.identifier;
  if (typeof parentDoi === 'string' && parentDoi !== doi) {
    related.push({ relatedIdentifier: parentDoi, relatedIdentifierType: 'DOI', relationType: 'IsVersionOf' });
  }
  for (const c of util.list(r.parent?.communities?.entries)) {
    const url = util.communityUrl(c, ctx);
    if (url) related.push({ relatedIdentifier: url, relatedIdentifierType: 'URL', relationType: 'IsPartOf' });
  }
  if (related.length) out.relatedIdentifiers = related;

  const sizes = Array.isArray(m.sizes) ? m.sizes.filter((s: unknown) => typeof s === 'string') : [];
  if (sizes.length) out.sizes = sizes;
  const formats = Array.isArray(m.formats) ? m.formats.filter((s: unknown) => typeof s === 'string') : [];
  if (formats.length) out.formats = formats;
  if (m.version) out.version = String(m.version);

  const rights: DataCiteJson[] = [];
  for (const right of util.list(m.rights)) {
    const entry: DataCiteJson = {};
    const title = util.l10n(right.title);
    if (title) entry.rights = title;
    if (right.id) {
      entry.rightsIdentifier = right.id;
      if (right.props?.scheme) entry.rightsIdentifierScheme = right.props.scheme;
    }
    const link = right.props?.url ?? right.link;
    if (typeof link === 'string' && link) entry.rightsUri = link;
    if (Object.keys(entry).length) rights.push(entry);
  }
  if (m.copyright) rights.push({ rights: m.copyright, rightsUri: 'http://rightsstatements.org/vocab/InC/1.0/' });
  if (rights.length) out.rightsList = rights;

  const descriptions: DataCiteJson[] = [];
  const abstract = util.stripHtml(m.description);
  if (abstract) descriptions.push({ description: abstract, descriptionType: 'Abstract' });
  for (const d of util.list(m.additional_descriptions)) {
    const text = util.stripHtml(d.description);
    if (!text) continue;
    const type = ctx.props('descriptiontypes', d.type?.id).datacite;
    const desc: DataCiteJson = {
      description: text,
      descriptionType: ['Abstract', 'Methods', 'SeriesInformation', 'TableOfContents', 'TechnicalInfo', 'Other'].includes(type)
        ? type
        : 'Other',
    };
    if (d.lang?.id) desc.lang = d.lang.id;
    descriptions.push(desc);
  }
  if (descriptions.length) out.descriptions = descriptions;

  const geo = util
    .list(m.locations?.features)
    .map(geoLocation)
    .filter((g) => Object.keys(g).length > 0);
  if (geo.length) out.geoLocations = geo;

  const funding = util
    .list(m.funding)
    .map((f) => {
      const funder = f.funder ?? {};
      const name = funder.name ?? util.l10n(funder.title);
      if (!name) return undefined;
      const ref: DataCiteJson = { funderName: name };
      const ids = util.list(funder.identifiers);
      if (typeof funder.id === 'string' && ROR_ID.test(funder.id)) ids.unshift({ scheme: 'ror', identifier: funder.id });
      const id = ids.find((i) => FUNDER_ID_TYPES[i.scheme]) ?? ids[0];
      if (id?.identifier) {
        ref.funderIdentifier = id.scheme === 'ror' && !/^https?:/.test(id.identifier) ? `https://ror.org/${id.identifier}` : id.identifier;
        ref.funderIdentifierType = FUNDER_ID_TYPES[id.scheme] ?? 'Other';
      }
      const award = f.award;
      if (award) {
        if (award.number) ref.awardNumber = String(award.number);
        const title = util.l10n(award.title);
        if (title) ref.awardTitle = title;
        const uri = util.list(award.identifiers).find((i) => i.scheme === 'doi' || i.scheme === 'url');
        if (uri?.identifier && ref.awardNumber) ref.awardUri = uri.scheme === 'doi' ? `https://doi.org/${uri.identifier}` : uri.identifier;
      }
      return ref;
    })
    .filter(Boolean);
  if (funding.length) out.fundingReferences = funding;

  out.schemaVersion = 'http://datacite.org/schema/kernel-4';
  return out;
}

function geoLocation(f: Record<string, any>): DataCiteJson {
  const out: DataCiteJson = {};
  if (typeof f.place === 'string' && f.place) out.geoLocationPlace = f.place;
  const g = f.geometry;
  if (g?.type === 'Point' && Array.isArray(g.coordinates) && g.coordinates.length >= 2) {
    out.geoLocationPoint = { pointLongitude: String(g.coordinates[0]), pointLatitude: String(g.coordinates[1]) };
  } else if (g?.type === 'Polygon' && Array.isArray(g.coordinates?.[0])) {
    const ring = (g.coordinates[0] as unknown[]).filter((c): c is number[] => Array.isArray(c) && c.length >= 2);
    const xs = [...new Set(ring.map((c) => c[0]))].sort((a, b) => a - b);
    const ys = [...new Set(ring.map((c) => c[1]))].sort((a, b) => a - b);
    if ((ring.length === 4 || ring.length === 5) && xs.length === 2 && ys.length === 2) {
      out.geoLocationBox = {
        westBoundLongitude: String(xs[0]),
        eastBoundLongitude: String(xs[1]),
        southBoundLatitude: String(ys[0]),
        northBoundLatitude: String(ys[1]),
      };
    } else if (ring.length >= 4) {
      out.geoLocationPolygon = ring.map((c) => ({ polygonPoint: { pointLongitude: String(c[0]), pointLatitude: String(c[1]) } }));
    }
  }
  return out;
}
