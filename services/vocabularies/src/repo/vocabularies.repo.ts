/**
 * SQL of the vocabularies schema: vocabulary types and entries. Takes a `Knex` or a transaction;
 * no business rules here.
 *
 * The single-entry read is a named (server-side prepared) statement on the raw pg connection:
 * it is the hottest query of the service (record validation, deposit forms), and a prepared
 * plan plus no query building keeps it well under a millisecond.
 */
import { type Knex, searchRead } from '@rdm/platform';
import type { EntryRow, EntryRowInput } from '../domain/documents.js';

/** ISO 8601 with microseconds and `+00:00`, as InvenioRDM renders timestamps. */
const ts = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;

/** Select list of an entry row (alias `e`). */
export const ENTRY_COLUMNS = `e.type, e.id, e.pid, e.title, e.description, e.icon, e.tags, e.props, e.acronym, e.name,
  e.scheme, e.subject, e.number, e.country, e.identifiers, e.extra, ${ts('e.created')} AS created,
  ${ts('e.updated')} AS updated, e.revision_id`;

/** A vocabulary type row with its entry count. */
export interface TypeRow {
  id: string;
  pid_type: string;
  is_custom: boolean;
  revision_id: number;
  count: number;
}

type Db = Knex | Knex.Transaction;
/** A raw-query binding list. */
type Binds = Knex.RawBinding[];

