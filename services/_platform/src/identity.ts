/**
 * The signed identity header the gateway forwards to services.
 *
 * The gateway authenticates the caller and sends `x-rdm-identity`; services trust only a header
 * whose HMAC verifies with the shared `IDENTITY_SECRET`, that has not expired, that is bound to the
 * request it arrives with (method, request target, `x-request-id`) and whose nonce this process has
 * not seen before. A missing header is the anonymous identity; a present but refused one is a 401
 * (it means someone bypassed the gateway or replayed a captured header).
 *
 * Why each part (SECURITY.md, "What services trust"):
 * - `exp` (IDENTITY_TTL_SECONDS after `iat`, CLOCK_SKEW_SECONDS allowed either way): a captured
 *   header is not a permanent credential; it outlives a token's revocation by seconds at most.
 * - `m`, `t`, `rid`: a captured header cannot be reused for another operation, another record or
 *   another request id.
 * - `n` (a nonce unique per signature): a header is used once per process (`ReplayGuard`).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Header carrying the signed identity. */
export const IDENTITY_HEADER = 'x-rdm-identity';

/** Who is calling: a user id (null for anonymous) and roles (`admin`, `system`). */
export interface Identity {
  sub: string | null;
  roles: string[];
  /** Secret access-link token presented with the request, when any. */
  linkToken?: string;
  /** The client's address as the gateway established it (trusted proxies applied), when known. */
  clientIp?: string;
}

/** The anonymous caller. */
export const ANONYMOUS: Identity = Object.freeze({ sub: null, roles: [] }) as Identity;
/** The system itself (event consumers, CLIs). */
export const SYSTEM: Identity = Object.freeze({ sub: 'system', roles: ['system'] }) as Identity;

/** What a signed identity is bound to: the request as the service receives it. */
export interface IdentityBinding {
  /** Request method, upper case. */
  method: string;
  /** Request target as sent upstream (path and query, `req.url`). */
  target: string;
  /** The `x-request-id` header sent with it. */
  requestId: string;
}

/** Lifetime of a signed identity, in seconds. */
export const IDENTITY_TTL_SECONDS = 30;
/** Clock difference tolerated between the gateway and a service, in seconds. */
export const CLOCK_SKEW_SECONDS = 5;

/** Why a header was refused. */
export type IdentityRefusal = 'malformed' | 'signature' | 'expired' | 'unbound' | 'replayed';

/** Result of verifying a header. */
export type IdentityCheck = { identity: Identity; nonce: string; exp: number } | { refused: IdentityRefusal };

const b64 = (s: Buffer | string) => Buffer.from(s).toString('base64url');
const mac = (payload: string, secret: string) => createHmac('sha256', secret).update(payload).digest();

// Nonces: a random per-process prefix and a counter (unique without a random draw per request).
const NONCE_PREFIX = randomBytes(9).toString('base64url');
let nonceCounter = 0;

/** Sign an identity for one request into a header value. */
export function signIdentity(identity: Identity, secret: string, binding: IdentityBinding, nowMs: number = Date.now()): string {
  const iat = Math.floor(nowMs / 1000);
  const body: Record<string, unknown> = {
    sub: identity.sub,
    roles: identity.roles,
    m: binding.method,
    t: binding.target,
    rid: binding.requestId,
    n: `${NONCE_PREFIX}${(nonceCounter++).toString(36)}`,
    iat,
    exp: iat + IDENTITY_TTL_SECONDS,
  };
  if (identity.clientIp !== undefined) body.ip = identity.clientIp;
  const payload = b64(JSON.stringify(body));
  return `${payload}.${b64(mac(payload, secret))}`;
}

/**
 * Verify a header value against the request it came with. Pure: the replay check is the
 * caller's (`identityOf` does both, once per request).
 */
