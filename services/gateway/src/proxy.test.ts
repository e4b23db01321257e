import { describe, expect, it } from 'vitest';
import { type ForwardedInfo, hasRequestBody, parseUpstream, upstreamRequestHeaders } from './proxy.js';

const info = { requestId: 'rid-1', forwardedFor: '10.0.0.9', proto: 'https', host: 'repo.example.org' };

/** A flat `[name, value, …]` list as a record (every name once). */
function record(list: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < list.length; i += 2) {
    const k = String(list[i]);
    expect(out, `${k} appears once`).not.toHaveProperty(k);
    out[k] = list[i + 1];
  }
  return out;
}
const upstreamHeaders = (h: Parameters<typeof upstreamRequestHeaders>[0], i: ForwardedInfo) => record(upstreamRequestHeaders(h, i));

describe(upstreamRequestHeaders.name, () => {
  it('should strip hop-by-hop headers, framing, credentials, the client identity header and headers named by Connection', () => {
    const out = upstreamHeaders(
      {
        host: 'repo.example.org',
        connection: 'keep-alive, x-secret-hop',
        'keep-alive': 'timeout=5',
        'proxy-authorization': 'Basic x',
        'proxy-anything': 'x',
        te: 'trailers',
        upgrade: 'websocket',
        'http2-settings': 'AAMAAABkAAQCAAAAAAIAAAAA',
        expect: '100-continue',
        'x-secret-hop': '1',
        'x-rdm-identity': 'forged.signature',
        accept: 'application/json',
        'content-type': 'application/json',
        'content-length': '2',
        'transfer-encoding': 'chunked',
        authorization: 'Bearer abc',
        cookie: 'session=1',
        forwarded: 'for=1.2.3.4',
      },
      info,
    );
    expect(out).toEqual({
      accept: 'application/json',
      'content-type': 'application/json',
      'x-request-id': 'rid-1',
      'x-forwarded-for': '10.0.0.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'repo.example.org',
    });
  });

  it("should let Connection remove a client's header, never one the gateway sets, nor keep framing or credentials", () => {
    const named = 'content-length, transfer-encoding, host, authorization, x-rdm-identity, x-request-id, x-forwarded-for, accept';
    const out = upstreamHeaders(
      {
        connection: named,
        'content-length': '5',
        authorization: 'Bearer abc',
        'x-request-id': 'client-rid',
        'x-forwarded-for': '6.6.6.6',
        accept: 'a/b',
        'user-agent': 'ua',
      },
      { ...info, identityHeader: 'payload.sig' },
    );
    expect(out).toEqual({
      'user-agent': 'ua',
      'x-request-id': 'rid-1',
      'x-forwarded-for': '10.0.0.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'repo.example.org',
      'x-rdm-identity': 'payload.sig',
    });
  });

  it('should add the signed identity when given, and send the forwarded-for chain it is given', () => {
    const out = upstreamHeaders(
      { 'x-forwarded-for': '1.2.3.4' },
      { ...info, forwardedFor: '5.6.7.8, 10.0.0.9', identityHeader: 'payload.sig' },
    );
    expect(out['x-rdm-identity']).toBe('payload.sig');
    expect(out['x-forwarded-for']).toBe('5.6.7.8, 10.0.0.9');
  });

  it('should pass a client traceparent through', () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(upstreamHeaders({ traceparent: tp }, info).traceparent).toBe(tp);
  });
});

describe(hasRequestBody.name, () => {
  it('should detect bodies by length or transfer encoding', () => {
    expect(hasRequestBody({})).toBe(false);
    expect(hasRequestBody({ 'content-length': '0' })).toBe(false);
    expect(hasRequestBody({ 'content-length': '5' })).toBe(true);
    expect(hasRequestBody({ 'transfer-encoding': 'chunked' })).toBe(true);
  });
});

describe(parseUpstream.name, () => {
  it('should parse http base URLs and refuse others', () => {
    expect(parseUpstream('users', 'http://127.0.0.1:5101')).toEqual({
      name: 'users',
      hostname: '127.0.0.1',
      port: 5101,
      origin: 'http://127.0.0.1:5101',
    });
    expect(() => parseUpstream('users', 'https://x')).toThrow();
  });
});
