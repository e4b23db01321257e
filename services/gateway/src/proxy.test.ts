import { describe, expect, it } from 'vitest';
import { type ForwardedInfo, hasRequestBody, parseUpstream, requestHead, upstreamRequestHeaders } from './proxy.js';
import { BadResponse, parseResponseHead } from './upstream.js';

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

describe(requestHead.name, () => {
  it('should write the request line, one line per header (repeated names repeated) and the blank line', () => {
    expect(requestHead('GET', '/api/x?q=1', ['host', 'h:1', 'accept', 'a/b', 'x-multi', ['1', '2']])).toBe(
      'GET /api/x?q=1 HTTP/1.1\r\nhost: h:1\r\naccept: a/b\r\nx-multi: 1\r\nx-multi: 2\r\n\r\n',
    );
  });
});

describe(parseResponseHead.name, () => {
  const head = (lines: string[]) => lines.join('\r\n');

  it('should put the gateway headers first, then the end-to-end headers of the service only', () => {
    const got = parseResponseHead(
      head([
        'HTTP/1.1 200 OK',
        'Content-Type: application/json',
        'Content-Length: 12',
        'Connection: keep-alive, x-hop',
        'Keep-Alive: timeout=65',
        'x-hop: 1',
        'ETag:  "3" ',
        'Set-Cookie: a=1',
        'Set-Cookie: b=2',
        'X-Request-Id: svc',
      ]),
      ['X-Request-Id', 'gw', 'X-RateLimit-Limit', 500],
    );
    expect(got.status).toBe(200);
    expect(got.length).toBe(12);
    expect(got.keepAlive).toBe(true);
    expect(got.headers).toEqual([
      'X-Request-Id',
      'gw',
      'X-RateLimit-Limit',
      500,
      'content-type',
      'application/json',
      'content-length',
      '12',
      'etag',
      '"3"',
      'set-cookie',
      'a=1',
      'set-cookie',
      'b=2',
    ]);
  });

  it('should let chunked framing win over Content-Length and drop both framing headers', () => {
    const got = parseResponseHead(head(['HTTP/1.1 201 Created', 'Content-Length: 5', 'Transfer-Encoding: chunked']), []);
    expect(got).toEqual({ status: 201, headers: [], length: -1, chunked: true, keepAlive: true });
  });

  it('should end the connection after Connection: close, HTTP/1.0 without keep-alive, or a body to the close', () => {
    expect(parseResponseHead(head(['HTTP/1.1 200 OK', 'Connection: close']), []).keepAlive).toBe(false);
    expect(parseResponseHead(head(['HTTP/1.0 200 OK']), []).keepAlive).toBe(false);
    expect(parseResponseHead(head(['HTTP/1.0 200 OK', 'Connection: keep-alive']), []).keepAlive).toBe(true);
    expect(parseResponseHead(head(['HTTP/1.1 200 OK', 'Transfer-Encoding: gzip']), []).keepAlive).toBe(false);
  });

  it('should refuse malformed heads', () => {
    for (const bad of [
      'HTTP/2 200 OK',
      'HTTP/1.1 20 OK',
      'ICY 200 OK',
      head(['HTTP/1.1 200 OK', 'no colon']),
      head(['HTTP/1.1 200 OK', ': empty name']),
      head(['HTTP/1.1 200 OK', 'a: 1', ' folded']),
      head(['HTTP/1.1 200 OK', 'Content-Length: 1x']),
      head(['HTTP/1.1 200 OK', 'Content-Length: 1', 'Content-Length: 2']),
    ])
      expect(() => parseResponseHead(bad, []), bad).toThrow(BadResponse);
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
