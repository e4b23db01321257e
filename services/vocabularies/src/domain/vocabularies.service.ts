/**
 * The vocabularies service: list vocabulary types, search and read entries, resolve (type, id)
 * pairs for other services, and the system-only writes.
 *
 * Hot path: single-entry reads and resolves are served from the `EntryCache` (serialized JSON
 * ready to send); a miss costs one prepared single-row query. Known types are kept in memory
 * too. `invalidate()` drops both; it runs on every `rdm.vocabularies.vocabulary.loaded` event
 * (any replica's write or a `migrate` run) and right after this replica's own writes.
 *
 * Why one file over 400 lines: listing, search, single reads, the resolve RPC and the system writes
 * share the entry cache that makes the hot paths cheap; splitting them would spread its
 * invalidation.
 */
import {
  all,
  checkRevision,
  Errors,
  first,
  type Identity,
  isSystem,
  type Knex,
  type ListArgs,
  listEnvelope,
  parseListArgs,
  withTransaction,
  writeOutbox,
  AppError,
  type Aggregation,
} from '@rdm/platform';
import {
  AWARD_FUNDER_ID,
  allTypes,
  bumpTypeRevision,
  countEntries,
  deleteEntry,
  entryState,
  filterByFunders,
  getEntries,
  getEntry,
  listTypes,
  lockType,
  nameIdByIdentifier,
  searchEntries,
  termsAgg,
  upsertEntries,
} from '../repo/vocabularies.repo.js';
import { type EntryRow, toRowInput } from './documents.js';
import { type EntryDoc, EntryError, normalizeEntry } from './entry.js';
import { type CachedEntry, EntryCache } from './entry-cache.js';
import { isIndexedType, kindOf, specOf } from './kinds.js';
import { listPath } from './links.js';
import { LOADED_SUBJECT, writeEntriesChanged } from './loader.service.js';
import { buildEntrySearch, parseQ, parseSuggest } from './search.js';
import { resolvedEntry, serializeEntry, serializeL10n, serializeType } from './serializers.js';
import { vocabulariesPolicy as policy } from './vocabularies.policy.js';
import type { VocabularySearchIndex } from '../search/entry-index.js';

type Query = Record<string, string | string[] | undefined>;

/** Dependencies of the service. */
export interface VocabulariesServiceDeps {
  db: Knex;
  /** PUBLIC_BASE_URL. */
  baseUrl: string;
  cache: EntryCache;
  /** How long the known-types map is trusted without an event (ms). */
  typesTtlMs?: number;
  /** The search engine index of the large vocabularies (SEARCH_ENGINE opensearch/elasticsearch); absent: postgres. */
  search?: VocabularySearchIndex;
}

/** A type as the service knows it. */
interface TypeInfo {
  id: string;
  pid_type: string;
  is_custom: boolean;
}

/** One item of the resolve RPC. */
export interface ResolveItem {
  type: string;
  id: string;
}

/** Largest number of items one resolve call may carry. */
export const MAX_RESOLVE_ITEMS = 1000;

const PID_MISSING = () => Errors.pidDoesNotExist();

/** A NUL character or a UTF-16 surrogate without its pair: text PostgreSQL cannot store. */
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Path (`a.b.0`, `_schema` for the value itself) of the first string or key of a JSON value that
 * PostgreSQL cannot store (a NUL character or an unpaired surrogate), or null.
 */
export function unstorablePath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path || '_schema' : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [k, v] of Object.entries(value)) {
    const at = path ? `${path}.${k}` : k;
    if (UNSTORABLE.test(k)) return at;
    const found = unstorablePath(v, at);
    if (found) return found;
  }
  return null;
}

/** Vocabulary use cases: one method per route or RPC. */
export class VocabulariesService {
  private types: Map<string, TypeInfo> | undefined;
  private typesLoadedAt = 0;
  private typesLoading: Promise<Map<string, TypeInfo>> | undefined;

  constructor(private readonly d: VocabulariesServiceDeps) {}

  /** Forget cached entries and types (a vocabulary changed somewhere). */
  invalidate(): void {
    this.d.cache.clear();
    this.types = undefined;
  }

