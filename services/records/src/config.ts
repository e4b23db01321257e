/** Configuration of the records service (environment variables, validated once in main.ts). */
import { baseConfigProperties, type ConfigOf, type EnvProperty } from '@rdm/platform';

/** Every variable the records service reads. */
export const configProperties = {
  ...baseConfigProperties,
  PORT: { type: 'integer', default: 5103, minimum: 1, maximum: 65535 },
  DOI_PREFIX: {
    type: 'string',
    default: '10.1234',
    pattern: '^10\\.\\d{4,9}$',
    description: 'Local (managed) DOI prefix: reserved DOIs are `<prefix>/<record id>`.',
  },
  DOI_RESOLVER_URL: {
    type: 'string',
    default: 'https://doi.org',
    pattern: '^https?://[^/]+(/.*[^/])?$',
    description: 'Base of `links.doi`/`self_doi`/`parent_doi` (https://handle.test.datacite.org in DataCite test mode).',
  },
  DOI_PROVIDER: {
    type: 'string',
    enum: ['local', 'datacite'],
    default: 'local',
    description: '`local`: managed DOIs are registered in this database only; `datacite`: also registered at DataCite (src/datacite/).',
  },
  DATACITE_URL: {
    type: 'string',
    default: 'https://api.test.datacite.org',
    pattern: '^https?://',
    description: "DataCite's REST API (the test service by default; https://api.datacite.org in production).",
  },
  DATACITE_PREFIX: {
    type: 'string',
    default: '',
    pattern: '^(10\\.\\d{4,9})?$',
    description: 'DOI prefix of the DataCite repository; empty = DOI_PREFIX.',
  },
  DATACITE_USERNAME: {
    type: 'string',
    default: '',
    description: 'DataCite repository id (e.g. `ABCD.EFGH`); required with DOI_PROVIDER=datacite.',
  },
  DATACITE_PASSWORD: { type: 'string', default: '', description: 'DataCite repository password; required with DOI_PROVIDER=datacite.' },
  DATACITE_TIMEOUT_MS: { type: 'integer', default: 10000, minimum: 100, description: 'Timeout of one DataCite call (then retried).' },
  OAI_ID_PREFIX: {
    type: 'string',
    default: '',
    description: 'OAI identifier namespace (`oai:<prefix>:<id>`); empty = the host of PUBLIC_BASE_URL.',
  },
  SITE_NAME: { type: 'string', default: 'Invenio', description: 'Name used in "The prefix … is managed by <site>" messages.' },
  CITATION_WORKERS: {
    type: 'integer',
    default: 1,
    minimum: 1,
    maximum: 8,
    description:
      'Worker threads rendering formatted citations (`text/x-bibliography`): compiling a CSL style is seconds of CPU, kept off the event loop.',
  },
  CITATION_QUEUE_MAX: {
    type: 'integer',
    default: 16,
    minimum: 0,
    maximum: 1000,
    description: 'Citation renderings waiting for a worker; one more answers 503 with Retry-After.',
  },
  CITATION_TIMEOUT_MS: {
    type: 'integer',
    default: 30000,
    minimum: 100,
    description: 'Longest wait for one formatted citation (queue included); then 503 with Retry-After.',
  },
  OAI_ADMIN_EMAIL: { type: 'string', default: '', description: 'OAI-PMH Identify adminEmail; empty = admin@<host of PUBLIC_BASE_URL>.' },
  OAI_PAGE_SIZE: {
    type: 'integer',
    default: 100,
    minimum: 1,
    maximum: 1000,
    description: 'Records per OAI-PMH page (identifiers: five times as many).',
  },
  DATACITE_DATACENTER_SYMBOL: {
    type: 'string',
    default: '',
    description: '`datacentreSymbol` of the `oai_datacite` export; empty = SITE_NAME.',
  },
  SITEMAP_MAX_URLS: {
    type: 'integer',
    default: 50000,
    minimum: 1,
    maximum: 50000,
    description: 'URLs per sitemap file (the protocol allows 50,000); beyond, /sitemap.xml is an index of pages.',
  },
  RESTRICTION_GRACE_PERIOD_DAYS: {
    type: 'integer',
    default: 30,
    minimum: 0,
    description: 'Days after a draft was created during which a public record may still be made restricted.',
  },
  ALLOW_RESTRICTION_AFTER_GRACE_PERIOD: { type: 'boolean', default: false },
  RECORDS_DELETION_GRACE_PERIOD_DAYS: {
    type: 'integer',
    default: 30,
    minimum: 0,
    description:
      "Days after a record's publication during which its owner's deletion request is accepted at once (records without an external DOI); later, an administrator decides.",
  },
  RECORDS_FILE_MODIFICATION_GRACE_PERIOD_DAYS: {
    type: 'integer',
    default: 30,
    minimum: 0,
    description:
      "Days after a record's publication during which its owner's file-modification request (InvenioRDM 13+) is accepted at once, unlocking the files of the published version; later, an administrator decides.",
  },
  ALLOW_RESTRICTED_RECORDS: {
    type: 'boolean',
    default: true,
    description:
      "InvenioRDM's RDM_ALLOW_RESTRICTED_RECORDS: false = only administrators may set a draft's access (anyone else: 400 on `access`).",
  },
  RDM_CUSTOM_FIELDS: {
    type: 'string',
    default: '',
    description:
      "InvenioRDM's RDM_CUSTOM_FIELDS as a JSON array of `{name, type, multiple?, vocabulary?, fields?, max_length?, max_items?}` (src/domain/custom-fields.ts); empty = none configured, so every `custom_fields` key is `Unknown field.`.",
  },
  CUSTOM_FIELDS_MAX_BYTES: {
    type: 'integer',
    default: 65536,
    minimum: 2,
    description: 'Largest `custom_fields` (bytes of JSON) a draft write may carry; larger → 400 on `custom_fields`.',
  },
  REQUESTS_RPC_TIMEOUT_MS: { type: 'integer', default: 5000, minimum: 50, description: 'Timeout of rdm.requests.rpc.create/get/delete.' },
  REQUESTS_ACTION_TIMEOUT_MS: {
    type: 'integer',
    default: 15000,
    minimum: 50,
    description:
      'Timeout of rdm.requests.rpc.action (submit-review waits for an auto-accepted publication): keep it above REQUEST_EFFECT_WAIT_MS of requests.',
  },
  STATS_ENABLED: {
    type: 'boolean',
    default: true,
    description:
      'Usage statistics: count record views (publish `rdm.stats.record.viewed`) and show live `stats`; false: no view is counted and `stats` stays zero (the files service has its own switch for downloads).',
  },
  FILES_RPC_TIMEOUT_MS: { type: 'integer', default: 5000, minimum: 50, description: 'Timeout of rdm.files.rpc.* calls.' },
  EMBARGO_LIFT_INTERVAL_MS: {
    type: 'integer',
    default: 60000,
    minimum: 0,
    description: 'How often expired embargoes are lifted (jobs/embargo.job.ts; also once at start); 0 disables the job.',
  },
  SMTP_URL: {
    type: 'string',
    default: '',
    description:
      'Outgoing mail server (`smtp://user:pass@host:587`, `smtps://…:465`); empty: the development mail sink when MAIL_SINK=true, otherwise the service refuses to start.',
  },
  MAIL_SINK: {
    type: 'boolean',
    default: false,
    description:
      'Development only: with an empty SMTP_URL, start the mail sink (`.eml` files under MAIL_SINK_DIR, nothing is delivered). Never a silent fallback: without SMTP_URL and without MAIL_SINK=true the service does not start.',
  },
  ABUSE_EMAIL_TO: {
    type: 'string',
    default: '',
    description: 'Comma-separated recipients of abuse reports; empty = `abuse@<host of PUBLIC_BASE_URL>` (no RPC lists administrators).',
  },
  ABUSE_REPORTS_PER_WINDOW: {
    type: 'integer',
    default: 5,
    minimum: 1,
    description: 'Abuse reports accepted per client address per ABUSE_REPORTS_WINDOW_SECONDS (then 429).',
  },
  ABUSE_REPORTS_WINDOW_SECONDS: {
    type: 'integer',
    default: 600,
    minimum: 1,
    description: 'Window of the per-address abuse-report limit.',
  },
  MAIL_FROM: { type: 'string', default: '', description: 'Sender of e-mails; empty = `noreply@<host of PUBLIC_BASE_URL>`.' },
  MAIL_SINK_DIR: {
    type: 'string',
    default: '',
    description: 'Where the development mail sink writes `.eml` files; empty = `<repository>/.data/mail`.',
  },
  MAIL_SINK_PORT: {
    type: 'integer',
    default: 2525,
    minimum: 0,
    maximum: 65535,
    description: 'Port of the development mail sink (127.0.0.1).',
  },
} as const satisfies Record<string, EnvProperty>;

