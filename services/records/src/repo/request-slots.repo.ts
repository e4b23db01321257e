/**
 * SQL shared by records' tables of owners' record requests (`deletion_requests`,
 * `file_modification_requests`, `quota_requests`): each row is records' slot of one request,
 * claimed by the ask and found again by the requests service's id. No domain rules here.
 *
 * When to use: the repo of a record request type's slot table (`slotTable(<table>)`).
 */
import type { Knex } from '@rdm/platform';

type Db = Knex | Knex.Transaction;

/** The columns every slot table with an owner and a mail has. */
export interface RequestSlotRow {
  id: string;
  request_id: string | null;
  record_id: string;
  parent_id: string;
  requester: string;
  immediate: boolean;
  mailed_at: Date | null;
}

/** The shared statements on slot table `table` (rows typed `Row`). */
export function slotTable<Row extends object>(table: string) {
  return {
    /** Insert a claimed row unless a row matching `activeWhere` (the partial unique index's predicate) holds the record: true when inserted. */
    async insertClaim(
      db: Db,
      row: Pick<RequestSlotRow, 'id' | 'record_id' | 'parent_id' | 'requester' | 'immediate'>,
      activeWhere: string,
    ) {
      const r = await db.raw<{ rows: { id: string }[] }>(
        `INSERT INTO ${table} (id, record_id, parent_id, requester, immediate)
         VALUES (?, ?, ?, ?, ?) ON CONFLICT (record_id) WHERE ${activeWhere} DO NOTHING RETURNING id`,
        [row.id, row.record_id, row.parent_id, row.requester, row.immediate],
      );
      return r.rows.length > 0;
    },
    /** Attach the requests service's id to a claimed row. */
    async setRequestId(db: Db, id: string, requestId: string): Promise<void> {
      await db(table).where({ id }).update({ request_id: requestId, updated: new Date() });
    },
    /** The row of a request (locked for the transaction with `forUpdate`). */
    async byRequestId(db: Db, requestId: string, forUpdate = false): Promise<Row | undefined> {
      const q = db<Row>(table).where({ request_id: requestId } as never);
      return (forUpdate ? q.forUpdate() : q).first() as Promise<Row | undefined>;
    },
    /** Mark the outcome e-mail sent. */
    async markMailed(db: Db, requestId: string): Promise<void> {
      await db(table).where({ request_id: requestId }).update({ mailed_at: new Date() });
    },
  };
}
