/**
 * Authentication at the edge: personal access tokens verified by the users service and cached.
 *
 * A token comes as `Authorization: Bearer <token>` or `?access_token=<token>` (the header wins).
 * `users` answers `rdm.users.rpc.verify-token` with `{user_id, roles, token_id}` or `null`.
 * Answers are cached in a small LRU keyed by sha256(token) — positive ones for
 * TOKEN_CACHE_TTL_MS (5 s), negative ones for TOKEN_CACHE_NEGATIVE_TTL_MS (1.5 s) — and concurrent
 * look-ups of one token share one RPC. `rdm.users.token.revoked` / `rdm.users.user.deactivated`
 * drop matching entries at once (see `subscribeInvalidations`).
 *
 * An invalid, expired or revoked token is refused by default (AUTH_INVALID_TOKEN=reject): 401
 * "The access token is invalid or has been revoked." with `WWW-Authenticate: Bearer
 * error="invalid_token"`, so a client learns at once that its token is bad instead of being
 * quietly served as anonymous. This deliberately differs from InvenioRDM, whose REST app
 * (invenio-oauth2server's `verify_oauth_token_and_set_current_user` before-request hook) does not
 * fail the request: the caller simply stays anonymous, public reads work and protected calls get
 * 403 "Permission denied." (InvenioRDM never answers 401). AUTH_INVALID_TOKEN=anonymous restores
 * that InvenioRDM-compatible behaviour. No token at all is always anonymous.
 * If users cannot be asked (RPC timeout, no responder), the request fails with 503: a
 * token-bearing caller is never silently downgraded because of an outage.
 */
import crypto from 'node:crypto';
import { type Identity, type Logger, type NatsHandle, callRpc, callContract } from '@rdm/platform';
import { RPC_SUBJECTS, type UsersVerifyTokenReply, type UsersVerifyTokenRequest } from '@rdm/contracts';

/** The NATS connection type (taken from the platform, which owns the client library). */
export type NatsConnection = NatsHandle['nc'];
type Subscription = ReturnType<NatsConnection['subscribe']>;

/** What users says about a valid token. */
export interface VerifiedToken {
  userId: string;
  roles: string[];
  tokenId: string;
}

/** An authenticated caller: the identity to forward and the rate-limit key. */
export interface Principal {
  identity: Identity;
  tokenId: string;
  /** `t:<token id>`, the rate-limit key (built once). */
  rateKey: string;
}

/** Asks the users service about a token (null: unknown, revoked or inactive user). */
export type TokenVerifier = (token: string) => Promise<VerifiedToken | null>;

/** Options of TokenCache. */
export interface TokenCacheOptions {
  verify: TokenVerifier;
  ttlMs: number;
  negativeTtlMs: number;
  max: number;
  now?: () => number;
}

interface Entry {
  principal: Principal | null;
  userId: string | null;
  expires: number;
}

// Why: node ≥ 20.12 hashes a string in one call (no Hash object per look-up).
const oneShot = (crypto as { hash?: (alg: string, data: string, enc: 'base64url') => string }).hash;

/** sha256 of a token: the cache never holds the token itself. */
export const tokenKey = (token: string): string =>
  oneShot ? oneShot('sha256', token, 'base64url') : crypto.createHash('sha256').update(token).digest('base64url');

