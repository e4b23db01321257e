/**
 * SQL of the community statistics kept from records' events: the latest files summary per record
 * parent, and which parents each community holds (a parent counts once per community).
 */
import { type Knex, prepared } from '@rdm/platform';

/**
 * Record the latest version's files of a parent, unless an event later in the RECORDS stream
 * (`seq`) already wrote the row: `record.published` and `inclusion.added` come through separate
 * consumers, in any order.
 */
export async function upsertParent(
  trx: Knex.Transaction,
  p: { parent_id: string; record_id: string; files: number; file_size: number; seq: number },
): Promise<void> {
  await prepared(
    trx,
    `INSERT INTO record_parents (parent_id, record_id, files, file_size, seq) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (parent_id) DO UPDATE SET record_id = excluded.record_id, files = excluded.files, file_size = excluded.file_size,
       seq = excluded.seq, updated = now()
     WHERE record_parents.seq <= excluded.seq`,
    [p.parent_id, p.record_id, p.files, p.file_size, p.seq],
  );
}

/** Make the parent's communities exactly `communityIds`. */
export async function setParentCommunities(trx: Knex.Transaction, parentId: string, communityIds: string[]): Promise<void> {
  const q = trx('community_records').where({ parent_id: parentId });
  if (communityIds.length) q.whereNotIn('community_id', communityIds);
  await q.delete();
  for (const cid of communityIds) await addParent(trx, cid, parentId);
}

/** Add a parent to a community (idempotent). */
export async function addParent(trx: Knex.Transaction, communityId: string, parentId: string): Promise<void> {
  await trx('community_records')
    .insert({ community_id: communityId, parent_id: parentId })
    .onConflict(['community_id', 'parent_id'])
    .ignore();
}

/** Remove a parent from a community. */
export async function removeParent(trx: Knex.Transaction, communityId: string, parentId: string): Promise<void> {
  await trx('community_records').where({ community_id: communityId, parent_id: parentId }).delete();
}
