/**
 * SQL of parents, drafts, records and pids. Every function takes a `Knex` or a transaction; the
 * service opens the transaction and passes it down. No domain rules here. (The search documents
 * are the search index's: search/search.repo.ts.)
 */
import { type Knex, prepared } from '@rdm/platform';
import type { DraftRow, ParentRow, RecordRow, VersionRow } from '../model/rows.js';

type Db = Knex | Knex.Transaction;

const JSON_COLUMNS = ['metadata', 'custom_fields', 'access', 'files', 'media_files', 'pids', 'communities', 'review'] as const;

// Column lists of the three version tables. Why named, not `*`: hot reads run as prepared
// statements (planned once per connection), and a prepared `SELECT *` breaks when a migration
// adds a column under a running process. Keep them in step with the migrations and model.ts.
const PARENT_COLUMNS = [
  'id',
  'owner_id',
  'created',
  'updated',
  'revision_id',
  'access',
  'communities',
  'pids',
  'latest_id',
  'latest_index',
  'next_draft_id',
  'review',
] as const;
const VERSION_COLUMNS = [
  'id',
  'parent_id',
  'index',
  'created',
  'updated',
  'revision_id',
  'metadata',
  'custom_fields',
  'access',
  'files',
  'media_files',
  'pids',
  'bucket_id',
  'resource_type_type',
  'resource_type_subtype',
] as const;
const TABLE_COLUMNS = {
  parents: PARENT_COLUMNS,
  drafts: [...VERSION_COLUMNS, 'expires_at'],
  records: [...VERSION_COLUMNS, 'draft_revision_id', 'deletion_status'],
} as const;
/** `a.col, a.col, …` of a table's columns. */
const cols = (table: keyof typeof TABLE_COLUMNS, alias: string) => TABLE_COLUMNS[table].map((c) => `${alias}."${c}"`).join(', ');

/** Serialize jsonb columns for an insert/update. */
function jsonify<T extends Record<string, unknown>>(row: T): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  for (const c of JSON_COLUMNS) if (c in out && out[c] !== undefined && out[c] !== null) out[c] = JSON.stringify(out[c]);
  return out;
}

/**
 * `INSERT INTO <table> (<columns>) VALUES (…)` of one row, as the query builder would write it
 * (undefined values are left to their column default). Raw SQL: inserts run several times per
 * write request and the builder costs about as much CPU as the round trip. Column names come
 * from code, never from input.
 */
function insertRow(db: Db, table: string, row: Record<string, unknown>) {
  const names: string[] = [];
  const bindings: unknown[] = [];
  for (const [k, v] of Object.entries(row)) {
    if (v === undefined) continue;
    names.push(`"${k}"`);
    bindings.push(v);
  }
  // Prepared: the text only varies with which columns are set (a handful of shapes per table).
  return prepared(db, `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`, bindings);
}

/** True when `id` is used by any parent, draft or record (ids share one space). */
export async function idInUse(db: Db, id: string): Promise<boolean> {
  return (await idsInUse(db, [id])).size > 0;
}

/** The ids among `ids` used by any parent, draft or record, in one statement. */
export async function idsInUse(db: Db, ids: string[]): Promise<Set<string>> {
  const r = await prepared(
    db,
    `SELECT i.id FROM unnest(?::text[]) AS i(id)
      WHERE EXISTS (SELECT 1 FROM parents WHERE id = i.id) OR EXISTS (SELECT 1 FROM drafts WHERE id = i.id)
         OR EXISTS (SELECT 1 FROM records WHERE id = i.id)`,
    [ids],
  );
  return new Set((r.rows as { id: string }[]).map((x) => x.id));
}

// Why these joined reads: a draft or record is nearly always needed with its parent (policy
// context, versions state), and every statement is a round trip that costs more CPU than the
// query itself. The parent's columns come prefixed and are split off into their own row.
const PARENT_SELECT = PARENT_COLUMNS.map((c) => `p.${c} AS "p.${c}"`).join(', ');

