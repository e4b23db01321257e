/**
 * Configuration of the communities service: the platform's base variables plus who may create
 * communities, the logo limit and storage, membership requests and RPC timeouts.
 * `loadCommunitiesConfig(process.env)` runs once in main.ts; the frozen result is passed down.
 */
import { fileURLToPath } from 'node:url';
import { ConfigError, type ConfigOf, type EnvProperty, baseConfigProperties, loadConfig } from '@rdm/platform';

/** `<repo>/.data/communities`, the default local storage root of logos. */
export const DEFAULT_STORAGE_PATH = fileURLToPath(new URL('../../../.data/communities', import.meta.url));

/** Environment variables of the communities service. */
export const configProperties = {
  ...baseConfigProperties,
  PORT: { type: 'integer', default: 5106, minimum: 0, maximum: 65535 },
  COMMUNITY_CREATORS: {
    type: 'string',
    default: 'admins',
    enum: ['admins', 'users'],
    description: 'Who may create communities: `admins` (the spec) or `users` (any authenticated user, InvenioRDM).',
  },
  COMMUNITIES_LOGO_MAX_BYTES: { type: 'integer', default: 1_000_000, minimum: 1, description: 'Largest logo in bytes.' },
  COMMUNITIES_ALLOW_MEMBERSHIP_REQUESTS: {
    type: 'boolean',
    default: true,
    description: 'Allow membership requests to communities whose `access.member_policy` is `open` (closed by default).',
  },
  COMMUNITIES_CUSTOM_FIELDS: {
    type: 'string',
    default: '',
    description:
      "InvenioRDM's COMMUNITIES_CUSTOM_FIELDS as a JSON array of `{name, type, multiple?, vocabulary?, fields?, max_length?, max_items?}` " +
      "(the format of records' RDM_CUSTOM_FIELDS; every type but `edtf`); empty = none configured, so every `custom_fields` key is `Unknown field.`.",
  },
  COMMUNITIES_CUSTOM_FIELDS_MAX_BYTES: {
    type: 'integer',
    default: 65536,
    minimum: 2,
    description: 'Largest `custom_fields` of a community (bytes of its JSON); larger is a 400 on `custom_fields`.',
  },
  COMMUNITIES_STORAGE: { type: 'string', default: 'local', enum: ['local', 's3'], description: 'Storage engine of logos.' },
  COMMUNITIES_STORAGE_PATH: {
    type: 'string',
    default: DEFAULT_STORAGE_PATH,
    minLength: 1,
    description: 'Root folder of the local engine.',
  },
  S3_ENDPOINT: {
    type: 'string',
    default: 'http://127.0.0.1:9000',
    pattern: '^https?://',
    description: 'S3 endpoint (COMMUNITIES_STORAGE=s3).',
  },
  S3_ACCESS_KEY: { type: 'string', description: 'S3 access key (required with COMMUNITIES_STORAGE=s3).' },
  S3_SECRET_KEY: { type: 'string', description: 'S3 secret key (required with COMMUNITIES_STORAGE=s3).' },
  COMMUNITIES_S3_BUCKET: { type: 'string', default: 'rdm-communities', minLength: 3, description: 'S3 bucket of logos.' },
  S3_REGION: { type: 'string', default: 'us-east-1', minLength: 1 },
  RPC_TIMEOUT_MS: { type: 'integer', default: 5000, minimum: 100, description: 'Timeout of calls to users, vocabularies and requests.' },
} as const satisfies Record<string, EnvProperty>;

/** The loaded configuration. */
export type CommunitiesConfig = ConfigOf<typeof configProperties>;

/** Load and cross-check the configuration (S3 credentials only for the s3 engine). */
export function loadCommunitiesConfig(env: NodeJS.ProcessEnv | Record<string, string | undefined>): CommunitiesConfig {
  const config = loadConfig(configProperties, env);
  if (config.COMMUNITIES_STORAGE === 's3') {
    const missing = (['S3_ACCESS_KEY', 'S3_SECRET_KEY'] as const).filter((k) => !config[k]);
    if (missing.length > 0) throw new ConfigError(missing.map((k) => `${k}: must be set when COMMUNITIES_STORAGE=s3`));
  }
  return config;
}
