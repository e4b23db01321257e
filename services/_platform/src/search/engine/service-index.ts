/**
 * The common part of a service's own index on OpenSearch/Elasticsearch: the definition under the
 * deployment's prefix (`SEARCH_INDEX_PREFIX`), creating it behind its alias once, and the inline
 * write of the writer's path. Subclasses (communities, members, requests, users) add their searches,
 * `load` (the current rows of the touched aggregates as bulk operations), the outbox indexer and reindex.
 */
import type { Knex } from 'knex';
import type { Logger } from '../../logger.js';
import type { AggregateRef } from './indexer.js';
import type { BulkOp, IndexDefinition, SearchEngine } from './port.js';

/** A service-owned index with its read-your-writes path. */
export abstract class ServiceIndex {
  private ensured?: Promise<void>;
  /** The index this service writes and reads (alias with the deployment's prefix). */
  readonly def: IndexDefinition;

  constructor(
    readonly engine: SearchEngine,
    protected readonly db: Knex,
    protected readonly logger: Pick<Logger, 'warn'>,
    def: IndexDefinition,
    prefix = '',
  ) {
    this.def = { ...def, alias: `${prefix}${def.alias}` };
  }

  /** Current state of the touched aggregates as bulk operations (index the row, or delete it). */
  abstract load(refs: AggregateRef[]): Promise<BulkOp[]>;

  /** Creates the index behind its alias when missing (once; retried after a failure). */
  ensureIndex(): Promise<void> {
    this.ensured ??= this.engine.ensureIndex(this.def).catch((err) => {
      this.ensured = undefined;
      throw err;
    });
    return this.ensured;
  }

  /**
   * Index committed rows now with `refresh: wait_for`, so the writer's next search sees its write.
   * A failure (engine down) is logged, never thrown: the write is committed and its outbox event
   * brings the index up to date once the engine is back.
   */
  async afterCommit(ids: string[]): Promise<void> {
    if (!ids.length) return;
    try {
      const ops = await this.load(ids.map((id) => ({ id, revision: 0, subject: '' })));
      await this.engine.bulk(this.def.alias, ops, { refresh: 'wait_for' });
    } catch (err) {
      this.logger.warn({ err, ids, index: this.def.alias }, 'inline search indexing failed; the outbox indexer will catch up');
    }
  }
}