/** Split a joined row into the version row and its parent (undefined when there is none). */
function splitParent<T>(row: Record<string, unknown>): { row: T; parent: ParentRow | undefined } {
  const own: Record<string, unknown> = {};
  const parent: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k.startsWith('p.')) parent[k.slice(2)] = v;
    else own[k] = v;
  }
  return { row: own as T, parent: parent.id == null ? undefined : (parent as unknown as ParentRow) };
}

/**
 * A draft with its parent, whether a published record shares its id (edit draft), and whether
 * the published version the draft stems from is deleted (`sourceDeleted`: an edit draft's own
 * record, or a new-version draft's parent's latest version), in one statement.
 */
export async function getDraftWithParent(
  db: Db,
  id: string,
): Promise<{ draft: DraftRow; parent: ParentRow | undefined; hasRecord: boolean; sourceDeleted: boolean } | undefined> {
  const r = await prepared(
    db,
    `SELECT ${cols('drafts', 'd')}, ${PARENT_SELECT},
            (SELECT r.deletion_status FROM records r WHERE r.id = d.id) AS "x.record_status",
            (SELECT l.deletion_status FROM records l WHERE l.id = p.latest_id) AS "x.latest_status"
       FROM drafts d LEFT JOIN parents p ON p.id = d.parent_id WHERE d.id = ?`,
    [id],
  );
  const raw = r.rows[0] as Record<string, unknown> | undefined;
  if (!raw) return undefined;
  const recordStatus = raw['x.record_status'] as string | null;
  const latestStatus = raw['x.latest_status'] as string | null;
  Reflect.deleteProperty(raw, 'x.record_status');
  Reflect.deleteProperty(raw, 'x.latest_status');
  const hasRecord = recordStatus !== null;
  const source = hasRecord ? recordStatus : latestStatus;
  const { row, parent } = splitParent<DraftRow>(raw);
  return { draft: row, parent, hasRecord, sourceDeleted: source !== null && source !== 'P' };
}

/** A published record with its parent, in one statement. */
export async function getRecordWithParent(db: Db, id: string): Promise<{ record: RecordRow; parent: ParentRow | undefined } | undefined> {
  const r = await prepared(
    db,
    `SELECT ${cols('records', 'r')}, ${PARENT_SELECT} FROM records r LEFT JOIN parents p ON p.id = r.parent_id WHERE r.id = ?`,
    [id],
  );
  const raw = r.rows[0] as Record<string, unknown> | undefined;
  if (!raw) return undefined;
  const { row, parent } = splitParent<RecordRow>(raw);
  return { record: row, parent };
}

/** A parent by id (optionally locked FOR UPDATE). */
export async function getParent(db: Db, id: string, forUpdate = false): Promise<ParentRow | undefined> {
  return byId<ParentRow>(db, 'parents', id, forUpdate);
}

/**
 * One row by primary key. Raw SQL: these lookups run several times per request and the query
 * builder costs about as much CPU as the round trip.
 */
