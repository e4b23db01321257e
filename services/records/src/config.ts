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
  OAI_ID_PREFIX: {
    type: 'string',
    default: '',
    description: 'OAI identifier namespace (`oai:<prefix>:<id>`); empty = the host of PUBLIC_BASE_URL.',
  },
  SITE_NAME: { type: 'string', default: 'Invenio', description: 'Name used in "The prefix … is managed by <site>" messages.' },
  RESTRICTION_GRACE_PERIOD_DAYS: {
    type: 'integer',
    default: 30,
    minimum: 0,
    description: 'Days after a draft was created during which a public record may still be made restricted.',
  },
  ALLOW_RESTRICTION_AFTER_GRACE_PERIOD: { type: 'boolean', default: false },
  REQUESTS_RPC_TIMEOUT_MS: { type: 'integer', default: 5000, minimum: 50, description: 'Timeout of rdm.requests.rpc.create/get/delete.' },
  REQUESTS_ACTION_TIMEOUT_MS: {
    type: 'integer',
    default: 15000,
    minimum: 50,
    description:
      'Timeout of rdm.requests.rpc.action (submit-review waits for an auto-accepted publication): keep it above REQUEST_EFFECT_WAIT_MS of requests.',
  },
  COMMUNITIES_ROLES_TTL_MS: {
    type: 'integer',
    default: 5000,
    minimum: 0,
    description: 'How long community roles are cached (dropped on membership events).',
  },
  FILES_RPC_TIMEOUT_MS: { type: 'integer', default: 5000, minimum: 50, description: 'Timeout of rdm.files.rpc.* calls.' },
} as const satisfies Record<string, EnvProperty>;

/** The records service configuration. */
export type RecordsConfig = ConfigOf<typeof configProperties>;

/** The OAI namespace: OAI_ID_PREFIX or the host of PUBLIC_BASE_URL. */
export function oaiPrefix(config: Pick<RecordsConfig, 'OAI_ID_PREFIX' | 'PUBLIC_BASE_URL'>): string {
  if (config.OAI_ID_PREFIX) return config.OAI_ID_PREFIX;
  return new URL(config.PUBLIC_BASE_URL).hostname;
}