export function verifyIdentity(value: string, secret: string, binding: IdentityBinding, nowMs: number = Date.now()): IdentityCheck {
  const dot = value.indexOf('.');
  if (dot <= 0) return { refused: 'malformed' };
  const payload = value.slice(0, dot);
  const sig = Buffer.from(value.slice(dot + 1), 'base64url');
  const expected = mac(payload, secret);
  if (sig.length !== expected.length || !timingSafeEqual(sig, expected)) return { refused: 'signature' };
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return { refused: 'malformed' };
  }
  if (obj === null || typeof obj !== 'object') return { refused: 'malformed' };
  const { iat, exp, n } = obj;
  if (typeof iat !== 'number' || typeof exp !== 'number' || typeof n !== 'string' || n === '') return { refused: 'unbound' };
  const now = nowMs / 1000;
  if (exp - iat > IDENTITY_TTL_SECONDS || iat > now + CLOCK_SKEW_SECONDS || exp < now - CLOCK_SKEW_SECONDS) return { refused: 'expired' };
  if (obj.m !== binding.method || obj.t !== binding.target || obj.rid !== binding.requestId) return { refused: 'unbound' };
  const identity: Identity = {
    sub: typeof obj.sub === 'string' ? obj.sub : null,
    roles: Array.isArray(obj.roles) ? obj.roles.filter((r): r is string => typeof r === 'string') : [],
  };
  if (typeof obj.ip === 'string') identity.clientIp = obj.ip;
  return { identity, nonce: n, exp };
}

/**
 * Nonces seen by this process while their headers could still be valid: two generations that
 * swap every `IDENTITY_TTL_SECONDS + CLOCK_SKEW_SECONDS`, so memory is bounded by the request rate
 * times twice that window and a nonce is remembered at least as long as its header lives.
 */
export class ReplayGuard {
  private current = new Set<string>();
  private previous = new Set<string>();
  private swappedAt: number;
  private readonly windowMs: number;

  constructor(nowMs: number = Date.now(), windowSeconds: number = IDENTITY_TTL_SECONDS + 2 * CLOCK_SKEW_SECONDS) {
    this.swappedAt = nowMs;
    this.windowMs = windowSeconds * 1000;
  }

  /** True the first time `nonce` is offered; false for a replay. */
  firstUse(nonce: string, nowMs: number = Date.now()): boolean {
    if (nowMs - this.swappedAt >= this.windowMs) {
      // Two windows passed: nothing remembered can still be valid.
      this.previous = nowMs - this.swappedAt >= 2 * this.windowMs ? new Set() : this.current;
      this.current = new Set();
      this.swappedAt = nowMs;
    }
    if (this.current.has(nonce) || this.previous.has(nonce)) return false;
    this.current.add(nonce);
    return true;
  }
}

/** The process's replay guard (every service verifies through `identityOf`). */
export const replayGuard = new ReplayGuard();

const CHECKED = Symbol('rdm.identity');
type Checked = IncomingMessage & { [CHECKED]?: Identity | IdentityRefusal };

/** The binding of a request as a service receives it. */
export function bindingOf(req: IncomingMessage): IdentityBinding {
  const rid = req.headers['x-request-id'];
  return { method: req.method ?? '', target: req.url ?? '', requestId: typeof rid === 'string' ? rid : '' };
}

/**
 * The identity of a request a service received: anonymous without a header, the verified
 * identity, or why the header is refused. Checked once per request (the result is kept on the
 * request, so a second look — a fast path handing over to koa — is not taken for a replay).
 */
export function identityOf(req: IncomingMessage, secret: string, guard: ReplayGuard = replayGuard): Identity | IdentityRefusal {
  const r = req as Checked;
  const known = r[CHECKED];
  if (known !== undefined) return known;
  const header = req.headers[IDENTITY_HEADER];
  let result: Identity | IdentityRefusal;
  if (header === undefined || header === '') result = ANONYMOUS;
  else if (typeof header !== 'string') result = 'malformed';
  else {
    const check = verifyIdentity(header, secret, bindingOf(req));
    if ('refused' in check) result = check.refused;
    else result = guard.firstUse(check.nonce) ? check.identity : 'replayed';
  }
  r[CHECKED] = result;
  return result;
}

/** Messages of the 401 a refused header gets. */
export const IDENTITY_REFUSAL_MESSAGES: Record<IdentityRefusal, string> = {
  malformed: 'Invalid identity signature.',
  signature: 'Invalid identity signature.',
  expired: 'Identity expired.',
  unbound: 'Identity not issued for this request.',
  replayed: 'Identity already used.',
};

/** True for an authenticated user (not anonymous). */
export const isAuthenticated = (i: Identity) => i.sub !== null;
/** True for administrators. */
export const isAdmin = (i: Identity) => i.roles.includes('admin');
/** True for the system identity. */
export const isSystem = (i: Identity) => i.roles.includes('system');
