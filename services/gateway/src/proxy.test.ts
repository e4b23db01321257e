import { describe, expect, it } from 'vitest';
import { type ForwardedInfo, hasRequestBody, parseUpstream, responseHeaders, upstreamRequestHeaders } from './proxy.js';

const info = { requestId: 'rid-1', remoteAddress: '10.0.0.9', proto: 'https', host: 'repo.example.org', trustProxy: false };

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
  it('should strip hop-by-hop headers, the client identity header and headers named by Connection', () => {
    const out = upstreamHeaders(
      {
        host: 'repo.example.org',
        connection: 'keep-alive, x-secret-hop',
        'keep-alive': 'timeout=5',
        'proxy-authorization': 'Basic x',
        te: 'trailers',
        upgrade: 'websocket',
        expect: '100-continue',
        'x-secret-hop': '1',
        'x-rdm-identity': 'forged.signature',
        accept: 'application/json',
        'content-type': 'application/json',
        'content-length': '2',
        authorization: 'Bearer abc',
      },
      info,
    );
    expect(out).toEqual({
      accept: 'application/json',
      'content-type': 'application/json',
      'content-length': '2',
      authorization: 'Bearer abc',
      'x-request-id': 'rid-1',
      'x-forwarded-for': '10.0.0.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'repo.example.org',
    });
  });

  it('should add the signed identity when given and keep chunked framing of a streamed body', () => {
    const out = upstreamHeaders({ 'transfer-encoding': 'chunked' }, { ...info, identityHeader: 'payload.sig' });
    expect(out['x-rdm-identity']).toBe('payload.sig');
    expect(out['transfer-encoding']).toBe('chunked');
  });

  it('should replace a client X-Forwarded-For unless the previous hop is trusted', () => {
    expect(upstreamHeaders({ 'x-forwarded-for': '1.2.3.4' }, info)['x-forwarded-for']).toBe('10.0.0.9');
    expect(upstreamHeaders({ 'x-forwarded-for': '1.2.3.4' }, { ...info, trustProxy: true })['x-forwarded-for']).toBe('1.2.3.4, 10.0.0.9');
  });

  it('should pass a client traceparent through', () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(upstreamHeaders({ traceparent: tp }, info).traceparent).toBe(tp);
  });

  it('should send the service its own Host, and frame a bodiless POST with Content-Length: 0', () => {
    const out = upstreamHeaders({ host: 'repo.example.org' }, { ...info, upstreamHost: '127.0.0.1:5103', emptyBody: true });
    expect(out.host).toBe('127.0.0.1:5103');
    expect(out['content-length']).toBe('0');
    expect(upstreamRequestHeaders({}, { ...info, upstreamHost: 'h:1' }).slice(0, 2)).toEqual(['host', 'h:1']);
  });
});

describe(responseHeaders.name, () => {
  it('should put the gateway headers first, then the end-to-end headers of the service only', () => {
    const got = responseHeaders(
      {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
        connection: 'keep-alive',
        'keep-alive': 'timeout=65',
        etag: '"3"',
        'set-cookie': ['a=1', 'b=2'],
        'x-request-id': 'svc',
      },
      ['X-Request-Id', 'gw', 'X-RateLimit-Limit', 500],
    );
    expect(got.slice(0, 4)).toEqual(['X-Request-Id', 'gw', 'X-RateLimit-Limit', 500]);
    expect(record(got.slice(4))).toEqual({ 'content-type': 'application/json', etag: '"3"', 'set-cookie': ['a=1', 'b=2'] });
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
      hostHeader: '127.0.0.1:5101',
    });
    expect(() => parseUpstream('users', 'https://x')).toThrow();
  });
});
