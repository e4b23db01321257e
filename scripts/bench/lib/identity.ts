/**
 * Benches that call a service directly play the gateway's part: every request carries an identity
 * signed for exactly that request (method, target, request id), as services accept only such
 * headers, each once (services/_platform/src/identity.ts).
 */
import { randomUUID } from 'node:crypto';
import { type Identity, signIdentity } from '../../../services/_platform/src/identity.js';

/** `x-request-id` and `x-rdm-identity` of one request of `identity` (none for undefined). */
export function signedHeaders(identity: Identity | undefined, secret: string, method: string, target: string): Record<string, string> {
  if (identity === undefined) return {};
  const requestId = randomUUID();
  return { 'x-request-id': requestId, 'x-rdm-identity': signIdentity(identity, secret, { method, target, requestId }) };
}

/** autocannon's `requests` entry that signs each request it sends (undefined for anonymous). */
export function autocannonSigner(identity: Identity | undefined, secret: string, path: string) {
  if (identity === undefined) return undefined;
  return [
    {
      setupRequest: (req: { method?: string; path?: string; headers?: Record<string, string> }) => {
        req.headers = { ...(req.headers ?? {}), ...signedHeaders(identity, secret, req.method ?? 'GET', req.path ?? path) };
        return req;
      },
    },
  ];
}
