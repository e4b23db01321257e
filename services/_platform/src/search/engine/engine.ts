/**
 * The common part of the OpenSearch and Elasticsearch engines: index lifecycle (versioned index
 * behind an alias, reindex-and-swap), external-version writes, bulk, search through the shared DSL
 * builder, and error mapping (engine unreachable → 503 with Retry-After; a query the engine rejects →
 * `QuerySyntaxError`). Subclasses only adapt their official client's calls (`LowLevel`).
 *
 * Bounded work: every search carries the engine's own `timeout` (the search statement timeout, below
 * the client's request timeout so the engine stops first) with partial results refused, so a search
 * over its time is a 503 `The search took too long; please refine it.` as on PostgreSQL, never a page
 * of partial hits and counts; a search whose client went away is aborted (the engine cancels a search
 * whose HTTP connection closes) and answers 499.
 */
import { type AppError, Errors } from '../../errors.js';
import { clientGoneSignal } from '../../request-scope.js';
import { QuerySyntaxError } from '../ast.js';
import { clientClosedRequest, searchStatementTimeout, searchTooLong } from '../pg-read.js';
import { baseIndexSettings } from './analysis.js';
import { buildSearchBody } from './dsl.js';
import type {
  AggBucket,
  BulkOp,
  BulkResult,
  IndexDefinition,
  IndexDoc,
  RefreshPolicy,
  ReindexSource,
  SearchEngine,
  SearchRequest,
  SearchResult,
} from './port.js';

/** A bulk item outcome as both engines report it. */
export interface BulkItem {
  id: string;
  status: number;
  error?: { type?: string; reason?: string };
}

/** The client calls an engine needs; one implementation per official client. */
export interface LowLevel {
  index(index: string, doc: IndexDoc, refresh: RefreshPolicy): Promise<void>;
  delete(index: string, id: string, version: number, refresh: RefreshPolicy): Promise<void>;
  bulk(lines: object[], refresh: RefreshPolicy): Promise<BulkItem[]>;
  /** A search with `allow_partial_search_results=false`, aborted when `signal` aborts. */
  search(index: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<any>;
  /** Index names the alias points at; [] when the alias does not exist. */
  aliasIndices(alias: string): Promise<string[]>;
  createIndex(name: string, body: { settings: object; mappings: object; aliases?: object }): Promise<void>;
  putSettings(index: string, settings: object): Promise<void>;
  updateAliases(actions: object[]): Promise<void>;
  deleteIndex(name: string): Promise<void>;
  refresh(index: string): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** HTTP status of a client error (both clients), or undefined for a transport failure. */
export function statusOf(e: unknown): number | undefined {
  const x = e as { statusCode?: number; meta?: { statusCode?: number } };
  return x?.statusCode ?? x?.meta?.statusCode ?? undefined;
}

/** The engine's error type string (`version_conflict_engine_exception`, …). */
function errorType(e: unknown): string | undefined {
  return errorBody(e)?.error?.type;
}

function errorBody(e: unknown): any {
  return (e as { meta?: { body?: any }; body?: any })?.meta?.body ?? (e as { body?: any })?.body;
}

/** True when the engine stopped a search at its `timeout` (partial results refused: a 500 of the shards). */
export function isSearchTimeout(e: unknown): boolean {
  const causes: Array<{ type?: string; reason?: string }> = errorBody(e)?.error?.root_cause ?? [];
  return causes.some(
    (c) => c.type === 'time_exceeded_exception' || (c.type === 'query_phase_execution_exception' && c.reason === 'Time exceeded'),
  );
}

const DOWN_ERRORS = new Set(['ConnectionError', 'TimeoutError', 'NoLivingConnectionsError', 'RequestAbortedError']);

/** True when `e` means the engine cannot be reached (connection refused, timeout, no living node, 5xx from the cluster). */
export function isEngineDown(e: unknown): boolean {
  const name = (e as Error)?.name;
  if (DOWN_ERRORS.has(name)) return true;
  const s = statusOf(e);
  return s === 502 || s === 503 || s === 504;
}

/** 503 `Service unavailable.` with Retry-After (the search engine is down). */
export function searchUnavailable(): AppError {
  return Errors.serviceUnavailable();
}

/**
 * Bulk requests a reindex keeps in flight: the source reads and serialises the next batch while
 * the engine indexes the previous ones (measured with `scripts/bench/search-engines.bench.ts`).
 * External versions make the order of concurrent batches irrelevant.
 */
export const REINDEX_PARALLEL_BULKS = 2;

const BATCH_REFRESH_OFF = { index: { refresh_interval: '-1' } };
const BATCH_REFRESH_ON = { index: { refresh_interval: '1s' } };

/** A `SearchEngine` over a `LowLevel` client adapter. */
export class DslEngine implements SearchEngine {
  constructor(
    readonly kind: 'opensearch' | 'elasticsearch',
    protected readonly ll: LowLevel,
    /** The client's request timeout (ms): the engine's own search timeout stays below it. */
    private readonly requestTimeoutMs = 5000,
  ) {}

  /** Runs `fn`, turning a transport failure into a 503 AppError. */
  protected async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      // The short reason only: the client's error carries the whole request (bulk bodies of megabytes).
      if (isEngineDown(e)) throw Object.assign(searchUnavailable(), { cause: new Error(`${(e as Error).name}: ${(e as Error).message}`) });
      throw e;
    }
  }

