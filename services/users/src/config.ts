/**
 * Configuration of the users service: the platform's base variables plus the port and the
 * token bookkeeping interval. Loaded once in `main.ts` / `cli.ts`; never read at import time.
 */
import { type ConfigOf, type EnvProperty, baseConfigProperties } from '@rdm/platform';

/** Environment variables the users service reads. */
export const configProperties = {
  ...baseConfigProperties,
  PORT: { type: 'integer', default: 5101, minimum: 1, maximum: 65535 },
  TOKEN_LAST_USED_INTERVAL_S: {
    type: 'integer',
    default: 60,
    minimum: 1,
    description: "A token's last_used_at is written at most once per this many seconds.",
  },
} as const satisfies Record<string, EnvProperty>;

/** The frozen configuration of the users service. */
export type UsersConfig = ConfigOf<typeof configProperties>;
