/**
 * The signed identity header the gateway forwards to services.
 *
 * The gateway authenticates the caller and sends `x-rdm-identity`; services trust only a header
 * whose HMAC verifies with the shared `IDENTITY_SECRET`. A missing header is the anonymous
 * identity; a present but invalid one is refused (it means someone bypassed the gateway).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header carrying the signed identity. */
export const IDENTITY_HEADER = 'x-rdm-identity';

/** Who is calling: a user id (null for anonymous) and roles (`admin`, `system`). */
export interface Identity {
  sub: string | null;
  roles: string[];
  /** Secret access-link token presented with the request, when any. */
  linkToken?: string;
}

/** The anonymous caller. */
export const ANONYMOUS: Identity = Object.freeze({ sub: null, roles: [] }) as Identity;
/** The system itself (event consumers, CLIs). */
export const SYSTEM: Identity = Object.freeze({ sub: 'system', roles: ['system'] }) as Identity;

const b64 = (s: Buffer | string) => Buffer.from(s).toString('base64url');
const mac = (payload: string, secret: string) => createHmac('sha256', secret).update(payload).digest();

/** Sign an identity into a header value. */
export function signIdentity(identity: Identity, secret: string): string {
  const payload = b64(JSON.stringify({ sub: identity.sub, roles: identity.roles, iat: Math.floor(Date.now() / 1000) }));
  return `${payload}.${b64(mac(payload, secret))}`;
}

/** Verify a header value; returns null when the signature or payload is bad. */
export function verifyIdentity(value: string, secret: string): Identity | null {
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const payload = value.slice(0, dot);
  const sig = Buffer.from(value.slice(dot + 1), 'base64url');
  const expected = mac(payload, secret);
  if (sig.length !== expected.length || !timingSafeEqual(sig, expected)) return null;
  try {
    const obj = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown; roles?: unknown };
    const sub = typeof obj.sub === 'string' ? obj.sub : null;
    const roles = Array.isArray(obj.roles) ? obj.roles.filter((r): r is string => typeof r === 'string') : [];
    return { sub, roles };
  } catch {
    return null;
  }
}

/** True for an authenticated user (not anonymous). */
export const isAuthenticated = (i: Identity) => i.sub !== null;
/** True for administrators. */
export const isAdmin = (i: Identity) => i.roles.includes('admin');
/** True for the system identity. */
export const isSystem = (i: Identity) => i.roles.includes('system');
