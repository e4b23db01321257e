/**
 * Simple Dublin Core as `oai_dc` XML (`application/x-dc+xml`; the OAI-PMH `oai_dc` prefix),
 * validated against oai_dc.xsd + simpledc20021212.xsd in the tests. Mapping after InvenioRDM's
 * DublinCoreSchema: identifiers as resolvable URLs where a resolver exists (else
 * `scheme:identifier`), OpenAIRE `info:eu-repo` access rights and embargo end date, the resource
 * type's `props.eurepo` as `dc:type`, communities and the parent DOI as relations.
 */
import { el, textEl, type XmlNode } from './xml.js';
import type { ExportContext, RecordJson } from './util.js';
import * as util from './util.js';

const ACCESS_RIGHTS: Record<string, string> = {
  open: 'info:eu-repo/semantics/openAccess',
  embargoed: 'info:eu-repo/semantics/embargoedAccess',
  restricted: 'info:eu-repo/semantics/restrictedAccess',
  'metadata-only': 'info:eu-repo/semantics/closedAccess',
};

/** The Dublin Core values of a record, element name → values (shared by oai_dc and DCAT). */
export function dublinCoreValues(r: RecordJson, ctx: ExportContext): Record<string, string[]> {
  const m = r.metadata ?? {};
  const dc: Record<string, string[]> = {};
  const add = (k: string, v: unknown) => {
    if (typeof v !== 'string' || v.trim() === '') return;
    dc[k] ??= [];
    if (!dc[k].includes(v)) dc[k].push(v);
  };
  add('title', util.plain(m.title));
  for (const t of util.list(m.additional_titles)) add('title', util.plain(t.title));
  for (const c of util.list(m.creators)) add('creator', util.personName(c.person_or_org));
  for (const c of util.list(m.contributors)) add('contributor', util.personName(c.person_or_org));
  for (const s of util.list(m.subjects)) add('subject', s.subject);
  add('description', util.stripHtml(m.description));
  for (const d of util.list(m.additional_descriptions)) add('description', util.stripHtml(d.description));
  add('publisher', m.publisher);
  add('date', m.publication_date);
  const until = r.access?.embargo?.until;
  if (r.access?.embargo?.active && typeof until === 'string') add('date', `info:eu-repo/date/embargoEnd/${until}`);
  const eurepo = ctx.props('resourcetypes', util.resourceTypeOf(r)?.id).eurepo;
  add('type', typeof eurepo === 'string' && eurepo ? eurepo : 'info:eu-repo/semantics/other');
  for (const f of Array.isArray(m.formats) ? m.formats : []) add('format', f);
  for (const [scheme, pid] of Object.entries((r.pids ?? {}) as Record<string, any>)) {
    if (typeof pid?.identifier === 'string') add('identifier', util.identifierUriOrPrefixed(pid.identifier, scheme));
  }
  for (const a of util.alternateIdentifiersOf(r)) {
    if (typeof a.identifier === 'string') add('identifier', util.identifierUriOrPrefixed(a.identifier, String(a.scheme ?? 'url')));
  }
  for (const x of util.list(m.related_identifiers)) {
    if (typeof x.identifier === 'string') add('relation', util.identifierUriOrPrefixed(x.identifier, String(x.scheme ?? 'url')));
  }
  for (const c of util.list(r.parent?.communities?.entries)) add('relation', util.communityUrl(c, ctx));
  const parentDoi = r.parent?.pids?.doi?.identifier;
  if (typeof parentDoi === 'string') add('relation', util.identifierUriOrPrefixed(parentDoi, 'doi'));
  for (const l of util.list(m.languages)) add('language', l.id);
  for (const f of util.list(m.locations?.features)) {
    add('coverage', f.place);
    const c = f.geometry?.type === 'Point' ? f.geometry.coordinates : undefined;
    if (Array.isArray(c) && c.length >= 2) add('coverage', `name=${f.place ?? ''}; east=${c[0]}; north=${c[1]}`);
  }
  add('rights', ACCESS_RIGHTS[r.access?.status as string]);
  for (const right of util.list(m.rights)) {
    add('rights', util.l10n(right.title));
    add('rights', right.props?.url ?? right.link);
  }
  return dc;
}

const ORDER = [
  'title',
  'creator',
  'subject',
  'description',
  'publisher',
  'contributor',
  'date',
  'type',
  'format',
  'identifier',
  'source',
  'language',
  'relation',
  'coverage',
  'rights',
];

/** The `<oai_dc:dc>` element of a record. */
export function dublinCoreXml(r: RecordJson, ctx: ExportContext): XmlNode {
  const dc = dublinCoreValues(r, ctx);
  return el(
    'oai_dc:dc',
    {
      'xmlns:oai_dc': 'http://www.openarchives.org/OAI/2.0/oai_dc/',
      'xmlns:dc': 'http://purl.org/dc/elements/1.1/',
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation': 'http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
    },
    ...ORDER.flatMap((k) => (dc[k] ?? []).map((v) => textEl(`dc:${k}`, v))),
  );
}
