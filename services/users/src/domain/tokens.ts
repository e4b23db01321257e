/**
 * Personal access tokens: 256 random bits, base64url (43 characters). Only the sha256 hex digest
 * is stored; the clear token is shown once, by the CLI that issues it.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Longest string accepted as a token candidate (anything longer is not ours). */
export const MAX_TOKEN_LENGTH = 512;

/** sha256 hex digest of a clear token: the only form stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh token and its hash. */
export function generateToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

/** True when `s` may be a token (a non-empty string of sane length without whitespace). */
export function isTokenCandidate(s: unknown): s is string {
  return typeof s === 'string' && s.length > 0 && s.length <= MAX_TOKEN_LENGTH && !/\s/.test(s);
}
