/**
 * SQL of parents, drafts, records, pids and search documents. Every function takes a `Knex`
 * or a transaction; the service opens the transaction and passes it down. No domain rules here.
 */
import { type Knex, searchVectorSql } from '@rdm/platform';
import type { DraftRow, ParentRow, RecordRow, VersionRow } from '../domain/model.js';
import type { SearchDocRow } from '../domain/search-doc.js';

type Db = Knex | Knex.Transaction;

const JSON_COLUMNS = ['metadata', 'custom_fields', 'access', 'files', 'media_files', 'pids', 'communities'] as const;

/** Serialize jsonb columns for an insert/update. */
function jsonify<T extends Record<string, unknown>>(row: T): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  for (const c of JSON_COLUMNS) if (c in out && out[c] !== undefined) out[c] = JSON.stringify(out[c]);
  return out;
}

/** True when `id` is used by any parent, draft or record (ids share one space). */
export async function idInUse(db: Db, id: string): Promise<boolean> {
  const r = await db.raw(
    `SELECT EXISTS (SELECT 1 FROM parents WHERE id = :id) OR EXISTS (SELECT 1 FROM drafts WHERE id = :id)
        OR EXISTS (SELECT 1 FROM records WHERE id = :id) AS used`,
    { id },
  );
  return r.rows[0]?.used === true;
}

/** A parent by id (optionally locked FOR UPDATE). */
export async function getParent(db: Db, id: string, forUpdate = false): Promise<ParentRow | undefined> {
  const q = db<ParentRow>('parents').where({ id }).first();
  return (forUpdate ? q.forUpdate() : q) as Promise<ParentRow | undefined>;
}

/** Insert a parent. */
export async function insertParent(
  db: Db,
  row: Omit<ParentRow, 'revision_id' | 'latest_index' | 'latest_id' | 'next_draft_id'> & Partial<ParentRow>,
): Promise<void> {
  await db('parents').insert(jsonify({ ...row, access: row.access }));
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
  const q = db<DraftRow>('drafts').where({ id }).first();
  return (forUpdate ? q.forUpdate() : q) as Promise<DraftRow | undefined>;
}

/** Insert a draft. */
export async function insertDraft(db: Db, row: DraftRow): Promise<void> {
  await db('drafts').insert(jsonify(row as unknown as Record<string, unknown>));
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
  await db('drafts').where({ id }).delete();
}

/** A record by id (optionally locked FOR UPDATE). */
export async function getRecord(db: Db, id: string, forUpdate = false): Promise<RecordRow | undefined> {
  const q = db<RecordRow>('records').where({ id }).first();
  return (forUpdate ? q.forUpdate() : q) as Promise<RecordRow | undefined>;
}

/** Insert a record. */
export async function insertRecord(db: Db, row: RecordRow): Promise<void> {
  await db('records').insert(jsonify(row as unknown as Record<string, unknown>));
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

/** Insert or update a pid row (status N = new/reserved on a draft, R = registered). */
export async function upsertPid(
  db: Db,
  p: { scheme: string; identifier: string; record_id: string; provider: string; status: 'N' | 'R' },
): Promise<void> {
  await db('pids').insert(p).onConflict(['scheme', 'identifier']).merge(['record_id', 'provider', 'status']);
}

/** Delete a pid row. */
export async function deletePid(db: Db, scheme: string, identifier: string): Promise<void> {
  await db('pids').where({ scheme, identifier }).delete();
}

/** Delete the unregistered (N) pids of a record/draft id. */
export async function deleteNewPids(db: Db, recordId: string): Promise<void> {
  await db('pids').where({ record_id: recordId, status: 'N' }).delete();
}

/** Insert or replace the search document of one draft or record. */
export async function upsertSearchDoc(db: Db, r: SearchDocRow): Promise<void> {
  const v = searchVectorSql(r.texts);
  const { texts: _t, ...cols } = r;
  await db('search_docs')
    .insert({
      ...cols,
      file_types: db.raw('?::text[]', [r.file_types]),
      doc: JSON.stringify(r.doc),
      search_vector: db.raw(v.sql, v.bindings as Knex.RawBinding[]),
    })
    .onConflict(['id', 'kind'])
    .merge();
}

/** Delete the search document of one draft or record. */
export async function deleteSearchDoc(db: Db, id: string, kind: 'draft' | 'record'): Promise<void> {
  await db('search_docs').where({ id, kind }).delete();
}

/** Set `has_draft` on a record's search document. */
export async function setHasDraft(db: Db, id: string, hasDraft: boolean): Promise<void> {
  await db('search_docs').where({ id, kind: 'record' }).update({ has_draft: hasDraft });
}

/**
 * Recompute the version flags (`is_latest`, `is_latest_draft`) of the given ids' documents
 * (both kinds) from the parent's versions state, in one statement.
 */
export async function refreshVersionFlags(
  db: Db,
  ids: string[],
  state: { latest_id: string | null; next_draft_id: string | null },
): Promise<void> {
  const unique = [...new Set(ids.filter(Boolean))];
  if (unique.length === 0) return;
  await db.raw(
    `UPDATE search_docs SET
        is_latest = (id = :latest),
        is_latest_draft = CASE WHEN :next::text IS NOT NULL THEN id = :next ELSE id = :latest END,
        doc = jsonb_set(jsonb_set(doc, '{versions,is_latest}', to_jsonb(id = :latest)),
                        '{versions,is_latest_draft}',
                        to_jsonb(CASE WHEN :next::text IS NOT NULL THEN id = :next ELSE id = :latest END))
      WHERE id = ANY(:ids)`,
    { latest: state.latest_id ?? '', next: state.next_draft_id, ids: unique },
  );
}

/** Replace the `parent` part of every search document of a parent (one statement). */
export async function refreshParentInDocs(db: Db, parentId: string, parent: unknown): Promise<void> {
  await db.raw(`UPDATE search_docs SET doc = jsonb_set(doc, '{parent}', ?::jsonb) WHERE parent_id = ?`, [JSON.stringify(parent), parentId]);
}

/** The draft (if any) whose bucket is `bucketId`. */
export async function draftByBucket(db: Db, bucketId: string): Promise<DraftRow | undefined> {
  return db<DraftRow>('drafts').where({ bucket_id: bucketId }).first() as Promise<DraftRow | undefined>;
}

/** Replace the files summary (and file types) of a draft's search document. */
export async function setDraftDocFiles(db: Db, id: string, files: unknown, types: string[]): Promise<void> {
  await db('search_docs')
    .where({ id, kind: 'draft' })
    .update({ doc: db.raw(`jsonb_set(doc, '{files}', ?::jsonb)`, [JSON.stringify(files)]), file_types: db.raw('?::text[]', [types]) });
}
