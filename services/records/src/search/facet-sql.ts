/**
 * Facets of record search as SQL over `search_docs` (postgres engine): the facet filters
 * (`facetFilterSql`, applied to hits and totals only: facet filters are post-filters, so
 * aggregation counts ignore them, as InvenioRDM's `post_filter`) and the one-pass aggregation
 * statement (`aggregationSql`) whose rows facet-render.ts turns into buckets.
 *
 * When to use: only from the postgres index engine (pg-indexer.ts). User input only in bindings.
 */
import { type FacetFilters, parseBool, parseNested } from './facet-params.js';
import { andAll as and, orAll as or, type Sql } from './sql.js';

/**
 * SQL of the facet filters (AND across facets, OR within one), over the columns
 * `access_status, file_types, resource_type_type, resource_type_subtype, publication_date_start,
 * publication_date_end, is_published`; null when no facet filter is given. `filesReadable`: the
 * documents whose file types the caller may read (files-guard.ts); a file type filter matches
 * only those (default: all).
 */
export function facetFilterSql(f: FacetFilters, filesReadable?: Sql): Sql | null {
  const parts: Sql[] = [];
  if (f.accessStatus.length) parts.push({ sql: 'access_status = ANY(?::text[])', bindings: [f.accessStatus] });
  if (f.fileType.length) parts.push(and([{ sql: 'file_types && ?::text[]', bindings: [f.fileType] }, filesReadable]));
  if (f.resourceTypes.length) {
    const ors: Sql[] = [];
    for (const [type, subs] of parseNested(f.resourceTypes)) {
      if (subs.length) {
        ors.push({ sql: '(resource_type_type = ? AND resource_type_subtype = ANY(?::text[]))', bindings: [type, subs] });
      } else if (type.includes('-')) {
        // A bare subtype id (an inner bucket key, `image-photo`): subtype ids are `<type>-<name>`.
        ors.push({
          sql: '(resource_type_type = ? OR (resource_type_type = ? AND resource_type_subtype = ?))',
          bindings: [type, type.split('-')[0], type],
        });
      } else {
        ors.push({ sql: 'resource_type_type = ?', bindings: [type] });
      }
    }
    parts.push(or(ors));
  }
  if (f.dateWindows.length) {
    const ors = f.dateWindows.map((w): Sql => {
      const c: Sql[] = [{ sql: '(publication_date_start IS NOT NULL OR publication_date_end IS NOT NULL)', bindings: [] }];
      if (w.lo) c.push({ sql: "coalesce(publication_date_end, 'infinity'::date) >= ?::date", bindings: [w.lo] });
      if (w.hi) c.push({ sql: "coalesce(publication_date_start, '-infinity'::date) < ?::date", bindings: [w.hi] });
      return and(c);
    });
    parts.push(or(ors));
  }
  if (f.isPublished.length) {
    const bools = [...new Set(f.isPublished.map((v) => parseBool('is_published', v)))];
    parts.push({ sql: 'is_published = ANY(?::boolean[])', bindings: [bools] });
  }
  return parts.length ? and(parts) : null;
}

/**
 * ONE statement computing every aggregation over the documents matching `where` (in `from`,
 * default `search_docs`), in a single scan with `GROUPING SETS` (an index-only scan of
 * `search_docs_pub_facets_idx` for published records): rows `{f, k, s, a, ys, ye, n}` where `f` names the grouping set — `a` access status
 * (`k`), `r` resource type (`k` type, `s` subtype), `f` file types (`a` the document's array),
 * `y` publication years (`ys`..`ye`), `p` is_published (`k`) (see `AggRow` in indexer.ts). Rows of several statements (e.g. the
 * shared and the personal part of a scope) can be concatenated: renderAggregations sums them.
 * `fileTypes`: the expression counted as a document's file types (default `file_types`; NULL
 * where the caller may not read the files, see files-guard.ts `fileTypesExpr`).
 */
export function aggregationSql(where: Sql, o: { isPublished?: boolean; from?: string; fileTypes?: Sql } = {}): Sql {
  const p = o.isPublished;
  const from = o.from ?? 'search_docs';
  const ft = o.fileTypes ?? { sql: 'file_types', bindings: [] };
  const sql = `
    SELECT CASE WHEN GROUPING(access_status) = 0 THEN 'a' WHEN GROUPING(resource_type_type) = 0 THEN 'r'
                WHEN GROUPING(file_types) = 0 THEN 'f' WHEN GROUPING(ys) = 0 THEN 'y' ELSE 'p' END AS f,
           coalesce(access_status, resource_type_type${p ? ', is_published::text' : ''}) AS k,
           resource_type_subtype AS s, file_types AS a, ys, ye, count(*)::int AS n
      FROM (SELECT access_status, resource_type_type, resource_type_subtype, ${ft.sql} AS file_types${p ? ', is_published' : ''},
                   date_part('year', coalesce(publication_date_start, publication_date_end))::int AS ys,
                   date_part('year', coalesce(publication_date_end, publication_date_start))::int AS ye
              FROM ${from} WHERE ${where.sql}) AS d
     GROUP BY GROUPING SETS ((access_status), (resource_type_type, resource_type_subtype), (file_types), (ys, ye)${p ? ', (is_published)' : ''})`;
  return { sql, bindings: [...ft.bindings, ...where.bindings] };
}

/**
 * Only the file-type rows (`f` = 'f') of the documents matching `where`: the caller's own
 * readable files inside a shared part whose cached counts leave them out (files-guard.ts).
 */
export function fileTypeRowsSql(where: Sql): Sql {
  return {
    sql: `SELECT 'f' AS f, NULL AS k, NULL AS s, file_types AS a, NULL::int AS ys, NULL::int AS ye, count(*)::int AS n
            FROM search_docs WHERE ${where.sql} GROUP BY file_types`,
    bindings: where.bindings,
  };
}
