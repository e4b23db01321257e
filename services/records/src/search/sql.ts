/**
 * SQL fragments of record search: `{sql, bindings}` with knex `?` placeholders (the platform's
 * `SqlFragment` is one too) and the AND/OR combinators every search module uses.
 */

/** A knex-raw-compatible SQL fragment; user input only ever in `bindings`. */
export interface Sql {
  sql: string;
  bindings: unknown[];
}

/** A fragment from SQL text and its bindings. */
export const frag = (sql: string, ...bindings: unknown[]): Sql => ({ sql, bindings });

function group(parts: Sql[], sep: string): Sql {
  if (parts.length === 1) return parts[0];
  return { sql: `(${parts.map((p) => p.sql).join(sep)})`, bindings: parts.flatMap((p) => p.bindings) };
}

/** AND of fragments (null and `TRUE` skipped); `TRUE` when none is left. */
export function andAll(parts: Array<Sql | null | undefined>): Sql {
  const kept = parts.filter((p): p is Sql => !!p && p.sql !== 'TRUE');
  return kept.length ? group(kept, ' AND ') : frag('TRUE');
}

/** OR of fragments (null skipped); `FALSE` when none is left. */
export function orAll(parts: Array<Sql | null | undefined>): Sql {
  const kept = parts.filter((p): p is Sql => !!p);
  return kept.length ? group(kept, ' OR ') : frag('FALSE');
}