async function byId<T>(db: Db, table: keyof typeof TABLE_COLUMNS, id: string, forUpdate: boolean): Promise<T | undefined> {
  const r = await prepared(db, `SELECT ${cols(table, table)} FROM ${table} WHERE id = ?${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return r.rows[0] as T | undefined;
}

/** Insert a parent. */
export async function insertParent(
  db: Db,
  row: Omit<ParentRow, 'revision_id' | 'latest_index' | 'latest_id' | 'next_draft_id'> & Partial<ParentRow>,
): Promise<void> {
  await insertRow(db, 'parents', jsonify({ ...row, access: row.access }));
}

/** Update a parent (bumps revision_id). */
export async function updateParent(db: Db, id: string, patch: Partial<ParentRow>): Promise<void> {
  const p = jsonify(patch as Record<string, unknown>);
  if (patch.access) p.access = JSON.stringify(patch.access);
  await db('parents')
    .where({ id })
    .update({ ...p, revision_id: db.raw('revision_id + 1'), updated: new Date() });
}

/** Delete a parent. */
export async function deleteParent(db: Db, id: string): Promise<void> {
  await db('parents').where({ id }).delete();
}

/** A draft by id (optionally locked FOR UPDATE). */
export async function getDraft(db: Db, id: string, forUpdate = false): Promise<DraftRow | undefined> {
  return byId<DraftRow>(db, 'drafts', id, forUpdate);
}

/** Insert a draft. */
export async function insertDraft(db: Db, row: DraftRow): Promise<void> {
  await insertRow(db, 'drafts', jsonify(row as unknown as Record<string, unknown>));
}

/** Update a draft's content; returns the new revision id. */
export async function updateDraft(db: Db, id: string, patch: Partial<VersionRow>, updated: Date): Promise<number> {
  const [r] = await db('drafts')
    .where({ id })
    .update({ ...jsonify(patch as Record<string, unknown>), updated, revision_id: db.raw('revision_id + 1') })
    .returning('revision_id');
  return Number((r as { revision_id: number }).revision_id);
}

/** Delete a draft. */
export async function deleteDraft(db: Db, id: string): Promise<void> {
  await prepared(db, 'DELETE FROM drafts WHERE id = ?', [id]);
}

/** A record by id (optionally locked FOR UPDATE). */
export async function getRecord(db: Db, id: string, forUpdate = false): Promise<RecordRow | undefined> {
  return byId<RecordRow>(db, 'records', id, forUpdate);
}

/**
 * What a rendering of a published record depends on, as a short string (`undefined` when there
 * is no such record): the record's and its parent's revision ids (every write to either row
 * bumps one) and the deletion status. One narrow statement (no jsonb column is read).
 */
export async function recordStamp(db: Db, id: string): Promise<string | undefined> {
  const r = await prepared(
    db,
    'SELECT r.revision_id AS r, p.revision_id AS p, r.deletion_status AS d FROM records r JOIN parents p ON p.id = r.parent_id WHERE r.id = ?',
    [id],
  );
  const row = r.rows[0] as { r: number; p: number; d: string } | undefined;
  return row ? stampOf(row.r, row.p, row.d) : undefined;
}

/**
 * The stamps of several records in one statement (`recordStamp` of each; ids without a record are
 * absent). The ids travel as one JSON array, so one prepared statement serves any number of them.
 */
export async function recordStamps(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  const r = await prepared(
    db,
    'SELECT r.id, r.revision_id AS r, p.revision_id AS p, r.deletion_status AS d FROM records r JOIN parents p ON p.id = r.parent_id WHERE r.id IN (SELECT jsonb_array_elements_text(?::jsonb))',
    [JSON.stringify(ids)],
  );
  const out = new Map<string, string>();
  for (const row of r.rows as { id: string; r: number; p: number; d: string }[]) out.set(row.id, stampOf(row.r, row.p, row.d));
  return out;
}

/** The stamp of a record and parent already read (same form as `recordStamp`). */
export function stampOf(recordRevision: number, parentRevision: number, deletionStatus: string): string {
  return `${recordRevision}.${parentRevision}.${deletionStatus}`;
}

/** Insert a record. */
export async function insertRecord(db: Db, row: RecordRow): Promise<void> {
  await insertRow(db, 'records', jsonify(row as unknown as Record<string, unknown>));
}

/** Update a record in place (edit publish); returns the new revision id. */
export async function updateRecord(db: Db, id: string, patch: Partial<RecordRow>, updated: Date): Promise<number> {
  const [r] = await db('records')
    .where({ id })
    .update({ ...jsonify(patch as Record<string, unknown>), updated, revision_id: db.raw('revision_id + 1') })
    .returning('revision_id');
  return Number((r as { revision_id: number }).revision_id);
}

/** Set the last draft revision seen on a record (so the next edit draft continues from it). */
export async function setDraftRevision(db: Db, id: string, revision: number): Promise<void> {
  await db('records')
    .where({ id })
    .update({ draft_revision_id: db.raw('GREATEST(draft_revision_id, ?)', [revision]) });
}

/** Order of a versions list: a column and a direction (ties broken by index, same direction). */
export interface VersionsOrder {
  column: 'index' | 'created' | 'updated';
  dir: 'asc' | 'desc';
}

/** Published versions of a parent, newest first (index desc) unless `order` says otherwise, optionally public ones only. */
export async function listVersions(
  db: Db,
  parentId: string,
  o: { publicOnly: boolean; limit: number; offset: number; order?: VersionsOrder },
): Promise<{ rows: RecordRow[]; total: number }> {
  const base = () => {
    const q = db<RecordRow>('records').where({ parent_id: parentId, deletion_status: 'P' });
    if (o.publicOnly) q.whereRaw("access->>'record' = 'public'");
    return q;
  };
  const [{ count }] = (await base().count({ count: '*' })) as { count: string }[];
  const order = o.order ?? { column: 'index', dir: 'desc' };
  const sorted = base().orderBy(order.column, order.dir);
  if (order.column !== 'index') sorted.orderBy('index', order.dir);
  const rows = (await sorted.limit(o.limit).offset(o.offset)) as RecordRow[];
  return { rows, total: Number(count) };
}

/** A stored pid by scheme and identifier. */
export async function findPid(
  db: Db,
  scheme: string,
  identifier: string,
): Promise<{ record_id: string; status: string; provider: string } | undefined> {
  return db('pids').where({ scheme, identifier }).first();
}

/** Insert or update a pid row (status N = new/reserved on a draft, K = published, DataCite registration pending, R = registered). */
export async function upsertPid(
  db: Db,
  p: { scheme: string; identifier: string; record_id: string; provider: string; status: 'N' | 'K' | 'R' },
): Promise<void> {
  await prepared(
    db,
    `INSERT INTO pids (scheme, identifier, record_id, provider, status) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (scheme, identifier) DO UPDATE SET record_id = EXCLUDED.record_id, provider = EXCLUDED.provider, status = EXCLUDED.status`,
    [p.scheme, p.identifier, p.record_id, p.provider, p.status],
  );
}

/** Delete a pid row. */
export async function deletePid(db: Db, scheme: string, identifier: string): Promise<void> {
  await db('pids').where({ scheme, identifier }).delete();
}

/** The unregistered (N) DOIs of a record/draft id. */
export async function newDoisOf(db: Db, recordId: string): Promise<string[]> {
  const rows = await db('pids').select('identifier').where({ record_id: recordId, status: 'N', scheme: 'doi' });
  return rows.map((r: { identifier: string }) => r.identifier);
}

/** Delete the unregistered (N) pids of a record/draft id. */
export async function deleteNewPids(db: Db, recordId: string): Promise<void> {
  await db('pids').where({ record_id: recordId, status: 'N' }).delete();
}

/** The draft (if any) whose bucket is `bucketId` and whether a record shares its id, in one statement. */
export async function draftByBucketWithRecordFlag(db: Db, bucketId: string): Promise<{ draft: DraftRow; hasRecord: boolean } | undefined> {
  const r = await prepared(
    db,
    `SELECT ${cols('drafts', 'd')}, EXISTS (SELECT 1 FROM records r WHERE r.id = d.id) AS "x.has_record" FROM drafts d WHERE d.bucket_id = ? LIMIT 1`,
    [bucketId],
  );
  const raw = r.rows[0] as Record<string, unknown> | undefined;
  if (!raw) return undefined;
  const hasRecord = raw['x.has_record'] === true;
  Reflect.deleteProperty(raw, 'x.has_record');
  return { draft: raw as unknown as DraftRow, hasRecord };
}

/** The community ids of the parent of record `id` (none: `[]`). */
export async function communityIdsOfRecord(db: Db, id: string): Promise<string[]> {
  const row = (await db('records as r')
    .join('parents as p', 'p.id', 'r.parent_id')
    .where('r.id', id)
    .first(db.raw("p.communities->'ids' AS ids"))) as { ids?: unknown } | undefined;
  return Array.isArray(row?.ids) ? row.ids.filter((x): x is string => typeof x === 'string') : [];
}