  async ensureIndex(def: IndexDefinition): Promise<void> {
    await this.guard(async () => {
      if ((await this.ll.aliasIndices(def.alias)).length) return;
      const name = `${def.alias}-v${def.version}`;
      try {
        await this.ll.createIndex(name, { settings: settingsOf(def), mappings: def.mappings, aliases: { [def.alias]: {} } });
      } catch (e) {
        if (errorType(e) !== 'resource_already_exists_exception') throw e;
        // A concurrent start created it, or the alias was removed by hand: make sure it points there.
        if (!(await this.ll.aliasIndices(def.alias)).length) await this.ll.updateAliases([{ add: { index: name, alias: def.alias } }]);
      }
    });
  }

  async index(alias: string, doc: IndexDoc, opts: { refresh?: RefreshPolicy } = {}): Promise<boolean> {
    return this.guard(async () => {
      try {
        await this.ll.index(alias, doc, opts.refresh ?? false);
        return true;
      } catch (e) {
        if (statusOf(e) === 409) return false; // a newer (or the same) revision is stored
        throw e;
      }
    });
  }

  async delete(alias: string, id: string, version: number, opts: { refresh?: RefreshPolicy } = {}): Promise<void> {
    await this.guard(async () => {
      try {
        await this.ll.delete(alias, id, version, opts.refresh ?? false);
      } catch (e) {
        const s = statusOf(e);
        if (s === 409 || s === 404) return;
        throw e;
      }
    });
  }

  async bulk(alias: string, ops: BulkOp[], opts: { refresh?: RefreshPolicy } = {}): Promise<BulkResult> {
    const result: BulkResult = { written: 0, stale: 0, failed: [] };
    if (ops.length === 0) return result;
    const lines: object[] = [];
    for (const op of ops) {
      const meta = { _index: alias, _id: op.id, version: op.version, version_type: 'external' };
      if (op.op === 'index') lines.push({ index: meta }, op.source);
      else lines.push({ delete: meta });
    }
    const items = await this.guard(() => this.ll.bulk(lines, opts.refresh ?? false));
    for (const it of items) {
      if (it.status < 300 || (it.status === 404 && !it.error?.type?.includes('index_not_found'))) result.written++;
      else if (it.status === 409) result.stale++;
      else result.failed.push({ id: it.id, status: it.status, reason: `${it.error?.type ?? ''}: ${it.error?.reason ?? ''}` });
    }
    return result;
  }

  async search(alias: string, req: SearchRequest): Promise<SearchResult> {
    const body = buildSearchBody(req); // throws QuerySyntaxError before any call
    // Why below the client's timeout: the engine then stops the search itself and says so.
    body.timeout = `${Math.max(1, Math.min(searchStatementTimeout(), this.requestTimeoutMs - 500))}ms`;
    const signal = clientGoneSignal();
    if (signal?.aborted) throw clientClosedRequest();
    const res = await this.guard(async () => {
      try {
        return await this.ll.search(alias, body, signal);
      } catch (e) {
        if (signal?.aborted) throw clientClosedRequest();
        const s = statusOf(e);
        if (isSearchTimeout(e)) throw searchTooLong();
        // The engine refused the query itself (too many clauses, a regex it cannot run): a bad `q`.
        if (s === 400) throw new QuerySyntaxError(`The search engine rejected the query (${errorType(e) ?? 'bad request'}).`, -1);
        if (s === 404) throw Object.assign(searchUnavailable(), { cause: new Error(`index ${alias} missing`) }); // not ready
        throw e;
      }
    });
    // A cluster that allows partial results anyway (its own setting) answers 200 with `timed_out`.
    if (res.timed_out === true) throw searchTooLong();
    const t = res.hits.total;
    const total = typeof t === 'number' ? t : (t?.value ?? res.hits.hits.length); // absent when not tracked
    return {
      total,
      hits: res.hits.hits.map((h: any) => ({ id: h._id, score: h._score ?? null, source: h._source ?? {} })),
      aggregations: parseAggs(res.aggregations ?? {}),
    };
  }

