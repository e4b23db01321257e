/**
 * Execution of one vocabulary import run: the source is streamed and applied in batches, each
 * batch in ONE transaction that also checkpoints the run (`position`: source elements consumed), so
 * an entry is never half-applied and a restart continues after the last committed batch.
 *
 * Idempotent: an element whose entry is unchanged (same content hash) is not written (its revision
 * stays); a changed one gets revision + 1; a withdrawn/inactive one is tagged `deprecated`; once the
 * whole source was read, entries of the same origin (a `ror` identifier) the dump no longer holds
 * are tagged `deprecated` too (unless `deprecate_missing: false`: a partial file). The ids a run wrote are remembered (`job_run_entries`): a duplicate
 * id with the same data is skipped, with different data rejected. Rejected elements are recorded
 * with their reason (`job_run_errors`); a source that cannot be read fails the run with a clear
 * message. Every batch that changed entries announces them like any other write (outbox, same
 * transaction): `rdm.vocabularies.vocabulary.loaded` `{type, count}` (entry caches drop) and, for
 * the large vocabularies, `rdm.vocabularies.entries.changed` (search indexer).
 *
 * Pipeline: the next batch is read and mapped, then its entries' stored hashes are read and the
 * rows of the changed ones built (`prepare`), while the previous batch is written; the batch's
 * transaction then only checks duplicates, upserts (one statement per 1,000 rows), announces and
 * checkpoints. The run remembers one `job_run_entries` row per source element (every entry an
 * element writes has its id).
 *
 * When to use: the jobs worker (`jobs-worker.ts`) and the `import` command call `executeRun` for a
 * run they claimed. Every transaction first fences the run (`worker` token, `FOR UPDATE`): a worker
 * whose lease was taken over (it stalled past `leaseMs`) stops without applying anything.
 */
import { isAbsolute, resolve, sep } from 'node:path';
import { isConnectionError, type Knex, type Logger, writeOutbox } from '@rdm/platform';
import { type EntryRowInput, rowToDoc, toRowInput } from '../domain/documents.js';
import { contentHash, type EntryDoc, EntryError, normalizeEntry } from '../domain/entry.js';
import { isIndexedType, KNOWN_PID_TYPES, kindOf } from '../domain/kinds.js';
import { ENTRIES_CHANGED_SUBJECT, LOADED_SUBJECT } from '../domain/loader.service.js';
import { DEPRECATED_TAG, mapRorRecord } from '../imports/ror.js';
import { IMPORT_FORMATS, type ImportFormat, openSource, SourceError, type SourceElement } from '../imports/source.js';
import {
  analyzeRunEntries,
  existingHashes,
  fenceRun,
  finishRun,
  heartbeat,
  insertErrors,
  insertSeen,
  missingEntries,
  releaseRun,
  type RunRow,
  saveProgress,
  seenEntries,
  type TypeCounts,
} from '../repo/jobs.repo.js';
import { bumpTypeRevision, countEntries, lockType, rorIdsByGrid, upsertEntries, upsertType } from '../repo/vocabularies.repo.js';

/** The task name of a vocabulary import job. */
export const IMPORT_TASK = 'vocabularies.import';
/** Vocabulary types an import may target, with their pid types: every type InvenioRDM ships (invenio-vocabularies, invenio-rdm-records). */
export const IMPORT_TYPES: Readonly<Record<string, string>> = KNOWN_PID_TYPES;
/** A type an import may target (a key of `IMPORT_TYPES`). */
export type ImportType = string;
/** Every type, for InvenioRDM's own vocabulary files. */
const ANY_TYPE: readonly ImportType[] = Object.keys(KNOWN_PID_TYPES).sort();
/** The types each format can fill. */
const FORMAT_TYPES: Record<ImportFormat, readonly ImportType[]> = {
  'ror-v2': ['affiliations', 'funders'],
  jsonl: ANY_TYPE,
  csv: ANY_TYPE,
  yaml: ANY_TYPE,
  orcid: ['names'],
  openaire: ['awards'],
  cordis: ['awards'],
  skos: ['subjects'],
  mesh: ['subjects'],
};
/** Most rejected elements whose reasons are stored per run (all are counted). */
export const MAX_STORED_ERRORS = 10_000;
/** Claims of one run before it is failed (a source that crashes its worker every time). */
export const MAX_ATTEMPTS = 5;

