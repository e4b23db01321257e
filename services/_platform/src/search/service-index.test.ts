import { describe, expect, it, vi } from 'vitest';
import type { BulkOp, IndexDoc, SearchEngine } from './engine/port.js';
import { engineFields, type SearchFields, sqlFields } from './search-fields.js';
import { defineServiceIndex, inHitOrder } from './service-index.js';

interface Row {
  id: string;
  v: number;
}

/** An engine that records what it is asked (no I/O). */
function fakeEngine() {
  const bulks: Array<{ ops: BulkOp[]; refresh: unknown }> = [];
  const built: IndexDoc[][][] = [];
  const engine = {
    kind: 'opensearch',
    ensureIndex: vi.fn(async () => undefined),
    bulk: vi.fn(async (_alias: string, ops: BulkOp[], opts?: { refresh?: unknown }) => {
      bulks.push({ ops, refresh: opts?.refresh });
      return { written: ops.length, stale: 0, failed: [] };
    }),
    reindex: vi.fn(async (_def, source: (since?: Date) => AsyncIterable<IndexDoc[]>) => {
      for (const since of [undefined, new Date(0)]) {
        const pass: IndexDoc[][] = [];
        for await (const batch of source(since)) pass.push(batch);
        built.push(pass);
      }
      return { index: 'x-v1-1', count: built[0].flat().length };
    }),
  } as unknown as SearchEngine;
  return { engine, bulks, built };
}

const TABLE: Row[] = [1, 2, 3, 4, 5].map((n) => ({ id: String(n), v: n * 10 }));
const rowsOf = async (_db: unknown, ids: string[]) => TABLE.filter((r) => ids.includes(r.id));

const Index = defineServiceIndex<Row>({
  index: { alias: 'things', version: 1, mappings: {} },
  doc: (r) => ({ id: r.id, version: r.v, source: { id: r.id } }),
  key: /^\d+$/,
  rows: rowsOf,
  indexer: { stream: 'S', durable: 'd', filterSubject: 'rdm.s.thing.*' },
  reindex: {
    pages: [async (_db, { after, limit }) => TABLE.filter((r) => Number(r.id) > Number(after?.id ?? 0)).slice(0, limit)],
    goneSince: async () => ['4', '9'],
  },
});

const logger = { warn: vi.fn() };

describe(defineServiceIndex.name, () => {
  it('should load the current rows of the named documents and delete for good those whose row is gone', async () => {
    const { engine } = fakeEngine();
    const index = new Index(engine, {} as never, logger, 'p-');
    expect(index.def.alias).toBe('p-things');
    const ops = await index.load([
      { id: '2', revision: 0, subject: 'x' },
      { id: '2', revision: 1, subject: 'x' },
      { id: '9', revision: 0, subject: 'x' },
      { id: 'not-a-key', revision: 0, subject: 'x' },
    ]);
    expect(ops).toEqual([
      { op: 'index', id: '2', version: 20, source: { id: '2' } },
      { op: 'delete', id: '9', version: Number.MAX_SAFE_INTEGER },
    ]);
    expect(engine.ensureIndex).toHaveBeenCalledTimes(1);
  });

  it('should take the keys of an event and the deletes from the service when it says how', async () => {
    const Custom = defineServiceIndex<Row>({
      ...Index.spec,
      keysOf: (ref) => (ref.data as { ids: string[] }).ids,
      rows: async (db, keys) => ({ rows: await rowsOf(db, keys), gone: [{ id: 'tomb', version: 7 }] }),
    });
    const ops = await new Custom(fakeEngine().engine, {} as never, logger).load([
      { id: 'e', revision: 0, subject: 'x', data: { ids: ['1'] } },
    ]);
    expect(ops).toEqual([
      { op: 'index', id: '1', version: 10, source: { id: '1' } },
      { op: 'delete', id: 'tomb', version: 7 },
    ]);
  });

  it('should index inline with refresh wait_for, and only log when the engine fails', async () => {
    const { engine, bulks } = fakeEngine();
    const index = new Index(engine, {} as never, logger);
    await index.afterCommit(['3']);
    expect(bulks).toEqual([{ ops: [{ op: 'index', id: '3', version: 30, source: { id: '3' } }], refresh: 'wait_for' }]);
    (engine.bulk as ReturnType<typeof vi.fn>).mockRejectedValueOnce(new Error('down'));
    await expect(index.afterCommit(['3'])).resolves.toBeUndefined();
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ index: 'things' }), expect.stringContaining('outbox indexer'));
  });

  it('should rebuild page after page and delete what went during the build in the catch-up pass', async () => {
    const { engine, built } = fakeEngine();
    const res = await new Index(engine, {} as never, logger).reindex(2);
    expect(res.count).toBe(5);
    expect(built[0].map((b) => b.map((d) => d.id))).toEqual([['1', '2'], ['3', '4'], ['5']]);
    // The catch-up pass: the pages again (this fake ignores `since`), then the reloaded gone keys.
    expect(built[1].at(-1)).toEqual([
      { op: 'index', id: '4', version: 40, source: { id: '4' } },
      { id: '9', version: Number.MAX_SAFE_INTEGER, source: {}, deleted: true },
    ]);
  });
});

describe('search fields', () => {
  const FIELDS: SearchFields = {
    id: { kind: 'keyword', expr: 'id::text', path: 'id', caseSensitive: true },
    title: { kind: 'text', expr: 'lower(title)', path: 'title' },
    name: 'title',
    sqlOnly: { kind: 'text', expr: 'x' },
    'scope.owner': { kind: 'keyword', path: 'owner', caseSensitive: true, filterOnly: true },
    when: { kind: 'date', expr: 'start', endExpr: 'end', type: 'date', path: 's', endPath: 'e' },
  };

  it('should split one declaration into the postgres and the engine field maps', () => {
    expect(sqlFields(FIELDS)).toEqual({
      id: { kind: 'keyword', expr: 'id::text', caseSensitive: true },
      title: { kind: 'text', expr: 'lower(title)' },
      name: 'title',
      sqlOnly: { kind: 'text', expr: 'x' },
      when: { kind: 'date', expr: 'start', endExpr: 'end', type: 'date' },
    });
    expect(engineFields(FIELDS)).toEqual({
      id: { kind: 'keyword', path: 'id', caseSensitive: true },
      title: { kind: 'text', path: 'title' },
      name: 'title',
      'scope.owner': { kind: 'keyword', path: 'owner', caseSensitive: true, filterOnly: true },
      when: { kind: 'date', path: 's', endPath: 'e', type: 'date' },
    });
  });
});

describe(inHitOrder.name, () => {
  it('should order rows as the hits and skip hits without a row', () => {
    expect(inHitOrder(['3', 'x', '1'], TABLE, (r) => r.id).map((r) => r.id)).toEqual(['3', '1']);
  });
});
