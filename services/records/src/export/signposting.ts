/**
 * FAIR Signposting (https://signposting.org/FAIR/) of a published record, after InvenioRDM's
 * signposting serializers: level 1 as an HTTP `Link` header on `GET /api/records/<id>`, level 2
 * as a linkset (RFC 9264, `application/linkset+json`, `GET /api/records/<id>` with that Accept
 * or `/export/linkset`).
 *
 * Links of the landing page (anchor `links.self_html`): `cite-as` (the DOI URL, else the landing
 * page), `describedby` (the API URL, one per export format with its media type), `item` (each
 * file the caller may read: its content URL and media type), `license`, `author` (ORCID / ROR of
 * creators), `type` (the resource type's schema.org type, then `AboutPage`). The linkset adds the
 * content resources (`collection` back to the landing page) and the metadata resource
 * (`describes`). As InvenioRDM, the level-1 header carries only the `linkset` link when a
 * collection (authors, items, licenses) has more than `LEVEL1_MAX` members.
 *
 * When to use: the record read (header) and the linkset format. File content responses carry
 * their own level-1 links (`collection`, `linkset`), set by the files service (FileLinks.signposting).
 */
import { type ExportContext, identifierUrl, landingPage, list, type RecordJson, resourceTypeOf, visibleFiles } from './util.js';

/** Largest collection the level-1 header lists (InvenioRDM's limit). */
export const LEVEL1_MAX = 5;

/** One target of a link relation. */
export interface LinkTarget {
  href: string;
  type?: string;
}

/** The landing page's links by relation, in InvenioRDM's order. */
export interface LandingLinks {
  anchor: string;
  apiUrl: string;
  author: LinkTarget[];
  'cite-as': LinkTarget[];
  describedby: LinkTarget[];
  item: LinkTarget[];
  license: LinkTarget[];
  type: LinkTarget[];
}

/** The content URL of a file of a record (the API's download). */
export function contentUrl(r: RecordJson, key: string, ctx: Pick<ExportContext, 'baseUrl'>): string {
  const k = key.split('/').map(encodeURIComponent).join('/');
  return `${ctx.baseUrl}/api/records/${encodeURIComponent(r.id)}/files/${k}/content`;
}

/** The signposting links of a record as the caller sees it (`describedTypes`: media types of the export formats). */
export function landingLinks(r: RecordJson, ctx: ExportContext, describedTypes: readonly string[]): LandingLinks {
  const m = r.metadata ?? {};
  const anchor = landingPage(r, ctx);
  const apiUrl = `${ctx.baseUrl}/api/records/${encodeURIComponent(r.id)}`;
  const doi = r.pids?.doi?.identifier;
  const author: LinkTarget[] = [];
  for (const c of list(m.creators)) {
    const id = list(c.person_or_org?.identifiers).find((i) => i.scheme === 'orcid' || i.scheme === 'ror');
    const href = id ? identifierUrl(id.identifier, id.scheme) : undefined;
    if (href) author.push({ href });
  }
  const license = list(m.rights)
    .map((x) => x.props?.url ?? x.link)
    .filter((u): u is string => typeof u === 'string' && u !== '')
    .map((href) => ({ href }));
  const schemaType = ctx.props('resourcetypes', resourceTypeOf(r)?.id)['schema.org'];
  const type: LinkTarget[] = [];
  if (typeof schemaType === 'string' && schemaType) {
    type.push({ href: /^https?:/.test(schemaType) ? schemaType : `https://schema.org/${schemaType}` });
  }
  type.push({ href: 'https://schema.org/AboutPage' });
  return {
    anchor,
    apiUrl,
    author,
    'cite-as': [{ href: typeof doi === 'string' && doi ? `${ctx.doiResolverUrl}/${doi}` : anchor }],
    describedby: [...describedTypes].sort().map((t) => ({ href: apiUrl, type: t })),
    item: visibleFiles(r).map((f) => ({
      href: contentUrl(r, String(f.key), ctx),
      type: typeof f.mimetype === 'string' && f.mimetype ? f.mimetype : 'application/octet-stream',
    })),
    license,
    type,
  };
}

const RELATIONS = ['author', 'cite-as', 'describedby', 'item', 'license', 'type'] as const;

// Link header values: a URI reference in <>, parameters as quoted strings (RFC 8288).
const quote = (v: string) => `"${v.replace(/["\\]/g, '\\$&')}"`;
const link = (href: string, rel: string, type?: string) => `<${href}> ; rel=${quote(rel)}${type ? ` ; type=${quote(type)}` : ''}`;

/** The level-1 `Link` header value (InvenioRDM's " , " separator); only `linkset` when a collection is too big. */
export function linkHeader(l: LandingLinks): string {
  const linkset = link(l.apiUrl, 'linkset', 'application/linkset+json');
  if (l.author.length > LEVEL1_MAX || l.item.length > LEVEL1_MAX || l.license.length > LEVEL1_MAX) return linkset;
  const parts: string[] = [];
  for (const rel of RELATIONS) for (const t of l[rel]) parts.push(link(t.href, rel, t.type));
  parts.push(linkset);
  return parts.join(' , ');
}

/** The level-2 linkset document (`{linkset: [landing, content resources…, metadata resource]}`). */
export function linkset(l: LandingLinks): { linkset: Record<string, unknown>[] } {
  const landing: Record<string, unknown> = { anchor: l.anchor };
  for (const rel of RELATIONS) if (l[rel].length) landing[rel] = l[rel];
  const back = [{ href: l.anchor, type: 'text/html' }];
  return {
    linkset: [landing, ...l.item.map((i) => ({ anchor: i.href, collection: back })), { anchor: l.apiUrl, describes: back }],
  };
}
