/**
 * One search index of a service on OpenSearch/Elasticsearch (`SEARCH_ENGINE` other than `postgres`),
 * declared once with `defineServiceIndex({...})` (Invenio's generic `RecordIndexer`, with the
 * service's parts as data). The platform owns the skeleton every service index shares:
 * - the definition under the deployment's prefix (`SEARCH_INDEX_PREFIX`), created behind its alias
 *   once before any write (a bulk into a missing alias would auto-create a plain index);
 * - `load`: the CURRENT rows of the documents an event names, as bulk operations, and a delete of
 *   every document whose row is gone (for good: version MAX, unless the service says how);
 * - `afterCommit`: the inline write of the writer's path (`refresh: wait_for`: read-your-writes),
 *   logged, never thrown, when the engine is down (the outbox indexer catches up);
 * - `startIndexer`: the durable outbox indexer (`runSearchIndexer`) of the service's own events;
 * - `reindex`: a keyset-paged rebuild into a new versioned index, alias swapped, the next page read
 *   while the previous one is indexed; documents gone during the build are deleted in the catch-up
 *   passes (they only see rows that exist);
 * - `openServiceIndexes` / `reindexCommand`: the start-up and the `reindex` command of a service.
 * The service writes only its mappings, its row loaders, the document of a row and its searches.
 */
import type { Knex } from 'knex';
import { Errors } from '../errors.js';
import type { Logger } from '../logger.js';
import type { NatsHandle } from '../nats.js';
import { type QueryAst, QuerySyntaxError } from './ast.js';
import { createSearchEngine, type SearchConfig } from './engine/factory.js';
import { type AggregateRef, type IndexerHandle, runSearchIndexer } from './engine/indexer.js';
import type { BulkOp, IndexDefinition, IndexDoc, RefreshPolicy, SearchEngine } from './engine/port.js';

/** A delete of a document whose row is gone (the version of its tombstone, or MAX: for good). */
export interface GoneDoc {
  id: string;
  version: number;
}

/** What the service declares about one index. */
export interface ServiceIndexSpec<Row> {
  /** Alias (without the deployment's prefix), version, settings and mappings. */
  index: IndexDefinition;
  /** The document of a row: id, external version (`revision_id`, `index_version`…) and source. */
  doc(row: Row): IndexDoc;
  /**
   * The current rows of the documents `keys` name (through `db`: the service's pool or a
   * transaction). Without `gone`, every key with no document among the rows is deleted for good.
   */
  rows(db: Knex, keys: string[]): Promise<Row[] | { rows: Row[]; gone: GoneDoc[] }>;
  /** The keys an event names (default: its aggregate id; an empty list skips the event). */
  keysOf?(ref: AggregateRef): string[];
  /** Keys a document may have (e.g. a UUID); others are dropped before reading rows. */
  key?: RegExp;
  /** The durable outbox indexer: the service's stream, durable name and one filter subject. */
  indexer: { stream: string; durable: string; filterSubject: string; batchSize?: number };
  /** The rebuild: keyset-paged readers, the batch size, and the keys whose row may have gone meanwhile. */
  reindex: {
    /**
     * Rows in a total order, `limit` at a time, after `after` (the last row of the previous page;
     * undefined: from the start), only those changed since `since` when given (the catch-up passes).
     */
    pages: ReadonlyArray<(db: Knex, page: { since?: Date; after?: Row; limit: number }) => Promise<Row[]>>;
    batch?: number;
    /** Keys whose row may be gone since `since` (deleted rows or tombstones): reloaded in the catch-up passes. */
    goneSince?(db: Knex, since: Date): Promise<string[]>;
  };
  /** Refresh policy of `afterCommit` (default `wait_for`). */
  refresh?: RefreshPolicy;
}

/** `rows()` as rows and deletes. */
async function rowsAndGone<Row>(spec: ServiceIndexSpec<Row>, db: Knex, keys: string[]) {
  const got = await spec.rows(db, keys);
  if (!Array.isArray(got)) return { docs: got.rows.map((r) => spec.doc(r)), gone: got.gone };
  const docs = got.map((r) => spec.doc(r));
  const found = new Set(docs.map((d) => d.id));
  return { docs, gone: keys.filter((k) => !found.has(k)).map((id) => ({ id, version: Number.MAX_SAFE_INTEGER })) };
}

/** A service-owned index: the shared writes (see the file header); subclasses add their searches. */
export class ServiceIndex<Row = unknown> {
  private ensured?: Promise<void>;
  /** The index this service writes and reads (alias with the deployment's prefix). */
  readonly def: IndexDefinition;

  constructor(
    protected readonly spec: ServiceIndexSpec<Row>,
    readonly engine: SearchEngine,
    protected readonly db: Knex,
    protected readonly logger: Pick<Logger, 'warn'>,
    prefix = '',
  ) {
    this.def = { ...spec.index, alias: `${prefix}${spec.index.alias}` };
  }

