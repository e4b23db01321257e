/**
 * Configuration of the requests service: the platform's base variables plus the saga wait, the
 * expiry job, comment limits, locking and the communities cache. Loaded once in `main.ts`;
 * never read at import time.
 */
import { type ConfigOf, type EnvProperty, baseConfigProperties } from '@rdm/platform';

/** Environment variables the requests service reads. */
export const configProperties = {
  ...baseConfigProperties,
  PORT: { type: 'integer', default: 5105, minimum: 0, maximum: 65535 },
  REQUEST_EFFECT_WAIT_MS: {
    type: 'integer',
    default: 10_000,
    minimum: 0,
    maximum: 120_000,
    description:
      'How long an accept (or auto-accepting submit) waits for the effect event of another service before answering the pending state.',
  },
  REQUESTS_EXPIRY_INTERVAL_MS: {
    type: 'integer',
    default: 60_000,
    minimum: 100,
    description: 'How often the expiry job expires open requests whose expires_at has passed.',
  },
  REQUESTS_LOCKING_ENABLED: { type: 'boolean', default: false, description: 'Serve lock/unlock (403 while off, as InvenioRDM).' },
  REQUESTS_COMMENT_MAX_LENGTH: {
    type: 'integer',
    default: 100_000,
    minimum: 1,
    description: 'Maximum characters of a comment `payload.content` (400 over it).',
  },
  COMMUNITIES_CACHE_TTL_MS: {
    type: 'integer',
    default: 5000,
    minimum: 0,
    description: 'How long community roles and summaries from the communities service are reused (membership events drop them earlier).',
  },
  RPC_TIMEOUT_MS: { type: 'integer', default: 2000, minimum: 50, description: 'Timeout of calls to other services.' },
} as const satisfies Record<string, EnvProperty>;

/** The frozen configuration of the requests service. */
export type RequestsConfig = ConfigOf<typeof configProperties>;
