/**
 * Configuration of the webhooks service: the platform's base variables plus the secret-encryption
 * key, the target rules (plain http, allowed address ranges), delivery timing (timeout, backoff,
 * retry period, auto-disable) and concurrency. Loaded once in main.ts; never read at import time.
 */
import { ConfigError, type ConfigOf, type EnvProperty, baseConfigProperties, loadConfig } from '@rdm/platform';

/** Development key encrypting the signing secrets at rest; production sets its own. */
export const DEVELOPMENT_SECRET_KEY = 'dev-webhooks-secret-key-change-me';

/** Environment variables the webhooks service reads. */
export const configProperties = {
  ...baseConfigProperties,
  PORT: { type: 'integer', default: 5108, minimum: 0, maximum: 65535 },
  WEBHOOKS_SECRET_KEY: {
    type: 'string',
    default: DEVELOPMENT_SECRET_KEY,
    minLength: 16,
    description:
      'Key encrypting the subscriptions’ signing secrets at rest (AES-256-GCM over its SHA-256). Changing it makes stored secrets unreadable.',
  },
  WEBHOOKS_ALLOW_HTTP: {
    type: 'boolean',
    default: false,
    description: 'Accept `http://` targets (development, tests); otherwise only `https://`.',
  },
  WEBHOOKS_ALLOWED_CIDRS: {
    type: 'string',
    default: '',
    pattern: '^[0-9a-fA-F.:/, ]*$',
    description:
      'Comma-separated address ranges a target may resolve to although private/loopback/link-local (e.g. `127.0.0.0/8` for tests). Empty: none.',
  },
  WEBHOOKS_TIMEOUT_MS: {
    type: 'integer',
    default: 10000,
    minimum: 100,
    description: 'Timeout of one delivery attempt (connect to last byte).',
  },
  WEBHOOKS_BACKOFF_BASE_MS: {
    type: 'integer',
    default: 5000,
    minimum: 1,
    description: 'First retry delay; each next one doubles (full jitter), capped at WEBHOOKS_BACKOFF_MAX_MS.',
  },
  WEBHOOKS_BACKOFF_MAX_MS: { type: 'integer', default: 3_600_000, minimum: 1, description: 'Longest delay between two attempts.' },
  WEBHOOKS_RETRY_PERIOD_S: {
    type: 'integer',
    default: 259_200,
    minimum: 0,
    description: 'A delivery is retried until this many seconds after its first attempt, then marked failed (default 3 days).',
  },
  WEBHOOKS_DISABLE_AFTER_FAILURES: {
    type: 'integer',
    default: 50,
    minimum: 1,
    description: 'Consecutive failed attempts of a subscription after which it is disabled and its owner told by e-mail.',
  },
  WEBHOOKS_CONCURRENCY: {
    type: 'integer',
    default: 32,
    minimum: 1,
    description: 'Attempts in flight per process, over all subscriptions.',
  },
  WEBHOOKS_SUBSCRIPTION_CONCURRENCY: {
    type: 'integer',
    default: 4,
    minimum: 1,
    description: 'Attempts in flight per subscription and process.',
  },
  WEBHOOKS_CONSUMER_CONCURRENCY: {
    type: 'integer',
    default: 4,
    minimum: 1,
    maximum: 64,
    description:
      'Events each stream consumer turns into deliveries at once (events of one record parent stay in order); each holds a database connection while it runs.',
  },
  WEBHOOKS_POLL_MS: { type: 'integer', default: 250, minimum: 10, description: 'How often the worker looks for due deliveries when idle.' },
  WEBHOOKS_LEASE_MS: {
    type: 'integer',
    default: 60000,
    minimum: 1000,
    description: 'A claimed delivery whose process died is claimable again after this (longer than WEBHOOKS_TIMEOUT_MS).',
  },
  WEBHOOKS_ROTATION_OVERLAP_S: {
    type: 'integer',
    default: 86400,
    minimum: 0,
    description: 'After a secret rotation the previous secret still signs (a second signature) for this many seconds.',
  },
  RECORDS_URL: {
    type: 'string',
    default: 'http://127.0.0.1:5103',
    pattern: '^https?://',
    description: 'The records service, read as the subscriber (`GET /api/records/<id>`) to decide what a payload may carry.',
  },
  SMTP_URL: {
    type: 'string',
    default: '',
    description:
      'Outgoing mail server of the e-mails to owners of disabled webhooks (`smtp://user:pass@host:587`); empty: records’ development mail sink when MAIL_SINK=true, else no e-mail (a warning at start).',
  },
  MAIL_SINK: {
    type: 'boolean',
    default: false,
    description: 'Development only: with an empty SMTP_URL, send to records’ mail sink on MAIL_SINK_PORT.',
  },
  MAIL_SINK_PORT: {
    type: 'integer',
    default: 2525,
    minimum: 0,
    maximum: 65535,
    description: 'Port of the development mail sink (127.0.0.1).',
  },
  MAIL_FROM: { type: 'string', default: '', description: 'Sender of e-mails; empty = `noreply@<host of PUBLIC_BASE_URL>`.' },
  RPC_TIMEOUT_MS: { type: 'integer', default: 5000, minimum: 100, description: 'Timeout of calls to communities, users and records.' },
} as const satisfies Record<string, EnvProperty>;

/** The frozen configuration of the webhooks service. */
export type WebhooksConfig = ConfigOf<typeof configProperties>;

/** Load the configuration; with NODE_ENV=production the public development key is refused. */
export function loadWebhooksConfig(env: NodeJS.ProcessEnv | Record<string, string | undefined>): WebhooksConfig {
  const config = loadConfig(configProperties, env);
  if (env.NODE_ENV === 'production' && config.WEBHOOKS_SECRET_KEY === DEVELOPMENT_SECRET_KEY) {
    throw new ConfigError([
      'WEBHOOKS_SECRET_KEY: the development default is refused with NODE_ENV=production; set a random key (at least 32 characters)',
    ]);
  }
  return config;
}
