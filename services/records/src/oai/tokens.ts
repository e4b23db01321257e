/**
 * Stateless OAI-PMH resumption tokens: the harvest's arguments and keyset position, signed with
 * HMAC-SHA256 (key derived from IDENTITY_SECRET), base64url. Nothing is stored, so a token survives
 * restarts and works on any replica; it is valid for `OAI_TOKEN_TTL_SECONDS` (24 h) after issue,
 * stated in the `expirationDate` attribute. Keyset positions also make a harvest see each record once
 * even while others are published (a record updated mid-harvest moves behind the cursor and is seen
 * again at its new datestamp, as OAI-PMH's incremental harvesting expects).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a resumption token stays valid. */
export const OAI_TOKEN_TTL_SECONDS = 24 * 60 * 60;

/** What a token carries. */
export interface TokenState {
  /** Verb the token continues (ListRecords / ListIdentifiers). */
  verb: string;
  metadataPrefix: string;
  set?: string;
  from?: string;
  until?: string;
  /** Keyset position: the last item's cursor and id. */
  after: { cursor: string; id: string };
  /** Items already returned before the next page (`cursor` attribute). */
  offset: number;
  /** completeListSize computed on the first page. */
  total: number;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

const mac = (payload: string, secret: string) => createHmac('sha256', `oai-resumption-token:${secret}`).update(payload).digest();

/** Sign a token. */
export function encodeToken(state: TokenState, secret: string): string {
  const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${payload}.${mac(payload, secret).toString('base64url')}`;
}

/** Verify and decode a token; undefined when forged, malformed or expired. */
export function decodeToken(token: string, secret: string, now = Date.now()): TokenState | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > 4096) return undefined;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(payload, secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const s = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenState;
    if (typeof s?.exp !== 'number' || s.exp * 1000 < now) return undefined;
    if (typeof s.after?.cursor !== 'string' || typeof s.after?.id !== 'string' || typeof s.metadataPrefix !== 'string') return undefined;
    return s;
  } catch {
    return undefined;
  }
}
