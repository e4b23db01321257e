/** SQL for personal access `tokens` (only hashes are stored). Takes a `Knex` or a transaction. */
import type { Knex } from '@rdm/platform';
import { isoSql } from './sql.js';

/** A token as stored (never the clear token). */
export interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  created: string;
  last_used_at: string | null;
  revoked_at: string | null;
  expires_at: string | null;
}

const COLUMNS = [
  'id',
  'user_id::text AS user_id',
  'name',
  `${isoSql('created')} AS created`,
  `${isoSql('last_used_at')} AS last_used_at`,
  `${isoSql('revoked_at')} AS revoked_at`,
  `${isoSql('expires_at')} AS expires_at`,
];

const select = (db: Knex) => db('tokens').select(db.raw(COLUMNS.join(', ')));

/** Insert a token (hash only); returns the stored row. */
export async function insertToken(
  db: Knex,
  t: { id: string; userId: string; name: string; tokenHash: string; expiresAt?: Date | null },
): Promise<TokenRow> {
  await db('tokens').insert({ id: t.id, user_id: t.userId, name: t.name, token_hash: t.tokenHash, expires_at: t.expiresAt ?? null });
  return (await findTokenById(db, t.id))!;
}

/** A token by id (a uuid string; the caller validates the form). */
export async function findTokenById(db: Knex, id: string, opts: { forUpdate?: boolean } = {}): Promise<TokenRow | undefined> {
  const q = select(db).where({ id }).first();
  if (opts.forUpdate) q.forUpdate();
  return (await q) as TokenRow | undefined;
}

/** A token by the hash of its clear value. */
export async function findTokenByHash(db: Knex, tokenHash: string, opts: { forUpdate?: boolean } = {}): Promise<TokenRow | undefined> {
  const q = select(db).where({ token_hash: tokenHash }).first();
  if (opts.forUpdate) q.forUpdate();
  return (await q) as TokenRow | undefined;
}

/** Tokens of a user, oldest first. */
export async function listTokensOfUser(db: Knex, userId: string): Promise<TokenRow[]> {
  return (await select(db)
    .where({ user_id: userId })
    .orderBy([{ column: 'created' }, { column: 'id' }])) as TokenRow[];
}

/** What token verification needs, in one indexed lookup. */
export interface TokenCredential {
  token_id: string;
  user_id: string;
  roles: string[];
  user_active: boolean;
  revoked: boolean;
  expired: boolean;
  /** Milliseconds since the last recorded use (null: never used). */
  last_used_ago_ms: number | null;
}

/** The credential behind a token hash, with its user's state. */
export async function findCredential(db: Knex, tokenHash: string): Promise<TokenCredential | undefined> {
  const row = await db('tokens as t')
    .join('users as u', 'u.id', 't.user_id')
    .where('t.token_hash', tokenHash)
    .first(
      db.raw(`t.id AS token_id, u.id::text AS user_id, u.roles, u.active AS user_active,
        t.revoked_at IS NOT NULL AS revoked,
        (t.expires_at IS NOT NULL AND t.expires_at <= now()) AS expired,
        (extract(epoch FROM (now() - t.last_used_at)) * 1000)::float8 AS last_used_ago_ms`),
    );
  return row as TokenCredential | undefined;
}

/**
 * Record a use of the token, unless one was recorded less than `intervalS` seconds ago (the
 * condition makes concurrent callers write at most once per interval).
 */
export async function touchToken(db: Knex, id: string, intervalS: number): Promise<void> {
  await db('tokens')
    .where({ id })
    .where((w) => w.whereNull('last_used_at').orWhereRaw('last_used_at < now() - make_interval(secs => ?)', [intervalS]))
    .update({ last_used_at: db.fn.now() });
}

/** Mark a token revoked (no-op when it already is); returns true when this call revoked it. */
export async function revokeToken(db: Knex, id: string): Promise<boolean> {
  const n = await db('tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  return n > 0;
}
