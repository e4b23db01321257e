/**
 * Builds the configured search engine: `null` for `postgres` (the service keeps its SQL path), an
 * `OpenSearchEngine` or `ElasticsearchEngine` otherwise. The client libraries are loaded only when
 * the engine is used, so services on `postgres` never load them.
 */
import { readFileSync } from 'node:fs';
import type { EngineOptions } from './options.js';
import type { SearchEngine } from './port.js';

/** The search part of the base configuration. */
export interface SearchConfig {
  SEARCH_ENGINE: string;
  SEARCH_URL: string;
  SEARCH_USERNAME?: string;
  SEARCH_PASSWORD?: string;
  SEARCH_API_KEY?: string;
  SEARCH_CA_FILE?: string;
  SEARCH_TLS_REJECT_UNAUTHORIZED?: boolean;
  SEARCH_TIMEOUT_MS?: number;
}

/** Engine options from the configuration (reads `SEARCH_CA_FILE`). */
export function engineOptions(cfg: SearchConfig): EngineOptions {
  const urls = cfg.SEARCH_URL.split(',').map((u) => u.trim());
  return {
    url: urls.length === 1 ? urls[0] : urls,
    username: cfg.SEARCH_USERNAME || undefined,
    password: cfg.SEARCH_PASSWORD || undefined,
    apiKey: cfg.SEARCH_API_KEY || undefined,
    ca: cfg.SEARCH_CA_FILE ? readFileSync(cfg.SEARCH_CA_FILE, 'utf8') : undefined,
    rejectUnauthorized: cfg.SEARCH_TLS_REJECT_UNAUTHORIZED ?? true,
    timeoutMs: cfg.SEARCH_TIMEOUT_MS,
  };
}

/** The engine `cfg.SEARCH_ENGINE` names, or null for `postgres`. */
export async function createSearchEngine(cfg: SearchConfig): Promise<SearchEngine | null> {
  return createEngine(cfg.SEARCH_ENGINE, engineOptions(cfg));
}

/** An engine by kind with explicit options (tests, benchmarks); null for `postgres`. */
export async function createEngine(kind: string, opts: EngineOptions): Promise<SearchEngine | null> {
  switch (kind) {
    case 'postgres':
      return null;
    case 'opensearch': {
      const { OpenSearchEngine } = await import('./opensearch.js');
      return new OpenSearchEngine(opts);
    }
    case 'elasticsearch': {
      const { ElasticsearchEngine } = await import('./elasticsearch.js');
      return new ElasticsearchEngine(opts);
    }
    default:
      throw new Error(`Unknown SEARCH_ENGINE '${kind}' (postgres | opensearch | elasticsearch).`);
  }
}
