/**
 * The interoperability routes of the records service: export formats with content negotiation
 * (export/), the OAI-PMH endpoint (oai/), FAIR signposting (`Link` header, linkset format) and the
 * sitemap (sitemap/). It stands above those folders, so none of them imports another's routes.
 *
 * When to use: `registerInteropRoutes(router, deps)` is the ONE call app.ts makes (before the
 * records routes, so that the negotiating `GET /api/records/:id` handler runs first). See INTEROP.md.
 */
import type { AppState, Knex, Logger, Router } from '@rdm/platform';
import { OaiProvider } from '../oai/oai.service.js';
import { registerOaiRoutes } from '../oai/oai.routes.js';
import { type CommunityLookup, OaiSets } from '../oai/sets.js';
import { registerSitemapRoutes } from '../sitemap/sitemap.routes.js';
import { type CitationPool, sharedCitationPool } from '../export/citation-pool.js';
import { registerExportRoutes } from '../export/export.routes.js';
import { describedByTypes } from '../export/formats.js';
import { landingLinks, linkHeader } from '../export/signposting.js';
import type { PropsLookup, RecordJson } from '../export/util.js';
import type { PublishedRecordReader } from '../export/reader.js';
import { VocabPropsCache, type VocabResolver } from '../export/vocab-props.js';

/** What the interoperability routes need (a subset of the app's deps plus the records service). */
export interface InteropDeps {
  config: {
    PUBLIC_BASE_URL: string;
    IDENTITY_SECRET: string;
    DOI_RESOLVER_URL: string;
    SITE_NAME: string;
    /** Optional: OAI-PMH `adminEmail` (default `admin@<host of PUBLIC_BASE_URL>`). */
    OAI_ADMIN_EMAIL?: string;
    /** Optional: the `datacentreSymbol` of `oai_datacite` (default SITE_NAME). */
    DATACITE_DATACENTER_SYMBOL?: string;
    /** Optional: items per OAI-PMH ListRecords page (default 100). */
    OAI_PAGE_SIZE?: number;
    /** Optional: URLs per sitemap file (default 50,000, the protocol's limit). */
    SITEMAP_MAX_URLS?: number;
    /** Optional: citation worker threads (default 1). */
    CITATION_WORKERS?: number;
    /** Optional: citation renderings waiting beyond those running (default 16). */
    CITATION_QUEUE_MAX?: number;
    /** Optional: longest wait for one citation (default 30 s). */
    CITATION_TIMEOUT_MS?: number;
  };
  logger: Logger;
  db: Knex;
  service: PublishedRecordReader;
  vocabularies?: VocabResolver;
  communities?: CommunityLookup;
  /** Where formatted citations are rendered; default the process's pool (`sharedCitationPool`) with the configured bounds. */
  citations?: CitationPool;
}

/** The OAI-PMH `adminEmail`: configured, else `admin@<host>` (a dotted host, as the OAI schema requires). */
export function adminEmailOf(config: InteropDeps['config']): string {
  if (config.OAI_ADMIN_EMAIL) return config.OAI_ADMIN_EMAIL;
  const host = new URL(config.PUBLIC_BASE_URL).hostname;
  return `admin@${host.includes('.') ? host : `${host}.localdomain`}`;
}

/** The signposting `Link` header of a record read; `complete` false when vocabulary props were not at hand in time (do not cache it). */
export type SignpostingHeader = (record: RecordJson) => Promise<{ link: string; complete: boolean }>;

/** How long a record read waits for the resource type's props (a cache miss asks vocabularies). */
const PROPS_WAIT_MS = 150;

/** Register the export routes and `/oai2d`; returns the OAI provider (tests, benchmarks), the signposting header of record reads and the citation pool (warmed by main.ts). */
export function registerInteropRoutes(
  router: Router<AppState>,
  deps: InteropDeps,
): { oai: OaiProvider; signposting: SignpostingHeader; citations: CitationPool } {
  const c = deps.config;
  const citations =
    deps.citations ??
    sharedCitationPool({
      workers: c.CITATION_WORKERS ?? 1,
      queueMax: c.CITATION_QUEUE_MAX ?? 16,
      timeoutMs: c.CITATION_TIMEOUT_MS ?? 30_000,
      logger: deps.logger,
    });
  const props = new VocabPropsCache(deps.vocabularies, { logger: deps.logger });
  const described = describedByTypes();
  const signposting: SignpostingHeader = async (record) => {
    // Why bounded: a published-record read never waits on another service; past the bound the
    // header goes without the schema.org type (the lookup still fills the cache for the next read).
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((r) => {
      timer = setTimeout(() => r(undefined), PROPS_WAIT_MS);
    });
    const lookup: PropsLookup | undefined = await Promise.race([props.lookupFor([record]), late]);
    clearTimeout(timer);
    const ctx = { baseUrl: c.PUBLIC_BASE_URL, siteName: c.SITE_NAME, doiResolverUrl: c.DOI_RESOLVER_URL, props: lookup ?? (() => ({})) };
    return { link: linkHeader(landingLinks(record, ctx, described)), complete: lookup !== undefined };
  };
  registerExportRoutes(router, {
    reader: deps.service,
    props,
    baseUrl: c.PUBLIC_BASE_URL,
    doiResolverUrl: c.DOI_RESOLVER_URL,
    siteName: c.SITE_NAME,
    datacentreSymbol: c.DATACITE_DATACENTER_SYMBOL,
    logger: deps.logger,
    citations,
  });
  const oai = new OaiProvider({
    db: deps.db,
    sets: new OaiSets(deps.db, deps.communities),
    props,
    config: {
      baseUrl: c.PUBLIC_BASE_URL,
      secret: c.IDENTITY_SECRET,
      repositoryName: c.SITE_NAME,
      adminEmail: adminEmailOf(c),
      doiResolverUrl: c.DOI_RESOLVER_URL,
      datacentreSymbol: c.DATACITE_DATACENTER_SYMBOL,
      pageSize: c.OAI_PAGE_SIZE,
    },
  });
  registerOaiRoutes(router, oai);
  registerSitemapRoutes(router, { db: deps.db, baseUrl: c.PUBLIC_BASE_URL, maxUrls: c.SITEMAP_MAX_URLS });
  return { oai, signposting, citations };
}
