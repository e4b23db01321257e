/**
 * The public routing table, as data: every path the API serves, its methods and the service that
 * owns it (DESIGN §2). The gateway compiles it once (route-matcher.ts) to route requests, to answer
 * 404 for unknown paths and 405 (with `Allow`) for known paths called with a wrong method, and to
 * build the base OpenAPI document.
 *
 * A service that declares its routes (`src/http/routes.decl.ts`, the platform's route-table.ts)
 * has them generated into routes.generated.ts by `pnpm gen:contracts`; only the others are
 * written here by hand.
 *
 * When to edit: a service without a route table adds or removes a public route. Keep patterns in spec form:
 * `{name}` is one path segment, `{name+}` one or more segments (file keys and vocabulary ids may
 * contain `/`). A path may match several patterns; the allowed methods are their union.
 */

import { GENERATED_ROUTES } from './routes.generated.js';

export { DECLARING_SERVICES } from './routes.generated.js';

/** The services behind the gateway. */
export const SERVICES = ['users', 'vocabularies', 'records', 'files', 'requests', 'communities'] as const;
/** Name of one service. */
export type ServiceName = (typeof SERVICES)[number];

/** Methods a route can allow (HEAD follows GET; OPTIONS is answered by the gateway). */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One public route. */
export interface RouteSpec {
  /** Path pattern, e.g. `/api/records/{id}/draft/files/{key+}/content`. */
  pattern: string;
  /** Methods served (the owning service is still the final judge). */
  methods: Method[];
  /** Owning service. */
  service: ServiceName;
  /** Raw-byte uploads (PUT/POST): no body limit at the gateway, no response-headers timeout. */
  upload?: boolean;
  /** GET is a search: documents `q`, `page`, `size`, `sort`. */
  list?: boolean;
  /** One-line description for the OpenAPI document. */
  summary?: string;
}

const R = '/api/records/{id}';

/** The routes of the services that do not declare a route table yet (hand-written). */
const HAND_ROUTES: readonly RouteSpec[] = [
  // ── records ────────────────────────────────────────────────────────────────────────────────
  {
    pattern: '/api/records',
    methods: ['GET', 'POST'],
    service: 'records',
    list: true,
    summary: 'Search published records or create a draft',
  },
  { pattern: R, methods: ['GET'], service: 'records', summary: 'Read a published record' },
  { pattern: `${R}/delete`, methods: ['POST', 'DELETE'], service: 'records', summary: 'Delete a record (administrators)' },
  { pattern: `${R}/restore`, methods: ['POST'], service: 'records', summary: 'Restore a deleted record (administrators)' },
  {
    pattern: `${R}/draft`,
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    service: 'records',
    summary: 'Read, edit, update or discard the draft',
  },
  {
    pattern: `${R}/draft/pids/{scheme}`,
    // No GET: it told anyone whether a draft exists (records serves POST and DELETE only).
    methods: ['POST', 'DELETE'],
    service: 'records',
    summary: 'Reserve or discard a persistent identifier',
  },
  {
    pattern: `${R}/draft/actions/{action}`,
    methods: ['POST'],
    service: 'records',
    summary: 'Run a draft action (publish, submit-review, files-import…)',
  },
  { pattern: `${R}/draft/review`, methods: ['GET', 'PUT', 'DELETE'], service: 'records', summary: "The draft's review request" },
  { pattern: `${R}/report-abuse`, methods: ['POST'], service: 'records', summary: 'Report abuse of a record' },
  { pattern: `${R}/versions`, methods: ['GET', 'POST'], service: 'records', list: true, summary: 'List versions or create a new version' },
  { pattern: `${R}/versions/latest`, methods: ['GET'], service: 'records', summary: 'The latest version' },
  {
    pattern: `${R}/export/{format}`,
    methods: ['GET'],
    service: 'records',
    summary: 'The record in an export format (DataCite, schema.org, CSL, BibTeX, DC, MARC21, DCAT-AP, GeoJSON)',
  },
  { pattern: `${R}/access`, methods: ['PUT', 'PATCH'], service: 'records', summary: 'Access settings of the record' },
  { pattern: `${R}/access/links`, methods: ['GET', 'POST'], service: 'records', summary: 'List or create secret access links' },
  {
    pattern: `${R}/access/links/{link_id}`,
    methods: ['GET', 'PATCH', 'DELETE'],
    service: 'records',
    summary: 'Read, update or revoke an access link',
  },
  { pattern: `${R}/access/grants`, methods: ['GET', 'POST'], service: 'records', summary: 'Access grants' },
  { pattern: `${R}/access/grants/{grant_id}`, methods: ['GET', 'PATCH', 'DELETE'], service: 'records', summary: 'One access grant' },
  { pattern: `${R}/access/users`, methods: ['GET', 'POST'], service: 'records', summary: 'Users with access' },
  { pattern: `${R}/access/users/{user_id}`, methods: ['GET', 'PATCH', 'DELETE'], service: 'records', summary: 'Access of one user' },
  {
    pattern: `${R}/access/request`,
    methods: ['POST'],
    service: 'records',
    summary: 'Ask the owner for access (signed in: a user-access-request; anonymous: a verification e-mail)',
  },
  {
    pattern: `${R}/access/request/confirm`,
    methods: ['GET', 'POST'],
    service: 'records',
    summary: "Confirm a guest's e-mail (?access_request_token=): creates the guest-access-request",
  },
  { pattern: `${R}/communities`, methods: ['GET', 'POST', 'DELETE'], service: 'records', list: true, summary: "The record's communities" },
  {
    pattern: `${R}/communities-suggestions`,
    methods: ['GET'],
    service: 'records',
    list: true,
    summary: 'Communities the record could join',
  },
  { pattern: '/api/user/records', methods: ['GET'], service: 'records', list: true, summary: "The caller's drafts and records" },
  {
    pattern: '/api/communities/{id}/records',
    methods: ['GET', 'DELETE'],
    service: 'records',
    list: true,
    summary: "A community's records",
  },
  // Why outside /api: OAI-PMH harvesters (OpenAIRE, BASE) expect InvenioRDM's base URL `/oai2d`.
  { pattern: '/oai2d', methods: ['GET', 'POST'], service: 'records', summary: 'OAI-PMH 2.0 provider (all six verbs)' },
  // Why outside /api: crawlers read `/sitemap.xml` at the site root (sitemaps.org; robots.txt).
  { pattern: '/sitemap.xml', methods: ['GET'], service: 'records', summary: 'Sitemap of the public records' },
  { pattern: '/sitemaps/{name}', methods: ['GET'], service: 'records', summary: 'One page of the sitemap index' },
];

/** Every public route of the API: the generated ones (routes.generated.ts), then the hand-written ones. */
export const ROUTES: readonly RouteSpec[] = [...GENERATED_ROUTES, ...HAND_ROUTES];
