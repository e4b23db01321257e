/**
 * Keyset pagination of column sorts (issue 14): a deep page (`?page=999&size=10`) read as "the
 * next `size` rows after the last row of page N−1" instead of reading and discarding the
 * `offset` rows before it.
 *
 * When to use: pg-indexer.ts, for searches without `q` sorted by columns (every sort but a ranked
 * `bestmatch`). `Keysets` remembers, per hit condition + sort + page size and per write stamp of
 * `search_docs`, the sort key of the last hit of each deep page served; page N is read with
 * `keysetAfter` only when page N−1's key is known under the SAME stamp (else OFFSET, as before).
 * Why identical to OFFSET: the key is remembered only when computed with no writer in flight
 * (`Stamp.settled`), and a keyset read is kept only when the stamp is still the same after it
 * (re-read with OFFSET otherwise), so both pages saw the same committed state; the sort ends
 * with the primary key `(id, kind)`, so the order is total and "after the key" is exactly
 * "after position offset−1".
 * Mixed directions (`created DESC, id DESC, kind`): the leading run of one direction is a row
 * comparison (a range of the sort index, e.g. `search_docs_pub_created_idx` walked backwards),
 * the rest an explicit OR chain. Sort columns are all NOT NULL (migration 20250101000000); a key
 * with a NULL is never used (OFFSET instead).
 */
import type { Sql } from './sql.js';

/** Columns a keyset may compare, with the type their text key is cast back to. */
const COLUMN_TYPES: Readonly<Record<string, string>> = {
  created: 'timestamptz',
  updated: 'timestamptz',
  version_index: 'integer',
  views: 'integer',
  downloads: 'integer',
  id: 'text',
  kind: 'text',
};

/** One column of an ORDER BY. */
export interface SortColumn {
  column: string;
  desc: boolean;
}

/**
 * The columns of an ORDER BY such as `created DESC, id DESC, kind`; null when one is not a plain
 * column a keyset can compare (e.g. `rank`).
 */
export function sortColumns(order: string): SortColumn[] | null {
  const out: SortColumn[] = [];
  for (const part of order.split(',')) {
    const [column, dir = 'ASC', ...rest] = part.trim().split(/\s+/);
    if (rest.length || !(column in COLUMN_TYPES) || !/^(ASC|DESC)$/i.test(dir)) return null;
    out.push({ column, desc: dir.toUpperCase() === 'DESC' });
  }
  return out.length ? out : null;
}

/** The select-list expression of a row's sort key (text values, microseconds kept). */
export function keyExpr(cols: SortColumn[]): string {
  return `ARRAY[${cols.map((c) => `${c.column}::text`).join(', ')}]`;
}

/** `cols[i] = key[i]` for every column of a run. */
function equal(cols: SortColumn[], key: string[]): Sql {
  return {
    sql: cols.map((c) => `${c.column} = ?::${COLUMN_TYPES[c.column]}`).join(' AND '),
    bindings: [...key],
  };
}

/** `(cols) op (key)` as a row comparison (one direction for the whole run). */
function beyond(cols: SortColumn[], key: string[], orEqual: boolean): Sql {
  const op = (cols[0].desc ? '<' : '>') + (orEqual ? '=' : '');
  if (cols.length === 1) return { sql: `${cols[0].column} ${op} ?::${COLUMN_TYPES[cols[0].column]}`, bindings: [...key] };
  return {
    sql: `(${cols.map((c) => c.column).join(', ')}) ${op} (${cols.map((c) => `?::${COLUMN_TYPES[c.column]}`).join(', ')})`,
    bindings: [...key],
  };
}

/** Rows strictly after `key` in the order `cols` (runs of one direction; see the module comment). */
function after(cols: SortColumn[], key: string[]): Sql {
  let n = 1;
  while (n < cols.length && cols[n].desc === cols[0].desc) n++;
  const head = cols.slice(0, n);
  const headKey = key.slice(0, n);
  if (n === cols.length) return beyond(head, headKey, false);
  const rest = after(cols.slice(n), key.slice(n));
  const strict = beyond(head, headKey, false);
  const eq = equal(head, headKey);
  return { sql: `(${strict.sql} OR (${eq.sql} AND ${rest.sql}))`, bindings: [...strict.bindings, ...eq.bindings, ...rest.bindings] };
}

/**
 * The condition "after `key`" in the order `cols`: the leading run as an inclusive row
 * comparison (an index range), ANDed with the exact OR chain. Null when the key is unusable.
 */
export function keysetAfter(cols: SortColumn[], key: readonly (string | null)[]): Sql | null {
  if (key.length !== cols.length || key.some((v) => v === null)) return null;
  const k = key as string[];
  let n = 1;
  while (n < cols.length && cols[n].desc === cols[0].desc) n++;
  const exact = after(cols, k);
  if (n === cols.length) return exact;
  const range = beyond(cols.slice(0, n), k.slice(0, n), true);
  return { sql: `${range.sql} AND ${exact.sql}`, bindings: [...range.bindings, ...exact.bindings] };
}

/** A remembered key: the sort key of the last hit before `offset`, under a write stamp. */
interface Entry {
  stamp: string;
  key: readonly (string | null)[];
}

/** Keys of the last hit of deep pages, per condition + sort + size + end offset (bounded, oldest evicted). */
export class Keysets {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly max = 2000) {}

  /** The key of the row just before `offset` under `stamp`, if remembered. */
  get(base: string, offset: number, stamp: string): readonly (string | null)[] | null {
    const e = this.entries.get(`${offset}|${base}`);
    return e && e.stamp === stamp ? e.key : null;
  }

  /** Remember the key of the last row of a page ending at `end` (exclusive) under `stamp`. */
  set(base: string, end: number, stamp: string, key: readonly (string | null)[]): void {
    const k = `${end}|${base}`;
    this.entries.delete(k);
    this.entries.set(k, { stamp, key });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Number of keys held. */
  get size(): number {
    return this.entries.size;
  }
}