  private async loadTypes(): Promise<Map<string, TypeInfo>> {
    const rows: TypeInfo[] = await allTypes(this.d.db);
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** The type, from memory when fresh; unknown types re-check the database once. */
  private async type(id: string): Promise<TypeInfo | undefined> {
    const fresh = this.types && Date.now() - this.typesLoadedAt < (this.d.typesTtlMs ?? 60_000);
    if (fresh && this.types!.has(id)) return this.types!.get(id);
    this.typesLoading ??= this.loadTypes().finally(() => {
      this.typesLoading = undefined;
    });
    const map = await this.typesLoading;
    this.types = map;
    this.typesLoadedAt = Date.now();
    return map.get(id);
  }

  private requireRead(identity: Identity, type: string): void {
    policy.require(kindOf(type) === 'names' ? 'read_names' : 'read', identity);
  }

  // ---- reads --------------------------------------------------------------------------------

  /** `GET /api/vocabularies`: vocabulary types whose id contains `q`, sorted by id, with counts. */
  async listTypes(identity: Identity, query: Query) {
    policy.require('list_vocabularies', identity);
    const args = parseListArgs(query, { sorts: ['id', 'name', 'count'], defaultSort: 'id', defaultSortWithQ: 'id' });
    const { rows, total } = await listTypes(this.d.db, {
      q: args.q,
      sort: args.sort === 'count' ? 'count' : 'id',
      limit: args.size,
      offset: args.from,
    });
    return listEnvelope({
      hits: rows.map((r) => serializeType(r, this.d.baseUrl)),
      total,
      args,
      baseUrl: this.d.baseUrl,
      path: '/api/vocabularies',
    });
  }

  /**
   * `GET /api/vocabularies/<type>` and `GET /api/<type>`: search entries with q | suggest, the
   * `tags` filter (awards: the `funders` facet), sort and paging. `path` is the requested list
   * path, kept in the links.
   */
  async search(identity: Identity, type: string, query: Query, path?: string) {
    const kind = kindOf(type);
    policy.require(kind === 'names' ? 'search_names' : 'search', identity);
    const known = await this.type(type);
    if (!known) throw Errors.notFound();
    const spec = specOf(type);
    const suggest = (first(query.suggest) ?? '').trim();
    const q = (first(query.q) ?? '').trim();
    if (q && suggest) throw Errors.invalidQuerystring();
    const args: ListArgs = parseListArgs(query, { sorts: spec.sorts, defaultSort: spec.defaultSort, defaultSortWithQ: 'bestmatch' });
    // Why: `suggest` is a query too: its default sort is bestmatch, and bestmatch is not rewritten.
    const askedSort = first(query.sort);
    if (suggest && (!askedSort || askedSort === 'bestmatch')) args.sort = 'bestmatch';
    const tags = all(query.tags);
    const funders = kind === 'awards' ? all(query.funders) : [];
    const hideUnlisted = !isSystem(identity);
    let rows: EntryRow[];
    let total: number;
    let buckets: { key: string; doc_count: number }[] | undefined;
    if (this.d.search && isIndexedType(type)) {
      ({
        rows,
        total,
        funderBuckets: buckets,
      } = await this.d.search.search({
        type,
        ast: args.q ? parseQ(args.q) : undefined,
        suggest: !args.q && suggest ? parseSuggest(type, suggest) : undefined,
        tags,
        sort: args.sort,
        from: args.from,
        size: args.size,
        hideUnlisted,
        funders: kind === 'awards' ? { selected: funders } : undefined,
      }));
    } else {
      const search = buildEntrySearch({
        type,
        q: args.q,
        suggest,
        tags,
        sort: args.sort,
        limit: args.size,
        offset: args.from,
        hideUnlisted,
      });
      if (kind === 'awards') {
        // The funders facet is a post filter: its counts ignore the selected funders.
        buckets = await termsAgg(this.d.db, search, AWARD_FUNDER_ID);
        if (funders.length > 0) filterByFunders(search, funders);
      }
      ({ rows, total } = await searchEntries(this.d.db, search));
    }
    let aggregations: Record<string, Aggregation> | undefined;
    if (buckets) {
      const labels = new Map(
        (
          await getEntries(
            this.d.db,
            buckets.map((b) => ({ type: 'funders', id: b.key })),
          )
        ).map((r) => [r.id, r.name ?? r.id]),
      );
      aggregations = {
        funders: {
          label: 'Funders',
          buckets: buckets.map((b) => ({
            key: b.key,
            doc_count: b.doc_count,
            label: labels.get(b.key) ?? b.key,
            is_selected: funders.includes(b.key),
          })),
        },
      };
    }
    const params: Record<string, string | string[] | undefined> = {};
    if (suggest) params.suggest = suggest;
    if (tags.length) params.tags = tags;
    if (funders.length) params.funders = funders;
    return listEnvelope({
      hits: rows.map((r) => serializeEntry(r, this.d.baseUrl)),
      total,
      args,
      baseUrl: this.d.baseUrl,
      path: path ?? listPath(type),
      params,
      aggregations,
    });
  }

  private toCached(row: EntryRow): CachedEntry {
    return {
      body: Buffer.from(JSON.stringify(serializeEntry(row, this.d.baseUrl))),
      etag: `"${row.revision_id}"`,
      resolved: resolvedEntry(row),
      unlisted: (row.tags ?? []).includes('unlisted'),
    };
  }

  /** A cached entry or null when absent; one prepared query on a miss. */
  private async cachedEntry(type: string, id: string): Promise<CachedEntry | null> {
    const hit = this.d.cache.get(type, id);
    if (hit !== undefined) return hit;
    const gen = this.d.cache.gen;
    const row = await getEntry(this.d.db, type, id);
    const value = row ? this.toCached(row) : null;
    this.d.cache.set(type, id, value, gen);
    return value;
  }

  /**
   * `GET /api/vocabularies/<type>/<id>` and `GET /api/<type>/<id>`: the serialized entry and its
   * ETag. Unknown type or id → 404 `The persistent identifier does not exist.`.
   */
  async read(identity: Identity, type: string, id: string): Promise<CachedEntry> {
    this.requireRead(identity, type);
    const entry = await this.cachedEntry(type, id);
    if (!entry) throw PID_MISSING();
    if (entry.unlisted) policy.require('read_unlisted', identity);
    return entry;
  }

  /** The localized UI form of an entry (`application/vnd.inveniordm.v1+json`). */
  async readL10n(identity: Identity, type: string, id: string, lang: string): Promise<Record<string, unknown>> {
    this.requireRead(identity, type);
    const row = await getEntry(this.d.db, type, id);
    if (!row) throw PID_MISSING();
    if ((row.tags ?? []).includes('unlisted')) policy.require('read_unlisted', identity);
    return serializeL10n(row, lang);
  }

  /** `GET /api/names/<scheme>/<value>`: the name whose identifiers hold (scheme, value). */
  async resolveName(identity: Identity, scheme: string, value: string): Promise<Record<string, unknown>> {
    policy.require('read_names', identity);
    const nameId = await nameIdByIdentifier(this.d.db, scheme.toLowerCase(), value);
    if (!nameId) throw PID_MISSING();
    const entry = await this.cachedEntry('names', nameId);
    if (!entry) throw PID_MISSING();
    return JSON.parse(entry.body.toString('utf8')) as Record<string, unknown>;
  }

  /**
   * RPC `rdm.vocabularies.rpc.resolve`: for each (type, id), `found` and the compact entry.
   * Cache hits cost nothing; all misses are fetched in ONE query. Order and duplicates are kept.
   */
  async resolve(items: ResolveItem[]) {
    if (items.length > MAX_RESOLVE_ITEMS) {
      throw Errors.validation([{ field: 'items', messages: [`Longer than maximum length ${MAX_RESOLVE_ITEMS}.`] }]);
    }
    const gen = this.d.cache.gen;
    const found = new Map<string, CachedEntry | null>();
    const misses: ResolveItem[] = [];
    for (const it of items) {
      const k = EntryCache.key(it.type, it.id);
      if (found.has(k)) continue;
      const hit = this.d.cache.get(it.type, it.id);
      if (hit === undefined) {
        misses.push(it);
        found.set(k, null);
      } else found.set(k, hit);
    }
    if (misses.length > 0) {
      // Why: PostgreSQL text cannot hold NUL; such an id exists nowhere (and would fail the query).
      const rows = await getEntries(
        this.d.db,
        misses.filter((m) => !String(m.type).includes('\0') && !String(m.id).includes('\0')),
      );
      const byKey = new Map(rows.map((r) => [EntryCache.key(r.type, r.id), r]));
      for (const m of misses) {
        const k = EntryCache.key(m.type, m.id);
        const row = byKey.get(k);
        const value = row ? this.toCached(row) : null;
        found.set(k, value);
        this.d.cache.set(m.type, m.id, value, gen);
      }
    }
    return {
      items: items.map((it) => {
        const v = found.get(EntryCache.key(it.type, it.id));
        return v ? { type: it.type, id: it.id, found: true, entry: v.resolved } : { type: it.type, id: it.id, found: false };
      }),
    };
  }

  // ---- writes (system only) -----------------------------------------------------------------

  /**
   * One write of entries of `type`: `fn` returns the ids it changed. The type's row is locked first
   * (index versions in commit order); the type revision, the reload event and, for the large
   * vocabularies, `entries.changed` go to the outbox in the same transaction. After commit the
   * entries are indexed inline (search engine only) so the writer's next search sees them.
   */
  private async writeInTx(type: string, fn: (trx: Knex.Transaction) => Promise<string[]>): Promise<void> {
    const ids = await withTransaction(this.d.db, async (trx) => {
      await lockType(trx, type);
      const changed = await fn(trx);
      const revision = await bumpTypeRevision(trx, type);
      await writeOutbox(trx, {
        subject: LOADED_SUBJECT,
        aggregate: { type: 'vocabulary', id: type, revision },
        data: { type, count: await countEntries(trx, type) },
      });
      if (isIndexedType(type) && changed.length) await writeEntriesChanged(trx, type, revision, changed);
      return changed;
    });
    // Why: read-your-writes on this replica; the event clears the other replicas.
    this.invalidate();
    if (isIndexedType(type)) await this.d.search?.indexEntries(type, ids);
  }

  private normalize(type: string, body: unknown, id?: string): EntryDoc {
    // Why: PostgreSQL cannot store NUL (U+0000) or unpaired surrogates in text or jsonb; that is invalid input, not a 500.
    const bad = unstorablePath(body);
    if (bad) throw Errors.validation([{ field: bad, messages: ['Must not contain NUL characters or unpaired surrogates.'] }]);
    const raw = body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : body;
    if (id !== undefined && raw && typeof raw === 'object') (raw as Record<string, unknown>).id = id;
    try {
      return normalizeEntry(type, raw);
    } catch (e) {
      if (e instanceof EntryError) throw Errors.validation([{ field: e.field, messages: [e.message] }]);
      throw e;
    }
  }

  private async readRow(type: string, id: string): Promise<Record<string, unknown>> {
    const row = await getEntry(this.d.db, type, id);
    if (!row) throw PID_MISSING();
    return serializeEntry(row, this.d.baseUrl);
  }

  /** `POST /api/vocabularies/<type>` (or `/api/<type>`): create an entry. System and administrators only. */
  async create(identity: Identity, type: string, body: unknown): Promise<Record<string, unknown>> {
    policy.require('create', identity);
    if (!(await this.type(type))) throw Errors.notFound();
    const doc = this.normalize(type, body);
    await this.writeInTx(type, async (trx) => {
      if (await entryState(trx, type, doc.id)) {
        throw new AppError('pid_already_exists', 400, 'The persistent identifier is already registered.');
      }
      return (await upsertEntries(trx, [toRowInput(type, doc)])).ids;
    });
    return this.readRow(type, doc.id);
  }

  /** `PUT /api/vocabularies/<type>/<id>`: replace an entry (revision + 1); `If-Match` checked when given. */
  async update(identity: Identity, type: string, id: string, body: unknown, ifMatch?: number): Promise<Record<string, unknown>> {
    policy.require('update', identity);
    const doc = this.normalize(type, body, id);
    await this.writeInTx(type, async (trx) => {
      const state = await entryState(trx, type, id);
      if (!state) throw PID_MISSING();
      checkRevision(ifMatch, state.revision_id);
      // Why: an explicit update always makes a new revision, even with identical content.
      return (await upsertEntries(trx, [toRowInput(type, doc)], { force: true })).ids;
    });
    return this.readRow(type, id);
  }

  /** `DELETE /api/vocabularies/<type>/<id>`: remove an entry; `If-Match` checked when given. */
  async delete(identity: Identity, type: string, id: string, ifMatch?: number): Promise<void> {
    policy.require('delete', identity);
    await this.writeInTx(type, async (trx) => {
      const state = await entryState(trx, type, id);
      if (!state) throw PID_MISSING();
      checkRevision(ifMatch, state.revision_id);
      await deleteEntry(trx, type, id);
      return [id];
    });
  }

  /** `POST /api/vocabularies/tasks`: datastream tasks are not supported; fixtures load with `migrate`. */
  async launchTask(identity: Identity): Promise<never> {
    policy.require('manage', identity);
    throw Errors.badRequest('Vocabulary datastream tasks are not supported: vocabularies are loaded by the migrate command.');
  }
}