  /** Creates the index behind its alias when missing (once; retried after a failure). */
  ensureIndex(): Promise<void> {
    this.ensured ??= this.engine.ensureIndex(this.def).catch((err) => {
      this.ensured = undefined;
      throw err;
    });
    return this.ensured;
  }

  /** Current state of the touched documents as bulk operations (index the row, or delete the document). */
  load(refs: AggregateRef[]): Promise<BulkOp[]> {
    return this.loadKeys(refs.flatMap((r) => this.spec.keysOf?.(r) ?? [r.id]));
  }

  /** Current state of documents by key, read through `db` (a transaction sees its own writes). */
  async loadKeys(keys: string[], db: Knex = this.db): Promise<BulkOp[]> {
    // Before any write: a bulk into a missing alias would auto-create a plain index under its name.
    await this.ensureIndex();
    const pattern = this.spec.key;
    const unique = [...new Set(keys)].filter((k) => !pattern || pattern.test(k));
    if (!unique.length) return [];
    const { docs, gone } = await rowsAndGone(this.spec, db, unique);
    const ops: BulkOp[] = docs.map((d) => ({ op: 'index', ...d }));
    for (const g of gone) ops.push({ op: 'delete', ...g });
    return ops;
  }

  /**
   * Index committed documents now (`refresh: wait_for` unless the spec says otherwise), so the
   * writer's next search sees its write; with a transaction as `db`, as that transaction sees them
   * (before it commits: a commit that releases a waiting writer). A failure (engine down) is logged,
   * never thrown: the write is committed and its outbox event brings the index up to date later.
   */
  async afterCommit(keys: string[], db: Knex = this.db): Promise<void> {
    if (!keys.length) return;
    try {
      const ops = await this.loadKeys(keys, db);
      const res = await this.engine.bulk(this.def.alias, ops, { refresh: this.spec.refresh ?? 'wait_for' });
      for (const f of res.failed)
        this.logger.warn({ id: f.id, status: f.status, reason: f.reason }, 'document rejected by the search engine');
    } catch (err) {
      this.logger.warn(
        { err, keys: keys.slice(0, 20), index: this.def.alias },
        'inline search indexing failed; the outbox indexer will catch up',
      );
    }
  }

  /** The durable indexer of the service's own events (a background worker). */
  startIndexer(nats: Pick<NatsHandle, 'js' | 'jsm'>, logger: Logger): IndexerHandle {
    return runSearchIndexer({
      js: nats.js,
      jsm: nats.jsm,
      engine: this.engine,
      alias: this.def.alias,
      ...this.spec.indexer,
      load: (refs) => this.load(refs),
      logger,
    });
  }

  /** Rebuild the index from PostgreSQL into a new versioned index and swap the alias (searches keep answering). */
  reindex(batch = this.spec.reindex.batch ?? 1000): Promise<{ index: string; count: number }> {
    const { spec, db } = this;
    const reload = (keys: string[]) => this.loadKeys(keys);
    return this.engine.reindex(this.def, async function* (since?: Date) {
      for (const read of spec.reindex.pages) {
        const page = (after?: Row) => read(db, { since, after, limit: batch });
        let next = page();
        for (;;) {
          const rows = await next;
          if (!rows.length) break;
          // Why: the next page is read while this one is bulk-indexed.
          next = page(rows[rows.length - 1]);
          yield rows.map((r) => spec.doc(r));
        }
      }
      if (!since || !spec.reindex.goneSince) return;
      // Deletions during the build: a delete's version beats the copy indexed before it.
      const gone = await spec.reindex.goneSince(db, since);
      for (let i = 0; i < gone.length; i += batch) {
        const ops = await reload(gone.slice(i, i + batch));
        yield ops.map((o) => (o.op === 'index' ? o : { id: o.id, version: o.version, source: {}, deleted: true }));
      }
    });
  }

  /** Runs an engine search: a value a field rejects (`created:abc`) is a 400, as on postgres. */
  protected async searching<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(e);
      throw e;
    }
  }
}

/** The class of a declared index: `new (engine, db, logger, prefix)`. */
export type ServiceIndexClass<Row> = (new (
  engine: SearchEngine,
  db: Knex,
  logger: Pick<Logger, 'warn'>,
  prefix?: string,
) => ServiceIndex<Row>) & { readonly spec: ServiceIndexSpec<Row> };

/**
 * Declare a service's index: the class to extend with the service's searches,
 * `class UserSearchIndex extends defineServiceIndex<UserIndexRow>({...}) { search(...) {...} }`.
 */
