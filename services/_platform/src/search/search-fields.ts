/**
 * The `q` fields of a service, declared once for both engines: each field carries its SQL (`expr`
 * and the other `FieldSpec` keys, for `compileToSql` on the postgres engine) and its place in the
 * search engine's index (`path` and the other `DslFieldSpec` keys, for the DSL builder). Aliases
 * (`title` → `metadata.title`) are written once and hold on both.
 *
 * - A field without `path` is searched on postgres only (there is no such field in the index: it
 *   matches nothing there, as an unmapped field).
 * - A field without `expr` exists in the index only: the service's own filters (`filterOnly`:
 *   permissions, scopes, facet selections), never reachable from a user's `q`.
 * `caseSensitive` and `type` mean the same on both engines and are written once.
 */
import type { DslFieldMap, DslFieldSpec } from './engine/port.js';
import type { FieldMap, FieldSpec } from './sql.js';

/** The engine-only keys of a field. */
type EngineKeys = 'path' | 'endPath' | 'filterOnly' | 'guard';

/** One `q` field on both engines (or on one: see the file header). */
export type SearchField = (FieldSpec & Partial<Pick<DslFieldSpec, EngineKeys>>) | (DslFieldSpec & { expr?: undefined });

/** Query field name → field on both engines, or → another field name (an alias). */
export type SearchFields = Readonly<Record<string, SearchField | string>>;

/** The postgres half: what `compileToSql` / `rankSql` read. */
export function sqlFields(fields: SearchFields): FieldMap {
  const out: Record<string, FieldSpec | string> = {};
  for (const [name, f] of Object.entries(fields)) {
    if (typeof f === 'string') out[name] = f;
    else if (f.expr !== undefined) {
      const { path: _p, endPath: _e, filterOnly: _f, guard: _g, ...sql } = f;
      out[name] = sql as FieldSpec;
    }
  }
  return out;
}

/** The search engine half: what the DSL builder reads. */
export function engineFields(fields: SearchFields): DslFieldMap {
  const out: Record<string, DslFieldSpec | string> = {};
  for (const [name, f] of Object.entries(fields)) {
    if (typeof f === 'string') out[name] = f;
    else if (f.path !== undefined) {
      const g = f as Partial<DslFieldSpec>;
      const spec: DslFieldSpec = { kind: f.kind, path: f.path };
      for (const key of ['caseSensitive', 'endPath', 'type', 'filterOnly', 'guard'] as const)
        if (g[key] !== undefined) Object.assign(spec, { [key]: g[key] });
      out[name] = spec;
    }
  }
  return out;
}
