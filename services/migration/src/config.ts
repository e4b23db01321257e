/**
 * Configuration of the migration tool (issue 26): the platform's base variables (DATABASE_URL,
 * NATS_URL, IDENTITY_SECRET, LOG_LEVEL…) plus where the files service listens and how gently to
 * read the source. The source URL and token are arguments of a run, never settings.
 */
import { type ConfigOf, type EnvProperty, baseConfigProperties } from '@rdm/platform';

/** Environment variables the migration tool reads. */
export const configProperties = {
  ...baseConfigProperties,
  PORT: { type: 'integer', default: 5109, minimum: 0, maximum: 65535 },
  FILES_URL: {
    type: 'string',
    default: 'http://127.0.0.1:5104',
    pattern: '^https?://',
    description: 'The files service, called directly for its internal import route (file bytes streamed from the source).',
  },
  MIGRATION_SOURCE_RATE: {
    type: 'number',
    default: 10,
    minimum: 0,
    description: 'Requests per second towards the source InvenioRDM at most (0: unpaced), so that it keeps serving.',
  },
  MIGRATION_PAGE_SIZE: { type: 'integer', default: 50, minimum: 1, maximum: 100, description: 'Records per page of the source listing.' },
  MIGRATION_RPC_TIMEOUT_MS: {
    type: 'integer',
    default: 120_000,
    minimum: 1000,
    description: "Timeout of records' import RPC (a record with many versions resolves vocabularies and locks a bucket per version).",
  },
} as const satisfies Record<string, EnvProperty>;

/** The frozen configuration of the migration tool. */
export type MigrationConfig = ConfigOf<typeof configProperties>;
