import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyIdentity } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, queryOf } from './api-client.js';

const SECRET = 'test-secret-of-at-least-32-characters!!';

describe(ApiClient.name, () => {
  let server: Server;
  let base: string;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url as string, headers: req.headers });
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("should call as the visitor: the gateway's identity signed again for this call, the visitor's user agent, the request id", async () => {
    const api = new ApiClient(
      { records: base, files: base, communities: base },
      SECRET,
      { sub: '7', roles: ['admin'], clientIp: '203.0.113.9', linkToken: 'never-forwarded' },
      'req-1',
      2000,
      'Mozilla/5.0 (visitor)',
    );
    const res = await api.get('records', '/api/records/abc?token=t');
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    const call = seen.at(-1) as { url: string; headers: IncomingHttpHeaders };
    expect(call.url).toBe('/api/records/abc?token=t');
    expect(call.headers['user-agent']).toBe('Mozilla/5.0 (visitor)');
    expect(call.headers['x-request-id']).toBe('req-1');
    const check = verifyIdentity(call.headers['x-rdm-identity'] as string, SECRET, {
      method: 'GET',
      target: '/api/records/abc?token=t',
      requestId: 'req-1',
    });
    expect(check).toMatchObject({ identity: { sub: '7', roles: ['admin'], clientIp: '203.0.113.9' } });
    expect((check as { identity: { linkToken?: string } }).identity.linkToken).toBeUndefined();
  });

  it('should send If-None-Match for a conditional read and hand back its headers', async () => {
    const api = new ApiClient({ records: base, files: base, communities: base }, SECRET, { sub: null, roles: [] }, 'req-2', 2000);
    const res = await api.get('records', '/api/records/abc', { ifNoneMatch: '"3"' });
    expect(seen.at(-1)?.headers['if-none-match']).toBe('"3"');
    expect(res.headers.get('Content-Type')).toBe('application/json');
    await api.get('records', '/api/records/abc');
    expect(seen.at(-1)?.headers['if-none-match']).toBeUndefined();
  });

  it('should answer 503 when the service cannot be reached', async () => {
    const api = new ApiClient(
      { records: 'http://127.0.0.1:1', files: base, communities: base },
      SECRET,
      { sub: null, roles: [] },
      'r',
      2000,
    );
    await expect(api.get('records', '/api/records/x')).rejects.toMatchObject({ status: 503 });
  });
});

describe(queryOf.name, () => {
  it('should leave out unset values and repeat list values', () => {
    expect(queryOf({ q: 'a b', page: 2, token: undefined, f: ['x', 'y'], e: '' })).toBe('?q=a+b&page=2&f=x&f=y');
    expect(queryOf({})).toBe('');
  });
});
