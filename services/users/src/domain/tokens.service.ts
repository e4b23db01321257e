/**
 * Personal access tokens: issue (clear token returned once, hash stored), verify (for the
 * gateway, over RPC), revoke (emits `rdm.users.token.revoked`) and list.
 *
 * Verification is on the hot path of every authenticated request: one indexed lookup, and
 * `last_used_at` is written at most once per `lastUsedIntervalS` per token (checked from the
 * row just read, and again in the UPDATE's condition), never awaited by the caller.
 */
import { randomUUID } from 'node:crypto';
import { definePolicy, type Identity, type Knex, type Logger, systemProcess, withTransaction, writeOutbox } from '@rdm/platform';
import {
  findCredential,
  findTokenByHash,
  findTokenById,
  insertToken,
  listTokensOfUser,
  revokeToken,
  type TokenRow,
  touchToken,
} from '../repo/tokens.repo.js';
import { findUserByEmail, findUserById } from '../repo/users.repo.js';
import { UserErrors } from './errors.js';
import { generateToken, hashToken, isTokenCandidate } from './tokens.js';

/** Token management is for the system (the CLI); admins pass as superusers. */
const tokensPolicy = definePolicy<'manage', unknown>({ manage: [systemProcess] });

/** What a valid token stands for (RPC `verify-token` reply data). */
export interface VerifiedToken {
  user_id: string;
  roles: string[];
  token_id: string;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Options of TokensService. */
export interface TokensServiceOptions {
  /** Minimum seconds between two `last_used_at` writes of one token (default 60). */
  lastUsedIntervalS?: number;
  logger?: Pick<Logger, 'warn'>;
}

/** The tokens domain service. */
export class TokensService {
  private readonly intervalMs: number;
  /** token id → time of our last `last_used_at` write (bounded; a cheap first filter). */
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly db: Knex,
    private readonly opts: TokensServiceOptions = {},
  ) {
    this.intervalMs = (opts.lastUsedIntervalS ?? 60) * 1000;
  }

  /** The identity behind a clear token, or null when unknown, revoked, expired or its user inactive. */
  async verify(token: unknown): Promise<VerifiedToken | null> {
    if (!isTokenCandidate(token)) return null;
    const cred = await findCredential(this.db, hashToken(token));
    if (!cred || cred.revoked || cred.expired || !cred.user_active) return null;
    this.touch(cred.token_id, cred.last_used_ago_ms);
    return { user_id: cred.user_id, roles: [...(cred.roles ?? [])], token_id: cred.token_id };
  }

  private touch(id: string, agoMs: number | null): void {
    const now = Date.now();
    if (agoMs !== null && agoMs < this.intervalMs) return;
    const mine = this.touched.get(id);
    if (mine !== undefined && now - mine < this.intervalMs) return;
    if (this.touched.size > 10_000) this.touched.clear();
    this.touched.set(id, now);
    // Why: bookkeeping must never slow down or fail a request; errors are only logged.
    touchToken(this.db, id, Math.floor(this.intervalMs / 1000)).catch((err) =>
      this.opts.logger?.warn({ err, tokenId: id }, 'token last_used_at update failed'),
    );
  }

  /** Issue a new token for user `userId`; the clear token is in the result and nowhere else. */
  async issue(
    identity: Identity,
    userId: string,
    opts: { name?: string; expiresAt?: Date | null } = {},
  ): Promise<{ token: string; row: TokenRow }> {
    tokensPolicy.require('manage', identity);
    return withTransaction(this.db, async (trx) => {
      const user = await findUserById(trx, userId, { forUpdate: true });
      if (!user) throw UserErrors.userNotFound();
      const { token, hash } = generateToken();
      const row = await insertToken(trx, {
        id: randomUUID(),
        userId,
        name: opts.name ?? 'cli',
        tokenHash: hash,
        expiresAt: opts.expiresAt ?? null,
      });
      return { token, row };
    });
  }

  /**
   * Revoke a token given its id or its clear value; emits `rdm.users.token.revoked` in the same
   * transaction. Revoking an already revoked token changes nothing and emits nothing.
   */
  async revoke(identity: Identity, ref: { id?: string; token?: string }): Promise<TokenRow> {
    tokensPolicy.require('manage', identity);
    return withTransaction(this.db, async (trx) => {
      let row: TokenRow | undefined;
      if (ref.id !== undefined)
        row = UUID_RE.test(ref.id) ? await findTokenById(trx, ref.id.toLowerCase(), { forUpdate: true }) : undefined;
      else if (ref.token !== undefined)
        row = isTokenCandidate(ref.token) ? await findTokenByHash(trx, hashToken(ref.token), { forUpdate: true }) : undefined;
      if (!row) throw UserErrors.tokenNotFound();
      if (await revokeToken(trx, row.id)) {
        await writeOutbox(trx, {
          subject: 'rdm.users.token.revoked',
          aggregate: { type: 'token', id: row.id, revision: 1 },
          data: { id: row.id, user_id: row.user_id },
        });
      }
      return (await findTokenById(trx, row.id))!;
    });
  }

  /** Tokens of the user of `email` (never their clear values, which are not stored). */
  async listOf(identity: Identity, email: string): Promise<TokenRow[]> {
    tokensPolicy.require('manage', identity);
    const user = await findUserByEmail(this.db, email.trim());
    if (!user) throw UserErrors.userNotFound();
    return listTokensOfUser(this.db, user.id);
  }
}
