/**
 * Connection options of the OpenSearch/Elasticsearch engines, read from the base configuration
 * (`SEARCH_URL`, `SEARCH_USERNAME`, `SEARCH_PASSWORD`, `SEARCH_API_KEY`, `SEARCH_CA_FILE`,
 * `SEARCH_TLS_REJECT_UNAUTHORIZED`, `SEARCH_TIMEOUT_MS`).
 */

/** Where and how to reach the cluster. */
export interface EngineOptions {
  /** One or more node URLs (`http://127.0.0.1:9200`). */
  url: string | string[];
  username?: string;
  password?: string;
  /** Elasticsearch API key (base64 `id:key`), instead of a username/password. */
  apiKey?: string;
  /** PEM of the CA that signed the cluster's certificate. */
  ca?: string;
  /** Default true; false accepts any certificate (development clusters only). */
  rejectUnauthorized?: boolean;
  /** Per-request timeout; searches answer 503 after it. Default 5000. */
  timeoutMs?: number;
}
