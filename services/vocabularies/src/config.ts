/** Configuration of the vocabularies service (environment variables, validated once in main.ts). */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  VOCABULARIES_IMPORT_DIR: {
    type: 'string',
    default: '',
    description: 'Directory the sources of import jobs created through the API must be in (empty: <tmpdir>/rdm-vocabulary-imports).',
  },
  VOCABULARIES_IMPORT_YAML_MAX_BYTES: {
    type: 'integer',
    default: 67108864,
    minimum: 1024,
    description: 'Largest YAML vocabulary file an import reads (YAML is parsed whole); larger ones fail their run (use JSON lines).',
  },
  VOCABULARIES_JOBS_POLL_MS: {
    type: 'integer',
    default: 2000,
    minimum: 10,
    description: 'Pause of the jobs worker between looks at an empty queue.',
  },
  VOCABULARIES_JOBS_LEASE_MS: {
    type: 'integer',
    default: 60000,
    minimum: 100,
    description: 'A running import whose worker gave no sign of life for this long is taken over by another worker (from its checkpoint).',
  },
  VOCABULARIES_JOBS_BATCH_SIZE: {
    type: 'integer',
    default: 1000,
    minimum: 1,
    maximum: 10000,
    description: 'Source entries applied per transaction (and per checkpoint) by an import run.',
  },
} as const satisfies Record<string, EnvProperty>;

/** The directory of API-named import sources. */
export function importDirOf(config: Pick<Config, 'VOCABULARIES_IMPORT_DIR'>): string {
  return config.VOCABULARIES_IMPORT_DIR || join(tmpdir(), 'rdm-vocabulary-imports');
}

/** The typed configuration. */
export type Config = ConfigOf<typeof configProperties>;
