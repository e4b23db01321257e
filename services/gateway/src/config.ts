/** Configuration of the gateway: the platform's base variables plus upstreams, auth, limits and CORS. */
import { baseConfigProperties, type ConfigOf, type EnvProperty } from '@rdm/platform';
import { DEFAULT_PORTS } from '@rdm/contracts';

const url = (port: number, service: string): EnvProperty => ({
  type: 'string',
  default: `http://127.0.0.1:${port}`,
  pattern: '^https?://[^/]+$',
  description: `Base URL of the ${service} service (no trailing slash).`,
});

/** Every environment variable the gateway reads. */
export const configProperties = {
  ...baseConfigProperties,
  // Default ports from the service registry (proto/services.json).
  PORT: { type: 'integer', default: DEFAULT_PORTS.gateway, minimum: 0, maximum: 65535 },
  USERS_URL: url(DEFAULT_PORTS.users, 'users'),
  VOCABULARIES_URL: url(DEFAULT_PORTS.vocabularies, 'vocabularies'),
  RECORDS_URL: url(DEFAULT_PORTS.records, 'records'),
  FILES_URL: url(DEFAULT_PORTS.files, 'files'),
  REQUESTS_URL: url(DEFAULT_PORTS.requests, 'requests'),
  COMMUNITIES_URL: url(DEFAULT_PORTS.communities, 'communities'),
  WEB_URL: url(DEFAULT_PORTS.web, 'web (landing pages)'),
  WEBHOOKS_URL: url(DEFAULT_PORTS.webhooks, 'webhooks'),
  TRUSTED_PROXIES: {
    type: 'string',
    default: '',
    description:
      'Proxies in front of the gateway whose X-Forwarded-For entries are believed: comma-separated addresses and CIDR networks, or `loopback`, `private`, `linklocal`. The client address is the right-most X-Forwarded-For entry not in the list. Exclusive with TRUST_PROXY_HOPS.',
  },
  TRUST_PROXY_HOPS: {
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: 32,
    description:
      'Proxies in front of the gateway that append to X-Forwarded-For (1: an ingress controller). The client address is the entry that many hops from the right (the peer being the first). 0: the peer address, X-Forwarded-* ignored.',
  },
  TRUST_PROXY: {
    type: 'boolean',
    default: false,
    description: 'Deprecated: `true` means TRUST_PROXY_HOPS=1 when neither TRUSTED_PROXIES nor TRUST_PROXY_HOPS is set.',
  },
  UPSTREAM_CONNECT_TIMEOUT_MS: { type: 'integer', default: 2000, minimum: 1, description: 'Connect timeout to a service; then 503.' },
  UPSTREAM_HEADERS_TIMEOUT_MS: {
    type: 'integer',
    default: 30000,
    minimum: 0,
    description:
      'Time a service may take to send response headers on normal routes (0 = none); then 503. Upload routes have none (UPSTREAM_UPLOAD_IDLE_TIMEOUT_MS bounds them).',
  },
  UPSTREAM_UPLOAD_IDLE_TIMEOUT_MS: {
    type: 'integer',
    default: 120000,
    minimum: 0,
    description:
      'Upload routes: longest time a service may go without reading the body or, once it has all of it, without answering (0 = none); then 503 and the upstream request aborted.',
  },
  UPSTREAM_BODY_TIMEOUT_MS: {
    type: 'integer',
    default: 60000,
    minimum: 0,
    description: "Longest gap between two chunks of a service's answer (0 = none); then the client's connection is cut.",
  },
  UPSTREAM_MAX_SOCKETS: { type: 'integer', default: 256, minimum: 1, description: 'Keep-alive connections per service.' },
  UPSTREAM_QUEUE_TIMEOUT_MS: {
    type: 'integer',
    default: 5000,
    minimum: 1,
    description: 'Longest wait for a connection to a service when all are busy; then 503 with Retry-After.',
  },
  CLIENT_MAX_CONCURRENT: {
    type: 'integer',
    default: 64,
    minimum: 0,
    description: 'Requests one client (token, else client address) may have in flight at once (0 = no cap); beyond, 429 with Retry-After.',
  },
  HEADERS_TIMEOUT_MS: {
    type: 'integer',
    default: 20000,
    minimum: 1000,
    description: "Time a client has to send a request's headers (node's server.headersTimeout); then 408 and the connection closed.",
  },
  BODY_IDLE_TIMEOUT_MS: {
    type: 'integer',
    default: 20000,
    minimum: 0,
    description:
      'Longest gap between two chunks of a request body while the gateway reads it (0 = none); then 408 and the connection closed.',
  },
  BODY_MIN_RATE: {
    type: 'integer',
    default: 500,
    minimum: 0,
    description:
      'Minimum request body rate in bytes per second, averaged over BODY_RATE_WINDOW_MS (0 = none); below, 408 and the connection closed.',
  },
  BODY_RATE_WINDOW_MS: { type: 'integer', default: 20000, minimum: 100, description: 'Window over which BODY_MIN_RATE is averaged.' },
  BODY_TIMEOUT_MS: {
    type: 'integer',
    default: 60000,
    minimum: 0,
    description:
      'Longest time to receive a whole request body on routes other than uploads (0 = none); then 408 and the connection closed.',
  },
  BODY_LIMIT: {
    type: 'integer',
    default: 10 * 1024 * 1024,
    minimum: 0,
    description: 'Request body limit in bytes on non-upload routes (413 above).',
  },
  EARLY_ANSWER_DRAIN_BYTES: {
    type: 'integer',
    default: 64 * 1024 * 1024,
    minimum: 0,
    description:
      'After an answer sent before the request body was read (a refused upload, a 413), bytes of the rest read and discarded so a keep-alive client gets the answer; a larger declared body gets `Connection: close`.',
  },
  EARLY_ANSWER_DRAIN_MS: {
    type: 'integer',
    default: 15000,
    minimum: 1,
    description: 'Longest time spent discarding an unread request body after an early answer; then the connection is closed.',
  },
  CORS_ORIGINS: {
    type: 'string',
    default: '*',
    description: 'Allowed CORS origins: `*` or a comma-separated list of exact origins.',
  },
  CORS_ALLOW_CREDENTIALS: {
    type: 'boolean',
    default: false,
    description: 'Send Access-Control-Allow-Credentials (only with an origin list).',
  },
  CORS_MAX_AGE_SECONDS: { type: 'integer', default: 600, minimum: 0 },
  RATE_LIMIT_ENABLED: { type: 'boolean', default: true },
  RATE_LIMIT_AUTHENTICATED: { type: 'integer', default: 1000, minimum: 1, description: 'Requests per window per token.' },
  RATE_LIMIT_ANONYMOUS: { type: 'integer', default: 500, minimum: 1, description: 'Requests per window per client address.' },
  RATE_LIMIT_WINDOW_SECONDS: { type: 'integer', default: 60, minimum: 1 },
  RATE_LIMIT_STORE: {
    type: 'string',
    default: 'nats',
    enum: ['nats', 'local'],
    description:
      '`nats`: fixed-window counters in a NATS KV bucket shared by every gateway replica (the in-process limiter decides while NATS is unreachable); `local`: per-process limits only.',
  },
  RATE_LIMIT_BUCKET: {
    type: 'string',
    default: 'rdm_rate_limits',
    pattern: '^[-\\w]+$',
    description: 'NATS KV bucket of the shared rate limits (memory storage, TTL two windows).',
  },
  RATE_LIMIT_STORE_TIMEOUT_MS: {
    type: 'integer',
    default: 250,
    minimum: 10,
    description: 'Longest wait for the shared rate-limit store; then the in-process limiter decides for a second.',
  },
  RATE_LIMIT_MAX_KEYS: { type: 'integer', default: 100000, minimum: 100, description: 'Bound on tracked clients (memory).' },
  TOKEN_CACHE_TTL_MS: {
    type: 'integer',
    default: 5000,
    minimum: 0,
    description: 'How long a verified token is trusted without asking users again.',
  },
  TOKEN_CACHE_NEGATIVE_TTL_MS: {
    type: 'integer',
    default: 1500,
    minimum: 0,
    description: 'How long an unknown/revoked token is remembered.',
  },
  TOKEN_CACHE_MAX: { type: 'integer', default: 10000, minimum: 1 },
  AUTH_RPC_TIMEOUT_MS: { type: 'integer', default: 2000, minimum: 50, description: 'Timeout of the users verify-token RPC; then 503.' },
  AUTH_INVALID_TOKEN: {
    type: 'string',
    // Why not InvenioRDM's behaviour by default: a client whose token is invalid or revoked must
    // be told so clearly (401), not silently served as anonymous (403s, missing private data).
    default: 'reject',
    enum: ['reject', 'anonymous'],
    description:
      '`reject` (default: 401 with WWW-Authenticate: Bearer error="invalid_token") or `anonymous` (InvenioRDM-compatible: an invalid token is ignored).',
  },
  OPENAPI_FETCH_ATTEMPTS: {
    type: 'integer',
    default: 8,
    minimum: 0,
    description: 'Tries per service to fetch its OpenAPI fragment at start-up.',
  },
  READY_UPSTREAMS: {
    type: 'string',
    default: 'users,vocabularies,records,files',
    pattern:
      '^\\s*(none|(users|vocabularies|records|files|requests|communities|web|webhooks)\\s*(,\\s*(users|vocabularies|records|files|requests|communities|web|webhooks)\\s*)*)$',
    description: 'Services whose /readyz the gateway /readyz consults (comma-separated), or `none`.',
  },
  READY_UPSTREAMS_MODE: {
    type: 'string',
    default: 'any',
    enum: ['any', 'all'],
    description: '`any`: not ready only when none of READY_UPSTREAMS is ready (a database or NATS outage); `all`: every one must be ready.',
  },
  READY_UPSTREAMS_CACHE_MS: { type: 'integer', default: 1000, minimum: 0, description: "How long a service's readiness answer is reused." },
} as const satisfies Record<string, EnvProperty>;

/** The gateway's frozen configuration. */
export type GatewayConfig = ConfigOf<typeof configProperties>;
