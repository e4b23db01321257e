/**
 * The resolution of a presented secret-link token (`?token=` on HTTP, `access_token` of the
 * authorize-files RPC) into the caller's identity: the identity gains the live links of the token.
 * Tokens are never stored; the table keeps sha256(token), found in one indexed look-up, on every
 * request (no cache: a deleted or expired link stops working at once). Bad, expired or revoked
 * tokens are silently ignored, as in InvenioRDM.
 *
 * When to use: wherever a request may carry a token (the HTTP middleware in
 * `http/access.routes.ts`, the files component's `authorize`); links themselves are managed by
 * access/access-links.service.ts.
 */
import { createHash } from 'node:crypto';
import type { Identity, Knex } from '@rdm/platform';
import * as repo from '../repo/access.repo.js';
import type { LinkGrant, LinkIdentity } from './records.policy.js';

/** The longest token looked up (longer ones are ignored). */
export const MAX_TOKEN = 256;

/** sha256 of a token (what the table stores). */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('base64url');

/**
 * The identity with the live links of `token` added (`links`, `linkToken`), or `identity` itself
 * when there is no token or it names no live link.
 */
export async function withLinkToken(db: Knex, identity: Identity, token: string | undefined): Promise<Identity> {
  if (!token || token.length > MAX_TOKEN) return identity;
  const found = await repo.liveLinkByHash(db, tokenHash(token));
  if (!found) return identity;
  const grant: LinkGrant = { parentId: found.parent_id, permission: found.permission };
  const prior = (identity as LinkIdentity).links ?? [];
  return { ...identity, linkToken: token, links: [...prior, grant] } as LinkIdentity;
}
