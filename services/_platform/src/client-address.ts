/**
 * The client's address inside a service: the one the gateway established and signed into the
 * identity (`clientIp`: trusted proxies applied there, once), else the socket's peer.
 *
 * When to use: every per-client limit and every visitor hash in a service. Never
 * `X-Forwarded-For` (nor koa's `ctx.ip`, which reads it when `app.proxy` is on): its first hop is
 * whatever the client wrote, so keying on it gives each request a budget of its own, and keying
 * on the last hop puts every client behind the gateway into one.
 */
import type { IncomingMessage } from 'node:http';
import type { Identity } from './identity.js';

/** The address to key per-client limits and visitor hashes on. */
export function clientAddress(identity: Pick<Identity, 'clientIp'> | undefined, req: IncomingMessage): string {
  const signed = identity?.clientIp;
  if (typeof signed === 'string' && signed !== '') return signed;
  return req.socket?.remoteAddress ?? '';
}
