/**
 * Configuration from environment variables, validated once at start-up.
 *
 * `loadConfig(schema, process.env)` runs in `main.ts` only; the frozen result is passed down.
 * ajv coerces strings to numbers/booleans and applies defaults; every bad variable is listed
 * in one `ConfigError`, so an operator fixes them all in one go.
 */
import { Ajv } from 'ajv';

/** The identity secret of development and tests (public: production refuses to start with it). */
export const DEVELOPMENT_IDENTITY_SECRET = 'dev-identity-secret-change-me';

/** JSON Schema of one environment variable. */
export type EnvProperty = {
  type: 'string' | 'integer' | 'number' | 'boolean';
  default?: unknown;
  description?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  format?: string;
};

/** Thrown when one or more variables are invalid; `problems` lists all of them. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Variables every service reads. */
export const baseConfigProperties = {
  NODE_ENV: { type: 'string', default: 'development', enum: ['development', 'production', 'test'] },
  LOG_LEVEL: { type: 'string', default: 'info', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
  HOST: { type: 'string', default: '127.0.0.1', description: 'Interface to listen on.' },
  DATABASE_URL: {
    type: 'string',
    default: 'postgres://rdm:rdm@127.0.0.1:5432/rdm',
    pattern: '^postgres(ql)?://',
    description: 'PostgreSQL connection (a role allowed to SET ROLE to rdm_<service>).',
  },
  DATABASE_POOL_MAX: { type: 'integer', default: 10, minimum: 1, maximum: 200 },
  NATS_URL: { type: 'string', default: 'nats://127.0.0.1:4222', pattern: '^(nats|tls)://' },
  PUBLIC_BASE_URL: {
    type: 'string',
    default: 'http://127.0.0.1:5000',
    pattern: '^https?://[^/]+(/.*[^/])?$',
    description: 'Public site URL; every `links` URL is built from it (no trailing slash).',
  },
  IDENTITY_SECRET: {
    type: 'string',
    default: DEVELOPMENT_IDENTITY_SECRET,
    minLength: 16,
    description: 'Shared HMAC secret signing the identity header between gateway and services.',
  },
  SHUTDOWN_TIMEOUT_MS: { type: 'integer', default: 10000, minimum: 0 },
  SHUTDOWN_DRAIN_DELAY_MS: {
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: 60000,
    description:
      'After SIGTERM, keep accepting connections this long while /readyz answers 503, then drain (Kubernetes: a few seconds, so that no connection reaches a closed port before the pod leaves the endpoints).',
  },
  HTTP_HEADERS_TIMEOUT_MS: { type: 'integer', default: 20000, minimum: 1000, description: 'Longest wait for a request head (then 408).' },
  HTTP_REQUEST_TIMEOUT_MS: {
    type: 'integer',
    default: 3600000,
    minimum: 0,
    description: 'Longest wait for a whole request, body included (then 408; 0 = none); uploads must fit in it.',
  },
  HTTP_KEEP_ALIVE_TIMEOUT_MS: {
    type: 'integer',
    default: 65000,
    minimum: 1000,
    description: 'How long an idle keep-alive connection stays open (keep it above the gateway pool idle time).',
  },
  HTTP_BODY_IDLE_TIMEOUT_MS: {
    type: 'integer',
    default: 30000,
    minimum: 0,
    description: 'A request body with no byte for this long while the service waits for it is cut (408; 0 = off).',
  },
  HTTP_BODY_MIN_BYTES_PER_SECOND: {
    type: 'integer',
    default: 256,
    minimum: 0,
    description: 'Slowest accepted body rate, over each HTTP_BODY_RATE_WINDOW_MS the service waits for it (then 408; 0 = off).',
  },
  HTTP_BODY_RATE_WINDOW_MS: { type: 'integer', default: 20000, minimum: 100, description: 'Window of the body rate rule.' },
  RPC_TIMEOUT_MS: { type: 'integer', default: 3000, minimum: 50 },
  OTEL_ENABLED: { type: 'boolean', default: false, description: 'Start the OpenTelemetry SDK.' },
  SEARCH_ENGINE: {
    type: 'string',
    default: 'postgres',
    enum: ['postgres', 'opensearch', 'elasticsearch'],
    description: 'Search engine: postgres (no extra server), opensearch (2.x/3.x) or elasticsearch (8.x).',
  },
  SEARCH_URL: {
    type: 'string',
    default: 'http://127.0.0.1:9200',
    pattern: '^https?://[^,\\s]+(,https?://[^,\\s]+)*$',
    description: 'OpenSearch/Elasticsearch node URL(s), comma-separated.',
  },
  SEARCH_USERNAME: { type: 'string', default: '', description: 'Basic-auth user of the search cluster (empty: none).' },
  SEARCH_PASSWORD: { type: 'string', default: '', description: 'Basic-auth password of the search cluster.' },
  SEARCH_API_KEY: { type: 'string', default: '', description: 'API key (base64 id:key) instead of a user and password.' },
  SEARCH_CA_FILE: { type: 'string', default: '', description: 'PEM file of the CA that signed the cluster certificate.' },
  SEARCH_TLS_REJECT_UNAUTHORIZED: { type: 'boolean', default: true, description: 'false accepts any certificate (development only).' },
  SEARCH_INDEX_PREFIX: {
    type: 'string',
    default: '',
    pattern: '^[a-z0-9_-]*$',
    description: 'Prefix of every index and alias name (several deployments or test runs on one cluster).',
  },
  SEARCH_TIMEOUT_MS: { type: 'integer', default: 5000, minimum: 100, description: 'Per-request timeout of the search engine.' },
  SEARCH_STATEMENT_TIMEOUT_MS: {
    type: 'integer',
    default: 5000,
    minimum: 100,
    description: "Longest run of one search statement (PostgreSQL statement_timeout; the engines' own `timeout`); then 503.",
  },
} as const satisfies Record<string, EnvProperty>;

type Prop = EnvProperty;
type ValueOf<P extends Prop> = P['type'] extends 'integer' | 'number' ? number : P['type'] extends 'boolean' ? boolean : string;
/** The typed, frozen configuration of a properties map. */
export type ConfigOf<P extends Record<string, Prop>> = Readonly<{ [K in keyof P]: ValueOf<P[K]> }>;

/**
 * Validate `env` against `properties` (all optional unless in `required`), coercing types and
 * applying defaults. Throws ConfigError listing every bad variable.
 */
export function loadConfig<P extends Record<string, Prop>>(
  properties: P,
  env: NodeJS.ProcessEnv | Record<string, string | undefined>,
  required: (keyof P & string)[] = [],
): ConfigOf<P> {
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: false });
  const schema = { type: 'object', properties, required, additionalProperties: true };
  const validate = ajv.compile(schema);
  const data: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) {
    const v = env[key];
    if (v !== undefined && v !== '') data[key] = v;
  }
  const valid = validate(data);
  if (valid && data.NODE_ENV === 'production' && 'IDENTITY_SECRET' in properties && data.IDENTITY_SECRET === DEVELOPMENT_IDENTITY_SECRET) {
    // Why: the development secret is public (it is in this file); with it anyone can sign identities.
    throw new ConfigError([
      'IDENTITY_SECRET: the development default is refused with NODE_ENV=production; set a random secret (at least 32 characters)',
    ]);
  }
  if (!valid) {
    const problems = (validate.errors ?? []).map((e) => {
      const key = e.instancePath.replace(/^\//, '') || String((e.params as { missingProperty?: string }).missingProperty ?? '');
      const got = key && env[key] !== undefined ? ` (got ${JSON.stringify(env[key])})` : '';
      return `${key}: ${e.message}${got}`;
    });
    throw new ConfigError([...new Set(problems)]);
  }
  return Object.freeze(data) as ConfigOf<P>;
}
