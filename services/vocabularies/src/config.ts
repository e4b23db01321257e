/** Configuration of the vocabularies service (environment variables, validated once in main.ts). */
import { baseConfigProperties, type ConfigOf, type EnvProperty } from '@rdm/platform';

/** Environment variables read by the vocabularies service. */
export const configProperties = {
  ...baseConfigProperties,
  PORT: { type: 'integer', default: 5102, minimum: 1, maximum: 65535 },
  ENTRY_CACHE_SIZE: {
    type: 'integer',
    default: 2000,
    minimum: 0,
    description: 'Serialized entries kept in memory (LRU) for single-entry reads and the resolve RPC; 0 disables.',
  },
  ENTRY_CACHE_TTL_MS: {
    type: 'integer',
    default: 60000,
    minimum: 0,
    description: 'Longest time a cached entry is served without a reload event (safety net if an event is missed).',
  },
  LOAD_FIXTURES: { type: 'boolean', default: true, description: '`migrate` also loads the shipped vocabulary fixtures.' },
} as const satisfies Record<string, EnvProperty>;

/** The typed configuration. */
export type Config = ConfigOf<typeof configProperties>;
