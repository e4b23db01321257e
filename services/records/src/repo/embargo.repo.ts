/** SQL of the embargo lifter (jobs/embargo.job.ts): expired embargoes of records and their edit drafts. */
import type { Knex } from '@rdm/platform';
import type { Access, RecordRow } from '../model/rows.js';

/** Claim up to `limit` published records whose embargo ended by `today`, skipping rows another runner holds. */
export async function claimExpired(trx: Knex.Transaction, today: string, limit: number): Promise<RecordRow[]> {
  const r = await trx.raw<{ rows: RecordRow[] }>(
    `SELECT * FROM records
      WHERE deletion_status = 'P' AND (access->'embargo'->>'active') = 'true' AND (access->'embargo'->>'until') <= ?
      ORDER BY id LIMIT ${Number(limit)} FOR UPDATE SKIP LOCKED`,
    [today],
  );
  return r.rows;
}

/** Write a record's new access; returns its new revision. */
export async function setRecordAccess(trx: Knex.Transaction, id: string, access: Access, now: Date): Promise<number> {
  const u = await trx.raw<{ rows: { revision_id: number }[] }>(
    'UPDATE records SET access = ?::jsonb, updated = ?, revision_id = revision_id + 1 WHERE id = ? RETURNING revision_id',
    [JSON.stringify(access), now, id],
  );
  return Number(u.rows[0]!.revision_id);
}

/** Lift the ended embargo of the edit draft `id`, if it has one (record and files public, `embargo.active` false). */
export async function liftDraftEmbargo(trx: Knex.Transaction, id: string, today: string): Promise<void> {
  await trx.raw(
    `UPDATE drafts SET access = jsonb_set(jsonb_set(jsonb_set(access, '{embargo,active}', 'false'), '{record}', '"public"'), '{files}', '"public"'),
       revision_id = revision_id + 1
      WHERE id = ? AND (access->'embargo'->>'active') = 'true' AND (access->'embargo'->>'until') <= ?`,
    [id, today],
  );
}
