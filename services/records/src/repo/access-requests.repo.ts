/**
 * SQL of access requests (tables `access_request_tokens` and `access_requests`, migration
 * 20261201000000). No domain rules here.
 *
 * When to use: only from `domain/access-request*.ts` and the access-request consumers.
 */
import type { Knex } from '@rdm/platform';

type Db = Knex | Knex.Transaction;

/** A guest's pending e-mail verification. */
export interface AccessTokenRow {
  id: string;
  record_id: string;
  parent_id: string;
  email: string;
  full_name: string;
  message: string;
  consent: string;
  nonce: string;
  token_hash: string;
  expires_at: Date;
  created?: Date;
  mailed_at?: Date | null;
}

/** Records' bookkeeping of one access request. */
export interface AccessRequestRow {
  id: string;
  request_id: string | null;
  type: 'user-access-request' | 'guest-access-request';
  parent_id: string;
  record_id: string;
  /** User id, or the lower-cased e-mail address of a guest. */
  requester: string;
  is_open: boolean;
  effect: 'grant' | 'link' | 'failed' | null;
  link_id: string | null;
  email: string | null;
  mailed_at: Date | null;
}

/** Insert a verification token. */
export async function insertToken(db: Db, row: AccessTokenRow): Promise<void> {
  await db('access_request_tokens').insert(row);
}

/** A token by id. */
export async function getToken(db: Db, id: string): Promise<AccessTokenRow | undefined> {
  return db<AccessTokenRow>('access_request_tokens').where({ id }).first();
}

/** A live (unexpired) token by the hash of its value, locked for the transaction. */
export async function liveTokenByHash(db: Db, hash: string): Promise<AccessTokenRow | undefined> {
  return db<AccessTokenRow>('access_request_tokens').where({ token_hash: hash }).where('expires_at', '>', db.fn.now()).forUpdate().first();
}

/** Delete a token (used or expired). */
export async function deleteToken(db: Db, id: string): Promise<void> {
  await db('access_request_tokens').where({ id }).delete();
}

/** Delete tokens expired before now (housekeeping on every new token). */
export async function deleteExpiredTokens(db: Db): Promise<void> {
  await db('access_request_tokens').where('expires_at', '<', db.fn.now()).delete();
}

/** Mark a token's e-mail sent. */
export async function markTokenMailed(db: Db, id: string): Promise<void> {
  await db('access_request_tokens').where({ id }).update({ mailed_at: new Date() });
}

/**
 * Claim the open slot of (parent, type, requester): inserts the row, or answers the open row that
 * holds it (the partial unique index decides between concurrent claims).
 */
export async function claimOpen(
  db: Db,
  row: Pick<AccessRequestRow, 'id' | 'type' | 'parent_id' | 'record_id' | 'requester' | 'email'>,
): Promise<{ claimed: true } | { claimed: false; existing: AccessRequestRow | undefined }> {
  const r = await db.raw<{ rows: { id: string }[] }>(
    `INSERT INTO access_requests (id, type, parent_id, record_id, requester, email)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (parent_id, type, requester) WHERE is_open DO NOTHING RETURNING id`,
    [row.id, row.type, row.parent_id, row.record_id, row.requester, row.email],
  );
  if (r.rows.length > 0) return { claimed: true };
  const existing = await db<AccessRequestRow>('access_requests')
    .where({ parent_id: row.parent_id, type: row.type, requester: row.requester, is_open: true })
    .first();
  return { claimed: false, existing };
}

/** Attach the requests service's id to a claimed row. */
export async function setRequestId(db: Db, id: string, requestId: string): Promise<void> {
  await db('access_requests').where({ id }).update({ request_id: requestId, updated: new Date() });
}

/** Drop a claim whose request could not be created. */
export async function dropClaim(db: Db, id: string): Promise<void> {
  await db('access_requests').where({ id, request_id: null }).delete();
}

/** The row of a request, locked for the transaction. */
export async function byRequestId(db: Db, requestId: string, forUpdate = false): Promise<AccessRequestRow | undefined> {
  const q = db<AccessRequestRow>('access_requests').where({ request_id: requestId });
  return (forUpdate ? q.forUpdate() : q).first();
}

/** Insert the row of a request records has not seen yet (an accept met before its creation committed). */
export async function adoptRequest(
  db: Db,
  row: Pick<AccessRequestRow, 'id' | 'request_id' | 'type' | 'parent_id' | 'record_id' | 'requester' | 'email'>,
): Promise<void> {
  await db.raw(
    `INSERT INTO access_requests (id, request_id, type, parent_id, record_id, requester, email, is_open)
     VALUES (?, ?, ?, ?, ?, ?, ?, false) ON CONFLICT DO NOTHING`,
    [row.id, row.request_id, row.type, row.parent_id, row.record_id, row.requester, row.email],
  );
}

/** Close a request (no longer blocks a new one); `effect`/`link_id` record an applied accept. */
export async function closeRequest(
  db: Db,
  requestId: string,
  patch: Partial<Pick<AccessRequestRow, 'effect' | 'link_id'>> = {},
): Promise<void> {
  await db('access_requests')
    .where({ request_id: requestId })
    .update({ ...patch, is_open: false, updated: new Date() });
}

/** Mark the guest's link e-mail sent. */
export async function markRequestMailed(db: Db, requestId: string): Promise<void> {
  await db('access_requests').where({ request_id: requestId }).update({ mailed_at: new Date() });
}