  async refresh(alias: string): Promise<void> {
    await this.guard(() => this.ll.refresh(alias));
  }

  async reindex(def: IndexDefinition, source: ReindexSource): Promise<{ index: string; count: number }> {
    const started = new Date(Date.now() - 5000); // margin for clocks and in-flight transactions
    const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
    const name = `${def.alias}-v${def.version}-${stamp}`;
    return this.guard(async () => {
      const old = await this.ll.aliasIndices(def.alias);
      await this.ll.createIndex(name, { settings: { ...settingsOf(def), ...BATCH_REFRESH_OFF.index }, mappings: def.mappings });
      let count = 0;
      const send = async (lines: object[], n: number, since?: Date) => {
        const items = await this.ll.bulk(lines, false);
        // 409: a newer version is there already; 404: a tombstone of a document never copied.
        const bad = items.find((it) => it.status >= 300 && it.status !== 409 && it.status !== 404);
        if (bad)
          throw new Error(`reindex of ${def.alias}: document ${bad.id} failed (${bad.status} ${bad.error?.type}: ${bad.error?.reason})`);
        if (!since) count += n;
      };
      const load = async (since?: Date) => {
        const inFlight = new Set<Promise<void>>();
        let failure: unknown;
        try {
          for await (const batch of source(since)) {
            const lines: object[] = [];
            for (const d of batch) {
              const meta = { _index: name, _id: d.id, version: d.version, version_type: 'external' };
              if (d.deleted) lines.push({ delete: meta });
              else lines.push({ index: meta }, d.source);
            }
            if (!lines.length) continue;
            const p: Promise<void> = send(lines, batch.length, since)
              .catch((e) => {
                failure ??= e;
              })
              .finally(() => inFlight.delete(p));
            inFlight.add(p);
            if (inFlight.size >= REINDEX_PARALLEL_BULKS) await Promise.race(inFlight);
            if (failure) break;
          }
        } finally {
          // Every bulk settles before the pass ends: none may reach the new index after it is
          // deleted on a failure (a bulk naming a missing index would create a plain one).
          await Promise.all(inFlight);
        }
        if (failure) throw failure;
      };
      try {
        await load();
        const caughtUpFrom = new Date(Date.now() - 5000);
        await load(started);
        await this.ll.putSettings(name, BATCH_REFRESH_ON);
        await this.ll.refresh(name);
        const actions: object[] = old.map((index) => ({ remove: { index, alias: def.alias } }));
        actions.push({ add: { index: name, alias: def.alias } });
        await this.ll.updateAliases(actions); // atomic: searches see the old or the new index, never none
        await load(caughtUpFrom); // writes that reached the old index between the catch-up and the swap
        await this.ll.refresh(name);
      } catch (e) {
        await this.ll.deleteIndex(name).catch(() => undefined);
        throw e;
      }
      for (const index of old) await this.ll.deleteIndex(index).catch(() => undefined);
      return { index: name, count };
    });
  }

  async dropIndex(alias: string): Promise<void> {
    await this.guard(async () => {
      for (const index of await this.ll.aliasIndices(alias)) await this.ll.deleteIndex(index);
    });
  }

  async ping(): Promise<boolean> {
    try {
      return await this.ll.ping();
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.ll.close();
  }
}

function settingsOf(def: IndexDefinition): Record<string, unknown> {
  return { ...baseIndexSettings, ...(def.settings ?? {}) };
}

/** Engine aggregation results → `AggBucket[]` per name (unwrapping `filter`/`nested` wrappers named `inner`). */
function parseAggs(aggs: Record<string, any>): Record<string, AggBucket[]> {
  const out: Record<string, AggBucket[]> = {};
  for (const [name, raw] of Object.entries(aggs)) out[name] = bucketsOf(raw);
  return out;
}

function bucketsOf(raw: any): AggBucket[] {
  let a = raw;
  while (a && !Array.isArray(a.buckets) && a.inner) a = a.inner;
  return ((a?.buckets ?? []) as any[]).map((b) => {
    const bucket: AggBucket = { key: String(b.key_as_string ?? b.key), count: b.doc_count };
    const subs = Object.entries(b).filter(([k, v]) => k !== 'key' && k !== 'doc_count' && k !== 'key_as_string' && typeof v === 'object');
    if (subs.length) bucket.aggs = Object.fromEntries(subs.map(([k, v]) => [k, bucketsOf(v)]));
    return bucket;
  });
}