/** A text[] literal (`{"a","b"}`): knex expands JS arrays in raw bindings, so arrays travel as literals. */
export function pgTextArray(xs: string[]): string {
  return `{${xs.map((x) => `"${x.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/** Vocabulary type by id (undefined when unknown). */
export async function findType(db: Db, id: string): Promise<Omit<TypeRow, 'count'> | undefined> {
  return db('vocabulary_types').select('id', 'pid_type', 'is_custom', 'revision_id').where({ id }).first();
}

/** Every vocabulary type id (small table). */
export async function allTypeIds(db: Db): Promise<string[]> {
  const rows: { id: string }[] = await db('vocabulary_types').select('id');
  return rows.map((r) => r.id);
}

/** Every vocabulary type with its pid type and whether it is custom (small table). */
export async function allTypes(db: Db): Promise<{ id: string; pid_type: string; is_custom: boolean }[]> {
  return db('vocabulary_types').select('id', 'pid_type', 'is_custom');
}

/** Page of vocabulary types whose id contains `q` (case-insensitive), with entry counts and the total. */
export async function listTypes(
  db: Db,
  o: { q: string; sort: 'id' | 'count'; limit: number; offset: number },
): Promise<{ rows: TypeRow[]; total: number }> {
  const where = o.q ? `WHERE t.id ILIKE '%' || ? || '%'` : '';
  const binds: Binds = o.q ? [o.q.replace(/[\\%_]/g, (c) => `\\${c}`)] : [];
  const order = o.sort === 'count' ? 'count DESC, t.id ASC' : 't.id ASC';
  const res = await db.raw(
    `SELECT t.id, t.pid_type, t.is_custom, t.revision_id, coalesce(c.n, 0)::int AS count, count(*) OVER ()::int AS total
       FROM vocabulary_types t
       LEFT JOIN (SELECT type, count(*) AS n FROM entries GROUP BY type) c ON c.type = t.id
       ${where}
      ORDER BY ${order}
      LIMIT ? OFFSET ?`,
    [...binds, o.limit, o.offset],
  );
  const rows = res.rows as (TypeRow & { total: number })[];
  let total = rows[0]?.total;
  if (total === undefined) {
    const c = await db.raw(`SELECT count(*)::int AS n FROM vocabulary_types t ${where}`, binds);
    total = (c.rows[0] as { n: number }).n;
  }
  return { rows: rows.map(({ total: _t, ...r }) => r), total };
}

/** Create the type or update its pid_type/custom flag; returns true when created. */
export async function upsertType(db: Db, t: { id: string; pid_type: string; is_custom: boolean }): Promise<boolean> {
  const res = await db.raw(
    `INSERT INTO vocabulary_types (id, pid_type, is_custom) VALUES (?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET pid_type = excluded.pid_type, is_custom = excluded.is_custom, updated = clock_timestamp()
       WHERE vocabulary_types.pid_type IS DISTINCT FROM excluded.pid_type OR vocabulary_types.is_custom IS DISTINCT FROM excluded.is_custom
     RETURNING (xmax = 0) AS created`,
    [t.id, t.pid_type, t.is_custom],
  );
  return Boolean((res.rows[0] as { created?: boolean } | undefined)?.created);
}

/** Bump a type's revision (its content changed); returns the new revision. */
export async function bumpTypeRevision(db: Db, id: string): Promise<number> {
  const res = await db.raw(
    'UPDATE vocabulary_types SET revision_id = revision_id + 1, updated = clock_timestamp() WHERE id = ? RETURNING revision_id',
    [id],
  );
  return (res.rows[0] as { revision_id: number }).revision_id;
}

/** Number of entries of a type. */
export async function countEntries(db: Db, type: string): Promise<number> {
  const res = await db.raw('SELECT count(*)::int AS n FROM entries WHERE type = ?', [type]);
  return (res.rows[0] as { n: number }).n;
}

/**
 * Lock the type's row until the transaction ends. Every write of entries takes it first, so the
 * `index_version`s of one type are handed out in commit order (a late index write never wins).
 */
export async function lockType(db: Db, type: string): Promise<void> {
  await db.raw('SELECT 1 FROM vocabulary_types WHERE id = ? FOR UPDATE', [type]);
}

/** Rows per upsert statement (one JSON parameter each). */
const UPSERT_ROWS = 1000;

/** The columns of `jsonb_to_recordset` an upsert reads its rows from. */
const UPSERT_RECORD = `r(type text, id text, pid text, title jsonb, description jsonb, icon text, tags text[], props jsonb, acronym text,
  name text, scheme text, subject text, number text, country text, identifiers jsonb, extra jsonb, sort_key text, search_fields jsonb,
  sa text, sb text, ga text, gb text, content_hash text, n int)`;

/**
 * Insert or update entries. An unchanged entry (same content hash) is left alone, so its
 * `revision_id` and `updated` stay; a changed one gets revision + 1 (`force`: every existing one
 * does, for explicit updates) and a new `index_version`. Returns how many rows were inserted and
 * updated, and the ids written (in `rows` order).
 *
 * Why one JSON parameter per statement (`jsonb_to_recordset`) rather than a VALUES list with 23
 * placeholders a row: a bulk import writes hundreds of thousands of entries, and binding ten
 * thousand parameters a statement cost as much CPU in node (knex, pg) as the rest of the import.
 */
export async function upsertEntries(
  db: Db,
  rows: EntryRowInput[],
  opts: { force?: boolean } = {},
): Promise<{ inserted: number; updated: number; ids: string[] }> {
  let inserted = 0;
  let updated = 0;
  const ids: string[] = [];
  for (let i = 0; i < rows.length; i += UPSERT_ROWS) {
    const batch = rows.slice(i, i + UPSERT_ROWS).map((r, n) => ({
      type: r.type,
      id: r.id,
      pid: r.pid,
      title: r.title,
      description: r.description,
      icon: r.icon,
      tags: r.tags,
      props: r.props,
      acronym: r.acronym,
      name: r.name,
      scheme: r.scheme,
      subject: r.subject,
      number: r.number,
      country: r.country,
      identifiers: r.identifiers,
      extra: r.extra,
      sort_key: r.sort_key,
      search_fields: r.search_fields,
      sa: r.searchA,
      sb: r.searchB,
      ga: r.suggestA,
      gb: r.suggestB,
      content_hash: r.content_hash,
      n,
    }));
    const res = await db.raw(
      `INSERT INTO entries AS e (type, id, pid, title, description, icon, tags, props, acronym, name, scheme, subject, number,
          country, identifiers, extra, sort_key, search_fields, search_vector, suggest_vector, content_hash)
       SELECT r.type, r.id, r.pid, coalesce(r.title, '{}'::jsonb), r.description, r.icon, coalesce(r.tags, '{}'), r.props, r.acronym,
              r.name, r.scheme, r.subject, r.number, r.country, r.identifiers, coalesce(r.extra, '{}'::jsonb), r.sort_key,
              coalesce(r.search_fields, '{}'::jsonb),
              setweight(to_tsvector('simple', coalesce(r.sa, '')), 'A') || setweight(to_tsvector('simple', coalesce(r.sb, '')), 'B'),
              setweight(to_tsvector('simple', coalesce(r.ga, '')), 'A') || setweight(to_tsvector('simple', coalesce(r.gb, '')), 'B'),
              r.content_hash
         FROM jsonb_to_recordset(?::jsonb) AS ${UPSERT_RECORD}
        ORDER BY r.n
       ON CONFLICT (type, id) DO UPDATE SET
          pid = excluded.pid, title = excluded.title, description = excluded.description, icon = excluded.icon,
          tags = excluded.tags, props = excluded.props, acronym = excluded.acronym, name = excluded.name,
          scheme = excluded.scheme, subject = excluded.subject, number = excluded.number, country = excluded.country,
          identifiers = excluded.identifiers, extra = excluded.extra, sort_key = excluded.sort_key, search_fields = excluded.search_fields,
          search_vector = excluded.search_vector, suggest_vector = excluded.suggest_vector,
          content_hash = excluded.content_hash, updated = clock_timestamp(), revision_id = e.revision_id + 1,
          index_version = nextval('entries_index_version_seq')
        ${opts.force ? '' : 'WHERE e.content_hash IS DISTINCT FROM excluded.content_hash'}
       RETURNING e.id, (xmax = 0) AS inserted`,
      [JSON.stringify(batch)],
    );
    for (const row of res.rows as { id: string; inserted: boolean }[]) {
      if (row.inserted) inserted++;
      else updated++;
      ids.push(row.id);
    }
  }
  return { inserted, updated, ids };
}

/** Content hash of every entry of a type, by id. */
export async function entryHashes(db: Db, type: string): Promise<Map<string, string>> {
  const rows: { id: string; content_hash: string }[] = await db('entries').select('id', 'content_hash').where({ type });
  return new Map(rows.map((r) => [r.id, r.content_hash]));
}

/** Delete one entry and remember the delete's `index_version` (tombstone); returns true when it existed. */
export async function deleteEntry(db: Db, type: string, id: string): Promise<boolean> {
  const n = await db('entries').where({ type, id }).delete();
  if (n > 0) {
    await db.raw(
      `INSERT INTO deleted_entries (type, id, index_version) VALUES (?, ?, nextval('entries_index_version_seq'))
       ON CONFLICT (type, id) DO UPDATE SET index_version = excluded.index_version, deleted = clock_timestamp()`,
      [type, id],
    );
  }
  return n > 0;
}

/** Content hash and revision of one entry (for writes). */
export async function entryState(db: Db, type: string, id: string): Promise<{ revision_id: number; content_hash: string } | undefined> {
  return db('entries').select('revision_id', 'content_hash').where({ type, id }).first();
}

const GET_ENTRY_SQL = `SELECT ${ENTRY_COLUMNS} FROM entries e WHERE e.type = $1 AND e.id = $2`;

interface PgConn {
  query(q: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** One entry by (type, id) through a named prepared statement; undefined when absent. */
export async function getEntry(db: Knex, type: string, id: string): Promise<EntryRow | undefined> {
  const client = db.client as { acquireConnection(): Promise<PgConn>; releaseConnection(c: PgConn): Promise<void> };
  const conn = await client.acquireConnection();
  try {
    const res = await conn.query({ name: 'vocabularies_get_entry', text: GET_ENTRY_SQL, values: [type, id] });
    return res.rows[0] as EntryRow | undefined;
  } finally {
    await client.releaseConnection(conn);
  }
}

/** Entries of many (type, id) pairs in ONE query (unknown pairs are simply absent). */
export async function getEntries(db: Db, items: { type: string; id: string }[]): Promise<EntryRow[]> {
  if (items.length === 0) return [];
  const res = await db.raw(
    `SELECT ${ENTRY_COLUMNS}
       FROM unnest(?::text[], ?::text[]) AS r(type, id)
       JOIN entries e ON e.type = r.type AND e.id = r.id`,
    [pgTextArray(items.map((i) => i.type)), pgTextArray(items.map((i) => i.id))],
  );
  return res.rows as EntryRow[];
}

/** The ROR ids (affiliation entry ids) of the affiliations whose identifiers hold each of the GRID ids. */
export async function rorIdsByGrid(db: Db, grids: string[]): Promise<Map<string, string>> {
  const { rows } = (await db.raw(
    `SELECT x->>'identifier' AS grid, min(e.id) AS id FROM entries e, jsonb_array_elements(e.identifiers) x
      WHERE e.type = 'affiliations' AND jsonb_typeof(e.identifiers) = 'array' AND x->>'scheme' = 'grid' AND x->>'identifier' = ANY(?::text[])
      GROUP BY 1`,
    [grids],
  )) as { rows: { grid: string; id: string }[] };
  return new Map(rows.map((r) => [r.grid, r.id]));
}

/** Id of the `names` entry whose identifiers hold (scheme, value), or undefined. */
export async function nameIdByIdentifier(db: Db, scheme: string, value: string): Promise<string | undefined> {
  const row = await db
    .select(db.raw('e.id'))
    .from('entries as e')
    .where('e.type', 'names')
    .whereRaw('e.identifiers @> ?::jsonb', [JSON.stringify([{ scheme, identifier: value }])])
    .first();
  return (row as { id: string } | undefined)?.id;
}

/** The funder id of an award entry (alias `e`), the key of awards' `funders` facet. */
export const AWARD_FUNDER_ID = "e.extra->'funder'->>'id'";

/** Keep the awards of these funders only (a post filter: added after the facet is counted). */
export function filterByFunders(s: Pick<EntrySearch, 'where'>, funders: string[]): void {
  s.where.push({ sql: `${AWARD_FUNDER_ID} = ANY(?::text[])`, bindings: [pgTextArray(funders)] });
}

/** A compiled search: WHERE fragment (with `?` bindings) over alias `e`, and ORDER BY. */
export interface EntrySearch {
  type: string;
  where: { sql: string; bindings: readonly unknown[] }[];
  /** ORDER BY fragment with its bindings (rank expressions take the query). */
  orderBy: { sql: string; bindings: readonly unknown[] };
  limit: number;
  offset: number;
}

/**
 * Page of entries of a type matching the search, with the total. Bounded by the search statement
 * timeout and cancelled when the client goes away (`searchRead`: a `q` decides its cost).
 */
export async function searchEntries(db: Knex, s: EntrySearch): Promise<{ rows: EntryRow[]; total: number }> {
  const where = ['e.type = ?', ...s.where.map((w) => `(${w.sql})`)].join(' AND ');
  const whereBinds = [s.type, ...s.where.flatMap((w) => w.bindings)] as Binds;
  return searchRead(db, async (on) => {
    const res = await on(
      db.raw(
        `SELECT ${ENTRY_COLUMNS}, count(*) OVER ()::int AS total
         FROM entries e
        WHERE ${where}
        ORDER BY ${s.orderBy.sql}
        LIMIT ? OFFSET ?`,
        [...whereBinds, ...(s.orderBy.bindings as Binds), s.limit, s.offset],
      ),
    );
    const rows = res.rows as (EntryRow & { total: number })[];
    let total = rows[0]?.total;
    if (total === undefined) {
      if (s.offset === 0) total = 0;
      else {
        const c = await on(db.raw(`SELECT count(*)::int AS n FROM entries e WHERE ${where}`, whereBinds));
        total = (c.rows[0] as { n: number }).n;
      }
    }
    return { rows: rows.map(({ total: _t, ...r }) => r), total };
  });
}

/** Bucket counts of a JSON path over the entries matching a search (awards' `funders` facet); bounded like `searchEntries`. */
export async function termsAgg(
  db: Knex,
  s: Pick<EntrySearch, 'type' | 'where'>,
  expr: string,
  size = 10,
): Promise<{ key: string; doc_count: number }[]> {
  const where = ['e.type = ?', ...s.where.map((w) => `(${w.sql})`)].join(' AND ');
  return searchRead(db, async (on) => {
    const res = await on(
      db.raw(
        `SELECT ${expr} AS key, count(*)::int AS doc_count FROM entries e WHERE ${where} AND ${expr} IS NOT NULL
          GROUP BY 1 ORDER BY 2 DESC, 1 ASC LIMIT ?`,
        [s.type, ...(s.where.flatMap((w) => w.bindings) as Binds), size],
      ),
    );
    return res.rows as { key: string; doc_count: number }[];
  });
}
