/**
 * The Elasticsearch 8 engine over the official `@elastic/elasticsearch` 8.x client (9.x needs node
 * 22). Build it with `createSearchEngine` (`SEARCH_ENGINE=elasticsearch`); all behaviour lives in
 * `DslEngine`, shared with OpenSearch. Tested here against OpenSearch through a media-type proxy
 * (see `testing/es-compat-proxy.ts`); never run against a real Elasticsearch on these machines.
 */
import { Client } from '@elastic/elasticsearch';
import { type BulkItem, DslEngine, type LowLevel } from './engine.js';
import type { EngineOptions } from './options.js';
import type { IndexDoc, RefreshPolicy } from './port.js';

/** Bulk requests (indexer batches, reindex) may take longer than a search. */
const BULK_TIMEOUT_MS = 120_000;

/** `SearchEngine` on Elasticsearch 8. */
export class ElasticsearchEngine extends DslEngine {
  constructor(opts: EngineOptions) {
    super('elasticsearch', new ElasticsearchLowLevel(opts), opts.timeoutMs);
  }
}

class ElasticsearchLowLevel implements LowLevel {
  private readonly c: Client;

  constructor(o: EngineOptions) {
    this.c = new Client({
      node: o.url,
      auth: o.apiKey ? { apiKey: o.apiKey } : o.username ? { username: o.username, password: o.password ?? '' } : undefined,
      tls: o.ca || o.rejectUnauthorized === false ? { ca: o.ca, rejectUnauthorized: o.rejectUnauthorized ?? true } : undefined,
      requestTimeout: o.timeoutMs ?? 5000,
      pingTimeout: 1000,
      maxRetries: 1,
    });
  }

  async index(index: string, d: IndexDoc, refresh: RefreshPolicy) {
    await this.c.index({ index, id: d.id, document: d.source, version: d.version, version_type: 'external', refresh });
  }
  async delete(index: string, id: string, version: number, refresh: RefreshPolicy) {
    await this.c.delete({ index, id, version, version_type: 'external', refresh });
  }
  async bulk(lines: object[], refresh: RefreshPolicy): Promise<BulkItem[]> {
    const res = await this.c.bulk({ operations: lines, refresh }, { requestTimeout: BULK_TIMEOUT_MS });
    return res.items.map((it) => {
      const r = Object.values(it)[0] as any;
      return { id: r._id, status: r.status, error: r.error };
    });
  }
  async search(index: string, body: Record<string, unknown>, signal?: AbortSignal) {
    // Why no partial results: a search over its `timeout` must fail (503), not answer wrong counts.
    return this.c.search({ index, ...(body as any), allow_partial_search_results: false }, { signal });
  }
  async aliasIndices(alias: string): Promise<string[]> {
    try {
      return Object.keys(await this.c.indices.getAlias({ name: alias }));
    } catch (e) {
      if ((e as { meta?: { statusCode?: number } }).meta?.statusCode === 404) return [];
      throw e;
    }
  }
  async createIndex(name: string, body: { settings: object; mappings: object; aliases?: object }) {
    await this.c.indices.create({ index: name, ...(body as any) }, { requestTimeout: BULK_TIMEOUT_MS });
  }
  async putSettings(index: string, settings: object) {
    await this.c.indices.putSettings({ index, settings: settings as any });
  }
  async updateAliases(actions: object[]) {
    await this.c.indices.updateAliases({ actions: actions as any });
  }
  async deleteIndex(name: string) {
    await this.c.indices.delete({ index: name });
  }
  async refresh(index: string) {
    await this.c.indices.refresh({ index }, { requestTimeout: BULK_TIMEOUT_MS });
  }
  async ping() {
    return this.c.ping();
  }
  async close() {
    await this.c.close();
  }
}
