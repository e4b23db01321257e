import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddress } from './client-address.js';

/** A request as a service receives it behind the gateway: the socket peer is the gateway. */
const req = (xff?: string) =>
  ({ headers: xff ? { 'x-forwarded-for': xff } : {}, socket: { remoteAddress: '10.0.0.5' } }) as unknown as IncomingMessage;

describe(clientAddress.name, () => {
  it('should take the signed clientIp, never a client-written X-Forwarded-For', () => {
    expect(clientAddress({ clientIp: '203.0.113.9' }, req('198.51.100.1, 203.0.113.9'))).toBe('203.0.113.9');
    expect(clientAddress({ clientIp: '203.0.113.9' }, req('192.0.2.77'))).toBe('203.0.113.9');
  });

  it('should fall back to the socket peer when the identity carries no address', () => {
    expect(clientAddress({}, req('192.0.2.77'))).toBe('10.0.0.5');
    expect(clientAddress(undefined, req())).toBe('10.0.0.5');
    expect(clientAddress({ clientIp: '' }, req('192.0.2.77'))).toBe('10.0.0.5');
  });
});
