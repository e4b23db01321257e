/**
 * The OpenSearch engine (2.x/3.x) over the official `@opensearch-project/opensearch` client. Build it
 * with `createSearchEngine` (`SEARCH_ENGINE=opensearch`); all behaviour lives in `DslEngine`.
 */
import { Client } from '@opensearch-project/opensearch';
import { type BulkItem, DslEngine, type LowLevel } from './engine.js';
import type { EngineOptions } from './options.js';
import type { IndexDoc, RefreshPolicy } from './port.js';

/** Bulk requests (indexer batches, reindex) may take longer than a search. */
const BULK_TIMEOUT_MS = 120_000;

/** `SearchEngine` on OpenSearch. */
export class OpenSearchEngine extends DslEngine {
  constructor(opts: EngineOptions) {
    super('opensearch', new OpenSearchLowLevel(opts), opts.timeoutMs);
  }
}

class OpenSearchLowLevel implements LowLevel {
  private readonly c: Client;

  constructor(o: EngineOptions) {
    this.c = new Client({
      node: o.url,
      auth: o.username ? { username: o.username, password: o.password ?? '' } : undefined,
      ssl: o.ca || o.rejectUnauthorized === false ? { ca: o.ca, rejectUnauthorized: o.rejectUnauthorized ?? true } : undefined,
      headers: o.apiKey ? { authorization: `ApiKey ${o.apiKey}` } : undefined,
      requestTimeout: o.timeoutMs ?? 5000,
      pingTimeout: 1000,
      maxRetries: 1,
    });
  }

  async index(index: string, d: IndexDoc, refresh: RefreshPolicy) {
    await this.c.index({ index, id: d.id, body: d.source, version: d.version, version_type: 'external', refresh });
  }
  async delete(index: string, id: string, version: number, refresh: RefreshPolicy) {
    await this.c.delete({ index, id, version, version_type: 'external', refresh });
  }
  async bulk(lines: object[], refresh: RefreshPolicy): Promise<BulkItem[]> {
    const res = await this.c.bulk({ body: lines as any, refresh }, { requestTimeout: BULK_TIMEOUT_MS });
    return (res.body.items as any[]).map((it) => {
      const r = Object.values(it)[0] as any;
      return { id: r._id, status: r.status, error: r.error };
    });
  }
  async search(index: string, body: Record<string, unknown>, signal?: AbortSignal) {
    // Why no partial results: a search over its `timeout` must fail (503), not answer wrong counts.
    const req = this.c.search({ index, body: body as any, allow_partial_search_results: false });
    const abort = () => req.abort();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      return (await req).body;
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }
  async aliasIndices(alias: string): Promise<string[]> {
    try {
      return Object.keys((await this.c.indices.getAlias({ name: alias })).body);
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) return [];
      throw e;
    }
  }
  async createIndex(name: string, body: { settings: object; mappings: object; aliases?: object }) {
    await this.c.indices.create({ index: name, body: body as any }, { requestTimeout: BULK_TIMEOUT_MS });
  }
  async putSettings(index: string, settings: object) {
    await this.c.indices.putSettings({ index, body: settings as any });
  }
  async updateAliases(actions: object[]) {
    await this.c.indices.updateAliases({ body: { actions } as any });
  }
  async deleteIndex(name: string) {
    await this.c.indices.delete({ index: name });
  }
  async refresh(index: string) {
    await this.c.indices.refresh({ index }, { requestTimeout: BULK_TIMEOUT_MS });
  }
  async ping() {
    return (await this.c.ping()).statusCode === 200;
  }
  async close() {
    await this.c.close();
  }
}
