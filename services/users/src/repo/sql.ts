/** Small SQL helpers shared by the users repositories. */

/** SQL rendering a timestamptz column as InvenioRDM does: microseconds and `+00:00`. */
export function isoSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;
}
