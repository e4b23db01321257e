/**
 * SQL for `request_events`, the timeline: comments (type C) and log events (type L), ordered by
 * insertion (`seq`); replies point at a top-level event with `parent_id`.
 */
import { type Knex, prepared } from '@rdm/platform';
import type { EventRow } from '../domain/model.js';

const COLUMNS =
  'id::text AS id, request_id::text AS request_id, type, created_by, payload, parent_id::text AS parent_id, created, updated, revision_id, seq';

interface Row extends Omit<EventRow, 'seq'> {
  seq: string | number;
}

const toEvent = (r: Row): EventRow => ({ ...r, seq: Number(r.seq) });

/** A new event. */
export type NewEvent = Pick<EventRow, 'id' | 'request_id' | 'type' | 'created_by' | 'payload' | 'parent_id'>;

/** Insert an event; returns it. */
export async function insertEvent(trx: Knex, e: NewEvent): Promise<EventRow> {
  const r = await prepared(
    trx,
    `INSERT INTO request_events (id, request_id, type, created_by, payload, parent_id) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    [e.id, e.request_id, e.type, JSON.stringify(e.created_by), JSON.stringify(e.payload), e.parent_id],
  );
  return toEvent(r.rows[0] as Row);
}

/** An event of a request by id; `forUpdate` locks it. */
export async function findEvent(
  db: Knex,
  requestId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<EventRow | undefined> {
  const sql = `SELECT ${COLUMNS} FROM request_events WHERE id = ? AND request_id = ?${opts.forUpdate ? ' FOR UPDATE' : ''}`;
  const r = (await prepared(db, sql, [id, requestId])).rows[0] as Row | undefined;
  return r ? toEvent(r) : undefined;
}

/** Replace an event's type and payload, raise its revision; returns it. */
export async function updateEvent(trx: Knex, id: string, type: 'C' | 'L', payload: Record<string, unknown>): Promise<EventRow> {
  const r = await prepared(
    trx,
    `UPDATE request_events SET type = ?, payload = ?, updated = clock_timestamp(), revision_id = revision_id + 1 WHERE id = ? RETURNING ${COLUMNS}`,
    [type, JSON.stringify(payload), id],
  );
  return toEvent(r.rows[0] as Row);
}

/** A page of events: top-level events of a request (parentId null) or replies of one event. */
export async function listEvents(
  db: Knex,
  o: { requestId: string; parentId: string | null; limit: number; offset: number; newestFirst?: boolean },
): Promise<{ hits: EventRow[]; total: number }> {
  const where = o.parentId === null ? 'request_id = ? AND parent_id IS NULL' : 'request_id = ? AND parent_id = ?';
  const b = o.parentId === null ? [o.requestId] : [o.requestId, o.parentId];
  const [rows, count] = await Promise.all([
    db.raw(`SELECT ${COLUMNS} FROM request_events WHERE ${where} ORDER BY seq ${o.newestFirst ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`, [
      ...b,
      o.limit,
      o.offset,
    ]),
    db.raw(`SELECT count(*)::int AS n FROM request_events WHERE ${where}`, b),
  ]);
  return { hits: (rows.rows as Row[]).map(toEvent), total: count.rows[0].n as number };
}

/** 0-based position of an event among its siblings (oldest first), or undefined. */
export async function positionOf(
  db: Knex,
  requestId: string,
  id: string,
  parentId: string | null,
  newestFirst = false,
): Promise<number | undefined> {
  const r = await db.raw(
    `SELECT (SELECT count(*)::int FROM request_events s WHERE s.request_id = e.request_id
       AND s.parent_id IS NOT DISTINCT FROM e.parent_id AND s.seq ${newestFirst ? '>' : '<'} e.seq) AS pos
     FROM request_events e WHERE e.id = ? AND e.request_id = ? AND e.parent_id IS NOT DISTINCT FROM ?::uuid`,
    [id, requestId, parentId],
  );
  return r.rows[0]?.pos as number | undefined;
}

/** For top-level events: their newest replies (at most `max`, newest first) and their reply count. */
export async function childrenOf(db: Knex, parentIds: string[], max = 5): Promise<Map<string, { children: EventRow[]; count: number }>> {
  const out = new Map<string, { children: EventRow[]; count: number }>();
  if (parentIds.length === 0) return out;
  for (const id of parentIds) out.set(id, { children: [], count: 0 });
  const r = await db.raw(
    `SELECT * FROM (
       SELECT ${COLUMNS}, row_number() OVER (PARTITION BY parent_id ORDER BY seq DESC) AS rn, count(*) OVER (PARTITION BY parent_id) AS n
       FROM request_events WHERE parent_id = ANY(?::uuid[])
     ) x WHERE rn <= ? ORDER BY parent_id, seq DESC`,
    [parentIds, max],
  );
  for (const row of r.rows as (Row & { n: string })[]) {
    const slot = out.get(row.parent_id as string);
    if (!slot) continue;
    slot.count = Number(row.n);
    slot.children.push(toEvent(row));
  }
  return out;
}

/** The newest comment (type C) of each request. */
export async function lastReplies(db: Knex, requestIds: string[]): Promise<Map<string, EventRow>> {
  const out = new Map<string, EventRow>();
  if (requestIds.length === 0) return out;
  const r = await db.raw(
    `SELECT DISTINCT ON (request_id) ${COLUMNS} FROM request_events WHERE request_id = ANY(?::uuid[]) AND type = 'C' ORDER BY request_id, seq DESC`,
    [requestIds],
  );
  for (const row of r.rows as Row[]) out.set(row.request_id, toEvent(row));
  return out;
}