/** The arguments of an import: target type, source format and file. */
export interface ImportArgs {
  type: ImportType;
  format: ImportFormat;
  source: string;
  /** Tag entries of the same origin that the source no longer holds `deprecated` (default true; false for partial files). */
  deprecate_missing: boolean;
}

/** A problem with an import's arguments (field, message). */
export class ImportArgsError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'ImportArgsError';
  }
}

/** Check an import's arguments (shape only; the file is opened when the run starts). */
export function parseImportArgs(raw: unknown): ImportArgs {
  const a = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const format = a.format ?? 'ror-v2';
  if (typeof format !== 'string' || !(IMPORT_FORMATS as readonly string[]).includes(format)) {
    throw new ImportArgsError('args.format', `Must be one of: ${IMPORT_FORMATS.join(', ')}.`);
  }
  const types = FORMAT_TYPES[format as ImportFormat];
  if (typeof a.type !== 'string' || !(types as readonly string[]).includes(a.type)) {
    throw new ImportArgsError('args.type', `Must be one of: ${types.join(', ')}.`);
  }
  if (typeof a.source !== 'string' || a.source.trim() === '' || a.source.includes('\0')) {
    throw new ImportArgsError('args.source', 'Missing data for required field.');
  }
  if (a.deprecate_missing !== undefined && typeof a.deprecate_missing !== 'boolean') {
    throw new ImportArgsError('args.deprecate_missing', 'Not a valid boolean.');
  }
  // Why ror-v2 only: its entries carry their origin (a ror identifier); InvenioRDM's vocabulary files' do not.
  if (format !== 'ror-v2' && a.deprecate_missing === true) {
    throw new ImportArgsError('args.deprecate_missing', 'Only ror-v2 imports can deprecate missing entries.');
  }
  return {
    type: a.type as ImportType,
    format: format as ImportFormat,
    source: a.source,
    deprecate_missing: format === 'ror-v2' && a.deprecate_missing !== false,
  };
}

/** `source` resolved inside `dir`, or an `ImportArgsError` when it would leave it. */
export function sourceInside(dir: string, source: string): string {
  const base = resolve(dir);
  const path = resolve(base, source);
  if (!path.startsWith(base + sep)) throw new ImportArgsError('args.source', 'Must name a file inside the import directory.');
  return path;
}

/** The types a run of `args` writes: a ROR import of affiliations also writes the funders (organisations with a FundRef id). */
export function targetsOf(args: ImportArgs): ImportType[] {
  return args.format === 'ror-v2' && args.type === 'affiliations' ? ['affiliations', 'funders'] : [args.type];
}

/** What a run reports after each committed batch. */
export interface RunProgress {
  phase: RunRow['phase'];
  position: number;
  bytesRead: number;
  bytesTotal: number | null;
  totalEntries: number;
  erroredEntries: number;
  counts: Record<string, TypeCounts>;
}

/** What executeRun needs. */
export interface RunnerDeps {
  db: Knex;
  logger: Logger;
  /** Where relative sources are resolved. */
  importDir: string;
  /** Source elements per transaction. */
  batchSize: number;
  /** A run whose heartbeat is older is taken over by another worker. */
  leaseMs: number;
  /** Largest YAML source (read whole), bytes (default 64 MiB). */
  yamlMaxBytes?: number;
}

/** Hooks of one execution. */
export interface RunHooks {
  /** Stop between batches and give the run back to the queue. */
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
  /** Called before each batch transaction (tests: stall a worker). */
  beforeBatch?: (n: number) => Promise<void>;
}

/** How an execution ended: finished (SUCCESS/PARTIAL_SUCCESS/FAILED), released (stopped), lost (lease taken over). */
export type RunOutcome = 'finished' | 'released' | 'lost';

class LostLease extends Error {}

