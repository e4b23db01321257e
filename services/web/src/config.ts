/**
 * Configuration of the web service (the landing pages): the platform's base variables, the port,
 * the internal URLs of the services whose public API it reads (as the gateway has them), and the
 * bounds of its page cache and API calls. Loaded once in main.ts; never read at import time.
 */
import { DEFAULT_PORTS } from '@rdm/contracts';
import { type ConfigOf, type EnvProperty, baseConfigProperties } from '@rdm/platform';

const url = (port: number, service: string): EnvProperty => ({
  type: 'string',
  default: `http://127.0.0.1:${port}`,
  pattern: '^https?://[^/]+$',
  description: `Internal base URL of the ${service} service (no trailing slash); the pages read its public API there as the caller.`,
});

/** Environment variables the web service reads. */
export const configProperties = {
  ...baseConfigProperties,
  PORT: { type: 'integer', default: DEFAULT_PORTS.web, minimum: 0, maximum: 65535 },
  RECORDS_URL: url(DEFAULT_PORTS.records, 'records'),
  FILES_URL: url(DEFAULT_PORTS.files, 'files'),
  COMMUNITIES_URL: url(DEFAULT_PORTS.communities, 'communities'),
  WEB_API_TIMEOUT_MS: {
    type: 'integer',
    default: 10000,
    minimum: 50,
    description: 'Longest wait for one API answer while rendering a page; then the page answers 503.',
  },
  WEB_PAGE_CACHE_MAX: {
    type: 'integer',
    default: 1000,
    minimum: 0,
    description: 'Rendered record pages kept for anonymous visitors (LRU, keyed by record id and revision; 0 = no cache).',
  },
  WEB_PAGE_CACHE_TTL_MS: {
    type: 'integer',
    default: 60000,
    minimum: 0,
    description:
      "Longest reuse of a cached page whose record revision is unchanged (versions, files and communities do not bump the record's revision).",
  },
} as const satisfies Record<string, EnvProperty>;

/** The frozen configuration of the web service. */
export type WebConfig = ConfigOf<typeof configProperties>;