/** LRU + TTL cache of token verifications with single-flight look-ups and event invalidation. */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Principal | null>>();
  /** Bumped on every invalidation; a look-up started before a bump is not cached. */
  private generation = 0;
  private readonly now: () => number;

  constructor(private readonly opts: TokenCacheOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Number of cached verifications. */
  get size(): number {
    return this.entries.size;
  }

  /** The principal of `token`, or null when the token is not valid. Throws when users cannot answer. */
  resolve(token: string): Promise<Principal | null> {
    const key = tokenKey(token);
    const hit = this.peek(key);
    return hit !== undefined ? Promise.resolve(hit) : this.resolveKey(token, key);
  }

  /**
   * The cached answer for a token's key (`tokenKey`): the principal, null (known invalid), or
   * undefined (not cached or expired: ask `resolveKey`). Synchronous and allocation-free: the
   * gateway's hot path.
   */
  peek(key: string): Principal | null | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    if (hit.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    // Keep recently used entries at the end of the Map (LRU order).
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.principal;
  }

  /** Ask users about `token` (whose key is `key`), sharing one RPC between concurrent look-ups. */
  resolveKey(token: string, key: string): Promise<Principal | null> {
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const p = this.opts
      .verify(token)
      .then((v) => {
        const principal: Principal | null = v
          ? {
              identity: Object.freeze({ sub: v.userId, roles: Object.freeze([...v.roles]) as string[] }),
              tokenId: v.tokenId,
              rateKey: `t:${v.tokenId}`,
            }
          : null;
        if (generation === this.generation) this.store(key, principal, v?.userId ?? null);
        return principal;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private store(key: string, principal: Principal | null, userId: string | null): void {
    const ttl = principal ? this.opts.ttlMs : this.opts.negativeTtlMs;
    if (ttl <= 0) return;
    this.entries.set(key, { principal, userId, expires: this.now() + ttl });
    while (this.entries.size > this.opts.max) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Drop the entries of one token id (revoked). */
  invalidateToken(tokenId: string): void {
    this.generation++;
    for (const [k, e] of this.entries) if (e.principal?.tokenId === tokenId) this.entries.delete(k);
  }

  /** Drop every entry of one user (deactivated). */
  invalidateUser(userId: string): void {
    this.generation++;
    for (const [k, e] of this.entries) if (e.userId === userId) this.entries.delete(k);
  }

  /** Drop everything. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

const BEARER = /^\s*bearer\s+(\S+)\s*$/i;

/**
 * The token of a request, if any: `Authorization: Bearer` first, then `access_token` in the
 * query string. Other schemes (e.g. Basic) are ignored.
 */
export function extractToken(authorization: string | undefined, querystring: string): string | undefined {
  if (authorization) {
    const m = BEARER.exec(authorization);
    if (m) return m[1];
  }
  if (querystring?.includes('access_token=')) {
    const v = new URLSearchParams(querystring).get('access_token');
    if (v) return v;
  }
  return undefined;
}

/** A TokenVerifier over NATS request-reply. */
export function natsTokenVerifier(nc: NatsConnection, timeoutMs: number): TokenVerifier {
  return async (token) => {
    const data = await callContract(nc, RPC_SUBJECTS.users.verifyToken, { token } satisfies UsersVerifyTokenRequest, {
      timeoutMs,
    });
    if (!data || data.user_id === undefined || data.user_id === null) return null;
    return { userId: String(data.user_id), roles: Array.isArray(data.roles) ? data.roles.map(String) : [], tokenId: String(data.token_id) };
  };
}

/** Subjects whose events invalidate cached tokens. */
export const INVALIDATION_SUBJECTS = ['rdm.users.token.revoked', 'rdm.users.user.deactivated'] as const;

/**
 * Drop cached tokens when users revokes a token or deactivates a user.
 *
 * Why a plain core-NATS subscription and not a durable JetStream consumer: the events are
 * published into the USERS stream, and JetStream publishes are ordinary NATS messages, so a core
 * subscriber sees them live. Missing one (gateway disconnected at that moment) is harmless: the
 * cache TTL (seconds) bounds how long a revoked token can still pass, and a durable consumer per
 * gateway replica would be state to manage for no gain.
 */
export function subscribeInvalidations(nc: NatsConnection, cache: TokenCache, logger: Logger): Subscription[] {
  const dec = new TextDecoder();
  return INVALIDATION_SUBJECTS.map((subject) =>
    nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) {
          logger.warn({ err, subject }, 'token invalidation subscription error');
          return;
        }
        try {
          const env = JSON.parse(dec.decode(msg.data)) as { data?: { id?: unknown; user_id?: unknown } };
          const id = env?.data?.id;
          if (id === undefined || id === null) return;
          if (msg.subject === 'rdm.users.token.revoked') cache.invalidateToken(String(id));
          else cache.invalidateUser(String(id));
        } catch (e) {
          logger.warn({ err: e, subject: msg.subject }, 'bad token invalidation event');
        }
      },
    }),
  );
}