const emptyCounts = (): TypeCounts => ({ added: 0, updated: 0, unchanged: 0, deprecated: 0 });
const idOf = (v: unknown) => {
  const id = (v as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id.slice(0, 200) : null;
};

/** One entry an element writes: its document and content hash (the row is built only when it must be written). */
interface MappedEntry {
  type: ImportType;
  id: string;
  doc: EntryDoc;
  hash: string;
}
type Mapped = { position: number; id: string; hash: string; rows: MappedEntry[] } | { position: number; id: string | null; reason: string };

/** The pseudo-type under which a run remembers each source element's id (duplicates in the dump). */
const SOURCE_KEY = '@source';

function mapElement(args: ImportArgs, targets: ImportType[], el: SourceElement): Mapped {
  if (el.error !== undefined) return { position: el.position, id: null, reason: el.error };
  try {
    if (args.format !== 'ror-v2') {
      const doc = normalizeEntry(args.type, el.value);
      const hash = contentHash(doc);
      return { position: el.position, id: doc.id, hash, rows: [{ type: args.type, id: doc.id, doc, hash }] };
    }
    const r = mapRorRecord(el.value);
    const hash = contentHash(r.affiliation);
    const rows: MappedEntry[] = [];
    if (targets.includes('affiliations')) rows.push({ type: 'affiliations', id: r.id, doc: r.affiliation, hash });
    if (targets.includes('funders') && r.funder) rows.push({ type: 'funders', id: r.id, doc: r.funder, hash: contentHash(r.funder) });
    return { position: el.position, id: r.id, hash, rows };
  } catch (err) {
    if (err instanceof EntryError) return { position: el.position, id: idOf(el.value), reason: `${err.field}: ${err.message}` };
    throw err;
  }
}

/**
 * Resolve the GRID-disambiguated affiliations of ORCID names (`{grid, name?}`) in place: to the ROR
 * id of the affiliation entry carrying that GRID id, else to the organisation's name (dropped
 * without one). One query per batch.
 */
export async function resolveGridAffiliations(db: Knex, elements: SourceElement[]): Promise<void> {
  const affs = (el: SourceElement) => (el.value as { affiliations?: Record<string, string>[] } | undefined)?.affiliations ?? [];
  const grids = new Set<string>();
  for (const el of elements) for (const a of affs(el)) if (typeof a.grid === 'string') grids.add(a.grid);
  if (grids.size === 0) return;
  const ror = await rorIdsByGrid(db, [...grids]);
  for (const el of elements) {
    const v = el.value as { affiliations?: Record<string, string>[] } | undefined;
    if (!v?.affiliations) continue;
    const out: Record<string, string>[] = [];
    const seen = new Set<string>();
    for (const a of v.affiliations) {
      const r = typeof a.grid === 'string' ? (ror.get(a.grid) ? { id: ror.get(a.grid)! } : a.name ? { name: a.name } : undefined) : a;
      const key = r && JSON.stringify(r);
      if (!r || seen.has(key!)) continue;
      seen.add(key!);
      out.push(r);
    }
    v.affiliations = out.length ? out : undefined;
  }
}

/** A batch ready to be written: the stored state of its entries (read before its transaction) and the rows of those that changed. */
interface PreparedBatch {
  mapped: Mapped[];
  bytesRead: number;
  existing: Map<string, Map<string, { hash: string; tags: string[] }>>;
  rows: Map<MappedEntry, EntryRowInput>;
}

/**
 * Announce changed entries of `type` (after they were written in `trx`). `count` is the type's
 * entry count, counted once per run and then followed by the entries the run added: counting
 * every batch would scan the whole type each time (quadratic in a dump's size).
 */
async function announce(trx: Knex.Transaction, type: string, ids: string[], count: () => Promise<number>): Promise<void> {
  if (ids.length === 0) return;
  const revision = await bumpTypeRevision(trx, type);
  await writeOutbox(trx, {
    subject: LOADED_SUBJECT,
    aggregate: { type: 'vocabulary', id: type, revision },
    data: { type, count: await count() },
  });
  if (isIndexedType(type)) {
    for (let i = 0; i < ids.length; i += 500) {
      await writeOutbox(trx, {
        subject: ENTRIES_CHANGED_SUBJECT,
        aggregate: { type: 'vocabulary', id: type, revision },
        data: { type, ids: ids.slice(i, i + 500) as [string, ...string[]] },
      });
    }
  }
}

/** Execute (or continue) a run claimed by `worker`. */
export async function executeRun(deps: RunnerDeps, claimed: RunRow, worker: string, hooks: RunHooks = {}): Promise<RunOutcome> {
  const { db, logger } = deps;
  const log = logger.child({ run_id: claimed.id, job_id: claimed.job_id });
  if (claimed.attempts > MAX_ATTEMPTS) {
    await finishRun(db, claimed.id, worker, 'FAILED', `Gave up after ${MAX_ATTEMPTS} attempts (the run stopped its worker each time).`);
    return 'finished';
  }
  let args: ImportArgs;
  try {
    args = parseImportArgs(claimed.args);
  } catch (err) {
    await finishRun(db, claimed.id, worker, 'FAILED', `Invalid arguments: ${(err as Error).message}`);
    return 'finished';
  }
  const targets = targetsOf(args);
  const path = isAbsolute(args.source) ? args.source : resolve(deps.importDir, args.source);
  const state: RunProgress = {
    phase: claimed.phase,
    position: claimed.position,
    bytesRead: claimed.bytes_read,
    bytesTotal: claimed.bytes_total,
    totalEntries: claimed.total_entries,
    erroredEntries: claimed.errored_entries,
    counts: Object.fromEntries(targets.map((t) => [t, { ...emptyCounts(), ...claimed.counts[t] }])),
  };
  let lost = false;
  // Why one heartbeat at a time: a batch's transaction holds the run's row, so a heartbeat waits
  // for its commit; overlapping ones would pile up and take every connection of the pool.
  let beating = false;
  const beat = setInterval(
    () => {
      if (beating) return;
      beating = true;
      heartbeat(db, claimed.id, worker)
        .then((ok) => {
          if (!ok) lost = true;
        })
        .catch((err) => log.warn({ err }, 'heartbeat failed'))
        .finally(() => {
          beating = false;
        });
    },
    Math.max(50, Math.floor(deps.leaseMs / 3)),
  );
  let batchNo = 0;
  /** One transaction: fence, `apply`, checkpoint. */
  const inBatch = async (apply: (trx: Knex.Transaction) => Promise<void>) => {
    await hooks.beforeBatch?.(batchNo++);
    if (lost) throw new LostLease();
    await db.transaction(async (trx) => {
      if (!(await fenceRun(trx, claimed.id, worker))) throw new LostLease();
      for (const t of [...targets].sort()) await lockType(trx, t);
      await apply(trx);
      await saveProgress(trx, claimed.id, {
        position: state.position,
        bytes_read: state.bytesRead,
        bytes_total: state.bytesTotal,
        total_entries: state.totalEntries,
        errored_entries: state.erroredEntries,
        counts: state.counts,
        phase: state.phase,
      });
    });
    hooks.onProgress?.({ ...state, counts: structuredClone(state.counts) });
  };

  /** Entry counts per type: counted once (its first announcement, after its upsert), then followed by the rows the run inserted. */
  const typeCounts = new Map<string, number>();
  const counter = (trx: Knex.Transaction, type: string, inserted: number) => async () => {
    const known = typeCounts.get(type);
    const n = known === undefined ? await countEntries(trx, type) : known + inserted;
    typeCounts.set(type, n);
    return n;
  };

  /**
   * Read the stored state of a batch's entries and build the rows of those that changed, before
   * its transaction: it runs while the previous batch is being written (node's CPU next to
   * PostgreSQL's). A concurrent write is harmless: the upsert skips rows whose stored hash already
   * equals theirs, and duplicates within the run are checked in the transaction.
   */
  const prepare = async (mapped: Mapped[], bytesRead: number): Promise<PreparedBatch> => {
    const idsByType = new Map<string, Set<string>>();
    for (const m of mapped) {
      if (!('rows' in m)) continue;
      for (const r of m.rows) {
        const ids = idsByType.get(r.type);
        if (ids) ids.add(r.id);
        else idsByType.set(r.type, new Set([r.id]));
      }
    }
    const existing = new Map<string, Map<string, { hash: string; tags: string[] }>>();
    for (const [type, ids] of idsByType) existing.set(type, await existingHashes(db, type, [...ids]));
    const rows = new Map<MappedEntry, EntryRowInput>();
    let n = 0;
    for (const m of mapped) {
      if (!('rows' in m)) continue;
      for (const r of m.rows) {
        if (existing.get(r.type)?.get(r.id)?.hash === r.hash) continue;
        rows.set(r, toRowInput(r.type, r.doc, r.hash));
        // Let the previous batch's statements go on meanwhile.
        if (++n % 250 === 0) await new Promise((done) => setImmediate(done));
      }
    }
    return { mapped, bytesRead, existing, rows };
  };

  /** Apply a prepared batch (elements in source order) in one transaction. */
  const applyElements = ({ mapped, bytesRead, existing, rows }: PreparedBatch) =>
    inBatch(async (trx) => {
      const ids = [...new Set(mapped.flatMap((m) => ('rows' in m ? [m.id] : [])))];
      const sources = await seenEntries(trx, claimed.id, SOURCE_KEY, ids);
      const writes = new Map<string, EntryRowInput[]>();
      const seenRows: { run_id: string; type: string; id: string; content_hash: string; position: number }[] = [];
      const errors: { run_id: string; position: number; entry_id: string | null; reason: string }[] = [];
      const delta = new Map<string, TypeCounts>(targets.map((t) => [t, emptyCounts()]));
      for (const m of mapped) {
        if ('reason' in m) {
          errors.push({ run_id: claimed.id, position: m.position, entry_id: m.id, reason: m.reason });
          continue;
        }
        const prior = sources.get(m.id);
        if (prior && prior.hash !== m.hash) {
          errors.push({
            run_id: claimed.id,
            position: m.position,
            entry_id: m.id,
            reason: `Duplicate id ${m.id} with different data (first at entry ${prior.position}).`,
          });
          continue;
        }
        if (prior) continue; // the same entry again: already applied
        sources.set(m.id, { hash: m.hash, position: m.position });
        // Why only the element's id: every entry an element writes has that id (the deprecation
        // and the duplicate check read these rows).
        seenRows.push({ run_id: claimed.id, type: SOURCE_KEY, id: m.id, content_hash: m.hash, position: m.position });
        for (const r of m.rows) {
          const before = existing.get(r.type)?.get(r.id);
          const c = delta.get(r.type)!;
          const row = rows.get(r);
          if (!row) {
            c.unchanged++;
            continue;
          }
          const tags = (r.doc.tags as string[] | undefined) ?? [];
          if (!before) c.added++;
          else if (tags.includes(DEPRECATED_TAG) && !before.tags.includes(DEPRECATED_TAG)) c.deprecated++;
          else c.updated++;
          const list = writes.get(r.type) ?? [];
          list.push(row);
          writes.set(r.type, list);
        }
      }
      for (const [type, list] of writes) {
        const { ids, inserted } = await upsertEntries(trx, list);
        await announce(trx, type, ids, counter(trx, type, inserted));
      }
      await insertSeen(trx, seenRows);
      const room = Math.max(0, MAX_STORED_ERRORS - state.erroredEntries);
      await insertErrors(trx, errors.slice(0, room));
      // Why after the writes: state is only advanced once the transaction's statements succeeded.
      for (const [t, c] of delta) for (const k of Object.keys(c) as (keyof TypeCounts)[]) state.counts[t][k] += c[k];
      state.erroredEntries += errors.length;
      state.totalEntries += mapped.length;
      state.position = mapped[mapped.length - 1].position + 1;
      state.bytesRead = bytesRead;
    });

  try {
    if (state.phase === 'entries') {
      let source: Awaited<ReturnType<typeof openSource>>;
      try {
        source = await openSource(args.format, path, { yamlMaxBytes: deps.yamlMaxBytes });
      } catch (err) {
        if (err instanceof SourceError) {
          await finishRun(db, claimed.id, worker, 'FAILED', err.message);
          return 'finished';
        }
        throw err;
      }
      state.bytesTotal = source.bytesTotal;
      for (const t of [...targets].sort()) await upsertType(db, { id: t, pid_type: IMPORT_TYPES[t], is_custom: kindOf(t) !== 'generic' });
      try {
        // Why a pipeline: the next batch is read and mapped (node's CPU) while the previous one is
        // written (PostgreSQL's CPU); one transaction at a time, in source order.
        let batch: SourceElement[] = [];
        /** Map a batch's elements (ORCID names: their GRID affiliations resolved first). */
        const mapBatch = async (els: SourceElement[]): Promise<Mapped[]> => {
          if (args.format === 'orcid') await resolveGridAffiliations(db, els);
          return els.map((el) => mapElement(args, targets, el));
        };
        let writing: Promise<void> | undefined;
        const settle = async () => {
          const w = writing;
          writing = undefined;
          await w;
        };
        try {
          for await (const el of source.elements()) {
            if (hooks.signal?.aborted) break;
            if (el.position < claimed.position) continue; // committed by an earlier attempt
            batch.push(el);
            if (batch.length >= deps.batchSize) {
              const bytesRead = source.bytesRead;
              const ready = mapBatch(batch).then((mapped) => prepare(mapped, bytesRead));
              ready.catch(() => undefined); // awaited below
              await settle();
              writing = ready.then(applyElements);
              writing.catch(() => undefined); // awaited by settle(); never an unhandled rejection meanwhile
              batch = [];
            }
          }
          await settle();
        } finally {
          await writing?.catch(() => undefined);
        }
        if (hooks.signal?.aborted) {
          await releaseRun(db, claimed.id, worker);
          return 'released';
        }
        if (batch.length > 0) await applyElements(await prepare(await mapBatch(batch), source.bytesRead));
      } catch (err) {
        if (err instanceof SourceError) {
          await finishRun(db, claimed.id, worker, 'FAILED', `${err.message} (entries before position ${state.position} were applied)`);
          return 'finished';
        }
        throw err;
      } finally {
        source.close();
      }
      state.phase = 'deprecate';
      state.bytesRead = state.bytesTotal ?? state.bytesRead;
      await inBatch(async () => {});
    }
    if (state.phase === 'deprecate' && args.deprecate_missing) {
      await analyzeRunEntries(db);
      for (const type of targets) {
        for (;;) {
          if (hooks.signal?.aborted) {
            await releaseRun(db, claimed.id, worker);
            return 'released';
          }
          let done = false;
          await inBatch(async (trx) => {
            const rows = await missingEntries(trx, claimed.id, type, 'ror', DEPRECATED_TAG, deps.batchSize, SOURCE_KEY);
            done = rows.length === 0;
            if (done) return;
            const docs = rows.map((row) => {
              const doc = rowToDoc(row);
              return toRowInput(type, { ...doc, tags: [...((doc.tags as string[] | undefined) ?? []), DEPRECATED_TAG] });
            });
            const { ids } = await upsertEntries(trx, docs);
            await announce(trx, type, ids, counter(trx, type, 0));
            state.counts[type].deprecated += ids.length;
          });
          if (done) break;
        }
      }
    }
    const status = state.erroredEntries > 0 ? 'PARTIAL_SUCCESS' : 'SUCCESS';
    await finishRun(db, claimed.id, worker, status, summaryOf(state));
    return 'finished';
  } catch (err) {
    if (err instanceof LostLease) {
      log.warn('the run was taken over by another worker (lease expired); stopping');
      return 'lost';
    }
    if (isConnectionError(err)) throw err; // left RUNNING: the lease expires and a worker retries from the checkpoint
    log.error({ err }, 'import run failed');
    await finishRun(db, claimed.id, worker, 'FAILED', `Import failed: ${(err as Error).message}`).catch(() => {});
    return 'finished';
  } finally {
    clearInterval(beat);
  }
}

/** One line: what the run did. */
export function summaryOf(p: Pick<RunProgress, 'counts' | 'totalEntries' | 'erroredEntries'>): string {
  const parts = Object.entries(p.counts).map(
    ([t, c]) => `${t}: ${c.added} added, ${c.updated} updated, ${c.deprecated} deprecated, ${c.unchanged} unchanged`,
  );
  return `${p.totalEntries} entries read, ${p.erroredEntries} rejected; ${parts.join('; ')}.`;
}
