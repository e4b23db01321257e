/**
 * All SQL of secret access links (`access_links`) and of the parent lookups the access routes need.
 *
 * When to use: only from `access/access-links.service.ts` and the token resolution `domain/link-token.ts`.
 */
import type { Knex } from '@rdm/platform';

type Db = Knex | Knex.Transaction;

/** A stored access link. */
export interface AccessLinkRow {
  id: string;
  parent_id: string;
  permission: 'view' | 'preview' | 'edit';
  description: string;
  /** `YYYY-MM-DD` (the day it stops working, at 00:00 UTC) or null. */
  expires_at: string | null;
  origin: string | null;
  nonce: string;
  token_hash: string;
  created_by: string | null;
  created_at: Date;
}

const COLUMNS =
  "id, parent_id, permission, description, to_char(expires_at, 'YYYY-MM-DD') AS expires_at, origin, nonce, token_hash, created_by, created_at";

/** The parent id of a draft or record id (draft first), or undefined. */
export async function parentIdOf(db: Db, id: string): Promise<string | undefined> {
  const r = await db.raw<{ rows: { parent_id: string }[] }>(
    'SELECT parent_id FROM drafts WHERE id = ? UNION ALL SELECT parent_id FROM records WHERE id = ? LIMIT 1',
    [id, id],
  );
  return r.rows[0]?.parent_id;
}

/** Insert a link. */
export async function insertLink(db: Db, row: Omit<AccessLinkRow, 'created_at'>): Promise<AccessLinkRow> {
  const r = await db.raw<{ rows: AccessLinkRow[] }>(
    `INSERT INTO access_links (id, parent_id, permission, description, expires_at, origin, nonce, token_hash, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    [row.id, row.parent_id, row.permission, row.description, row.expires_at, row.origin, row.nonce, row.token_hash, row.created_by],
  );
  return r.rows[0]!;
}

/** The links of a parent, oldest first. */
export async function listLinks(db: Db, parentId: string): Promise<AccessLinkRow[]> {
  const r = await db.raw<{ rows: AccessLinkRow[] }>(`SELECT ${COLUMNS} FROM access_links WHERE parent_id = ? ORDER BY created_at, id`, [
    parentId,
  ]);
  return r.rows;
}

/** One link of a parent (`forUpdate`: row lock). */
export async function getLink(db: Db, parentId: string, id: string, forUpdate = false): Promise<AccessLinkRow | undefined> {
  const r = await db.raw<{ rows: AccessLinkRow[] }>(
    `SELECT ${COLUMNS} FROM access_links WHERE parent_id = ? AND id = ?${forUpdate ? ' FOR UPDATE' : ''}`,
    [parentId, id],
  );
  return r.rows[0];
}

/** Update permission / description / expiry of a link. */
export async function updateLink(
  db: Db,
  id: string,
  patch: Pick<AccessLinkRow, 'permission' | 'description' | 'expires_at'>,
): Promise<AccessLinkRow> {
  const r = await db.raw<{ rows: AccessLinkRow[] }>(
    `UPDATE access_links SET permission = ?, description = ?, expires_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
    [patch.permission, patch.description, patch.expires_at, id],
  );
  return r.rows[0]!;
}

/** Delete a link; true when it existed. */
export async function deleteLink(db: Db, parentId: string, id: string): Promise<boolean> {
  const r = await db.raw<{ rowCount: number }>('DELETE FROM access_links WHERE parent_id = ? AND id = ?', [parentId, id]);
  return r.rowCount > 0;
}

/** The live (not expired) link of a token hash: its parent and permission. */
export async function liveLinkByHash(
  db: Db,
  tokenHash: string,
): Promise<{ parent_id: string; permission: AccessLinkRow['permission'] } | undefined> {
  const r = await db.raw<{ rows: { parent_id: string; permission: AccessLinkRow['permission'] }[] }>(
    "SELECT parent_id, permission FROM access_links WHERE token_hash = ? AND (expires_at IS NULL OR expires_at > (now() AT TIME ZONE 'UTC')::date)",
    [tokenHash],
  );
  return r.rows[0];
}