export function defineServiceIndex<Row>(spec: ServiceIndexSpec<Row>): ServiceIndexClass<Row> {
  return class extends ServiceIndex<Row> {
    static readonly spec = spec;
    constructor(engine: SearchEngine, db: Knex, logger: Pick<Logger, 'warn'>, prefix = '') {
      super(spec, engine, db, logger, prefix);
    }
  };
}

/** What the start-up and the `reindex` command need of an index. */
export type OwnedIndex = Pick<ServiceIndex, 'def' | 'ensureIndex' | 'startIndexer' | 'reindex'>;

/** A declared index class, or a function building an index that wraps one (records). */
type IndexSource =
  | (new (
      engine: SearchEngine,
      db: Knex,
      logger: Logger,
      prefix?: string,
    ) => OwnedIndex)
  | ((engine: SearchEngine, db: Knex, logger: Logger, prefix?: string) => OwnedIndex);

/** The index a source builds. */
type Built<S> = S extends new (...args: any[]) => infer I ? I : S extends (...args: any[]) => infer R ? R : never;

const build = (source: IndexSource, engine: SearchEngine, db: Knex, logger: Logger, prefix?: string): OwnedIndex =>
  'spec' in source
    ? new (source as new (...a: unknown[]) => OwnedIndex)(engine, db, logger, prefix)
    : (source as (...a: unknown[]) => OwnedIndex)(engine, db, logger, prefix);

/** The configuration the start-up and the `reindex` command read. */
export type ServiceIndexConfig = SearchConfig & { SEARCH_INDEX_PREFIX?: string };

/**
 * SEARCH_ENGINE=opensearch|elasticsearch: the service's indices (created when missing; an engine
 * that is down is retried on the next write), their durable indexers and the engine's closer;
 * postgres (default): undefined, the SQL path serves searches.
 */
export async function openServiceIndexes<const T extends readonly IndexSource[]>(
  config: ServiceIndexConfig,
  db: Knex,
  logger: Logger,
  sources: T,
): Promise<
  | { indexes: { [K in keyof T]: Built<T[K]> }; indexers(nats: NatsHandle, logger: Logger): IndexerHandle[]; close(): Promise<void> }
  | undefined
> {
  const engine = await createSearchEngine(config);
  if (!engine) return undefined;
  const indexes = sources.map((source) => build(source, engine, db, logger, config.SEARCH_INDEX_PREFIX));
  for (const index of indexes)
    await index
      .ensureIndex()
      .catch((err) => logger.warn({ err }, 'search index not ensured yet (engine down?); retried on the next write'));
  return {
    indexes: indexes as { [K in keyof T]: Built<T[K]> },
    indexers: (nats, log) => indexes.map((i) => i.startIndexer(nats, log)),
    close: () => engine.close(),
  };
}

/** The `reindex` command of a service (`tsx src/main.ts reindex`): rebuild each index from PostgreSQL and swap its alias. */
export function reindexCommand(sources: readonly IndexSource[]) {
  return async ({ config, db, logger }: { config: ServiceIndexConfig; db: Knex; logger: Logger }): Promise<void> => {
    const engine = await createSearchEngine(config);
    if (!engine) {
      logger.info('SEARCH_ENGINE=postgres: search documents live in PostgreSQL, nothing to reindex');
      return;
    }
    try {
      for (const source of sources) {
        const index = build(source, engine, db, logger, config.SEARCH_INDEX_PREFIX);
        const t0 = performance.now();
        const res = await index.reindex();
        const seconds = (performance.now() - t0) / 1000;
        logger.info(
          { ...res, seconds: Number(seconds.toFixed(2)), docsPerSecond: Math.round(res.count / seconds) },
          `${index.def.alias} index rebuilt and swapped`,
        );
      }
    } finally {
      await engine.close();
    }
  };
}

/** Rows in the order of the engine's hits (`ids`); ids without a row (gone meanwhile) are skipped. */
export function inHitOrder<R>(ids: readonly string[], rows: readonly R[], idOf: (row: R) => string): R[] {
  const byId = new Map(rows.map((r) => [idOf(r), r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r === undefined ? [] : [r];
  });
}

/** Filter ASTs of a service's own filters (permissions, scopes, facet selections) on filter fields. */
export const queryFilters = {
  term: (field: string, value: string, wildcard = false): QueryAst => ({ type: 'term', field, value, wildcard }),
  anyOf: (field: string, values: readonly string[]): QueryAst => ({
    type: 'or',
    children: values.map((value) => ({ type: 'term', field, value, wildcard: false })),
  }),
  and: (...children: (QueryAst | null)[]): QueryAst => ({ type: 'and', children: children.filter((c): c is QueryAst => c !== null) }),
  or: (...children: (QueryAst | null)[]): QueryAst => ({ type: 'or', children: children.filter((c): c is QueryAst => c !== null) }),
  not: (child: QueryAst): QueryAst => ({ type: 'not', child }),
};