/** The records service configuration. */
export type RecordsConfig = ConfigOf<typeof configProperties>;

/** The OAI namespace: OAI_ID_PREFIX or the host of PUBLIC_BASE_URL. */
export function oaiPrefix(config: Pick<RecordsConfig, 'OAI_ID_PREFIX' | 'PUBLIC_BASE_URL'>): string {
  if (config.OAI_ID_PREFIX) return config.OAI_ID_PREFIX;
  return new URL(config.PUBLIC_BASE_URL).hostname;
}

/** The managed DOI prefix: DATACITE_PREFIX with the DataCite provider (when set), else DOI_PREFIX. */
export function managedDoiPrefix(
  config: Pick<RecordsConfig, 'DOI_PREFIX'> & Partial<Pick<RecordsConfig, 'DOI_PROVIDER' | 'DATACITE_PREFIX'>>,
): string {
  return config.DOI_PROVIDER === 'datacite' && config.DATACITE_PREFIX ? config.DATACITE_PREFIX : config.DOI_PREFIX;
}

/** Configuration errors the schema cannot say (the DataCite credentials go together with the provider). */
export function dataciteConfigErrors(config: Pick<RecordsConfig, 'DOI_PROVIDER' | 'DATACITE_USERNAME' | 'DATACITE_PASSWORD'>): string[] {
  if (config.DOI_PROVIDER !== 'datacite') return [];
  const errors: string[] = [];
  if (!config.DATACITE_USERNAME) errors.push('DATACITE_USERNAME is required with DOI_PROVIDER=datacite');
  if (!config.DATACITE_PASSWORD) errors.push('DATACITE_PASSWORD is required with DOI_PROVIDER=datacite');
  return errors;
}

/** Recipients and sender of e-mails, defaults applied. */
export function mailAddresses(config: Pick<RecordsConfig, 'ABUSE_EMAIL_TO' | 'MAIL_FROM' | 'PUBLIC_BASE_URL'>): {
  to: string[];
  from: string;
} {
  const host = new URL(config.PUBLIC_BASE_URL).hostname;
  const to = config.ABUSE_EMAIL_TO.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return { to: to.length ? to : [`abuse@${host}`], from: config.MAIL_FROM || `noreply@${host}` };
}
